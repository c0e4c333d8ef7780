# SPDX-License-Identifier: MIT
"""job.py: a whole job under pfshim run, perf stat and nothing, side by side.

A real autoconf configure (made here from a small configure.ac by Debian's
autoconf: ~300 processes), run RUNS times per variant, the variants
alternated so that the machine's drift touches each alike. Per variant: the
median wall time and CPU time of the whole tree (the runner's included:
RUSAGE_CHILDREN of this script), and each as a ratio to the bare job; then
pfshim's own share as pfshim run's summary says it, and the job's totals less
that share over perf stat's of the bare job (the same tree, alternated), with
the range that holds the median ratio (the sign test's interval over the
rounds) and the same figures for perf stat of the bare job against itself
(a second run in each round): what this machine can resolve at all. A goal
line says met, not met, or undecided where that range straddles the goal.
A benchmark: it prints, it asserts nothing (docs/performance.md).

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


def median_interval(values):
    """The median and the order statistics around it that hold the population's median
    with at least 90 % confidence (sign test, binomial with p = 1/2): (low, median, high).
    With fewer than 5 values no interval reaches 90 %: the extremes are given."""
    xs = sorted(values)
    n = len(xs)
    k, tail, term = 0, 0.0, 0.5 ** n
    # k: how many values may lie beyond the interval on each side.
    while True:
        if tail + term > 0.05:
            break
        tail += term
        k += 1
        term = term * (n - k + 1) / k
    k = max(k, 1)
    return xs[k - 1], statistics.median(xs), xs[n - k]


def goal_line(event, ratios, within):
    low, mid, high = median_interval(ratios)
    if 1 - within <= low and high <= 1 + within:
        verdict = "MET"
    elif high < 1 - within or low > 1 + within:
        verdict = "NOT MET"
    else:
        verdict = "UNDECIDED here (the interval straddles the goal)"
    print("goal: %s less the share within %g %% of perf stat bare: %s (median %.3f, %.3f..%.3f)"
          % (event, within * 100, verdict, mid, low, high))


def rotate(interval):
    """(low, median, high) as (median, low, high), the order the lines print."""
    return interval[1], interval[0], interval[2]


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
        ("perf stat -e (4 sw), again", [perf, "stat", "-x,", "-o", perf_out, "-e", EVENTS,
                                        "./configure", "-q"], env),
        ("pfshim run -e (4 sw)", [os.path.join(build, "pfshim"), "run", "-e", EVENTS, "-o", None,
                                  "--", "./configure", "-q"], env),
        ("context: LD_PRELOAD, reports to a dir", ["./configure", "-q"], shim_env),
    ]
    results = {name: ([], []) for name, _, _ in variants}
    bare_counts, again_counts, shares, less, calibration_ms = [], [], [], [], []
    # One round first, not counted: the first configure reads its programs from disk.
    for name, argv, venv in variants:
        if None in argv:
            argv = [os.path.join(work, "warm") if a is None else a for a in argv]
        elif name.startswith("context"):
            os.makedirs(os.path.join(work, "warm-out"))
            venv = dict(venv, PFSHIM_OUTPUT=os.path.join(work, "warm-out") + "/")
        timed(argv, work, venv)
    for i in range(runs):
        # The starting variant rotates, so that no variant always follows the same one.
        for name, argv, venv in variants[i % len(variants):] + variants[:i % len(variants)]:
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
            if name.endswith("again"):
                again_counts.append(perf_counts(perf_out))
            elif name.startswith("perf stat"):
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
    print("pfshim's own share (pfshim run's summary; medians; its calibration, cached since"
          " the first run, took %.0f ms once):" % statistics.median(calibration_ms))
    print("ratios: per round, median and the 90 %% interval of the median over %d rounds" % runs)
    for event in ("page-faults", "task-clock", "context-switches", "cpu-migrations"):
        share = [s.get(event) for s in shares]
        if None in share:
            print("  %-17s share not measured" % event)
            continue
        ratios = [l[event] / b[event] for l, b in zip(less, bare_counts) if b.get(event)]
        again = [a[event] / b[event] for a, b in zip(again_counts, bare_counts) if b.get(event)]
        if not ratios or not again:
            print("  %-17s not counted" % event)
            continue
        print("  %-17s share %14.0f; totals less share / perf stat bare: %.3f (%.3f..%.3f);"
              " perf stat bare / itself: %.3f (%.3f..%.3f)"
              % ((event, statistics.median(share)) + rotate(median_interval(ratios))
                 + rotate(median_interval(again))))
    for event, within in (("page-faults", 0.02), ("task-clock", 0.05)):
        ratios = [l[event] / b[event] for l, b in zip(less, bare_counts)
                  if b.get(event) and event in l]
        if ratios:
            goal_line(event, ratios, within)
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
