# SPDX-License-Identifier: MIT
"""A job's marker regions in Hatchet's literal format
(hatchet.GraphFrame.from_literal): a list of root nodes, each
{"frame": {"name", "type"}, "metrics": {...}, "children": [...]}. Reports
carry each region's inclusive counts but not which region held which, so
the tree is one root per program, its whole counts, with its regions as
children, theirs; metrics are sums over ranks, threads and calls of each
event, "calls" and "time (inc)" (seconds)."""


def to_hatchet(job):
    """The literal of @job (a pfshim.Job); [] when it has no regions."""
    r = job.regions
    if r is None or len(r) == 0:
        return []
    roots = []
    for program, of_program in r.groupby("program", sort=True):
        children = []
        for name, of_region in of_program.groupby("region", sort=True):
            values = of_region.groupby("event")["value"].sum(min_count=1)
            # calls: once per thread's region, not once per event row
            per_thread = of_region.drop_duplicates(["pid", "tid", "region"])
            metrics = {"calls": int(per_thread["calls"].sum()),
                       "time (inc)": float(per_thread["wall_ns"].sum()) / 1e9}
            metrics.update({str(e): float(v) for e, v in values.items() if v == v})
            children.append({"frame": {"name": str(name), "type": "region"},
                             "metrics": metrics, "children": []})
        # The program's own counts, not its regions' sum (regions nest: inclusive).
        mine = job.processes[job.processes["program"] == program]
        total = {"calls": int(len(mine)), "time (inc)": float(mine["wall_ns"].sum()) / 1e9}
        totals = job.events[job.events["program"] == program].groupby("event")["value"]
        total.update({str(e): float(v) for e, v in totals.sum(min_count=1).items() if v == v})
        roots.append({"frame": {"name": str(program), "type": "program"},
                      "metrics": total, "children": children})
    return roots
