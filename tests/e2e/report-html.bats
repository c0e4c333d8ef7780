#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# report-html.bats: the page of `pfshim report --html` in a real browser.
# Headless Chromium (Debian's `chromium`, installed by `make e2e`) loads it
# from disk with the network unused, and we check what a person would see:
# the overview's totals equal to `pfshim report --json`'s, the costliest
# processes in the order --by process's sums give, one timeline bar per
# process, the charts the data calls for (none for an event not counted),
# each metric cell equal to `pfshim report --metrics`' value and text, the
# top-down bar's segments to their values, no console message, no
# horizontal scroll at 1280 px, and a screenshot per job kept in
# build/report-html/NAME.png to look at.

load helpers

PFSHIM="$BUILD/pfshim"
SHOTS="$BUILD/report-html"

setup() {
	need_perf
	cd "$BATS_TEST_TMPDIR"
	command -v chromium >/dev/null || skip "chromium is not installed (make e2e installs it)"
	mkdir -p "$SHOTS"
}

# chromium ARGS... FILE: headless, no GPU, no sandbox (root in CI), its own profile, bounded.
browse() {
	timeout 90 chromium --headless=new --disable-gpu --no-sandbox --no-first-run \
		--hide-scrollbars --user-data-dir="$BATS_TEST_TMPDIR/profile" \
		--enable-logging=stderr --v=0 "$@"
}

# look PAGE NAME: the page in Chromium: $dom its DOM; no console message; at 1280 px wide no
# horizontal scroll; build/report-html/NAME.png. The width is read by a script added to a copy
# (the page itself has none), which also logs one line: the console check is seen to work.
look() {
	run -0 --separate-stderr browse --dump-dom "file://$PWD/$1"
	dom=$output
	echo "$stderr" | grep CONSOLE || true
	! grep -q ':CONSOLE' <<<"$stderr" || false
	! grep -q '<script' <<<"$dom" || false
	sed 's#</body>#<script>console.log("probe " + innerWidth + " " + document.documentElement.scrollWidth)</script></body>#' \
		"$1" >"probe-$1"
	run -0 --separate-stderr browse --window-size=1280,900 --dump-dom "file://$PWD/probe-$1"
	read -r inner scroll < <(grep -o '"probe [0-9]* [0-9]*"' <<<"$stderr" | tr -d '"' | cut -d' ' -f2-)
	echo "1280 px window: innerWidth $inner, scrollWidth $scroll"
	[ "$inner" -eq 1280 ] && [ "$scroll" -le 1280 ]
	run -0 --separate-stderr browse --window-size=1280,3000 --screenshot="$SHOTS/$2.png" \
		"file://$PWD/$1"
	[ -s "$SHOTS/$2.png" ]
}

# count PATTERN: how many times the DOM has PATTERN.
count() {
	grep -o "$1" <<<"$dom" | wc -l
}

