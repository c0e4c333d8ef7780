#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# interval.bats: PFSHIM_INTERVAL, a report every interval from a thread of the
# shim's own: numbered series whose deltas add up to the final totals exactly,
# one series per image across fork and exec, kept whole in a directory,
# never counted, never delaying exit, out of the way of unshare(CLONE_NEWUSER).

load helpers

# How far two runs' faults may differ: the mmap, the loop's stack and ASLR
# (totals.bats).
FAULT_SLACK=32

# series FILE [JQ-FILTER]: check each image's series in the JSON Lines FILE
# (images told apart by pid and start): seq 1..n in order, every report but
# the last an interval one, the last one not, interval_ns the same, and
# each event's deltas adding up to the last report's value EXACTLY. Prints
# "images reports" for the caller to check.
series() {
	python3 - "$1" <<-'EOF'
	import json, sys
	images = {}
	for line in open(sys.argv[1]):
	    r = json.loads(line)
	    assert r["version"] == 4, r["version"]
	    images.setdefault((r["pid"], r["start_ns"]), []).append(r)
	total = 0
	for key, reps in images.items():
	    seqs = [r["seq"] for r in reps]
	    assert seqs == list(range(1, len(reps) + 1)), (key, seqs)
	    assert all(r["reason"] == "interval" for r in reps[:-1]), key
	    assert reps[-1]["reason"] in ("exit", "exec"), (key, reps[-1]["reason"])
	    assert len({r["interval_ns"] for r in reps}) == 1, key
	    for i, e in enumerate(reps[-1]["events"]):
	        if e["status"] != "counted":
	            continue
	        deltas = [r["events"][i]["delta"] for r in reps]
	        assert sum(deltas) == e["value"], (key, e["name"], deltas, e["value"])
	        assert all(d >= 0 for d in deltas), (key, e["name"], deltas)
	    total += len(reps)
	print(len(images), total)
	EOF
}

@test "interval reports: seq 1, 2, 3, ..., the exit report the next, deltas add up to the totals exactly" {
	shim PFSHIM_EVENTS=page-faults,task-clock PFSHIM_INTERVAL=50ms "$PROGS/touch_rate" 100 10 400
	read -r images n < <(series "$REPORTS")
	[ "$images" -eq 1 ]
	[ "$n" -ge 3 ]
	[ "$(reports '.reason == "interval"')" -eq $((n - 1)) ]
	[ "$(reports '.reason == "exit" and .seq == '"$n"'')" -eq 1 ]
	[ "$(reports '.interval_ns == 50000000')" -eq "$n" ]
	# 100 pages every 10 ms for 400 ms: 4000 pages, besides the program's own start
	# (TSan's shadow memory adds faults of its own)
	[ "${PFSHIM_SANITIZER:-}" = tsan ] ||
		between 4000 "$(value page-faults '.reason == "exit"')" 4600
}

@test "without PFSHIM_INTERVAL: seq and interval_ns are null, delta is the whole value" {
	shim PFSHIM_EVENTS=page-faults "$PROGS/touch_pages" 100
	[ "$(reports)" -eq 1 ]
	jq -e '.seq == null and .interval_ns == null and .version == 4
		and (.events[0] | .delta == .value)' "$REPORTS"
}

@test "the interval thread is not counted: context-switches and page-faults as without it" {
	# sleep(1) blocks once: a context switch or two of its own. The interval
	# thread switches at every tick: were it counted (created after the
	# counters, so inheriting them), 30 reports would add 30 or more.
	shim PFSHIM_EVENTS=context-switches PFSHIM_INTERVAL=10ms sleep 0.3
	n=$(reports)
	cs=$(value context-switches '.reason == "exit"')
	echo "$n reports, $cs context switches"
	[ "$n" -ge 10 ]
	[ "$cs" -lt $((n / 2)) ]
	[ "$cs" -le 5 ]

	: >"$REPORTS"
	shim PFSHIM_EVENTS=page-faults "$PROGS/touch_rate" 100 10 300
	base=$(value page-faults)
	: >"$REPORTS"
	shim PFSHIM_EVENTS=page-faults PFSHIM_INTERVAL=10ms "$PROGS/touch_rate" 100 10 300
	with=$(value page-faults '.reason == "exit"')
	echo "page-faults without $base, with $with"
	between $((base - FAULT_SLACK)) "$with" $((base + FAULT_SLACK))
}

