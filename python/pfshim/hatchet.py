# SPDX-License-Identifier: MIT
"""A job's marker regions in Hatchet's literal format
(hatchet.GraphFrame.from_literal): a list of root nodes, each
{"frame": {"name", "type"}, "metrics": {...}, "children": [...]}. One root
per program (its whole counts), under it the region tree: one node per
nesting path, as the reports' per-thread paths give it, summed over ranks,
processes and threads. Metrics as Hatchet names them: "time (inc)" and
"time" (seconds, inclusive and exclusive), "<event> (inc)" and "<event>"
for each region event, and "calls". Exclusive is a node's inclusive less
its children's (but the program's time: its wall time is not the sum
over threads its regions' is). Reports without paths (older ones) give their regions flat
under the program, inclusive counts only."""


def _metrics(rows):
    """Inclusive metrics of a node's rows (one per thread, path and event)."""
    per_thread = rows.drop_duplicates(["pid", "tid"])
    m = {"calls": int(per_thread["calls"].sum()),
         "time (inc)": float(per_thread["wall_ns"].sum()) / 1e9}
    for e, v in rows.groupby("event")["value"].sum(min_count=1).items():
        if v == v:
            m["%s (inc)" % e] = float(v)
    return m


def _exclusive(node, keep=()):
    """Each inclusive metric "X (inc)" of @node and its subtree gets its exclusive "X",
    but those in @keep (@node's alone)."""
    for key in [k for k in node["metrics"] if k.endswith(" (inc)") and k not in keep]:
        below = sum(c["metrics"].get(key, 0.0) for c in node["children"])
        node["metrics"][key[:-len(" (inc)")]] = node["metrics"][key] - below
    for c in node["children"]:
        _exclusive(c)


def to_hatchet(job):
    """The literal of @job (a pfshim.Job); [] when it has no regions."""
    r = job.regions
    if r is None or len(r) == 0:
        return []
    roots = []
    for program, of_program in r.groupby("program", sort=True):
        children, nodes = [], {}
        with_paths = of_program[of_program["path"].notna()]
        flat = of_program[of_program["path"].isna()]
        # Parents before children: by depth, then as first seen.
        paths = sorted(with_paths.groupby("path", sort=False), key=lambda kv: len(kv[0]))
        for path, rows in paths:
            node = {"frame": {"name": str(path[-1]), "type": "region"},
                    "metrics": _metrics(rows), "children": []}
            nodes[path] = node
            (nodes[path[:-1]]["children"] if len(path) > 1 else children).append(node)
        for name, of_region in flat.groupby("region", sort=True):
            children.append({"frame": {"name": str(name), "type": "region"},
                             "metrics": _metrics(of_region), "children": []})
        # The program's own counts, not its regions' sum (regions nest: inclusive).
        mine = job.processes[job.processes["program"] == program]
        total = {"calls": int(len(mine)), "time (inc)": float(mine["wall_ns"].sum()) / 1e9}
        totals = job.events[job.events["program"] == program].groupby("event")["value"]
        total.update({"%s (inc)" % e: float(v)
                      for e, v in totals.sum(min_count=1).items() if v == v})
        root = {"frame": {"name": str(program), "type": "program"},
                "metrics": total, "children": children}
        if not len(flat):
            # A program's wall time is its process's, its regions' the sum over threads:
            # no exclusive time at the root, where the two would be subtracted.
            _exclusive(root, keep=("time (inc)",))
        roots.append(root)
    return roots
