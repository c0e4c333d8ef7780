#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# openmetrics.bats: PFSHIM_FORMAT=openmetrics on real programs, every
# exposition read back by a real parser (Debian's python3-prometheus-client,
# strict OpenMetrics, through tests/tools/openmetrics_check.py): the counts
# that can be known, the labels, names that perf accepts and names chosen to
# hurt, directory output (.om) and a file replaced, never appended, at
# each report.

load helpers

# How far two runs' faults may differ besides the pages one of them touches
# (totals.bats: measured -1 to +3).
FAULT_SLACK=32

setup() {
	need_perf
	cd "$BATS_TEST_TMPDIR"
	REPORTS="$BATS_TEST_TMPDIR/reports.jsonl"	# shim's JSON Lines (helpers.bash)
	: >"$REPORTS"
	PROM="$BATS_TEST_TMPDIR/out.prom"
	SAMPLES="$BATS_TEST_TMPDIR/samples.jsonl"
	/usr/bin/python3 -c 'import prometheus_client' || {
		echo "python3-prometheus-client is missing: run tests/deps.sh as root" >&2
		return 1
	}
}

# om [VAR=VALUE...] COMMAND...: COMMAND under the shim, OpenMetrics into $PROM.
om() {
	env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=openmetrics PFSHIM_OUTPUT="$PROM" "$@"
}

# parse [FILE]: the real parser accepts FILE ($PROM); its samples go to $SAMPLES.
parse() {
	/usr/bin/python3 "$ROOT/tests/tools/openmetrics_check.py" "${1:-$PROM}" >"$SAMPLES"
}

# sample NAME [JQ-CONDITION on .labels]: the values of NAME's matching samples.
sample() {
	jq -r --arg n "$1" "select(.name == \$n and (.labels | ${2:-true})) | .value" "$SAMPLES"
}

@test "page-faults of touch_pages N: N more than of touching none, parsed by a real parser" {
	om PFSHIM_EVENTS=task-clock,page-faults "$PROGS/touch_pages" 0
	parse
	base=$(sample pfshim_page_faults_total '.event == "page-faults"')
	om PFSHIM_EVENTS=task-clock,page-faults "$PROGS/touch_pages" 20000
	parse
	n=$(sample pfshim_page_faults_total '.event == "page-faults"')
	[ "$n" -ge 20000 ]
	between $((20000 - FAULT_SLACK)) $((n - base)) $((20000 + FAULT_SLACK))
	# task-clock in seconds, and no more than the wall time
	python3 -c "import sys; c, w = map(float, sys.argv[1:]); assert 0 < c <= w, (c, w)" \
		"$(sample pfshim_task_clock_seconds_total)" "$(sample pfshim_wall_seconds)"
	[ "$(tail -n 1 "$PROM")" = "# EOF" ]
	[ "$(grep -c '^# EOF$' "$PROM")" -eq 1 ]
}

@test "the same count as a JSON report of the same run shape, within the runs' slack" {
	shim PFSHIM_EVENTS=page-faults "$PROGS/touch_pages" 5000
	json=$(value page-faults)
	om PFSHIM_EVENTS=page-faults "$PROGS/touch_pages" 5000
	parse
	prom=$(sample pfshim_page_faults_total)
	between $((json - FAULT_SLACK)) "$prom" $((json + FAULT_SLACK))
}

@test "every sample carries program, pid, host and rank; the report info says why" {
	env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=openmetrics PFSHIM_OUTPUT="$PROM" \
		PFSHIM_EVENTS=page-faults OMPI_COMM_WORLD_RANK=7 "$PROGS/touch_pages" 10 &
	pid=$!
	wait $pid
	parse
	# every sample, every family: the process's labels
	[ "$(jq -s 'length' "$SAMPLES")" -gt 5 ]
	[ "$(jq -s --arg p "$pid" --arg h "$(uname -n)" 'map(select(.labels.program == "touch_pages"
		and .labels.pid == $p and .labels.host == $h and .labels.rank == "7")) | length' \
		"$SAMPLES")" = "$(jq -s 'length' "$SAMPLES")" ]
	[ "$(sample pfshim_report_info '.reason == "exit" and .signal == "" and
		(.argv0 | endswith("/touch_pages"))')" = 1 ]
	# without a rank: rank="" (the same label names in every file)
	om PFSHIM_EVENTS=page-faults "$PROGS/touch_pages" 10
	parse
	[ "$(jq -r 'select(.labels.rank != "") | .name' "$SAMPLES")" = "" ]
}

