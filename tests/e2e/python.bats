#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# python.bats: the pfshim Python module (python/pfshim/): marker regions from
# Python under the preloaded shim and without it, a job's reports as pandas
# DataFrames against jq's sums of the same files, and Hatchet's literal
# format; the module as make install puts it.

load helpers

# Debian's interpreter: the one python3-pandas is installed for.
PY=/usr/bin/python3

program() {
	cat >"$BATS_TEST_TMPDIR/prog.py" <<-'PY'
	import mmap, threading, pfshim
	def touch(n):
	    m = mmap.mmap(-1, n * 4096)
	    for i in range(n):
	        m[i * 4096] = 1
	@pfshim.region("work")
	def work():
	    touch(100)
	for _ in range(5):
	    work()
	def worker():
	    with pfshim.region("thread"):
	        touch(50)
	ts = [threading.Thread(target=worker) for _ in range(3)]
	[t.start() for t in ts]
	[t.join() for t in ts]
	print("active", pfshim.active(), "events", len(pfshim.read_counts()), "report", pfshim.report() in (0, -1))
	PY
	echo "$BATS_TEST_TMPDIR/prog.py"
}

@test "pfshim.region from Python: a decorator and a context manager, per thread, exact calls and pages" {
	[ -x "$PY" ] || skip "no $PY"
	prog=$(program)
	run -0 shim PYTHONPATH="$ROOT/python" PFSHIM_EVENTS=page-faults,task-clock "$PY" "$prog"
	[ "$output" = "active True events 2 report True" ]
	# the explicit report, then the exit one: the last is the whole run
	r=$(tail -1 "$REPORTS")
	[ "$(jq -c '[.regions.totals[] | {name, threads, calls}]' <<<"$r")" = \
		'[{"name":"work","threads":1,"calls":5},{"name":"thread","threads":3,"calls":3}]' ]
	# each call faults its own fresh pages: at least 100 a call of work, 50 a thread
	[ "$(jq '.regions.totals[] | select(.name == "work") | .events[0].sum' <<<"$r")" -ge 500 ]
	[ "$(jq '.regions.totals[] | select(.name == "thread") | .events[0].sum' <<<"$r")" -ge 150 ]
	[ "$(jq '.regions.totals[] | select(.name == "work") | .events[0].sum' <<<"$r")" -lt 600 ]
}

@test "pfshim.region without the shim: nothing counted, the program runs as written" {
	[ -x "$PY" ] || skip "no $PY"
	prog=$(program)
	run -0 --separate-stderr env -u LD_PRELOAD PYTHONPATH="$ROOT/python" "$PY" "$prog"
	[ "$output" = "active False events 0 report True" ]
	[ -z "$stderr" ]
}