@test "a program sees one more thread, pfshim-intv, that blocks every signal" {
	skip_under_sanitizer "its runtime runs a thread of its own in every process" tsan
	run -0 shim PFSHIM_EVENTS=page-faults PFSHIM_INTERVAL=1m sh -c \
		'for t in /proc/$$/task/*; do echo "$(cat $t/comm) $(grep SigBlk $t/status)"; done'
	echo "$output"
	[ "${#lines[@]}" -eq 2 ]
	[ "$(grep -c '^sh ' <<<"$output")" -eq 1 ]
	blocked=$(awk '/^pfshim-intv / { print $3 }' <<<"$output")
	# SIGUSR1 (10), SIGTERM (15), SIGINT (2), SIGRTMIN+5: all blocked
	for sig in 2 10 15 39; do
		[ $(( (0x$blocked >> (sig - 1)) & 1 )) -eq 1 ]
	done
	# without PFSHIM_INTERVAL: no thread
	run -0 shim PFSHIM_EVENTS=page-faults sh -c 'ls /proc/$$/task | wc -l'
	[ "$output" -eq 1 ]
}

@test "fork and exec: the child and the exec'd image each have a series of their own" {
	skip_under_sanitizer "it cannot start a thread in the child of a multi-threaded fork (die_after_fork)" tsan
	run -0 shim PFSHIM_EVENTS=page-faults,task-clock PFSHIM_INTERVAL=30ms \
		"$PROGS/interval_tree" 50 10 200 "$PROGS/touch_rate"
	child=$output
	read -r images n < <(series "$REPORTS")
	[ "$images" -eq 3 ]
	# parent: interval_tree to its exit; child: interval_tree to its exec, then touch_rate
	[ "$(reports ".pid != $child and .program == \"interval_tree\" and .reason == \"exit\"")" -eq 1 ]
	[ "$(reports ".pid == $child and .program == \"interval_tree\" and .reason == \"exec\"")" -eq 1 ]
	[ "$(reports ".pid == $child and .program == \"touch_rate\" and .reason == \"exit\"")" -eq 1 ]
	for image in ".pid != $child" ".pid == $child and .program == \"interval_tree\"" \
		     ".pid == $child and .program == \"touch_rate\""; do
		[ "$(reports "$image and .reason == \"interval\"")" -ge 1 ]
		[ "$(reports "$image and .seq == 1")" -eq 1 ]
	done
}

