#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""job.py: a whole job under pfshim run, perf stat and nothing, side by side.

A real autoconf configure (made here from a small configure.ac by Debian's
autoconf: ~300 processes), run RUNS times per variant, the variants
alternated so that the machine's drift touches each alike. Per variant: the
median wall time and CPU time of the whole tree (the runner's included:
RUSAGE_CHILDREN of this script), and each as a ratio to the bare job; then
pfshim's own share as pfshim run's summary says it, and the job's totals less
that share over perf stat's of the bare job (the same tree, alternated). A
benchmark: it prints, it asserts nothing (docs/performance.md).

Usage: job.py BUILD PERF [RUNS]
"""
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

CONFIGURE_AC = """AC_INIT([demo], [1.0])
AC_PROG_CC
AC_CHECK_HEADERS([stdlib.h string.h unistd.h sys/mman.h])
AC_CHECK_FUNCS([mmap strdup])
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
"""
EVENTS = "task-clock,page-faults,context-switches,cpu-migrations"


def timed(argv, cwd, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def perf_counts(path):
    """perf stat -x, output: event -> count (task-clock in ns, as the summary's JSON has it)."""
    counts = {}
    with open(path) as f:
        for line in f:
            fields = line.strip().split(",")
            if len(fields) > 2 and fields[0] and fields[0][0].isdigit():
                value = float(fields[0])
                counts[fields[2]] = value * 1e6 if fields[2] == "task-clock" else value
    return counts


def job_share(build, job_dir):
    """pfshim report --json of a pfshim run directory: its share, its totals less it, and
    the calibration's wall time (ms)."""
    out = subprocess.run([os.path.join(build, "pfshim"), "report", "--json", job_dir],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True).stdout
    job = json.loads(out)["job"]
    with open(os.path.join(job_dir, "pfshim-job.jsonl")) as f:
        cal = json.loads(f.readline()).get("calibration") or {}
    share = {e["name"]: e["value"] for e in job["pfshim_share"]}
    rest = {e["name"]: e["value"] for e in job["less_pfshim_share"]}
    shutil.rmtree(job_dir)
    return share, rest, cal.get("cost_ns", 0) / 1e6


def main():
    build, perf = os.path.abspath(sys.argv[1]), sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    if not shutil.which("autoconf"):
        print("not run: no autoconf (apt-get install autoconf)")
        return
    work = tempfile.mkdtemp(prefix="pfshim-bench-job.")
    with open(os.path.join(work, "configure.ac"), "w") as f:
        f.write(CONFIGURE_AC)
    with open(os.path.join(work, "Makefile.in"), "w") as f:
        f.write("all:\n")
    subprocess.run(["autoconf"], cwd=work, check=True)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PFSHIM_") and k != "LD_PRELOAD"}
    lib = os.path.join(build, "libpfshim.so")
    shim_env = dict(env, LD_PRELOAD=lib, PFSHIM_FORMAT="json", PFSHIM_ON_FATAL="1",
                    PFSHIM_EVENTS=EVENTS)
    perf_out = os.path.join(work, "perf.csv")
    variants = [
        ("bare ./configure", ["./configure", "-q"], env),
        ("perf stat -e (4 sw)", [perf, "stat", "-x,", "-o", perf_out, "-e", EVENTS,
                                 "./configure", "-q"], env),
        ("pfshim run -e (4 sw)", [os.path.join(build, "pfshim"), "run", "-e", EVENTS, "-o", None,
                                  "--", "./configure", "-q"], env),
        ("context: LD_PRELOAD, reports to a dir", ["./configure", "-q"], shim_env),
    ]
    results = {name: ([], []) for name, _, _ in variants}
    bare_counts, shares, less, calibration_ms = [], [], [], []
    for i in range(runs):
        for name, argv, venv in variants:
            if name.startswith("context"):
                out = os.path.join(work, "out%d" % i)
                os.makedirs(out)
                venv = dict(venv, PFSHIM_OUTPUT=out + "/")
            if None in argv:
                job_dir = os.path.join(work, "job%d" % i)
                argv = [job_dir if a is None else a for a in argv]
            wall, cpu = timed(argv, work, venv)
            results[name][0].append(wall)
            results[name][1].append(cpu)
            if name.startswith("perf stat"):
                bare_counts.append(perf_counts(perf_out))
            elif name.startswith("pfshim run"):
                share, rest, cal = job_share(build, job_dir)
                shares.append(share)
                less.append(rest)
                calibration_ms.append(cal)
    bare_wall = statistics.median(results[variants[0][0]][0])
    bare_cpu = statistics.median(results[variants[0][0]][1])
    print("%-40s %10s %8s %10s %8s" % ("variant (%d runs each, alternated)" % runs,
                                         "wall ms", "x bare", "cpu ms", "x bare"))
    for name, _, _ in variants:
        wall = statistics.median(results[name][0])
        cpu = statistics.median(results[name][1])
        print("%-40s %10.1f %8.2f %10.1f %8.2f" % (name, wall * 1e3, wall / bare_wall,
                                                    cpu * 1e3, cpu / bare_cpu))
    pr = statistics.median(results["pfshim run -e (4 sw)"][1])
    ps = statistics.median(results["perf stat -e (4 sw)"][1])
    print("pfshim run's CPU over perf stat's on the same job: %.2fx" % (pr / ps))
    print("pfshim's own share (pfshim run's summary; medians; calibration %.0f ms per run):"
          % statistics.median(calibration_ms))
    for event in ("page-faults", "task-clock", "context-switches", "cpu-migrations"):
        share = [s.get(event) for s in shares]
        if None in share:
            print("  %-17s share not measured" % event)
            continue
        ratio = statistics.median([l[event] / b[event] for l, b in zip(less, bare_counts)
                                   if b.get(event)] or [0])
        print("  %-17s share %14.0f; totals less share / perf stat bare: %.3f"
              % (event, statistics.median(share), ratio))
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