@test "pfshim.read: processes, events and regions frames equal jq's sums of the same reports" {
	[ -x "$PY" ] && "$PY" -c 'import pandas' 2>/dev/null || skip "python3-pandas is not installed"
	prog=$(program)
	for rank in 0 1; do
		env OMPI_COMM_WORLD_RANK=$rank LD_PRELOAD="$SHIM" PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/d/" \
			PYTHONPATH="$ROOT/python" PFSHIM_EVENTS=page-faults,task-clock "$PY" "$prog" >/dev/null
	done
	d="$BATS_TEST_TMPDIR/d"
	all() { cat "$d"/*.json | jq -s -r "$1"; }
	want_n=$(all '[.[] | select(.reason != "interval")] | length')
	want_ranks=$(all '[.[] | .rank] | sort | map(tostring) | join(", ")')
	want_pf=$(all '[.[] | .events[] | select(.name == "page-faults") | .value] | add')
	want_work=$(all '[.[] | .regions.threads[].regions[] | select(.name == "work") | .events[] | select(.name == "page-faults") | .value] | add')
	want_calls=$(all '[.[] | .regions.threads[].regions[]] | group_by(.name) | map("\(.[0].name)=\(map(.calls) | add)") | join(" ")')
	[ "$want_n" -eq 2 ] && [ "$want_calls" = "thread=6 work=10" ]	# one file a rank: its last report
	run -0 env PYTHONPATH="$ROOT/python" "$PY" - "$d" <<-'PY'
	import sys, pfshim
	job = pfshim.read(sys.argv[1])
	p, r = job.processes, job.regions
	print(len(p), ", ".join(str(x) for x in sorted(p["rank"].tolist())), int(p["page-faults"].sum()))
	work = r[(r.region == "work") & (r.event == "page-faults")]
	calls = r[r.event == "page-faults"].groupby("region")["calls"].sum()
	print(int(work["value"].sum()), " ".join("%s=%d" % kv for kv in calls.items()), len(job.skipped), job.job)
	PY
	echo "$output"
	[ "${lines[0]}" = "$want_n $want_ranks $want_pf" ]
	[ "${lines[1]}" = "$want_work $want_calls 0 None" ]
}

@test "pfshim.read: a spool a killed pfshim run left is read, a torn record skipped" {
	[ -x "$PY" ] && "$PY" -c 'import pandas' 2>/dev/null || skip "python3-pandas is not installed"
	d="$BATS_TEST_TMPDIR/d"
	mkdir "$d"
	install -m 600 /dev/null "$d/.pfshim-spool.$(uname -n)"
	for prog in /bin/true /bin/false; do
		env LD_PRELOAD="$SHIM" PFSHIM_RUN=1 PFSHIM_EVENTS=page-faults PFSHIM_OUTPUT="$d/" "$prog" || :
	done
	printf '\036%s x.r-.p0000001.T.0.json 900\n{"schema":"pfshim.report","pid":1' 1.5 >>"$d/.pfshim-spool.$(uname -n)"
	[ -z "$(find "$d" -name '*.json')" ]
	run -0 env PYTHONPATH="$ROOT/python" "$PY" - "$d" <<-'PY'
	import sys, pfshim
	job = pfshim.read(sys.argv[1])
	print(" ".join(sorted(job.processes["program"])), len(job.skipped))
	PY
	[ "$output" = "false true 1" ]
}

@test "pfshim.to_hatchet: Hatchet's literal format, each program's own totals and its regions' sums" {
	[ -x "$PY" ] && "$PY" -c 'import pandas' 2>/dev/null || skip "python3-pandas is not installed"
	prog=$(program)
	run -0 shim PYTHONPATH="$ROOT/python" PFSHIM_EVENTS=page-faults,task-clock "$PY" "$prog"
	run -0 env PYTHONPATH="$ROOT/python" "$PY" - "$REPORTS" <<-'PY'
	import sys, json, pfshim
	job = pfshim.read(sys.argv[1])
	tree = json.loads(json.dumps(pfshim.to_hatchet(job)))	# JSON as it is: plain numbers and strings
	def check(node):
	    # the literal's schema: frame (name, type: strings), metrics (numbers), children (nodes)
	    assert set(node) == {"frame", "metrics", "children"}, node
	    assert set(node["frame"]) == {"name", "type"} and all(isinstance(v, str) for v in node["frame"].values())
	    assert all(isinstance(v, (int, float)) for v in node["metrics"].values()), node["metrics"]
	    for child in node["children"]:
	        check(child)
	for root in tree:
	    check(root)
	[root] = tree
	kids = {c["frame"]["name"]: c["metrics"] for c in root["children"]}
	assert root["metrics"]["page-faults (inc)"] == job.events[job.events.event == "page-faults"]["value"].sum()
	print(root["frame"]["type"], sorted(kids), kids["work"]["calls"], kids["thread"]["calls"])
	# the explicit report is a point of the series, not a second process
	assert len(job.processes) == 1 and set(job.series["reason"]) == {"explicit"}, job.series
	PY
	# the explicit report, then the exit one: the last of the image is the whole (5 and 3 calls)
	[ "$(reports)" -eq 2 ]
	want=$(tail -1 "$REPORTS" | jq -r '[.regions.threads[].regions[]] | group_by(.name) | map(map(.calls) | add) | "\(.[1]) \(.[0])"')
	echo "$output"
	[ "$output" = "program ['thread', 'work'] $want" ]
}

@test "pfshim.read and to_hatchet: the region tree, each path's counts and exclusive ones as jq computes them" {
	[ -x "$PY" ] && "$PY" -c 'import pandas' 2>/dev/null || skip "python3-pandas is not installed"
	skip_under_sanitizer "the instrumented program faults shadow pages inside its regions" asan tsan
	for rank in 0 1; do
		env OMPI_COMM_WORLD_RANK=$rank LD_PRELOAD="$SHIM" PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/d/" \
			PFSHIM_FORMAT=json PFSHIM_EVENTS=page-faults,task-clock "$PROGS/markers_tree" 1
	done
	d="$BATS_TEST_TMPDIR/d"
	# Per path (parents' names joined by /): calls and page-faults over ranks and threads, by jq.
	want=$(cat "$d"/*.json | jq -s -r 'def path($ps; $i): if $ps[$i].parent < 0 then $ps[$i].name
			else path($ps; $ps[$i].parent) + "/" + $ps[$i].name end;
		[.[].regions.threads[] | .paths as $ps | range($ps | length) as $i
		 | {p: path($ps; $i), c: $ps[$i].calls,
		    v: ($ps[$i].events[] | select(.name == "page-faults") | .value)}]
		| group_by(.p) | map("\(.[0].p)=\(map(.c) | add):\(map(.v) | add)") | join(" ")')
	[ "$want" = "setup=12:1800 setup/kernel=12:1200 solve=12:3960 solve/kernel=12:3600" ]
	run -0 env PYTHONPATH="$ROOT/python" "$PY" - "$d" <<-'PY'
	import sys, json, pfshim
	job = pfshim.read(sys.argv[1])
	r = job.regions[job.regions.event == "page-faults"]
	got = r.groupby(r.path.map("/".join)).agg(c=("calls", "sum"), v=("value", "sum"))
	print(" ".join("%s=%d:%d" % (p, x.c, x.v) for p, x in got.iterrows()))
	# parent and depth beside the path; a region's rows summed are its flat totals
	assert set(zip(r.region, r.parent, r.depth)) == {("setup", None, 0), ("kernel", "setup", 1),
	                                                ("solve", None, 0), ("kernel", "solve", 1)}
	[root] = json.loads(json.dumps(pfshim.to_hatchet(job)))
	def check(node):
	    # Hatchet's literal: frame (name, type: strings), metrics (numbers), children (nodes)
	    assert set(node) == {"frame", "metrics", "children"}, node
	    assert set(node["frame"]) == {"name", "type"} and all(isinstance(v, str) for v in node["frame"].values())
	    assert all(isinstance(v, (int, float)) for v in node["metrics"].values()), node["metrics"]
	    for child in node["children"]:
	        check(child)
	check(root)
	def show(n):
	    m = n["metrics"]
	    return "%s(%d %d %d)[%s]" % (n["frame"]["name"], m["calls"], m["page-faults (inc)"],
	                                 m["page-faults"], " ".join(show(c) for c in n["children"]))
	print(" ".join(show(c) for c in root["children"]))
	# each node's exclusive time is its inclusive less its children's
	for top in root["children"]:
	    kid = top["children"][0]["metrics"]["time (inc)"]
	    assert abs(top["metrics"]["time"] - (top["metrics"]["time (inc)"] - kid)) < 1e-12
	PY
	echo "$output"
	[ "${lines[0]}" = "$want" ]
	# exact pages: setup 50, kernel 100 (in setup) or 300 (in solve), solve 20 + 10 re-entered; x 3 rounds x 4 threads
	[ "${lines[1]}" = "setup(12 1800 600)[kernel(12 1200 1200)[]] solve(12 3960 360)[kernel(12 3600 3600)[]]" ]
}

@test "make install puts the module where Debian's python3 finds it" {
	[ -x "$PY" ] || skip "no $PY"
	dest="$BATS_TEST_TMPDIR/dest"
	make -s -C "$ROOT" install DESTDIR="$dest" PREFIX=/usr >/dev/null
	[ -f "$dest/usr/lib/python3/dist-packages/pfshim/__init__.py" ]
	run -0 env PYTHONPATH="$dest/usr/lib/python3/dist-packages" "$PY" -c \
		'import pfshim; print(pfshim.__file__.split("/dist-packages/")[1], pfshim.active())'
	[ "$output" = "pfshim/__init__.py False" ]
}
