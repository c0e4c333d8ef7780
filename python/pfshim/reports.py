# SPDX-License-Identifier: MIT
"""pfshim's JSON reports (schema pfshim.report, docs/output.md) as pandas
DataFrames: read(PATH) takes a report file (JSON Lines), a directory of
them (PFSHIM_OUTPUT=DIR/, a job directory, pfshim run -o), walked without
following links, and gives a Job. Counts are summed, never averaged, by
whoever groups the frames: the rows are the reports' own numbers."""
import json
import os

SCHEMA = "pfshim.report"
JOB_SCHEMA = "pfshim.job"
SPOOL_PREFIX = ".pfshim-spool."     # preload/output/spool.h
DEPTH_MAX = 256      # as pfshim report's REGION_TREE_DEPTH_MAX: only a crafted report nests deeper
IDENTITY = ("pid", "ppid", "program", "argv0", "rank", "hostname", "reason", "signal_name",
            "start_ns", "wall_ns")


class Job:
    """The reports of one job. Each frame has one row per thing counted:

    processes  one row per process image, its last report (exit, exec; the
               latest explicit or signal one of an image still running):
               IDENTITY, `file`, and one column per event with its value
               (NaN when not counted)
    events     the same reports, long: pid, program, rank, event, value,
               status, scaled, enabled_ns, running_ns
    regions    marker regions per thread and nesting path, long: pid,
               program, rank, tid, thread, region, path (the tuple of
               region names from the top region down to this one), parent
               (the enclosing region's name, None at the top), depth,
               calls, wall_ns, event, value, status. Each path's counts
               are its own (inclusive of the regions below it), so a
               region's rows summed are its flat totals. Reports without
               paths (before the region tree) give one row per region,
               path, parent and depth None.
    series     the other points of each image's series (PFSHIM_INTERVAL,
               and the earlier explicit or signal reports), long: pid,
               program, rank, seq, reason, wall_ns, event, value, delta
    job        pfshim run's own count of the job (pfshim-job.jsonl), or None
    skipped    lines that were not reports: [(file, line number, why)]
    """

    def __init__(self, processes, events, regions, series, job, skipped):
        self.processes, self.events, self.regions = processes, events, regions
        self.series, self.job, self.skipped = series, job, skipped


def _files(path):
    if not os.path.isdir(path):
        yield path
        return
    for top, dirs, names in os.walk(path):       # followlinks=False: no loops, no escapes
        dirs.sort()
        for name in sorted(names):
            full = os.path.join(top, name)
            spool = name.startswith(SPOOL_PREFIX)
            if (spool or name.endswith((".json", ".jsonl"))) and not os.path.islink(full):
                yield full


def _spool(path, skipped):
    """The reports of a spool pfshim run could not split (its runner killed): each record is
    RS, a head line, then the report; one cut short is skipped."""
    with open(path, "rb") as f:
        data = f.read()
    for record in data.split(b"\x1e")[1:]:
        body = record.partition(b"\n")[2]
        try:
            yield json.loads(body.decode("utf-8", errors="replace"))
        except ValueError:
            skipped.append((path, 0, "a report cut short in the spool"))


def _lines(path, skipped):
    if os.path.basename(path).startswith(SPOOL_PREFIX):
        yield from _spool(path, skipped)
        return
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                yield json.loads(line)
            except ValueError as e:
                skipped.append((path, number, "not JSON: %s" % e))


def read(path):
    """The reports under @path as a Job (see Job). Needs pandas."""
    try:
        import pandas as pd
    except ImportError as e:
        raise ImportError("pfshim.read needs pandas (Debian: apt-get install "
                          "python3-pandas)") from e
    reports, series, skipped = {}, [], []
    job = None
    for name in _files(path):
        for r in _lines(name, skipped):
            if not isinstance(r, dict):
                skipped.append((name, 0, "not an object"))
                continue
            if r.get("schema") == JOB_SCHEMA:
                job = r if job is None else job
                continue
            if r.get("schema") != SCHEMA:
                skipped.append((name, 0, "schema %r" % r.get("schema")))
                continue
            if r.get("reason") == "interval":
                series.extend(_series_rows(r))
                continue
            # An image's reports are snapshots of one count: its last (exit,
            # exec) is the whole; an earlier one (explicit, signal) a point of
            # its series, as an interval report is.
            image = (r.get("hostname"), r.get("pid"), r.get("start_ns"), r.get("program"))
            last = reports.get(image)
            if last is None or (last[0].get("wall_ns") or 0) <= (r.get("wall_ns") or 0):
                if last is not None:
                    series.extend(_series_rows(last[0]))
                reports[image] = (r, name)
            else:
                series.extend(_series_rows(r))
    processes, events, regions = [], [], []
    for r, name in reports.values():
        who = {"pid": r.get("pid"), "program": r.get("program"), "rank": r.get("rank")}
        row = {k: r.get(k) for k in IDENTITY}
        row["file"] = name
        for e in r.get("events") or []:
            row[e.get("name")] = e.get("value")
            events.append(dict(who, event=e.get("name"), value=e.get("value"),
                               status=e.get("status"), scaled=e.get("scaled"),
                               enabled_ns=e.get("enabled_ns"), running_ns=e.get("running_ns")))
        processes.append(row)
        for t in (r.get("regions") or {}).get("threads") or []:
            paths = t.get("paths")
            nodes = _nodes(paths) if isinstance(paths, list) else \
                [(g, None) for g in t.get("regions") or [] if isinstance(g, dict)]
            for g, path in nodes:
                for e in g.get("events") or []:
                    regions.append(dict(who, tid=t.get("tid"), thread=t.get("name"),
                                        region=g.get("name"), path=path,
                                        parent=path[-2] if path and len(path) > 1 else None,
                                        depth=len(path) - 1 if path else None,
                                        calls=g.get("calls"), wall_ns=g.get("wall_ns"),
                                        event=e.get("name"), value=e.get("value"),
                                        status=e.get("status")))
    frame = pd.DataFrame
    return Job(frame(processes), frame(events), frame(regions), frame(series), job, skipped)


def _nodes(paths):
    """A thread's paths as (node, path tuple): a node's parent is an earlier
    entry (as the shim lists them); one that is not, or one deeper than
    DEPTH_MAX, leaves the node, and its subtree, out, as pfshim report does."""
    out, path_of = [], []
    for i, g in enumerate(paths):
        up = g.get("parent") if isinstance(g, dict) else None
        name = g.get("name") if isinstance(g, dict) else None
        ok = isinstance(name, str) and isinstance(up, int) and not isinstance(up, bool) \
            and -1 <= up < i and (up < 0 or path_of[up] is not None) \
            and (up < 0 or len(path_of[up]) < DEPTH_MAX)
        path_of.append(((path_of[up] if up >= 0 else ()) + (name,)) if ok else None)
        if ok:
            out.append((g, path_of[i]))
    return out


def _series_rows(r):
    who = {"pid": r.get("pid"), "program": r.get("program"), "rank": r.get("rank")}
    return [dict(who, seq=r.get("seq"), reason=r.get("reason"), wall_ns=r.get("wall_ns"),
                 event=e.get("name"), value=e.get("value"), delta=e.get("delta"))
            for e in r.get("events") or []]