@test "a directory keeps each image's final report, and its whole series in NAME.series.jsonl" {
	skip_under_sanitizer "it cannot start a thread in the child of a multi-threaded fork (die_after_fork)" tsan
	out="$BATS_TEST_TMPDIR/out"
	env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=page-faults PFSHIM_FORMAT=json PFSHIM_OUTPUT="$out/" \
		PFSHIM_INTERVAL=30ms "$PROGS/interval_tree" 50 10 200 "$PROGS/touch_rate"
	ls "$out"
	[ "$(ls "$out"/*.series.jsonl | wc -l)" -eq 3 ]
	[ "$(ls "$out" | grep -vc '\.series\.jsonl$')" -eq 3 ]
	for s in "$out"/*.series.jsonl; do
		read -r images n < <(series "$s")
		[ "$images" -eq 1 ]
		# the file beside it holds the series' last report, whole
		f=${s%.series.jsonl}.json
		[ "$(jq -c . "$f")" = "$(tail -n 1 "$s" | jq -c .)" ]
		[ "$(jq .seq "$f")" -eq "$n" ]
	done
	# no hidden temporary file left behind
	[ "$(ls -A "$out" | grep -c '^\.')" -eq 0 ]
}

@test "a directory, kill -9 in the middle of a series: whole lines, seq from 1, no half file" {
	out="$BATS_TEST_TMPDIR/out"
	env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=page-faults PFSHIM_FORMAT=json PFSHIM_OUTPUT="$out/" \
		PFSHIM_INTERVAL=10ms "$PROGS/touch_rate" 10 10 60000 &
	pid=$!
	for _ in $(seq 500); do
		[ "$(cat "$out"/*.series.jsonl 2>/dev/null | wc -l)" -ge 5 ] && break
		sleep 0.02
	done
	kill -9 "$pid"
	wait "$pid" || true
	ls -A "$out"
	s=$(ls "$out"/*.series.jsonl)
	python3 - "$s" <<-'EOF'
	import json, sys
	data = open(sys.argv[1]).read()
	assert data.endswith("\n"), "a line without its newline"
	reps = [json.loads(line) for line in data.splitlines()]
	assert len(reps) >= 5, len(reps)
	assert [r["seq"] for r in reps] == list(range(1, len(reps) + 1))
	assert all(r["reason"] == "interval" for r in reps)
	EOF
	# interval reports touch only the series: no file of the image, nothing hidden
	[ "$(ls -A "$out" | wc -l)" -eq 1 ]
}

@test "text and CSV show the series: a time column, the change and the total" {
	env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=page-faults PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/r.txt" \
		PFSHIM_INTERVAL=50ms "$PROGS/touch_rate" 100 10 200
	cat "$BATS_TEST_TMPDIR/r.txt"
	grep -q "^ pfshim: interval report 1 of 'touch_rate' (pid [0-9]*, every 50 ms), change since the previous one:$" \
		"$BATS_TEST_TMPDIR/r.txt"
	grep -q '^#           time             change unit event$' "$BATS_TEST_TMPDIR/r.txt"
	grep -Eq '^ +0\.[0-9]{9} +[0-9,]+ +page-faults(:u)? +total [0-9,]+$' "$BATS_TEST_TMPDIR/r.txt"
	grep -q "^ pfshim: Performance counter stats for 'touch_rate'" "$BATS_TEST_TMPDIR/r.txt"

	env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=page-faults PFSHIM_FORMAT=csv \
		PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/r.csv" PFSHIM_INTERVAL=50ms "$PROGS/touch_rate" 100 10 200
	python3 - "$BATS_TEST_TMPDIR/r.csv" <<-'EOF'
	import csv, sys
	rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["pid"] != "pid"]
	assert [int(r["seq"]) for r in rows] == list(range(1, len(rows) + 1)), rows
	assert all(r["interval_ns"] == "50000000" for r in rows)
	assert rows[-1]["reason"] == "exit" and all(r["reason"] == "interval" for r in rows[:-1])
	assert sum(int(r["delta"]) for r in rows) == int(rows[-1]["value"])
	EOF
}

@test "exit is not delayed: PFSHIM_INTERVAL=1m and a program that exits at once" {
	start=$(date +%s%N)
	shim PFSHIM_EVENTS=page-faults PFSHIM_INTERVAL=1m /bin/true
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	echo "took $ms ms"
	# an exit that waited for the interval would take 60 s
	[ "$ms" -lt 5000 ]
	[ "$(reports)" -eq 1 ]
	jq -e '.reason == "exit" and .seq == 1 and .interval_ns == 60000000000' "$REPORTS"
}

# main_leaves_timed INTERVAL T MS: main_leaves T MS under the shim with
# PFSHIM_INTERVAL, bounded by a timeout; sets status, output and ms (the wall time).
main_leaves_timed() {
	local start
	start=$(date +%s%N)
	run timeout -s KILL 10 env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" \
		PFSHIM_EVENTS=task-clock PFSHIM_INTERVAL="$1" "$PROGS/main_leaves" "$2" "$3"
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	echo "status $status, took $ms ms, output: $output"
}

@test "main calls pthread_exit(): the process ends with its last thread, exit 0 and its exit report" {
	# glibc's last thread calls exit(0); the interval thread outlives the
	# program's, so it must see that and do the same (timeout: killed, status 137)
	main_leaves_timed 100ms 1 100
	[ "$status" -eq 0 ]
	[ "$output" = atexit ]
	[ "$ms" -lt 1000 ]
	[ "$(reports '.reason == "exit"')" -eq 1 ]
	jq -e 'select(.reason == "exit") | .exit_status == 0' "$REPORTS"
}

@test "main calls pthread_exit() under a long interval: the process still ends at once" {
	main_leaves_timed 1m 1 100
	[ "$status" -eq 0 ]
	[ "$output" = atexit ]
	# one interval would be 60 s
	[ "$ms" -lt 2000 ]
	[ "$(reports)" -eq 1 ]
	jq -e '.reason == "exit" and .seq == 1 and .exit_status == 0' "$REPORTS"
}

@test "main calls pthread_exit() while its threads run on: reports every interval until they end" {
	main_leaves_timed 100ms 2 800
	[ "$status" -eq 0 ]
	[ "$output" = atexit ]
	[ "$ms" -lt 2500 ]
	read -r images n < <(series "$REPORTS")
	[ "$images" -eq 1 ]
	# 800 ms at 100 ms: 7 or 8 interval reports, fewer only on a loaded machine
	[ "$(reports '.reason == "interval"')" -ge 4 ]
	[ "$(reports '.reason == "exit" and .seq == '"$n"' and .exit_status == 0')" -eq 1 ]
}

@test "unshare(CLONE_NEWUSER) works as without pfshim: the interval thread goes first, for good" {
	skip_under_sanitizer "its runtime runs a thread of its own in every process" tsan
	need_unshare -U
	run -0 timeout 60 "$PROGS/unshare_user" 100
	alone=$output
	run -0 --separate-stderr shim PFSHIM_EVENTS=page-faults PFSHIM_INTERVAL=20ms \
		"$PROGS/unshare_user" 100
	echo "$output"
	echo "$stderr"
	[ "$output" = "$alone" ]
	[ "$stderr" = "pfshim: PFSHIM_INTERVAL: interval reports stop here: unshare()/setns() into a user namespace needs a single-threaded process; the final report still comes" ]
	read -r images n < <(series "$REPORTS")
	[ "$n" -ge 2 ]
	# no interval report after the call: the last interval report comes before
	# the second half (100 ms) of the program
	last=$(jq -s 'map(select(.reason == "interval")) | last | .wall_ns' "$REPORTS")
	end=$(jq -s 'map(select(.reason == "exit")) | last | .wall_ns' "$REPORTS")
	[ $((end - last)) -ge 100000000 ]
}

@test "setns(fd, 0) into a user namespace works as without pfshim: the shim asks the fd its type" {
	skip_under_sanitizer "it cannot start a thread in the child of a multi-threaded fork (die_after_fork)" tsan
	need_unshare -U
	run -0 timeout 60 "$PROGS/unshare_user" 100 setns
	alone=$output
	[ "${lines[0]}" = "setns: 0" ]
	run -0 --separate-stderr shim PFSHIM_EVENTS=page-faults PFSHIM_INTERVAL=20ms \
		"$PROGS/unshare_user" 100 setns
	[ "$output" = "$alone" ]
	# the child's unshare and the parent's setns: each stops its own thread
	[ "$(grep -c 'interval reports stop here' <<<"$stderr")" -eq 2 ]
	# the parent's series ends at the call; its final report still comes
	parent=$(jq -s 'map(select(.reason == "exit")) | max_by(.wall_ns) | .pid' "$REPORTS")
	[ "$(reports ".pid == $parent and .reason == \"exit\"")" -eq 1 ]
	last=$(jq -s "map(select(.pid == $parent and .reason == \"interval\")) | last | .wall_ns" "$REPORTS")
	end=$(jq -s "map(select(.pid == $parent and .reason == \"exit\")) | last | .wall_ns" "$REPORTS")
	[ $((end - last)) -ge 100000000 ]
}

@test "a program with threads of its own fails unshare(CLONE_NEWUSER) as always, and keeps its series" {
	skip_under_sanitizer "its runtime runs a thread of its own in every process" tsan
	# (EINVAL before any other check: a host without user namespaces gives it too)
	run -0 timeout 60 "$PROGS/unshare_user" 100 threaded
	[ "${lines[0]}" = "unshare: EINVAL" ]
	run -0 --separate-stderr shim PFSHIM_EVENTS=page-faults PFSHIM_INTERVAL=20ms \
		"$PROGS/unshare_user" 100 threaded
	[ "${lines[0]}" = "unshare: EINVAL" ]
	[ -z "$stderr" ]
	# interval reports on both sides of the call
	call=$(jq -s 'map(select(.reason == "exit")) | last | .wall_ns - 100000000' "$REPORTS")
	[ "$(reports ".reason == \"interval\" and .wall_ns > $call")" -ge 1 ]
}

@test "bad values: one pfshim: line each, no interval reports, the program runs" {
	for bad in fast 5ms 1.5s 2h -1; do
		: >"$REPORTS"
		run -0 --separate-stderr shim PFSHIM_EVENTS=page-faults PFSHIM_INTERVAL="$bad" \
			"$PROGS/touch_rate" 1 10 50
		echo "$bad: $stderr"
		[ "$(wc -l <<<"$stderr")" -eq 1 ]
		[[ "$stderr" == "pfshim: PFSHIM_INTERVAL: "* ]]
		[ "$(reports)" -eq 1 ]
		jq -e '.reason == "exit" and .seq == null' "$REPORTS"
	done
	grep -q "out of range (10ms to 1 day" <<<"$(PFSHIM_INTERVAL=5ms shim /bin/true 2>&1)"
	grep -q "expected a duration such as 500ms, 2s or 1m" <<<"$(PFSHIM_INTERVAL=fast shim /bin/true 2>&1)"
}

@test "pfshim run -I: the runner reads the job's totals every interval; no thread in the job" {
	skip_under_sanitizer "pfshim run preloads the shim beside it without the sanitizer runtime before it"
	[ -x "$BUILD/pfshim" ] || skip "build/pfshim is not built (libjansson-dev)"
	out="$BATS_TEST_TMPDIR/job"
	run -0 --separate-stderr "$BUILD/pfshim" run -I 30ms -e page-faults -o "$out" -- \
		"$PROGS/interval_tree" 50 10 200 "$PROGS/touch_rate"
	echo "$stderr"
	# no process of the job keeps a series: the runner does
	[ "$(ls "$out" | grep -c 'series')" -eq 0 ]
	[ "$(grep -c '^#           time             counts unit events$' <<<"$stderr")" -eq 1 ]
	lines=$(grep -cE '^ +[0-9]+\.[0-9]{9} +[0-9,]+ +page-faults$' <<<"$stderr")
	[ "$lines" -ge 3 ]
	job="$out/pfshim-job.jsonl"
	[ "$(jq '.intervals | length' "$job")" -eq "$lines" ]
	# each printed line is the change since the one before; they add up to the last reading
	printed=$(grep -E ' page-faults$' <<<"$stderr" | awk '{ gsub(",", "", $2); s += $2 } END { print s }')
	[ "$printed" -eq "$(jq '.intervals[-1].values[0]' "$job")" ]
	[ "$(jq '[.intervals[].values[0]] | . == sort' "$job")" = true ]
	[ "$(jq '.intervals[-1].values[0] <= .events[0].value' "$job")" = true ]
	run -2 "$BUILD/pfshim" run -I 5ms true
	[[ "$output" == *"-I 5ms: out of range"* ]]
}

@test "pfshim run -I: the job's processes see one thread, and may unshare or setns any namespace" {
	skip_under_sanitizer "pfshim run preloads the shim beside it without the sanitizer runtime before it"
	[ -x "$BUILD/pfshim" ] || skip "build/pfshim is not built (libjansson-dev)"
	run -0 --separate-stderr "$BUILD/pfshim" run -I 10ms -o "$BATS_TEST_TMPDIR/t" -- \
		sh -c 'sleep 0.1; ls /proc/$$/task | wc -l'
	[ "$output" = 1 ]
	[ "$(id -u)" -eq 0 ] || skip "unshare -m and nsenter -m need root"
	need_unshare -m
	out=$(timeout 20 nsenter -m -t $$ true 2>&1) || skip "nsenter -m fails here: $out"
	run -0 --separate-stderr "$BUILD/pfshim" run -I 10ms -o "$BATS_TEST_TMPDIR/u" -- \
		sh -c 'sleep 0.05; unshare -m true && nsenter -m -t $$ true && echo ok'
	[ "$output" = ok ]
}

@test "PFSHIM_INTERVAL set for pfshim run's job: every process keeps its own series (opt-in)" {
	skip_under_sanitizer "pfshim run preloads the shim beside it without the sanitizer runtime before it"
	[ -x "$BUILD/pfshim" ] || skip "build/pfshim is not built (libjansson-dev)"
	out="$BATS_TEST_TMPDIR/job"
	run -0 --separate-stderr env PFSHIM_INTERVAL=30ms "$BUILD/pfshim" run -e page-faults -o "$out" -- \
		"$PROGS/interval_tree" 50 10 200 "$PROGS/touch_rate"
	echo "$stderr"
	[ "$(ls "$out"/*.series.jsonl | wc -l)" -eq 3 ]
	want=$(cat "$out"/*.json | jq -s 'map(.events[0].value) | add')
	run -0 "$BUILD/pfshim" report --json "$out"
	echo "$output"
	[ "$(jq '.events[] | select(.name == "page-faults") | .value' <<<"$output")" -eq "$want" ]
	# 3 images; the reports read include each series' interval reports,
	# which feed the series and never the sums
	[ "$(jq '.images' <<<"$output")" -eq 3 ]
	series=$(cat "$out"/*.series.jsonl | jq -s 'length')
	[ "$(jq '.reports' <<<"$output")" -ge "$series" ]
	[ "$(jq '.series | length' <<<"$output")" -gt 0 ]
}

@test "metrics in a series: each interval report's are the interval's (its deltas over the time since the previous report), the exit report's the whole run's" {
	run -0 shim PFSHIM_INTERVAL=100ms PFSHIM_METRICS=CPUs-utilized,page-faults-per-second \
		"$PROGS/touch_rate" 300 20 450
	run -0 python3 - "$REPORTS" <<-'PY'
	import json, sys
	reps = sorted((json.loads(l) for l in open(sys.argv[1])), key=lambda r: r["seq"])
	assert len(reps) >= 4, len(reps)
	before = 0
	for r in reps:
	    ev = {e["name"]: e for e in r["events"]}
	    m = {x["name"]: x for x in r["metrics"]}
	    if r["reason"] == "interval":
	        span, tc, pf = r["wall_ns"] - before, ev["task-clock"]["delta"], ev["page-faults"]["delta"]
	    else:
	        span, tc, pf = r["wall_ns"], ev["task-clock"]["value"], ev["page-faults"]["value"]
	    assert r["metrics_ns"] == span, (r["seq"], r["metrics_ns"], span)
	    assert m["CPUs-utilized"]["value"] == tc / (span / 1e9 * 1000000000), (r["seq"], m, tc, span)
	    assert m["page-faults-per-second"]["value"] == pf / tc * 1000000000, (r["seq"], m, pf, tc)
	    before = r["wall_ns"]
	# 300 pages every 20 ms: an interval's rate is its own, not the run's average so far
	rates = [x["value"] for r in reps if r["reason"] == "interval" for x in r["metrics"]
	         if x["name"] == "page-faults-per-second"]
	print(len(reps), "reports; interval rates", [round(x) for x in rates])
	PY
	echo "$output"
}
