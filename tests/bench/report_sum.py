#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# report_sum.py: the obvious Python script that `pfshim report` is measured
# against (tests/bench/report.sh): every file below DIR, each line a JSON
# report, the last (exit or exec) report of each image summed per program
# and event. What a user writes in a few minutes with the standard library.
import json
import os
import sys

totals = {}
for root, dirs, files in os.walk(sys.argv[1]):
    dirs.sort()
    for name in sorted(files):
        with open(os.path.join(root, name), "rb") as f:
            for line in f:
                if not line.strip():
                    continue
                r = json.loads(line)
                if r.get("reason") not in ("exit", "exec"):
                    continue
                per = totals.setdefault(r.get("program"), {})
                for e in r.get("events", []):
                    if isinstance(e.get("value"), int):
                        per[e["name"]] = per.get(e["name"], 0) + e["value"]
for program in sorted(totals, key=str):
    print(program, " ".join(f"{k}={v}" for k, v in totals[program].items()))
