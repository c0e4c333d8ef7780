#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""child_syscalls.py: a job's child, system call by system call (issue 22 point 1).

Runs sh -c 'for i in $(seq N); do /bin/true; done' under perf record of the
raw_syscalls tracepoints, with the environment given, and prints, for the
children whose calls came in the most common sequence, each call's median
time in the kernel and the median time before it (the child's own code and
its page faults). Each tracepoint costs about 0.6 us here, so a call's time
is an upper bound; compare calls with each other and with the bare child's,
not with perchild.py's totals. A benchmark: it prints, it asserts nothing.

Usage: child_syscalls.py PERF N [VAR=VALUE...]   (root: tracepoints)
"""
import collections
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile


def syscall_names():
    names = {}
    for header in ("/usr/include/x86_64-linux-gnu/asm/unistd_64.h",
                   "/usr/include/asm-generic/unistd.h"):
        if os.path.exists(header):
            for line in open(header):
                m = re.match(r"#define __NR_(\w+)\s+(\d+)", line)
                if m:
                    names.setdefault(int(m.group(2)), m.group(1))
            break
    return names


def main():
    perf, n = sys.argv[1], int(sys.argv[2])
    true = shutil.which("true") or "/bin/true"
    env = dict(os.environ, **dict(a.split("=", 1) for a in sys.argv[3:]))
    work = tempfile.mkdtemp(prefix="pfshim-syscalls.")
    data = os.path.join(work, "perf.data")
    subprocess.run([perf, "record", "-q", "-e", "raw_syscalls:sys_enter,raw_syscalls:sys_exit",
                    "-o", data, "--", "sh", "-c", "for i in $(seq %d); do %s; done" % (n, true)],
                   env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    script = subprocess.run([perf, "script", "-i", data, "--ns", "--comm", os.path.basename(true),
                             "-F", "tid,time,event,trace"], capture_output=True, text=True,
                            check=True).stdout
    shutil.rmtree(work)
    names = syscall_names()
    calls, entered = collections.defaultdict(list), {}
    for line in script.splitlines():
        m = re.match(r"\s*(\d+)\s+([\d.]+):\s+raw_syscalls:sys_(enter|exit): NR (\d+)", line)
        if not m:
            continue
        tid, t, nr = int(m.group(1)), float(m.group(2)), int(m.group(4))
        if m.group(3) == "enter":
            entered[tid] = (t, nr)
        elif tid in entered:
            t0, nr0 = entered.pop(tid)
            calls[tid].append((names.get(nr0, str(nr0)), t0, t))
    shape = collections.Counter(tuple(c[0] for c in seq) for seq in calls.values())
    if not shape:
        sys.exit("child_syscalls.py: no child traced (perf record of tracepoints needs root)")
    common = shape.most_common(1)[0][0]
    same = [seq for seq in calls.values() if tuple(c[0] for c in seq) == common]
    print("%d of %d children in the most common sequence of %d system calls; us, medians"
          % (len(same), len(calls), len(common)))
    total_in = total_before = 0.0
    for i, name in enumerate(common):
        inside = statistics.median((s[i][2] - s[i][1]) * 1e6 for s in same)
        before = statistics.median((s[i][1] - s[i - 1][2]) * 1e6 for s in same) if i else 0.0
        total_in += inside
        total_before += before
        print("%3d %-18s in the kernel %7.1f   before it %7.1f" % (i, name, inside, before))
    print("in system calls %.1f us, between them %.1f us (the exec's own time not included)"
          % (total_in, total_before))


if __name__ == "__main__":
    main()
