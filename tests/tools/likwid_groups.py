#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""likwid_groups.py EVAL [DIR]: check pfshim's reading of every LIKWID group
file under DIR (default: Debian's /usr/share/likwid/perfgroups) against an
independent one: this script parses each file its own way, evaluates each
metric's formula as a Python expression with the same synthetic values, and
compares with what EVAL (build/tests/likwid_group_eval) prints, name, unit
and value to the last bit. Prints the counts; exits 1 on any difference."""
import glob
import os
import re
import subprocess
import sys
import tempfile

TOKEN = re.compile(r"\s*(?:(?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)"
                   r"|(?P<name>[A-Za-z_]\w*(?::[\w=]+)*)|(?P<op>[-+*/()]))")


def to_python(formula):
    """The formula as a Python expression over v[...], or None."""
    out, pos = [], 0
    while pos < len(formula):
        if formula[pos:].strip() == "":
            break
        m = TOKEN.match(formula, pos)
        if not m:
            return None, []
        pos = m.end()
        if m.group("num"):
            out.append("float(%r)" % m.group("num"))
        elif m.group("name"):
            out.append("v[%r]" % m.group("name"))
        else:
            out.append(m.group("op"))
    expr = " ".join(out)
    try:
        compile(expr, "<formula>", "eval")
    except SyntaxError:
        return None, []
    return expr, re.findall(r"v\['([^']*)'\]", expr)


def parse(path):
    """[(name, unit, expr, names)] of the METRICS section: the formula is the
    last word, widened to the left until it is an expression."""
    metrics, section = [], None
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.strip()
        word = line.split(" ")[0] if line else ""
        if word in ("EVENTSET", "METRICS", "LONG"):
            section = word
            if word == "LONG":
                break
            continue
        if section != "METRICS" or not line or line.startswith("#"):
            continue
        words = line.split()
        for k in range(len(words) - 1, 0, -1):
            expr, names = to_python(" ".join(words[k:]))
            if expr:
                break
        else:
            raise ValueError("%s: no formula in %r" % (path, line))
        head = " ".join(words[:k])
        unit = ""
        m = re.match(r"^(.*?)\s*\[([^\[\]]*)\]$", head)
        if m:
            head, unit = m.group(1), m.group(2)
        metrics.append((head, unit, expr, names))
    return metrics


def value_of(name, i):
    fixed = {"time": 1.2345, "inverseClock": 1 / 2.3e9, "num_sockets": 2.0,
             "num_numadomains": 4.0}
    if name in fixed:
        return fixed[name]
    return float((i + 1) * 982451653 % 10**12 + 1)


def main():
    evaluator = sys.argv[1]
    top = sys.argv[2] if len(sys.argv) > 2 else "/usr/share/likwid/perfgroups"
    files = sorted(glob.glob(os.path.join(top, "*", "*.txt")))
    groups = {f: parse(f) for f in files}
    groups = {f: m for f, m in groups.items() if m}
    names = sorted({n for ms in groups.values() for (_, _, _, ns) in ms for n in ns})
    values = {n: value_of(n, i) for i, n in enumerate(names)}

    with tempfile.NamedTemporaryFile("w", suffix=".values", delete=False) as f:
        for n, v in values.items():
            f.write("%s %r\n" % (n, v))
    try:
        out = subprocess.run([evaluator, f.name] + list(groups), check=True,
                             capture_output=True, text=True).stdout
    finally:
        os.unlink(f.name)

    got = {}
    for line in out.splitlines():
        fields = line.split("\t")
        got.setdefault(fields[0], []).append(fields[1:])
    bad = nr_metrics = 0
    for path, metrics in groups.items():
        want = []
        for name, unit, expr, _ in metrics:
            try:
                value = eval(expr, {"__builtins__": {}, "float": float}, {"v": values})
            except ZeroDivisionError:
                value = None
            want.append((name, unit, value))
        nr_metrics += len(want)
        have = got.get(path, [])
        same = len(have) == len(want) and all(
            h[:2] == [w[0], w[1]] and len(h) == 3 and
            (h[2] == "n/a" if w[2] is None else h[2] != "n/a" and float(h[2]) == w[2])
            for h, w in zip(have, want))
        if not same:
            bad += 1
            if bad <= 10:
                print("%s differs:\n  pfshim      %r\n  independent %r" % (path, have, want))
    print("%d group files, %d metrics, %d distinct names: %d files differ"
          % (len(groups), nr_metrics, len(names), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