@test "events not counted give no sample; pfshim_event_status says what became of each" {
	om PFSHIM_EVENTS=page-faults,cycles,r01a2 "$PROGS/touch_pages" 10
	parse
	[ -n "$(sample pfshim_page_faults_total)" ]
	[ "$(jq -r 'select(.name | test("cycles|r01a2")) | .name' "$SAMPLES")" = "" ]
	[ "$(sample pfshim_event_status '.event == "page-faults" and .status == "counted"')" = 1 ]
	# cycles: no PMU here, or counted where there is one; r01a2 likewise
	for e in cycles r01a2; do
		s=$(jq -r --arg e "$e" 'select(.name == "pfshim_event_status" and .labels.event == $e)
			| .labels.status + " " + .labels.error' "$SAMPLES")
		[[ "$s" == "not-supported E"* || "$s" == "counted " ]]
	done
}

@test "modifiers and PMU forms keep names of their own, each with the event as written" {
	om PFSHIM_EVENTS='page-faults,page-faults:u,faults,software/config=2/,software/config=2/u,cpu-clock:k' \
		"$PROGS/touch_pages" 3000
	parse
	pf=$(sample pfshim_page_faults_total '.event == "page-faults"')
	[ "$pf" -ge 3000 ]
	[ "$(sample pfshim_page_faults_u_total '.event == "page-faults:u"')" -ge 3000 ]
	[ "$(sample pfshim_faults_total '.event == "faults"')" -ge 3000 ]
	[ "$(sample pfshim_software_config_2_total '.event == "software/config=2/"')" -ge 3000 ]
	[ "$(sample pfshim_software_config_2_u_total '.event == "software/config=2/u"')" -ge 3000 ]
	# kernel-only counting: refused EACCES to a user at perf_event_paranoid 2 or more
	[ -n "$(sample pfshim_cpu_clock_k_seconds_total '.event == "cpu-clock:k"')" ] ||
		[ "$(sample pfshim_event_status '.event == "cpu-clock:k" and .status == "not-supported" and .error == "EACCES"')" = 1 ]
	# one family per name: one TYPE line each
	[ "$(grep -c '^# TYPE pfshim_page_faults counter$' "$PROM")" -eq 1 ]
	[ "$(grep '^# TYPE ' "$PROM" | sort | uniq -d)" = "" ]
}

@test "sysfs events (a fixture PMU): the status parses, with the name as written" {
	om PFSHIM_SYSFS_ROOT="$ROOT/tests/fixtures/sysfs/intel" \
		PFSHIM_EVENTS='page-faults,cpu/event=0x3c,umask=0x00/,mem-loads,topdown-be-bound' \
		"$PROGS/touch_pages" 10
	parse
	for e in 'cpu/event=0x3c,umask=0x00/' mem-loads topdown-be-bound; do
		[ "$(sample pfshim_event_status ".event == \"$e\"")" = 1 ]
	done
}

@test "a program named with quotes, backslashes and a newline, argv0 with control bytes: still parses" {
	name=$'we"ird\\na\nme'
	cp "$PROGS/touch_pages" "$BATS_TEST_TMPDIR/$name"
	om PFSHIM_EVENTS=page-faults bash -c 'exec -a "$1" "$2" 10' - \
		$'./\e[31mred\x01"\\\n' "$BATS_TEST_TMPDIR/$name"
	parse
	[ "$(sample pfshim_page_faults_total | wc -l)" -eq 1 ]
	# program as named; argv0's ESC and ^A made '?', its quote, backslash and LF escaped
	[ "$(jq -r --arg n "$name" 'select(.name == "pfshim_report_info" and
		.labels.program == $n and .labels.argv0 == "./?[31mred?\"\\\n") | .value' \
		"$SAMPLES")" = 1 ]
	# the raw file: escapes, one line per sample, no control byte
	! grep -qP '[\x00-\x09\x0b-\x1f\x7f]' "$PROM" || false
}

@test "an event listed twice gives one sample, in the totals and in the regions" {
	om PFSHIM_EVENTS=page-faults,task-clock,page-faults "$PROGS/markers_calls" 10
	parse	# refuses two samples alike
	[ "$(sample pfshim_page_faults_total | wc -l)" -eq 1 ]
	[ "$(sample pfshim_event_status '.event == "page-faults"' | wc -l)" -eq 1 ]
	[ "$(sample pfshim_region_page_faults_total '.region == "pairs"' | wc -l)" -eq 1 ]
}

@test "a marker program: region calls exact, region values as their own families" {
	om PFSHIM_EVENTS=task-clock,page-faults "$PROGS/markers_calls" 1000
	parse
	[ "$(sample pfshim_region_calls_total '.region == "pairs"')" = 1000 ]
	[ "$(sample pfshim_region_calls_total '.region == "by-name"')" = 1000 ]
	[ -n "$(sample pfshim_region_wall_seconds_total '.region == "pairs"')" ]
	[ -n "$(sample pfshim_region_task_clock_seconds_total '.region == "pairs" and .event == "task-clock"')" ]
	[ -n "$(sample pfshim_region_page_faults_total '.region == "by-name" and .event == "page-faults"')" ]
	# the whole process's count is not mixed into a region family
	[ "$(jq -r 'select(.name | startswith("pfshim_region_")) | select(.labels.region == null) | .name' \
		"$SAMPLES")" = "" ]
}

# om_small_stack PROGRAM: a report signal while PROGRAM runs on a small stack; many events.
om_small_stack() {
	run --separate-stderr om PFSHIM_SIGNAL=USR1 \
		PFSHIM_EVENTS=task-clock,page-faults,page-faults:u,cpu-clock:k,faults,cs,migrations,minor-faults \
		"$PROGS/$1" 10
	[ "$status" -eq 0 ]
	[ "$output" = after ]
	parse	# the exit report, which replaced the signal one
	[ "$(sample pfshim_report_info '.reason == "exit"')" = 1 ]
}

@test "a report signal on a small alternate signal stack" {
	om_small_stack small_altstack
}

@test "a report signal on a thread with the smallest stack allowed" {
	skip_under_sanitizer "instrumented code needs more stack than PTHREAD_STACK_MIN leaves" asan
	om_small_stack small_stack_thread
}

@test "directory output: one .om file per process, whole, that parses" {
	env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=openmetrics PFSHIM_EVENTS=page-faults \
		PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/textfile/" "$PROGS/touch_pages" 100
	env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=openmetrics PFSHIM_EVENTS=page-faults \
		PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/textfile/" "$PROGS/touch_pages" 100
	[ "$(ls -A textfile | wc -l)" -eq 2 ]
	for f in textfile/*; do
		[[ "$f" == *.om ]]	# not .prom: node_exporter would read it as the text format
		parse "$f"
		[ "$(sample pfshim_page_faults_total)" -ge 100 ]
	done
}

@test "a file template is replaced at each report, never appended: one exposition, the latest" {
	printf 'stale\n# EOF\n' >"$PROM"
	# 50 explicit reports, then the exit one
	om PFSHIM_EVENTS=page-faults "$PROGS/report_loop" 50
	parse
	[ "$(grep -c '^# EOF$' "$PROM")" -eq 1 ]
	[ "$(sample pfshim_report_info '.reason == "exit"')" = 1 ]
	[ "$(ls -A "$BATS_TEST_TMPDIR" | grep -v -e '^samples.jsonl$' -e '^reports.jsonl$')" = out.prom ]	# no temporary left

	# a PFSHIM_SIGNAL report lands first, then the exit report replaces it
	mkfifo go
	# (fd 3 is bats's own: the background job must not hold it)
	om PFSHIM_SIGNAL=USR1 PFSHIM_EVENTS=page-faults sh -c 'kill -USR1 $$; read x <go' 3>&- &
	job=$!
	exec 5>go	# opens once sh waits: the signal report is written by then
	parse
	[ "$(sample pfshim_report_info '.reason == "signal" and .signal == "SIGUSR1"')" = 1 ]
	echo >&5
	exec 5>&-
	wait $job
	parse
	[ "$(sample pfshim_report_info '.reason == "exit"')" = 1 ]
	[ "$(grep -c '^# EOF$' "$PROM")" -eq 1 ]
}

@test "with %n each report is a file of its own; json still appends" {
	env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=openmetrics PFSHIM_EVENTS=page-faults \
		PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/r.%n.prom" "$PROGS/report_loop" 2
	[ "$(ls r.*.prom | wc -l)" -eq 3 ]
	for f in r.*.prom; do parse "$f"; done
	shim PFSHIM_EVENTS=page-faults "$PROGS/report_loop" 2
	[ "$(reports)" -eq 3 ]
}

@test "a symbolic link to a file is not replaced: one pfshim line, the report on stderr" {
	: >target.prom
	ln -s target.prom link.prom
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=openmetrics \
		PFSHIM_EVENTS=page-faults PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/link.prom" "$PROGS/touch_pages" 10
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"pfshim: cannot write '$BATS_TEST_TMPDIR/link.prom' (ELOOP: a symbolic link to a file"* ]]
	[[ "$stderr" == *"# EOF"* ]]
	[ -L link.prom ] && [ ! -s target.prom ]
}

@test "PFSHIM_FORMAT's warning names openmetrics and prometheus" {
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=prom PFSHIM_EVENTS=page-faults \
		"$PROGS/touch_pages" 1
	[[ "$stderr" == *"PFSHIM_FORMAT"*"expected text, csv, json, openmetrics, prometheus or papi; using text"* ]]
}

# PFSHIM_INTERVAL with a directory. Every report, the interval ones too,
# replaces the one .om file of the process, and no series file is kept (an
# appended exposition is no exposition). (node_exporter reads the prometheus
# format: prometheus.bats.)
@test "PFSHIM_INTERVAL into a directory: one .om file, replaced at each interval, always whole" {
	out="$BATS_TEST_TMPDIR/textfile"
	env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=openmetrics PFSHIM_INTERVAL=50ms \
		PFSHIM_EVENTS=page-faults PFSHIM_OUTPUT="$out/" "$PROGS/touch_rate" 100 20 1500 &
	pid=$!
	seen=()
	for _ in $(seq 1 400); do	# read it while it changes, as a scraper would
		files=("$out"/*.om)
		if [ -e "${files[0]}" ]; then
			[ "${#files[@]}" -eq 1 ]
			parse "${files[0]}"
			v=$(sample pfshim_page_faults_total)
			[ "${#seen[@]}" -eq 0 ] || [ "$v" -ge "${seen[-1]}" ]
			[ "${#seen[@]}" -gt 0 ] && [ "$v" -eq "${seen[-1]}" ] || seen+=("$v")
			[ "${#seen[@]}" -lt 3 ] || break
		fi
		sleep 0.02
	done
	wait "$pid"
	echo "values seen while it ran: ${seen[*]}"
	[ "${#seen[@]}" -ge 3 ]		# three different expositions, each whole
	[ "$(ls -A "$out" | tr '\n' ' ')" = "$(basename "$out"/*.om) " ]	# no series, no temporary
	parse "$out"/*.om
	[ "$(sample pfshim_page_faults_total)" -ge 7500 ]	# the exit report: 100 pages x 75 rounds
	[ "$(sample pfshim_report_info | head -1)" = 1 ]
	grep -q 'reason="exit"' "$out"/*.om
}
