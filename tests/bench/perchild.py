#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""perchild.py: what a job's child process costs (issue 22 point 1), side by side.

A fork-heavy job, sh -c 'for i in $(seq N); do /bin/true; done', and a lone
/bin/true (LONE runs a round), under each variant, the variants alternated
round by round so that the machine's drift touches each alike. The measure is
the CPU of the whole tree (user + system, RUSAGE_CHILDREN of this script:
every process the loop made, waited for). Per variant, the median over the
rounds; per child, that median less the bare one, divided by N.

Variants: bare; pfshim with the default settings (PFSHIM_OUTPUT unset: each
/bin/true a descendant whose report is a file in the job directory); the
peer, perf stat -e with pfshim's 8 default events; the floor, a preload that
counts 4 software events with one read and one write (floor.c); as context,
pfshim with PFSHIM_OUTPUT=/dev/null and with PFSHIM_DISABLE=1, and with
PERCHILD_BEFORE=/path/libpfshim.so another build of the shim (a before and
after in the same minutes). The job directories go to a private tmpfs
directory, emptied after each run (outside the measure). A benchmark: it
prints, it asserts nothing (docs/performance.md).

Usage: perchild.py BUILD PERF FLOOR_LIB [ROUNDS [N [LONE]]]
"""
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile

EVENTS = ("task-clock,context-switches,cpu-migrations,page-faults,"
          "cycles,instructions,branches,branch-misses")


def cpu_of(argv, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    build, perf, floor = os.path.abspath(sys.argv[1]), sys.argv[2], os.path.abspath(sys.argv[3])
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 11
    n = int(sys.argv[5]) if len(sys.argv) > 5 else 300
    lone = int(sys.argv[6]) if len(sys.argv) > 6 else 200
    true = shutil.which("true") or "/bin/true"
    if not true.startswith("/"):
        true = "/bin/true"
    runtime = tempfile.mkdtemp(prefix="pfshim-perchild.", dir="/dev/shm"
                               if os.path.isdir("/dev/shm") else None)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("PFSHIM_") and k != "LD_PRELOAD"}
    env["XDG_RUNTIME_DIR"] = runtime
    lib = os.path.join(build, "libpfshim.so")
    loop = "for i in $(seq %d); do %s; done" % (n, true)
    variants = [
        ("bare", [], env),
        ("pfshim, default (job directory)", [], dict(env, LD_PRELOAD=lib)),
        ("peer: perf stat -e (same 8)", [perf, "stat", "-e", EVENTS], env),
        ("floor: 4 sw events, 1 read, 1 write", [], dict(env, LD_PRELOAD=floor)),
        ("context: PFSHIM_OUTPUT=/dev/null", [],
         dict(env, LD_PRELOAD=lib, PFSHIM_OUTPUT="/dev/null")),
        ("context: PFSHIM_DISABLE=1", [], dict(env, LD_PRELOAD=lib, PFSHIM_DISABLE="1")),
    ]
    before = os.environ.get("PERCHILD_BEFORE")
    if before:
        variants.insert(2, ("before: " + before, [], dict(env, LD_PRELOAD=before)))
    tree = {name: [] for name, _, _ in variants}
    alone = {name: [] for name, _, _ in variants}
    for _ in range(rounds):
        for name, prefix, venv in variants:
            tree[name].append(cpu_of(prefix + ["sh", "-c", loop], venv))
            shutil.rmtree(runtime)
            os.mkdir(runtime, 0o700)
            total = 0.0
            for _ in range(lone):
                total += cpu_of(prefix + [true], venv)
            alone[name].append(total / lone)
            shutil.rmtree(runtime)
            os.mkdir(runtime, 0o700)
    os.rmdir(runtime)
    bare_tree = statistics.median(tree["bare"])
    bare_alone = statistics.median(alone["bare"])
    print("sh -c 'for i in $(seq %d); do %s; done', CPU of the tree; %s alone, %d runs a round;"
          % (n, true, true, lone))
    print("medians of %d alternated rounds; load average now %s"
          % (rounds, " ".join(open("/proc/loadavg").read().split()[:3])))
    print("%-44s %9s %11s %15s %9s %11s" % ("variant", "tree ms", "+ms a child",
                                              "(quartiles)", "alone ms", "+ms alone"))
    for name, _, _ in variants:
        t = statistics.median(tree[name])
        a = statistics.median(alone[name])
        q = statistics.quantiles([(x - bare_tree) * 1e3 / n for x in tree[name]], n=4) \
            if rounds > 1 else [0, 0, 0]
        print("%-44s %9.1f %11.3f %7.3f-%-7.3f %9.3f %11.3f"
              % (name, t * 1e3, (t - bare_tree) * 1e3 / n, q[0], q[2], a * 1e3,
                 (a - bare_alone) * 1e3))
    shim = (statistics.median(tree["pfshim, default (job directory)"]) - bare_tree) / n
    peer = (statistics.median(tree["peer: perf stat -e (same 8)"]) - bare_tree) / n
    flo = (statistics.median(tree["floor: 4 sw events, 1 read, 1 write"]) - bare_tree) / n
    print("goal (issue 22 point 1): at most +0.150 ms a child and no more than perf stat: "
          "pfshim +%.3f, perf stat +%.3f, floor +%.3f" % (shim * 1e3, peer * 1e3, flo * 1e3))


if __name__ == "__main__":
    main()
