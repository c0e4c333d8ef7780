#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mutate.py: owned by tests/mutate/. The mutation run (`make mutate`,
`make mutate-sample`): each mutant of tests/mutate/mutants.txt applied alone
to a scratch copy of the tree, rebuilt, and run against the tests it names.

A mutant is a plausible bug; a test that fails on it "kills" it. One that
passes every named test "survives": a change to what a user sees that no
test notices (or, when its entry says `equivalent:`, no change at all).

Usage: mutate.py [--sample] [--only ID,ID] [--min PERCENT] [--keep DIR]
The scratch copy is the tree's files (tracked and untracked, not ignored, as they are in the working
tree, uncommitted changes included) copied to a temporary directory, built
once, and reused: each mutant's file is restored before the next.
Exit status: 0 when the score is at least --min and no mutant is stale or
fails to build (a stale mutant, whose fragment is no longer found exactly
once, is a bug of the list: it would otherwise mutate nothing, silently).
"""
import argparse
import filecmp
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TIMEOUT = int(os.environ.get("MUTATE_TIMEOUT", "180"))
KEYS = ("id", "file", "from", "to", "test", "build", "equivalent", "sample", "why")


def parse(path):
    """Blocks separated by blank lines; `key: value`; `#` lines are comments.
    A value continued on the next lines starts them with `| ` (kept, with \\n)."""
    mutants, cur, last = [], None, None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("#"):
                continue
            if not line.strip():
                if cur:
                    mutants.append(cur)
                cur, last = None, None
                continue
            if line.startswith("| ") or line == "|":
                if not cur or last not in ("from", "to"):
                    sys.exit(f"{path}:{n}: a continuation line outside from:/to:")
                cur[last] += "\n" + line[2:]
                continue
            key, sep, value = line.partition(":")
            if not sep or key not in KEYS:
                sys.exit(f"{path}:{n}: expected one of {', '.join(KEYS)}: got {line!r}")
            value = value[1:] if value.startswith(" ") else value
            if cur is None:
                cur = {"line": n, "test": [], "build": []}
            if key in ("test", "build"):
                cur[key].append(value)
            else:
                if key in cur:
                    sys.exit(f"{path}:{n}: {key}: given twice")
                cur[key] = value
            last = key
    if cur:
        mutants.append(cur)
    seen = set()
    for m in mutants:
        for k in ("id", "file", "from", "to"):
            if k not in m:
                sys.exit(f"{path}:{m['line']}: mutant without {k}:")
        if not m["test"] and "equivalent" not in m:
            sys.exit(f"{path}:{m['line']}: mutant {m['id']} names no test:")
        if m["id"] in seen:
            sys.exit(f"{path}:{m['line']}: mutant id {m['id']} twice")
        if m["from"] == m["to"]:
            sys.exit(f"{path}:{m['line']}: mutant {m['id']}: from: and to: are the same")
        seen.add(m["id"])
    return mutants


def test_cmd(spec):
    """`unit DIR/NAME` -> the cmocka binary; `bats FILE [-f REGEX]` -> bats;
    `sh COMMAND` -> a shell command run in the copy."""
    kind, _, rest = spec.partition(" ")
    if kind == "unit":
        return [f"build/tests/{rest}"], [f"build/tests/{rest}"]
    if kind == "bats":
        args = shlex.split(rest)
        need = ["all", "e2e-progs"]
        if "compat" in args[0]:
            need.append("compat-tests")
            need.append("build/libpfshim-compat.so")
        return ["bats", "--print-output-on-failure"] + args, need
    if kind == "sh":
        return ["bash", "-c", rest], []
    sys.exit(f"unknown test kind: {spec!r}")


def run(cmd, cwd, timeout, log):
    """0 pass, 1 fail, None timeout. Output to @log, never to our stdout."""
    with open(log, "ab") as out:
        out.write(("\n$ " + " ".join(cmd) + "\n").encode())
        out.flush()
        try:
            p = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, start_new_session=True)
            try:
                return 0 if p.wait(timeout=timeout) == 0 else 1
            except subprocess.TimeoutExpired:
                # the whole group: bats' children and the programs under test
                os.killpg(p.pid, 9)
                p.wait()
                return None
        except OSError as e:
            out.write(f"{e}\n".encode())
            return 1


def make(targets, cwd, log):
    if not targets:
        return 0
    return run(["make", "-j2", "--no-print-directory"] + sorted(set(targets)), cwd, 1200, log)


def copy_tree(dst):
    files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, check=True,
                           capture_output=True).stdout.split(b"\0")
    for f in files:
        if not f:
            continue
        src = os.path.join(ROOT.encode(), f)
        if not os.path.lexists(src):
            continue            # deleted in the working tree
        d = os.path.join(dst.encode(), f)
        os.makedirs(os.path.dirname(d), exist_ok=True)
        # Only what differs, and with a new mtime: a copy reused (--keep)
        # may hold objects built from a mutant newer than the tree's file.
        if os.path.islink(src) or not os.path.isfile(d) or not filecmp.cmp(src, d, shallow=False):
            if os.path.lexists(d):
                os.unlink(d)
            shutil.copy(src, d, follow_symlinks=False)


def needs(m):
    cmds, targets = [], list(m["build"])
    for t in m["test"]:
        c, need = test_cmd(t)
        cmds.append(c)
        targets += need
    return cmds, targets


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sample", action="store_true", help="only the mutants marked sample: yes")
    ap.add_argument("--only", default="", help="comma-separated mutant ids")
    ap.add_argument("--min", type=float, default=float(os.environ.get("MUTATE_MIN", "95")))
    ap.add_argument("--list", default=os.path.join(HERE, "mutants.txt"))
    ap.add_argument("--keep", default="", help="scratch directory to use and keep")
    ap.add_argument("--check", action="store_true", help="only parse the list and check staleness")
    a = ap.parse_args()

    mutants = parse(a.list)
    every = mutants     # checked for staleness, whatever runs (but with --only)
    if a.only:
        ids = a.only.split(",")
        unknown = set(ids) - {m["id"] for m in mutants}
        if unknown:
            sys.exit(f"unknown mutant ids: {', '.join(sorted(unknown))}")
        mutants = [m for m in mutants if m["id"] in ids]
    elif a.sample:
        mutants = [m for m in mutants if m.get("sample") == "yes"]

    # Stale check first, on the real tree: every fragment exactly once.
    stale = []
    for m in (mutants if a.only else every):
        try:
            with open(os.path.join(ROOT, m["file"]), encoding="utf-8") as f:
                n = f.read().count(m["from"])
        except OSError:
            n = 0
        if n != 1:
            stale.append(m)
            print(f"STALE    {m['id']}: {m['file']}: its from: fragment is found {n} times, "
                  f"not once (tests/mutate/mutants.txt:{m['line']})")
    live = [m for m in mutants if "equivalent" not in m and m not in stale]
    if a.check:
        print(f"mutate: {len(mutants)} mutants, {len(stale)} stale, "
              f"{len(mutants) - len(live) - len(stale)} equivalent")
        return 1 if stale else 0

    scratch = a.keep or tempfile.mkdtemp(prefix="pfshim-mutate.")
    os.makedirs(scratch, exist_ok=True)
    # Tests run programs as another user (hardening-files.bats: uid 65534),
    # who must reach the copy's shim: not mkdtemp's 0700.
    os.chmod(scratch, 0o755)
    log = os.path.join(scratch, "mutate.log")
    print(f"mutate: {len(live)} mutants to run, scratch copy {scratch}, log {log}")
    copy_tree(scratch)
    env_note = os.environ.get("BUILD")
    if env_note:
        os.environ.pop("BUILD")     # helpers.bash would look there: the copy's build/
    os.environ.pop("MAKEFLAGS", None)
    os.environ.pop("MFLAGS", None)
    os.environ.pop("MAKELEVEL", None)

    # The baseline: what the mutants need, built and passing unmutated. A test
    # that fails here would "kill" every mutant: the run stops instead.
    targets, tests = [], {}
    for m in live:
        cmds, t = needs(m)
        targets += t
        for spec, c in zip(m["test"], cmds):
            tests[spec] = c
    t0 = time.time()
    if make(targets, scratch, log) != 0:
        sys.exit(f"mutate: the unmutated copy does not build (see {log})")
    for spec, c in tests.items():
        if c[0] == "bats":
            # A filter that matches nothing would pass on every mutant.
            n = subprocess.run(["bats", "--count"] + c[2:], cwd=scratch,
                               capture_output=True, text=True).stdout.strip()
            if not n.isdigit() or int(n) == 0:
                sys.exit(f"mutate: {spec} selects no test")
        r = run(c, scratch, TIMEOUT, log)
        if r != 0:
            # Once more: a test that fails only on a loaded machine is no
            # reason to lose the run, but it is named (its kills are suspect).
            r = run(c, scratch, TIMEOUT, log)
            if r == 0:
                print(f"mutate: FLAKY: {spec} failed unmutated once, then passed; see {log}")
        if r != 0:
            sys.exit(f"mutate: {spec} fails unmutated ({'timeout' if r is None else 'failed'}); "
                     f"see {log}")
    print(f"mutate: baseline built and green in {time.time() - t0:.0f} s")

    verdicts = {}
    for m in mutants:
        if m in stale:
            continue
        if "equivalent" in m:
            print(f"EQUIV    {m['id']}: {m['equivalent']}")
            continue
        path = os.path.join(scratch, m["file"])
        with open(path, encoding="utf-8") as f:
            orig = f.read()
        t1 = time.time()
        with open(path, "w", encoding="utf-8") as f:
            f.write(orig.replace(m["from"], m["to"], 1))
        with open(log, "a") as f:
            f.write(f"\n==== mutant {m['id']} ({m['file']})\n")
        try:
            cmds, targets = needs(m)
            if make(targets, scratch, log) != 0:
                v = "build failed"
            else:
                v = "survived"
                for spec, c in zip(m["test"], cmds):
                    r = run(c, scratch, TIMEOUT, log)
                    if r is None:
                        v = f"timeout ({spec})"
                        break
                    if r != 0:
                        v = f"killed ({spec})"
                        break
        finally:
            with open(path, "w", encoding="utf-8") as f:
                f.write(orig)
        verdicts[m["id"]] = v
        print(f"{v.split(' (')[0].upper():8} {m['id']}: {m['file']}"
              f"{' ' + v[v.find('('):] if '(' in v else ''} [{time.time() - t1:.0f} s]",
              flush=True)

    ran = [v for v in verdicts.values() if v != "build failed"]
    dead = [v for v in ran if v.startswith(("killed", "timeout"))]
    score = 100.0 * len(dead) / len(ran) if ran else 100.0
    survivors = [i for i, v in verdicts.items() if v == "survived"]
    broken = [i for i, v in verdicts.items() if v == "build failed"]
    print(f"mutate: {len(dead)} of {len(ran)} killed: score {score:.1f} % (minimum {a.min:g} %); "
          f"{sum('equivalent' in m for m in mutants)} equivalent, {len(stale)} stale, "
          f"{len(broken)} not building; {time.time() - t0:.0f} s")
    if survivors:
        print("mutate: survivors (a bug no test notices: write the test, or explain it as "
              "equivalent in tests/mutate/mutants.txt): " + ", ".join(survivors))
    if not a.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    return 1 if score < a.min or stale or broken else 0


if __name__ == "__main__":
    sys.exit(main())