@test "--html of a fork tree: the overview's totals, elapsed and CPU use, the costliest first, a bar per process, the tree's sums" {
	# sh, fork_children (touching 100 pages) and its 3 children (500 pages each), true: 6 processes
	# (true not last: a shell may exec its last command, and true would replace sh)
	run -0 --separate-stderr timeout 60 "$PFSHIM" run -e task-clock,page-faults,cycles -o r -- \
		sh -c "'$PROGS/fork_children' 3 500 100 >/dev/null; /bin/true; exit 0"
	run -0 timeout 60 "$PFSHIM" report --html page.html r
	timeout 60 "$PFSHIM" report --json r >s.json
	timeout 60 "$PFSHIM" report --json --by process r >p.json
	look page.html fork-tree

	# the overview: every counted event's total is the kernel's count of the job, as --json's
	counted=$(jq -r '.job.events[] | select(.value != null) | "\(.name) \(.value)"' s.json)
	echo "counted: $counted"
	[ "$(grep -c . <<<"$counted")" -eq "$(count '<tr class="total"')" ]
	while read -r name value; do
		grep -q "<tr class=\"total\" data-event=\"$name\"><td>$name</td><td class=\"num\" data-value=\"$value\">" <<<"$dom"
	done <<<"$counted"
	# cycles: counted where a PMU is, else said and not drawn
	if [ "$(jq '.events[] | select(.name == "cycles") | .counted' s.json)" -eq 0 ]; then
		grep -q 'Not counted, so not drawn: cycles (not supported)' <<<"$dom"
		! grep -q '<figcaption>cycles per program' <<<"$dom" || false
	fi
	[ "$(count '<svg class="chart bars"')" -eq "$(jq '[.events[] | select(.counted > 0)] | length' s.json)" ]
	# elapsed: the job count's, as the text's (not the reports' span, which a late one may
	# stretch past the totals' end); CPU use: the kernel's task-clock (ns) over it
	elapsed=$(jq .elapsed_ns r/pfshim-job.jsonl)
	[ "$elapsed" -gt 0 ]
	seconds=$(awk -v e="$elapsed" 'BEGIN { printf "%.9f", e / 1e9 }')
	timeout 60 "$PFSHIM" report r | grep -E "^ +$seconds seconds time elapsed$"
	grep -q "id=\"elapsed\" data-ns=\"$elapsed\"" <<<"$dom"
	cpus=$(awk -v t="$(jq '.job.events[] | select(.name == "task-clock") | .value' s.json)" \
		-v e="$elapsed" 'BEGIN { printf "%.2f", t / e }')
	grep -q "id=\"cpus\">$cpus CPUs<" <<<"$dom"
	n=$(jq .processes s.json)
	[ "$n" -eq 6 ] && [ "$(jq .job.processes s.json)" -eq 6 ]
	grep -q "counted by the kernel (<code>pfshim run</code>); $n with a report of any of their programs, 0 whose last program left none" <<<"$dom"
	grep -q "Nothing: each of the $n processes the kernel counted left its report." <<<"$dom"

	# the costliest: --by process's task-clock, largest first; the children touched 500 pages each
	want=$(jq -r '[.groups[] | {pid: (.group | sub(".*:"; "")), t: (.events[] | select(.name == "task-clock") | .value)}]
		| sort_by(-.t) | .[].pid' p.json | tr '\n' ' ')
	got=$(grep -o '<tr class="top" data-pid="[0-9]*"' <<<"$dom" | grep -o '[0-9]*' | tr '\n' ' ')
	echo "top: want $want, got $got"
	[ "$got" = "$want" ]
	[ "$(grep '<tr class="top"' <<<"$dom" | grep -c '<td title="fork_children">fork_children</td>')" -eq 4 ]
	for pid in $(jq -r '.groups[] | select(.events[] | select(.name == "page-faults") | .value >= 500) | .group | sub(".*:"; "")' p.json); do
		grep -q "data-pid=\"$pid\"" <<<"$dom"
	done
	[ "$(jq '[.groups[] | select(.events[] | select(.name == "page-faults") | .value >= 500)] | length' p.json)" -ge 3 ]	# (the parent too under ASan)

	# the timeline: one bar per process
	[ "$(count '<rect class="span"')" -eq "$n" ]
	# the tree: sh holds everything; sh and fork_children open; the root's subtree = the reports' task-clock
	[ "$(count '<details')" -eq 2 ]
	# no PFSHIM_GROUP: no metrics section
	! grep -q '<h2>Metrics</h2>' <<<"$dom" || false
	root=$(grep -o '<details open="" data-subtree="[0-9]*"' <<<"$dom" | head -1 | grep -o '[0-9]*')
	[ "$root" -eq "$(jq '.events[] | select(.name == "task-clock") | .value' s.json)" ]
	[ "$(count '<div class="leaf">')" -eq 4 ]
}

@test "--html: a process that left no report is said in the overview, with the kernel's count of it" {
	run -0 --separate-stderr timeout 60 "$PFSHIM" run -e task-clock,page-faults -o r -- \
		sh -c 'sleep 5 & sleep 0.3; kill -9 $!; wait'
	run -0 timeout 60 "$PFSHIM" report --html page.html r
	timeout 60 "$PFSHIM" report --json r >s.json
	[ "$(jq -c '.job.unreported' s.json)" = '[{"program":"sleep","processes":1,"kind":"no-report"}]' ]
	look page.html lost
	grep -q '<li class="unreported">1 process that loaded the shim but left no report (sleep)' <<<"$dom"
	# sh, sleep 0.3 and the subshell that exec'd sleep 5 (its shell image reported), killed
	[ "$(jq .job.processes s.json)" -eq 3 ] && [ "$(jq .processes s.json)" -eq 3 ]
	grep -q "<td class=\"num\">3</td><td>counted by the kernel (<code>pfshim run</code>); 3 with a report of any of their programs, 1 whose last program left none" <<<"$dom"
	# its page faults are in the kernel's total, above the reports' sum
	job=$(jq '.job.events[] | select(.name == "page-faults") | .value' s.json)
	sum=$(jq '.events[] | select(.name == "page-faults") | .value' s.json)
	grep -q "data-event=\"page-faults\"><td>page-faults</td><td class=\"num\" data-value=\"$job\">" <<<"$dom"
	[ "$job" -gt "$sum" ]
}

@test "--html of 70 processes: the 10 costliest in the table, the 60 costliest on the timeline, said so" {
	run -0 --separate-stderr timeout 60 "$PFSHIM" run -e page-faults -o r -- \
		"$PROGS/fork_children" 69 1 0
	run -0 timeout 60 "$PFSHIM" report --html page.html r
	timeout 60 "$PFSHIM" report --json --by process r >p.json
	[ "$(jq '.groups | length' p.json)" -eq 70 ]
	look page.html many
	[ "$(count '<tr class="top"')" -eq 10 ]
	grep -q 'The 10 costliest of 70 processes by page-faults' <<<"$dom"
	[ "$(count '<rect class="span"')" -eq 60 ]
	grep -q 'The 60 costliest of 70 processes shown.' <<<"$dom"
	# page-faults, the only event: the first row is the largest of --by process's
	max=$(jq '[.groups[].events[0].value] | max' p.json)
	grep -q "<tr class=\"top\" data-pid=\"[0-9]*\"><td class=\"num\">1</td><td class=\"num\">[0-9]*</td><td title=\"fork_children\">fork_children</td><td class=\"num\" data-value=\"$max\">" <<<"$dom"
	[ "$(count '<details')" -eq 1 ]
	[ "$(count '<div class="leaf">')" -eq 69 ]
}

@test "--html by rank: a table per region metric with each rank's sum and the imbalance of --json, and the series" {
	mkdir r
	for rank in 0 1 2 3; do
		timeout 60 env OMPI_COMM_WORLD_RANK=$rank LD_PRELOAD="$SHIM" PFSHIM_OUTPUT="$PWD/r/" \
			PFSHIM_FORMAT=json PFSHIM_EVENTS=task-clock,page-faults \
			"$PROGS/markers_threads" 2 20 $((10 * (rank + 1))) >/dev/null
	done
	# two more ranks' interval reports, hand-written (schema version 3)
	for rank in 0 1; do
		for s in 1 2 3 4 5; do
			printf '{"schema":"pfshim.report","version":3,"program":"solver","argv0":"./solver","pid":%d,"ppid":1,"pid_ns":null,"hostname":"n1","rank":%d,"start_ns":1800000000000000000,"wall_ns":%d,"reason":"%s","seq":%d,"interval_ns":100000000,"events":[{"name":"page-faults","status":"counted","value":%d,"delta":%d,"unit":"","scale":1}]}\n' \
				$((50 + rank)) $rank $((s * 100000000)) "$([ $s = 5 ] && echo exit || echo interval)" \
				$s $((s * 100 * (rank + 1))) $((100 * (rank + 1)))
		done
	done >series.jsonl
	run -0 timeout 60 "$PFSHIM" report --by rank --title 'mpirun -n 4 markers_threads <&>' \
		--html page.html r series.jsonl
	timeout 60 "$PFSHIM" report --json --by rank r series.jsonl >s.json
	look page.html ranks
	bars=$(jq '[.events[] | select(.counted > 0)] | length' s.json)
	series=$(jq '.series.events | length' s.json)
	[ "$bars" -eq 2 ] && [ "$series" -eq 1 ]
	[ "$(count '<svg class="chart bars"')" -eq "$bars" ]
	[ "$(count '<svg class="chart series"')" -eq "$series" ]
	[ "$(count '<rect class="bar"')" -eq $((bars * 4)) ]
	# one table per metric some region counted, a row per such region, its sum and max / mean
	metrics=$(jq -r '[.regions[].metrics[] | select(.counted) | .name] | unique | .[]' s.json)
	[ "$(count '<table class="heat"')" -eq "$(grep -c . <<<"$metrics")" ]
	while read -r m; do
		rows=$(jq -r --arg m "$m" '.regions[] | .name as $r | .metrics[] | select(.name == $m and .counted)
			| "\($r) \(.sum) \(.imbalance * 100 | round)"' s.json)
		table=$(sed -n "/<table class=\"heat\" data-metric=\"$m\">/,/<\/table>/p" <<<"$dom")
		[ "$(grep -c '<tr class="region"' <<<"$table")" -eq "$(grep -c . <<<"$rows")" ]
		while read -r region sum imb; do
			row=$(grep "<tr class=\"region\" data-region=\"$region\">" <<<"$table")
			grep -q "data-value=\"$sum\">" <<<"$row"
			# 4 ranks' cells, coloured
			[ "$(grep -o 'class="num heat"' <<<"$row" | wc -l)" -eq 4 ]
			shown=$(grep -o 'class="num imbalance">[0-9.]*' <<<"$row" | cut -d'>' -f2)
			echo "$m $region: sum $sum, imbalance $shown (--json x100: $imb)"
			[ "$(awk -v s="$shown" 'BEGIN { printf "%d", s * 100 + 0.5 }')" -eq "$imb" ] ||
				[ "$(awk -v s="$shown" -v i="$imb" 'BEGIN { d = s * 100 - i; print (d < 1.01 && d > -1.01) }')" -eq 1 ]
		done <<<"$rows"
	done <<<"$metrics"
	# work's page faults: 10 (r + 1) pages on each of 2 threads, mean 50: rank 3's 80 is 0.6 of
	# the way to red (255 - 200 x 0.6 = 135 = 0x87 in green and blue), rank 0's 20 as far to blue
	work=$(sed -n '/<table class="heat" data-metric="page-faults">/,/<\/table>/p' <<<"$dom" | grep 'data-region="work"')
	grep -qF 'style="background:#8787ff">20</td>' <<<"$work"
	grep -qF 'style="background:#ff8787">80</td>' <<<"$work"
	# the title is text, escaped once, and the date is the first report's start
	grep -q 'mpirun -n 4 markers_threads &lt;&amp;&gt;' <<<"$dom"
	grep -q "Started $(date -u -d @"$(jq '.start_ns / 1e9 | floor' s.json)" '+%Y-%m-%d %H:%M:%S') UTC" <<<"$dom"
	# without pfshim run's job count, what was lost cannot be known: said
	grep -q 'No job count was read' <<<"$dom"
}

@test "--html with nested regions: a collapsible region tree, each path's calls, inclusive and exclusive counts those of --json" {
	mkdir r
	for rank in 0 1; do
		timeout 60 env OMPI_COMM_WORLD_RANK=$rank LD_PRELOAD="$SHIM" PFSHIM_OUTPUT="$PWD/r/" \
			PFSHIM_FORMAT=json PFSHIM_EVENTS=task-clock,page-faults "$PROGS/markers_tree" 1
	done
	run -0 timeout 60 "$PFSHIM" report --html page.html r
	timeout 60 "$PFSHIM" report --json r >s.json
	look page.html region-tree
	tree=$(sed -n '/<div class="tree rtree">/,/^<\/div>/p' <<<"$dom")
	# two top regions with a kernel each: two lines that open (open at first), two leaves
	[ "$(grep -c '<details open="" class="rnode">' <<<"$tree")" -eq 2 ]
	[ "$(grep -c '<div class="leaf rnode">' <<<"$tree")" -eq 2 ]
	# In --json's order (depth first), each line's name, calls and every metric's two counts.
	want=$(jq -r '.region_tree[] | "\(.name) \(.calls) \([.metrics[] | "\(.name)=\(.inclusive)/\(.exclusive)"] | join(" "))"' s.json)
	got=$(python3 -c 'import re, sys
for name, calls, rest in re.findall(r"<b>([^<]*)</b>[^<]*<span data-calls=\"(\d+)\">(.*?)</(?:summary|div)>", sys.stdin.read(), re.S):
    ms = re.findall(r"data-metric=\"([^\"]*)\" data-inclusive=\"(-?\d+)\" data-exclusive=\"(-?\d+)\"", rest)
    print(name, calls, " ".join("%s=%s/%s" % m for m in ms))' <<<"$tree")
	echo "want: $want"
	echo "got:  $got"
	[ "$(grep -c . <<<"$want")" -eq 4 ]
	[ "$got" = "$want" ]
}

@test "--html of hostile names: markup shown as text, a 3000-character name scrolls nowhere at 1280 px" {
	long=$(printf 'x%.0s' $(seq 3000))
	pid=10
	for p in '<img src=x onerror=alert(1)>' "$long" '<b>&amp;"q'"'"; do
		pid=$((pid + 1))
		printf '{"schema":"pfshim.report","version":3,"program":"%s","argv0":"./%s","pid":%d,"ppid":1,"pid_ns":null,"hostname":"h","rank":null,"start_ns":1000000000000,"wall_ns":5000000,"reason":"exit","seq":null,"interval_ns":null,"events":[{"name":"page-faults","status":"counted","value":%d,"delta":null,"unit":"","scale":1}]}\n' \
			"$(sed 's/"/\\"/g' <<<"$p")" "$(sed 's/"/\\"/g' <<<"$p")" $pid ${#p}
	done >evil.jsonl
	run -0 timeout 60 "$PFSHIM" report --html page.html evil.jsonl
	! grep -q '<img' page.html || false
	grep -q '&lt;img src=x onerror=alert(1)&gt;' page.html
	grep -q '&lt;b&gt;&amp;amp;&quot;q&#39;' page.html
	look page.html hostile
	[ "$(count '<rect class="span"')" -eq 3 ]
}

# metrics_check DOM JSON TEXT: each metric cell of the page against `pfshim report --metrics
# --json` (JSON) for the same row and metric, its value to the last bit (data-value), its text
# as `pfshim report --metrics` (TEXT) prints it; a cell without a value greyed, with its why;
# and where a row has a top-down bar, each segment's width its value's share of the four's sum.
metrics_check() {
	python3 - "$@" <<-'PY'
	import json, re, sys
	from html.parser import HTMLParser

	class Page(HTMLParser):
	    def __init__(self):
	        super().__init__()
	        self.rows, self.cell, self.heads = [], None, []
	    def handle_starttag(self, tag, attrs):
	        a = dict(attrs)
	        if tag == "table" and a.get("class") == "metrics":
	            self.group = a["data-metric-group"]
	            self.region = a["data-region"] or None
	        elif tag == "th" and "data-metric" in a:
	            self.heads.append(a["data-metric"])
	        elif tag == "tr" and a.get("class") == "metric-row":
	            self.rows.append({"group": a["data-group"] or None, "cells": {}, "segs": {},
	                              "metric_group": self.group, "region": self.region})
	        elif tag == "td" and "data-metric" in a:
	            self.cell = dict(a, text="")
	            self.rows[-1]["cells"][a["data-metric"]] = self.cell
	        elif tag == "rect" and a.get("class") == "seg":
	            self.rows[-1]["segs"][a["data-metric"]] = (float(a["x"]), float(a["width"]))
	    def handle_endtag(self, tag):
	        if tag == "td":
	            self.cell = None
	    def handle_data(self, data):
	        if self.cell is not None:
	            self.cell["text"] += data

	page = Page()
	page.feed(open(sys.argv[1]).read())
	want = json.load(open(sys.argv[2]))
	# the text view: " GROUP[, region R], all:" or " GROUP[, region R], BY NAME:", then
	# "%18s      NAME [UNIT]..."
	text, heading = {}, None
	for line in open(sys.argv[3]):
	    m = re.match(r"^ (\S+)(?:, region (.+?))?, (all|\S+ (.*)):$", line.rstrip("\n"))
	    if m:
	        heading = (m.group(1), m.group(2), None if m.group(3) == "all" else m.group(4))
	    elif heading and line.startswith(" ") and len(line) > 25:
	        text[heading + (line[25:].rstrip("\n"),)] = line[1:19].strip()
	rows = want["metrics"]
	key = lambda m: (m["metric_group"], m["region"], m["group"])
	groups = {key(m) for m in rows}
	assert len(page.rows) == len(groups), (len(page.rows), groups)
	cells = 0
	for r in page.rows:
	    mine = [m for m in rows if key(m) == key(r)]
	    assert sorted(r["cells"]) == sorted(m["name"] for m in mine), (r, mine)
	    for m in mine:
	        c = r["cells"][m["name"]]
	        if m["status"] == "computed":
	            assert float(c["data-value"]) == m["value"], (c, m)
	            assert "na" not in c["class"].split(), c
	        else:
	            assert "data-value" not in c and "na" in c["class"].split() and c["title"], (c, m)
	        line = [v for k, v in text.items() if k[:3] == key(r) and
	                (k[3] == m["name"] or k[3].startswith((m["name"] + " [", m["name"] + "  (")))]
	        assert c["text"] in line, (c, m, line)
	        cells += 1
	    if r["segs"]:
	        names = ["Front End", "Speculation", "Retiring", "Back End"]
	        v = [float(r["cells"][n]["data-value"]) for n in names]
	        x = 0
	        for n, value in zip(names, v):
	            sx, w = r["segs"][n]
	            assert abs(sx - x) < 0.002 and abs(w - value / sum(v) * 200) < 0.001, (n, sx, w, value, v)
	            x += w
	        print("%s: top-down %s, widths %s" % (r["group"] or "job", v,
	              [r["segs"][n][1] for n in names]))
	print("%d rows, %d cells equal to --metrics --json and --metrics" % (len(page.rows), cells))
	PY
}

# metrics_page SHOT [OPTION...]: r/'s page (its screenshot SHOT), --metrics --json and
# --metrics with OPTION (--by ...), and metrics_check of every cell; $dom is the page.
metrics_page() {
	local shot=$1

	shift
	run -0 timeout 60 "$PFSHIM" report "$@" --html page.html r
	timeout 60 "$PFSHIM" report "$@" --metrics --json r >m.json
	timeout 60 "$PFSHIM" report "$@" --metrics r >m.txt
	look page.html "$shot"
	echo "$dom" >dom.html
	run -0 metrics_check dom.html m.json m.txt
	echo "$output"
}

@test "--html with PFSHIM_GROUP: a metrics table, each cell pfshim report --metrics' value and text" {
	cat >FAULTS.txt <<-'TXT'
	SHORT Page faults per second, per ms of CPU and per context switch

	EVENTSET
	PMC0  page-faults
	PMC1  task-clock
	PMC2  cpu-migrations

	METRICS
	Runtime (RDTSC) [s] time
	Fault rate [1/s] PMC0/time
	Faults per ms of CPU [1/ms]  PMC0/(PMC1*1.0E-06)
	Faults per migration PMC0/PMC2
	Branches per fault PMC3/PMC0
	TXT
	run -0 --separate-stderr timeout 60 env PFSHIM_GROUP="$PWD/FAULTS.txt" "$PFSHIM" run \
		-e task-clock,page-faults -o r -- \
		sh -c "'$PROGS/fork_children' 3 500 100 >/dev/null; /bin/true; exit 0"
	metrics_page metrics
	# the job and sh, fork_children, true; no top-down metrics, no bar
	[ "$(count '<tr class="metric-row"')" -eq 4 ]
	[ "$(count '<svg class="topdown"')" -eq 0 ]
	# counted by no event of the group: greyed, the reason in its tooltip, as the text says it
	grep -q '<td class="num na" data-metric="Branches per fault" title="PMC3/PMC0; PMC3: counted by no event of the group in 6 of 6 images">&lt;not counted&gt;</td>' <<<"$dom"
}

@test "--html with PFSHIM_METRICS and marker regions: a table per region, each cell pfshim report --metrics' value and text" {
	run -0 --separate-stderr timeout 60 "$PFSHIM" run -M CPUs-utilized,page-faults-per-second -o r -- \
		sh -c "'$PROGS/markers_nested' 300 200 >/dev/null; '$PROGS/markers_nested' 100 50 >/dev/null"
	metrics_page metrics-regions
	# the totals' table, then outer's and inner's, each the job's row and markers_nested's
	[ "$(count '<table class="metrics"')" -eq 3 ]
	[ "$(count '<table class="metrics" data-metric-group="PFSHIM_METRICS" data-region="outer">')" -eq 1 ]
	[ "$(count '<table class="metrics" data-metric-group="PFSHIM_METRICS" data-region="inner">')" -eq 1 ]
	[ "$(count '<tr class="metric-row"')" -eq $((3 + 2 + 2)) ]
}

@test "--html by rank with a top-down group: a stacked bar per row, each segment its metric's share" {
	# named as LIKWID's TMA groups name level 1, from software events, the four adding to 100
	cat >TMA.txt <<-'TXT'
	SHORT Top-down-like split of software events

	EVENTSET
	PMC0  page-faults
	PMC1  task-clock

	METRICS
	Runtime (RDTSC) [s] time
	Front End [%] 70*PMC0/(PMC0+PMC1*1.0E-04)
	Speculation [%] 70*PMC1*1.0E-04/(PMC0+PMC1*1.0E-04)
	Retiring [%] 20+0*PMC0
	Back End [%] 10+0*PMC0
	<img src=x onerror=alert(1)> & [1/s] PMC0/time
	TXT
	mkdir r
	for rank in 0 1 2; do
		timeout 60 env OMPI_COMM_WORLD_RANK=$rank LD_PRELOAD="$SHIM" PFSHIM_OUTPUT="$PWD/r/" \
			PFSHIM_FORMAT=json PFSHIM_GROUP="$PWD/TMA.txt" "$PROGS/touch_pages" $((rank * 3000 + 200)) >/dev/null
	done
	metrics_page topdown --by rank
	# the job and 3 ranks, each with its bar of 4 segments
	[ "$(count '<tr class="metric-row"')" -eq 4 ]
	[ "$(count '<svg class="topdown"')" -eq 4 ]
	[ "$(count '<rect class="seg"')" -eq 16 ]
	[ "$(grep -c 'widths' <<<"$output")" -eq 4 ]
	# a metric's name is text, never markup
	! grep -q '<img' page.html || false
	grep -q '<th data-metric="&lt;img src=x onerror=alert(1)&gt; &amp;" title="PMC0/time">' page.html
}

@test "--html of 502 programs with a metric: the job and the first 500 rows, said so, each a value" {
	for p in $(seq 502); do
		printf '{"schema":"pfshim.report","version":3,"program":"p%d","argv0":"./p%d","pid":%d,"ppid":1,"pid_ns":null,"hostname":"h","rank":null,"start_ns":1000000000000,"wall_ns":5000000,"reason":"exit","seq":null,"interval_ns":null,"events":[{"name":"page-faults","status":"counted","value":%d,"delta":null,"unit":"","scale":1}],"metric_group":"G","metrics":[{"name":"Fault rate","unit":"1/s","value":0,"status":"computed","scaled":false,"missing":null,"why":null,"formula":"PMC0/time","inputs":[{"name":"PMC0","source":"event","event":"page-faults","value":null},{"name":"time","source":"time","event":null,"value":null}]}]}\n' \
			$p $p $((p + 10)) $p
	done >many.jsonl
	run -0 timeout 60 "$PFSHIM" report --html page.html many.jsonl
	# the job: 1 + ... + 502 = 126,253 faults over 502 x 5 ms, computed apart
	job=$(grep -o '<tr class="metric-row" data-group=""><td title="all">all</td><td class="num" data-metric="Fault rate" data-value="[0-9.e+-]*" title="PMC0/time">50,300.00</td>' page.html |
		grep -o 'data-value="[^"]*"' | cut -d'"' -f2)
	python3 -c 'import sys; assert float(sys.argv[1]) == 126253 / (2510000000 / 1e9), sys.argv' "$job"
	[ "$(grep -c '<tr class="metric-row"' page.html)" -eq 501 ]
	[ "$(grep -o 'data-metric="Fault rate" data-value=' page.html | wc -l)" -eq 501 ]
	# p502's own: 502 faults in 5 ms, the first program row (the table's order)
	grep -q '<tr class="metric-row" data-group="p502"><td title="p502">p502</td><td class="num" data-metric="Fault rate" data-value="100400" title="PMC0/time">100,400.00</td>' page.html
	grep -q 'The job and the first 500 of 502 programs shown' page.html
	look page.html metrics-many
}
