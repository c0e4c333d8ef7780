#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""job.py: a whole job under pfshim run, perf stat and nothing, side by side.

A real autoconf configure (made here from a small configure.ac by Debian's
autoconf: ~300 processes), run RUNS times per variant, the variants
alternated so that the machine's drift touches each alike. Per variant: the
median wall time and CPU time of the whole tree (the runner's included:
RUSAGE_CHILDREN of this script), and each as a ratio to the bare job. A
benchmark: it prints, it asserts nothing (docs/performance.md).

Usage: job.py BUILD PERF [RUNS]
"""
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
    variants = [
        ("bare ./configure", ["./configure", "-q"], env),
        ("perf stat -e (4 sw)", [perf, "stat", "-e", EVENTS, "./configure", "-q"], env),
        ("pfshim run -e (4 sw)", [os.path.join(build, "pfshim"), "run", "-e", EVENTS, "--",
                                  "./configure", "-q"], env),
        ("context: LD_PRELOAD, reports to a dir", ["./configure", "-q"], shim_env),
    ]
    results = {name: ([], []) for name, _, _ in variants}
    for i in range(runs):
        for name, argv, venv in variants:
            if name.startswith("context"):
                out = os.path.join(work, "out%d" % i)
                os.makedirs(out)
                venv = dict(venv, PFSHIM_OUTPUT=out + "/")
            wall, cpu = timed(argv, work, venv)
            results[name][0].append(wall)
            results[name][1].append(cpu)
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
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
