#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# report-html.bats: the page of `pfshim report --html` in a real browser.
# Headless Chromium (Debian's `chromium`, installed by `make e2e`) loads it
# from disk with the network unused, and we check what a person would see:
# no console error, the number of charts the data calls for (one bar chart
# per event, one per region metric that is not 0 everywhere, one line chart
# per event of the interval series), and a screenshot, kept in
# build/report.png to look at.

load helpers

PFSHIM="$BUILD/pfshim"

setup() {
	need_perf
	cd "$BATS_TEST_TMPDIR"
	command -v chromium >/dev/null || skip "chromium is not installed (make e2e installs it)"
}

# chromium ARGS... FILE: headless, no GPU, no sandbox (root in CI), its own profile.
browse() {
	chromium --headless=new --disable-gpu --no-sandbox --no-first-run --hide-scrollbars \
		--user-data-dir="$BATS_TEST_TMPDIR/profile" --enable-logging=stderr --v=0 "$@"
}

@test "the --html page renders in Chromium: no console error, one chart per event, region metric and series" {
	mkdir r
	for rank in 0 1 2 3; do
		env OMPI_COMM_WORLD_RANK=$rank LD_PRELOAD="$SHIM" PFSHIM_OUTPUT="$PWD/r/" \
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
	run -0 "$PFSHIM" report --by rank --tree --title 'mpirun -n 4 markers_threads <&>' \
		--html page.html r series.jsonl
	"$PFSHIM" report --json --by rank r series.jsonl >s.json
	bars=$(jq '.events | length' s.json)
	regions=$(jq '[.regions[].metrics[] | select(.counted and .max > 0)] | length' s.json)
	series=$(jq '.series.events | length' s.json)
	echo "expect $bars bar charts, $regions region charts, $series series charts"
	[ "$bars" -eq 2 ] && [ "$regions" -ge 4 ] && [ "$series" -eq 1 ]

	run -0 --separate-stderr browse --dump-dom "file://$PWD/page.html"
	dom=$output
	echo "$stderr" | grep -i console || true
	! grep -q ':CONSOLE' <<<"$stderr"
	[ "$(grep -o '<svg class="chart bars"' <<<"$dom" | wc -l)" -eq "$bars" ]
	[ "$(grep -o '<svg class="chart region"' <<<"$dom" | wc -l)" -eq "$regions" ]
	[ "$(grep -o '<svg class="chart series"' <<<"$dom" | wc -l)" -eq "$series" ]
	# each bar chart: one bar per rank (0..3); each region chart a mean line
	[ "$(grep -o '<rect class="bar"' <<<"$dom" | wc -l)" -eq $((bars * 4 + regions * 4)) ]
	[ "$(grep -o '<line class="mean"' <<<"$dom" | wc -l)" -eq "$regions" ]
	# the title is text, escaped once, and the date is the first report's start
	grep -q 'mpirun -n 4 markers_threads &lt;&amp;&gt;' <<<"$dom"
	grep -q "Started $(date -u -d @"$(jq '.start_ns / 1e9 | floor' s.json)" '+%Y-%m-%d %H:%M:%S') UTC" <<<"$dom"
	! grep -q '<script' <<<"$dom"

	mkdir -p "$BUILD"
	run -0 --separate-stderr browse --window-size=900,4000 --screenshot="$BUILD/report.png" \
		"file://$PWD/page.html"
	[ -s "$BUILD/report.png" ]
}
