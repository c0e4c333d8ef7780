#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""deps.py: the file-level dependencies of the shim's code, counted as
docs/design.md counts them ("How the layout is measured").

A unit is a top-level file of preload/ (its .c with its .h), or a folder:
each folder of preload/ (events/, counters/, markers/), and fastread/,
export/, include/. Unit A depends on unit B when a file of A includes a
header of B (#include "..."), or when an object of A references a symbol
(function or variable) that exactly one object defines, and it is B's
(nm of the objects `make` built). A dependency points up when it goes from
a lower layer of the data flow to a higher one (LAYERS below). A cycle is a
set of two or more units that all reach each other.

With --tool, the pfshim command (tools/pfshim/): a unit is each folder
(read/, the only code that parses JSON; model/; view/; run/) and the
commands at the top, over the shim's code they use (preload/, export/,
fastread/, each one unit here). Its files are built into one program, so
only includes count; jansson's header is a unit too (model/ must not
include it).

With --room DIR (e.g. --room preload/events), the same inside one folder:
each of its files (.c with its .h) is a unit, and only the dependencies
between them count; a room's files are not layered, so none points up and
only cycles are judged.

Usage: make && python3 tests/tools/deps.py [BUILD_DIR] [-v] [--room DIR | --tool]
"""
import os
import re
import subprocess
import sys

# Top to bottom: the lifecycle drives the rooms, the rooms use the leaves.
# Before preload/ had folders its rooms were prefixes; their files are
# layered as the rooms' parts are: the entry file over its helpers.
# A unit not listed here (a new file) is reported as such, never guessed.
LAYERS = [
    ["preload/shim"],
    ["preload/fatal", "preload/report_signal"],
    ["preload/process"],
    ["preload/config", "preload/output/", "preload/output", "preload/markers/",
     "preload/markers", "preload/interval"],
    ["preload/markers_report"],
    ["preload/markers_state", "preload/regions"],
    ["preload/counters/", "preload/group", "preload/metrics/"],
    ["preload/group_split"],
    ["preload/events/", "preload/events"],
    ["preload/event_tables", "preload/pmu_catalog", "preload/suggest"],
    ["preload/pmu"],
    ["preload/warn", "preload/share"],
    ["preload/fd", "preload/exec_search", "preload/actions", "preload/prefault",
     "preload/sandbox", "preload/identity", "preload/scheduler", "preload/proc_stat"],
    ["fastread/", "export/", "include/"],
]
LAYER_OF = {u: i for i, layer in enumerate(LAYERS) for u in layer}

# The pfshim command, top to bottom: the commands, the runner, the reader
# and the views (neither knows the other), the model, the shim's code.
TOOL = "tools/pfshim/"
TOOL_LAYERS = [
    [TOOL + "(commands)"],
    [TOOL + "run/"],
    [TOOL + "read/", TOOL + "view/"],
    [TOOL + "model/"],
    ["<jansson.h>", "preload/", "export/", "fastread/", "include/"],
]
TOOL_LAYER_OF = {u: i for i, layer in enumerate(TOOL_LAYERS) for u in layer}
# What the layers alone allow but the design does not: the model includes
# no JSON library (the reader fills it, the views write their own).
TOOL_FORBIDDEN = {(TOOL + "model/", "<jansson.h>")}


def tool_unit_of(path):
    if path == "<jansson.h>":
        return path
    if path.startswith(TOOL):
        rest = path[len(TOOL):]
        return TOOL + (rest.split("/")[0] + "/" if "/" in rest else "(commands)")
    top = path.split("/")[0]
    return top + "/" if top in ("preload", "export", "fastread", "include") else None


def tool_measure():
    files = []
    for root, _, names in os.walk(TOOL):
        files += [os.path.join(root, f) for f in names if f.endswith((".c", ".h"))]
    edges = set()
    for f in sorted(files):
        text = open(f).read()
        for m in re.finditer(r'^\s*#\s*include\s+([<"])([^">]+)[">]', text, re.M):
            target = "<jansson.h>" if m.group(2) == "jansson.h" else m.group(2)
            if m.group(1) == "<" and target != "<jansson.h>":
                continue
            a, b = tool_unit_of(f), tool_unit_of(target)
            if a and b and a != b:
                edges.add((a, b))
    units = {tool_unit_of(f) for f in files} | {b for _, b in edges}
    return units, edges


def unit_of(path):
    parts = path.split("/")
    if parts[0] in ("fastread", "export", "include"):
        return parts[0] + "/"
    if parts[0] == "preload" and len(parts) > 2:
        return "preload/" + parts[1] + "/"
    if parts[0] == "preload":
        return "preload/" + os.path.splitext(parts[1])[0]
    return None


def sources():
    out = []
    for top in ("preload", "fastread", "export", "include"):
        for root, _, files in os.walk(top):
            out += [os.path.join(root, f) for f in files if f.endswith((".c", ".h"))]
    return sorted(out)


def include_edges(files, unit=unit_of):
    edges = set()
    for f in files:
        with open(f) as fh:
            for m in re.finditer(r'^\s*#\s*include\s+"([^"]+)"', fh.read(), re.M):
                target = m.group(1)
                if not os.path.exists(target):	# "pfshim.h" through -Iinclude
                    target = os.path.join("include", target)
                if os.path.exists(target):
                    edges.add((unit(f), unit(target)))
    return edges


def interposed_libc():
    """The libc functions the shim interposes (preload/libpfshim.map): a call
    to one of them is a call to libc, whichever object answers it, not a
    dependency on shim.c (fatal.c installs its handlers through the global
    sigaction() on purpose, so that a sanitizer's runtime sees them)."""
    text = open("preload/libpfshim.map").read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    names = re.search(r"global:(.*?)local:", text, flags=re.S).group(1)
    return {n for n in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", names) if not n.startswith("pfshim_")}


def symbol_edges(files, build, unit=unit_of):
    defined, used = {}, {}
    libc = interposed_libc()
    for f in files:
        if not f.endswith(".c"):
            continue
        obj = os.path.join(build, "obj", f[:-2] + ".o")
        if not os.path.exists(obj):
            sys.exit(f"deps.py: {obj} missing: run make first")
        nm = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
        for line in nm.splitlines():
            fields = line.split()
            if len(fields) == 2 and fields[0] == "U" and fields[1] not in libc:
                used.setdefault(f, set()).add(fields[1])
            elif len(fields) == 3 and fields[1] in "TDBR":
                defined.setdefault(fields[2], []).append(f)
    edges = set()
    for f, syms in used.items():
        for s in syms:
            where = defined.get(s, [])
            if len(where) == 1:
                edges.add((unit(f), unit(where[0])))
    return edges


def cycles(units, edges):
    """Strongly connected components of two or more units (Tarjan)."""
    succ = {u: sorted(b for a, b in edges if a == u) for u in units}
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for u in sorted(units):
        if u not in index:
            visit(u)
    return out


def measure(files, build, unit=unit_of):
    """The units of @files and the dependencies between them."""
    units = {unit(f) for f in files}
    edges = {(a, b) for a, b in include_edges(files, unit) | symbol_edges(files, build, unit)
             if a != b and a in units and b in units}
    return units, edges


def main():
    argv = sys.argv[1:]
    room = None
    if "--room" in argv:
        i = argv.index("--room")
        room = argv[i + 1].rstrip("/") + "/"
        del argv[i:i + 2]
    tool = "--tool" in argv
    args = [a for a in argv if a not in ("-v", "--tool")]
    verbose = "-v" in argv
    build = args[0] if args else "build"
    if tool:
        units, edges = tool_measure()
        unknown = sorted(u for u in units if u not in TOOL_LAYER_OF)
        up = sorted((a, b) for a, b in edges
                    if (a in TOOL_LAYER_OF and b in TOOL_LAYER_OF and
                        TOOL_LAYER_OF[b] <= TOOL_LAYER_OF[a] and a != b and
                        not (TOOL_LAYER_OF[a] == len(TOOL_LAYERS) - 1)) or (a, b) in TOOL_FORBIDDEN)
        print(f"{TOOL}: ", end="")
    elif room:
        files = [f for f in sources() if f.startswith(room) and "/" not in f[len(room):]]
        units, edges = measure(files, build,
                               lambda p: os.path.splitext(p)[0] if p.startswith(room) else None)
        up, unknown = [], []
        print(f"{room}: ", end="")
    else:
        units, edges = measure(sources(), build)
        unknown = sorted(u for u in units if u not in LAYER_OF)
        up = sorted((a, b) for a, b in edges
                    if a in LAYER_OF and b in LAYER_OF and LAYER_OF[b] < LAYER_OF[a])
    cyc = cycles(units, edges)
    print(f"units {len(units)}, dependencies {len(edges)}, pointing up {len(up)}, "
          f"cycles {len(cyc)}")
    for a, b in up:
        print(f"  up:    {a} -> {b}")
    for c in cyc:
        print(f"  cycle: {' <-> '.join(c)}")
    for u in unknown:
        print(f"  no layer: {u} (add it to {'TOOL_LAYERS' if tool else 'LAYERS'} in tests/tools/deps.py)")
    if verbose:
        for a, b in sorted(edges):
            print(f"  {a} -> {b}")
    return 1 if up or cyc or unknown else 0


if __name__ == "__main__":
    sys.exit(main())
