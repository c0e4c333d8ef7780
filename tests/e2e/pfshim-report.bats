#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# pfshim-report.bats: `pfshim report` combining many reports. Every number
# it prints is checked against the same number computed here with jq over
# the same files: sums per program, rank and process; regions' sum, min,
# max, mean and imbalance over ranks (real runs of markers_threads, ranks
# faked with OMPI_COMM_WORLD_RANK); the process tree of a fork+exec program;
# the rule that an image's last report counts once and the interval series
# (hand-written version-3 fixtures); filters; and hostile input.

load helpers

PFSHIM="$BUILD/pfshim"

setup() {
	need_perf
	cd "$BATS_TEST_TMPDIR"
}

# ranks DIR: four "ranks" of markers_threads (2 threads, 20 calls of "work"), one report each.
ranks() {
	mkdir -p "$1"
	for r in 0 1 2 3; do
		env OMPI_COMM_WORLD_RANK=$r LD_PRELOAD="$SHIM" PFSHIM_OUTPUT="$PWD/$1/" \
			PFSHIM_FORMAT=json PFSHIM_EVENTS=task-clock,page-faults \
			"$PROGS/markers_threads" 2 20 $((10 * (r + 1))) >/dev/null
	done
}

# a job of several programs and processes: sh, exec_chain -> fork_children and its 2 children, true
job() {
	mkdir -p "$1"
	env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT="$PWD/$1/" PFSHIM_FORMAT=json \
		PFSHIM_EVENTS=task-clock,page-faults,context-switches \
		sh -c "'$PROGS/exec_chain' execv '$PROGS/fork_children' 2 300 20 >'$PWD/children'; /bin/true"
}

# report FIXTURE-ARGS as one version-3 JSON line (python-free: printf).
# iv PID PROGRAM REASON SEQ WALL_NS VALUE DELTA [RANK]
iv() {
	printf '{"schema":"pfshim.report","version":3,"program":"%s","argv0":"./%s","pid":%d,"ppid":1,"pid_ns":null,"hostname":"h","rank":%s,"start_ns":1000000000000,"start_time":"1970-01-01T00:16:40.000000000Z","wall_ns":%d,"reason":"%s","signal":null,"signal_name":null,"seq":%s,"interval_ns":%s,"events":[{"name":"page-faults","status":"counted","value":%d,"delta":%s,"unit":"","scale":1}]}\n' \
		"$2" "$2" "$1" "${8:-null}" "$5" "$3" "$4" \
		"$([ "$4" = null ] && echo null || echo 100000000)" "$6" "$7"
}

@test "pfshim report --by program, rank, host, process: the sums jq computes from the same files" {
	ranks r
	job r
	for by in program rank host process; do
		run -0 "$PFSHIM" report --json --by "$by" r
		echo "$output" >"s-$by.json"
		[ "$(jq -r .by "s-$by.json")" = "$by" ]
		[ "$(jq .schema,.version -c "s-$by.json" | tr '\n' ' ')" = '"pfshim.summary" 4 ' ]
		[ "$(jq -r .pfshim_version "s-$by.json")" = "$(cat "$ROOT/VERSION")" ]
	done
	# the group key of each report, as the docs say it is formed
	key_program='.program'
	key_rank='(if .rank == null then "-" else (.rank | tostring) end)'
	key_host='.hostname'
	key_process='"\(.hostname):\(.pid)"'
	for by in program rank host process; do
		eval "key=\$key_$by"
		expected=$(jq -s -c "map({k: $key, v: (.events[] | select(.name == \"page-faults\") | .value)})
			| group_by(.k) | map({(.[0].k): (map(.v) | add)}) | add" r/*.json)
		got=$(jq -c '[.groups[] | {(.group): (.events[] | select(.name == "page-faults") | .value)}] | add' "s-$by.json")
		echo "$by: expected $expected got $got"
		[ "$(jq -S . <<<"$expected")" = "$(jq -S . <<<"$got")" ]
		# every grouping has the same totals
		[ "$(jq '.events[] | select(.name == "page-faults") | .value' "s-$by.json")" = \
		  "$(jq -s 'map(.events[] | select(.name == "page-faults") | .value) | add' r/*.json)" ]
	done
	# --by process: images per process (exec_chain and fork_children share a pid)
	[ "$(jq '[.groups[] | select(.images == 2)] | length' s-process.json)" -eq 1 ]
	[ "$(jq '.processes' s-process.json)" -eq "$(jq -s 'map(.pid) | unique | length' r/*.json)" ]
	# CSV: the rank rows are the JSON's
	run -0 "$PFSHIM" report --csv --by rank r
	[ "${lines[0]}" = "scope,rank,reports,images,event,value,counted,not_supported,unit,scale" ]
	for r in 0 1 2 3; do
		grep -qx "rank,$r,1,1,page-faults,$(jq -r --arg r "$r" '.groups[] | select(.group == $r) | .events[] | select(.name == "page-faults") | .value' s-rank.json),1,0,,1" <<<"$output"
	done
	run -2 "$PFSHIM" report --by colour r
	[[ "$output" == *"--by colour: not one of program, rank, host, process"* ]]
}

@test "pfshim report: regions over ranks, sum, min, max, mean and imbalance as jq computes them" {
	ranks r
	run -0 "$PFSHIM" report --json --by rank r
	echo "$output" >s.json
	for metric in wall page-faults task-clock; do
		if [ "$metric" = wall ]; then sel='.wall_ns'; else sel=".events[] | select(.name == \"$metric\")"; fi
		# each rank's value: its report's per-thread sum of region "work"
		jq -s -c "map(.regions.totals[] | select(.name == \"work\") | $sel | .sum)" r/*.json >per-rank
		want=$(jq -c '{sum: add, min: min, max: max, mean: (add / length), imbalance: (max / (add / length))}' per-rank)
		got=$(jq -c --arg m "$metric" '.regions[] | select(.name == "work") | .metrics[] | select(.name == $m)
			| {sum, min, max, mean, imbalance}' s.json)
		echo "$metric: want $want got $got"
		jq -e -n --argjson w "$want" --argjson g "$got" \
			'$w.sum == $g.sum and $w.min == $g.min and $w.max == $g.max and
			 (($w.mean - $g.mean) | fabs) < 1e-6 * $w.mean + 1e-9 and
			 (($w.imbalance - $g.imbalance) | fabs) < 1e-9'
		# per-thread extremes: min of the threads' min, max of their max
		[ "$(jq -c --arg m "$metric" '.regions[] | select(.name == "work") | .metrics[] | select(.name == $m) | [.thread_min, .thread_max]' s.json)" = \
		  "$(jq -s -c "[(map(.regions.totals[] | select(.name == \"work\") | $sel | .min) | min), (map(.regions.totals[] | select(.name == \"work\") | $sel | .max) | max)]" r/*.json)" ]
	done
	# calls: 4 ranks x 2 threads x 20; page-faults grow with the rank's pages (10, 20, 30, 40 per thread)
	[ "$(jq '.regions[] | select(.name == "work") | .calls' s.json)" -eq 160 ]
	[ "$(jq '.regions[] | select(.name == "work") | .threads' s.json)" -eq 8 ]
	# the text says the same
	run -0 "$PFSHIM" report --by rank r
	[[ "$output" == *"region 'work': 160 calls, 8 threads, 4 ranks"* ]]
	imb=$(jq -r '.regions[] | select(.name == "work") | .metrics[] | select(.name == "page-faults") | .imbalance * 100 | round / 100' s.json)
	grep -Eq " $(printf '%.2f' "$imb") .* page-faults$" <<<"$output"
}

@test "pfshim report: misuse of the markers is counted over processes" {
	mkdir m
	for i in 1 2; do
		env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT="$PWD/m/" PFSHIM_FORMAT=json "$PROGS/markers_misuse" >/dev/null 2>&1 || true
	done
	run -0 "$PFSHIM" report --json m
	[ "$(jq .misuse.end_without_begin <<<"$output")" = "$(jq -s 'map(.regions.threads[].misuse.end_without_begin) | add' m/*.json)" ]
	[ "$(jq .misuse.bad_handle <<<"$output")" = "$(jq -s 'map(.regions.threads[].misuse.bad_handle) | add' m/*.json)" ]
	[ "$(jq '.regions[] | select(.name == "left-open") | .unclosed' <<<"$output")" = \
	  "$(jq -s 'map(.regions.totals[] | select(.name == "left-open") | .unclosed) | add' m/*.json)" ]
	[ "$(jq '.regions[] | select(.name == "recurse") | .reentries' <<<"$output")" -eq 24 ]
}

@test "pfshim report --tree: the fork and exec tree of a real job" {
	job j
	run -0 "$PFSHIM" report --tree --json j
	echo "$output" | jq -c '.tree[] | [.depth, .pid, .ppid, .program, .reason]'
	# the shell is the root; exec_chain (then the image it exec'd) and true are its children
	sh_pid=$(jq -r '.tree[0].pid' <<<"$output")
	[ "$(jq -r '.tree[0].depth' <<<"$output")" -eq 0 ]
	[ "$(jq -c --argjson p "$sh_pid" '[.tree[] | select(.ppid == $p) | [.depth, .program]]' <<<"$output")" = \
	  '[[1,"exec_chain"],[1,"fork_children"],[1,"true"]]' ]
	# exec_chain, then the image it exec'd (same pid, same depth), then its two children below
	chain=$(jq -r '[.tree[] | select(.program == "exec_chain")][0].pid' <<<"$output")
	[ "$(jq -c --argjson p "$chain" '[.tree[] | select(.pid == $p) | [.depth, .program, .reason]]' <<<"$output")" = \
	  '[[1,"exec_chain","exec"],[1,"fork_children","exit"]]' ]
	for c in $(cat children); do
		[ "$(jq -c --argjson p "$c" '.tree[] | select(.pid == $p) | [.depth, .ppid, .program]' <<<"$output")" = \
		  "[2,$chain,\"fork_children\"]" ]
		# 300 pages touched by each child: at least that many page-faults
		[ "$(jq --argjson p "$c" '.tree[] | select(.pid == $p) | .events["page-faults"]' <<<"$output")" -ge 300 ]
	done
	[ "$(jq '.tree | length' <<<"$output")" -eq "$(ls j/*.json | wc -l)" ]
	# the text tree: the exec'd image marked '>', the children indented below it
	run -0 "$PFSHIM" report --tree j
	grep -Eq "^   pid $chain exec_chain \[exec\]" <<<"$output"
	grep -Eq "^   > pid $chain fork_children \[exit 0\]" <<<"$output"
	for c in $(cat children); do grep -Eq "^     pid $c fork_children \[exit 0\]" <<<"$output"; done
	# how each image ended, as its report says: an exit status, a signal's name
	[ "$(jq -c '[.tree[] | select(.reason == "exit") | .exit_status] | unique' <<<"$("$PFSHIM" report --tree --json j)")" = '[0]' ]
	mkdir k
	env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT="$PWD/k/" PFSHIM_FORMAT=json PFSHIM_ON_FATAL=1 \
		sh -c 'sh -c "exit 3"; sh -c "kill -SEGV \$\$"; true' 2>/dev/null || true
	run -0 "$PFSHIM" report --tree k
	grep -Eq "^   pid [0-9]+ dash \[exit 3\]" <<<"$output"
	grep -Eq "^   pid [0-9]+ dash \[signal SIGSEGV\]" <<<"$output"
	run -0 "$PFSHIM" report --tree --json k
	[ "$(jq -c '[.tree[] | [.exit_status, .signal]] | sort' <<<"$output")" = '[[null,11],[0,null],[3,null]]' ]
}

@test "pfshim report --tree: runs of one program told apart by their argv, escaped and bounded" {
	mkdir t
	long=$(printf 'arg%d ' $(seq 1 100))
	cc1() {
		env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT="$PWD/t/" PFSHIM_FORMAT=json \
			PFSHIM_EVENTS=task-clock "$PROGS/exit_how" return 0 "$@" >/dev/null
	}
	cc1 first.c
	cc1 'two words'
	cc1 $'\e[31m\nred'
	cc1 $long
	run -0 "$PFSHIM" report --tree t
	p="$PROGS/exit_how"
	grep -qxF "\$ $p return 0 first.c" <<<"$(grep -o '\$ .*' <<<"$output")"
	grep -qF "  \$ $p return 0 'two words'" <<<"$output"
	# The ESC and the newline as text: the terminal gets no escape sequence, the line no break.
	grep -qF "  \$ $p return 0 '\\x1b[31m\\x0ared'" <<<"$output"
	[ "$(grep -c $'\e' <<<"$output")" -eq 0 ]
	[ "$(grep -c ' exit_how \[exit 0\]' <<<"$output")" -eq 4 ]
	# The long one: its first 160 bytes, "..." included.
	line=$(grep -o "\$ $p return 0 arg1 .*" <<<"$output")
	[ "${#line}" -eq $((2 + 160)) ]
	[[ "$line" == *"..." ]]
	run -0 "$PFSHIM" report --tree --json t
	[ "$(jq -r '.tree[].argv' <<<"$output" | sort | head -n 1)" = "$p return 0 '\\x1b[31m\\x0ared'" ]
	[ "$(jq '[.tree[].argv | length] | max' <<<"$output")" -eq 160 ]
}

@test "pfshim report: an image's last report counts once, earlier ones feed the series" {
	# image 10: three interval reports (deltas 10, 20, 30), then its exit (seq 4, delta 5)
	{ iv 10 iv interval 1 100000000 10 10; iv 10 iv interval 2 200000000 30 20
	  iv 10 iv interval 3 300000000 60 30; iv 10 iv exit 4 400000000 65 5; } >a.jsonl
	# 11: a signal report then the exit one; 12: killed after its signal report
	{ iv 11 sig signal null 50 7 null; iv 11 sig exit null 90 9 null
	  iv 12 killed signal null 50 3 null; } >b.jsonl
	# the exit report first, in another file: order of reading does not matter
	tac a.jsonl >rev.jsonl
	for input in "a.jsonl b.jsonl" "b.jsonl rev.jsonl" "a.jsonl a.jsonl b.jsonl"; do
		run -0 "$PFSHIM" report --json $input
		[ "$(jq '.events[0].value' <<<"$output")" -eq $((65 + 9 + 3)) ]
		[ "$(jq '.images' <<<"$output")" -eq 3 ]
		[ "$(jq -c '[.groups[] | {(.group): .events[0].value}] | add' <<<"$output")" = '{"iv":65,"sig":9,"killed":3}' ]
	done
	run -0 "$PFSHIM" report --json a.jsonl b.jsonl
	[ "$(jq '.reports' <<<"$output")" -eq 7 ]
	[ "$(jq -c '.series.events[0].groups[0].points | map([.t_ns, .delta])' <<<"$output")" = \
	  '[[100000000,10],[200000000,20],[300000000,30],[400000000,5]]' ]
	[ "$(jq '.series.step_ns' <<<"$output")" -eq 100000000 ]
	run -0 "$PFSHIM" report --csv a.jsonl
	[[ "$output" == *$'\nscope,program,event,t_ns,delta,reports,unit,scale\nseries,iv,page-faults,100000000,10,1,,1\n'* ]]
	run -0 "$PFSHIM" report a.jsonl
	grep -Eq '^ +0\.300 +30$' <<<"$output"
}

@test "pfshim report: a real signal report then the exit report of one process count once" {
	# JSON Lines: both reports of each image append to one file (a directory would keep only the last)
	for i in 1 2; do
		env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$PWD/sig.jsonl" PFSHIM_SIGNAL=USR1 \
			PFSHIM_EVENTS=page-faults "$PROGS/signal_self" 10 500 >/dev/null
	done
	[ "$(jq -s 'map(select(.reason == "signal")) | length' sig.jsonl)" -eq 2 ]
	[ "$(jq -s 'map(select(.reason == "exit")) | length' sig.jsonl)" -eq 2 ]
	run -0 "$PFSHIM" report --json sig.jsonl
	[ "$(jq .reports <<<"$output")" -eq 4 ]
	[ "$(jq .images <<<"$output")" -eq 2 ]
	# the exit reports' values: about 2 x 500 pages each, not 1.5 times that
	[ "$(jq '.events[0].value' <<<"$output")" = "$(jq -s 'map(select(.reason == "exit") | .events[0].value) | add' sig.jsonl)" ]
	[ "$(jq '.events[0].value' <<<"$output")" -ge 2000 ]
}

@test "pfshim report: interval series of several ranks add up per step" {
	for r in 0 1; do
		for s in 1 2 3; do iv $((20 + r)) solver interval $s $((s * 100000000)) $((s * 10)) $((10 + r)) $r; done
		iv $((20 + r)) solver exit 4 350000000 40 $((7 + r)) $r
	done >ranks.jsonl
	run -0 "$PFSHIM" report --json --by rank ranks.jsonl
	[ "$(jq -c '[.series.events[0].groups[] | {(.group): [.points[].delta]}] | add' <<<"$output")" = \
	  '{"0":[10,10,10,7],"1":[11,11,11,8]}' ]
	run -0 "$PFSHIM" report ranks.jsonl
	grep -Eq '^ +0\.100 +21$' <<<"$output"
	grep -Eq '^ +0\.400 +15$' <<<"$output"
}

@test "pfshim report --events and --regions: only those; names no report has are said" {
	ranks r
	run -0 --separate-stderr "$PFSHIM" report --json --events page-faults,cylces --regions work,nowhere r
	[ "$(jq -c '[.events[].name]' <<<"$output")" = '["page-faults"]' ]
	[ "$(jq -c '[.regions[].name]' <<<"$output")" = '["work"]' ]
	[ "$(jq -c '[.regions[0].metrics[].name]' <<<"$output")" = '["wall","page-faults"]' ]
	[[ "$stderr" == *"pfshim report: --events: no report has 'cylces'; left out"* ]]
	[[ "$stderr" == *"pfshim report: --regions: no report has 'nowhere'; left out"* ]]
	[ "$(jq '.events[0].value' <<<"$output")" = "$(jq -s 'map(.events[] | select(.name == "page-faults") | .value) | add' r/*.json)" ]
}

@test "pfshim report: malformed interval fields are named and skipped" {
	iv 1 a exit 1 10 5 5 >good.jsonl
	iv 2 b exit 1 10 5 5 | sed 's/"seq":1/"seq":"one"/' >badseq.jsonl
	iv 3 c exit 1 10 5 5 | sed 's/"delta":5/"delta":-5/' >baddelta.jsonl
	iv 4 d exit 1 10 5 5 | sed 's/"version":3/"version":5/' >v5.jsonl
	run -0 --separate-stderr "$PFSHIM" report --json good.jsonl badseq.jsonl baddelta.jsonl v5.jsonl
	[ "$(jq .reports <<<"$output")" -eq 1 ]
	[ "$(jq .skipped <<<"$output")" -eq 3 ]
	[[ "$stderr" == *'badseq.jsonl: a pfshim report with a malformed "seq"; skipped'* ]]
	[[ "$stderr" == *'baddelta.jsonl: a pfshim report with a malformed event; skipped'* ]]
	[[ "$stderr" == *'v5.jsonl: a report of a newer schema version than this pfshim reads; skipped'* ]]
}

@test "PFSHIM_OUTPUT=DIR/ writes JSON unless PFSHIM_FORMAT says otherwise; report names other formats once, writes no page for nothing" {
	for r in 0 1; do
		env OMPI_COMM_WORLD_RANK=$r LD_PRELOAD="$SHIM" PFSHIM_OUTPUT="$PWD/d/" PFSHIM_EVENTS=page-faults /bin/true
	done
	[ "$(ls d | grep -c '\.r00000[01]\.p[0-9]*\.[0-9TZ]*\.0\.json$')" -eq 2 ]
	run -0 --separate-stderr "$PFSHIM" report --json --by rank d
	[ -z "$stderr" ] && [ "$(jq -c '[.reports, [.groups[].group]]' <<<"$output")" = '[2,["0","1"]]' ]
	# asked for text (or csv, openmetrics): written so, and pfshim report says once why it reads none
	for r in 0 1; do
		for f in text csv openmetrics; do
			env OMPI_COMM_WORLD_RANK=$r LD_PRELOAD="$SHIM" PFSHIM_OUTPUT="$PWD/t/" PFSHIM_FORMAT=$f \
				PFSHIM_EVENTS=page-faults /bin/true
		done
	done
	[ "$(ls t | sed 's/.*\.//' | sort | uniq -c | tr -s ' ')" = "$(printf ' 2 csv\n 2 om\n 2 txt')" ]
	run -1 --separate-stderr "$PFSHIM" report --html page.html t
	[ "$stderr" = "pfshim: t: 6 reports in text, CSV or OpenMetrics (PFSHIM_FORMAT) not read: pfshim report reads JSON, PFSHIM_OUTPUT=DIR/'s default; skipped
pfshim: no reports: --html page.html not written" ]
	[ ! -e page.html ]
	# beside JSON ones: the JSON ones are read, the page written
	cp d/* t/
	run -0 --separate-stderr "$PFSHIM" report --html page.html t
	[ "$stderr" = "pfshim: t: 6 reports in text, CSV or OpenMetrics (PFSHIM_FORMAT) not read: pfshim report reads JSON, PFSHIM_OUTPUT=DIR/'s default; skipped" ]
	grep -q '<svg' page.html
}

@test "pfshim report --html: report strings are escaped, never markup" {
	iv 1 '<script>alert(1)<\/script>' exit 1 10 5 5 >evil.jsonl
	iv 2 'a&b\"c' exit 1 10 6 6 >>evil.jsonl
	run -0 "$PFSHIM" report --html page.html evil.jsonl
	grep -q ' 2 processes, 2 process images, 2 reports read &middot; ' page.html
	! grep -q '<script' page.html || false
	grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' page.html
	grep -q 'a&amp;b&quot;c' page.html
	# self-contained: nothing fetched
	! grep -Eq '(src|href)=' page.html || false
	run -0 "$PFSHIM" report --html - evil.jsonl
	[[ "$output" == "<!DOCTYPE html>"* ]]
	run -2 "$PFSHIM" report --html /no/such/dir/page.html evil.jsonl
	[[ "$output" == *"--html /no/such/dir/page.html: No such file or directory"* ]]
	# one of each, said as one
	iv 1 one exit 1 10 5 5 >one.jsonl
	echo garbage >bad.jsonl
	run -0 "$PFSHIM" report --html page.html one.jsonl bad.jsonl
	grep -q ' 1 process, 1 process image, 1 report read, 1 input skipped &middot; ' page.html
}

@test "pfshim report: many files, parsed on several threads, combine as one thread reads them" {
	mkdir many
	for i in $(seq 1 300); do
		iv $((1000 + i)) "p$((i % 7))" exit null $i $((i * 3)) null $((i % 16)) \
			>"many/h.r$(printf %06d $((i % 16))).p$(printf %07d $((1000 + i))).json"
	done
	# the same reports through stdin: one stream, one thread
	cat many/*.json >all.jsonl
	run -0 "$PFSHIM" report --json --by rank many
	threaded=$output
	run -0 "$PFSHIM" report --json --by rank - <all.jsonl
	[ "$(jq -S . <<<"$threaded")" = "$(jq -S . <<<"$output")" ]
	[ "$(jq '.events[0].value' <<<"$threaded")" -eq $((3 * 300 * 301 / 2)) ]
	# damaged files among them are named in name order, each once
	echo garbage >many/h.r000003.p0000001.json
	head -c 50 many/h.r000009.p0001009.json >many/h.r000009.p0001009.truncated.json
	run -0 --separate-stderr "$PFSHIM" report --json many
	echo "$stderr"
	[ "$stderr" = "pfshim: many/h.r000003.p0000001.json: truncated or malformed JSON: line 1: '[' or '{' expected near 'garbage'; skipped
pfshim: many/h.r000009.p0001009.truncated.json: truncated or malformed JSON: line 1: premature end of input near '\"p'; skipped" ]
	[ "$(jq .reports <<<"$output")" -eq 300 ]
	[ "$(jq .skipped <<<"$output")" -eq 2 ]
}

# tree_runs DIR: markers_tree with 1 thread, as two ranks (two reports of 2 threads each).
tree_runs() {
	mkdir -p "$1"
	for r in 0 1; do
		env OMPI_COMM_WORLD_RANK=$r LD_PRELOAD="$SHIM" PFSHIM_OUTPUT="$PWD/$1/" \
			PFSHIM_FORMAT=json PFSHIM_EVENTS=task-clock,page-faults \
			"$PROGS/markers_tree" 1 >/dev/null
	done
}

# jq_path_sum DIR PATH EVENT: EVENT summed over every thread's node PATH, as jq finds it.
jq_path_sum() {
	cat "$1"/*.json | jq -s --arg p "$2" --arg e "$3" 'def path($ps; $i):
		if $ps[$i].parent < 0 then $ps[$i].name else path($ps; $ps[$i].parent) + "/" + $ps[$i].name end;
		[.[].regions.threads[] | .paths as $ps | range($ps | length) | select(path($ps; .) == $p)
		 | $ps[.] | if $e == "calls" then .calls elif $e == "wall" then .wall_ns
		   else (.events[] | select(.name == $e) | .value) end] | add'
}

@test "pfshim report: the region tree, inclusive, exclusive and % as jq computes them from the paths" {
	tree_runs r
	run "$PFSHIM" report --json r
	[ "$status" -eq 0 ]
	echo "$output" >tree.json
	# Depth first, each node after its parent; paths as jq builds them from the reports.
	[ "$(jq -r '[.region_tree[] | (.path | join("/")) + ":" + (.parent | tostring)] | join(",")' tree.json)" = \
		"setup:-1,setup/kernel:0,solve:-1,solve/kernel:2" ]
	for p in setup setup/kernel solve solve/kernel; do
		node=".region_tree[] | select((.path | join(\"/\")) == \"$p\")"
		[ "$(jq "$node | .calls" tree.json)" -eq "$(jq_path_sum r "$p" calls)" ]
		for e in wall task-clock page-faults; do
			[ "$(jq "$node | .metrics[] | select(.name == \"$e\") | .inclusive" tree.json)" -eq \
				"$(jq_path_sum r "$p" "$e")" ]
		done
	done
	# Exclusive: a node's inclusive less its children's, the two kernels apart.
	for e in wall task-clock page-faults; do
		[ "$(jq ".region_tree[] | select(.name == \"solve\") | .metrics[] | select(.name == \"$e\") | .exclusive" tree.json)" -eq \
			$(( $(jq_path_sum r solve "$e") - $(jq_path_sum r solve/kernel "$e") )) ]
	done
	# % of the job's total page-faults (the reports' own totals, the regions' and the rest).
	total=$(cat r/*.json | jq -s '[.[].events[] | select(.name == "page-faults") | .value] | add')
	[ "$(jq ".region_tree[] | select((.path | join(\"/\")) == \"solve/kernel\") | .metrics[]
		| select(.name == \"page-faults\") | .inclusive_percent * 1000 | round" tree.json)" -eq \
		"$(jq -n "$(jq_path_sum r solve/kernel page-faults) * 100000 / $total | round")" ]
	# The flat regions are unchanged: kernel's calls are its two paths'.
	[ "$(jq '.regions[] | select(.name == "kernel") | .calls' tree.json)" -eq \
		$(( $(jq_path_sum r setup/kernel calls) + $(jq_path_sum r solve/kernel calls) )) ]
}

@test "pfshim report: the region tree in text, indented by depth, with exact page-fault counts" {
	skip_under_sanitizer "the instrumented program faults shadow pages inside its regions" asan tsan
	tree_runs r
	run "$PFSHIM" report r
	[ "$status" -eq 0 ]
	[[ "$output" == *"pfshim: region tree"* ]]
	# 4 threads x 3 rounds: setup 50 pages itself, 100 in kernel; solve 30 itself, 300 in kernel.
	echo "$output" | grep -E '^   setup +12 +1,800 +600 ' >/dev/null
	echo "$output" | grep -E '^     kernel +12 +1,200 +1,200 ' >/dev/null
	echo "$output" | grep -E '^   solve +12 +3,960 +360 ' >/dev/null
	echo "$output" | grep -E '^     kernel +12 +3,600 +3,600 ' >/dev/null
}

@test "pfshim report: hostile paths (a parent after its child, out of range, a cycle) are left out, never followed" {
	printf '%s\n' '{"schema":"pfshim.report","version":4,"program":"p","pid":1,"start_ns":1,"wall_ns":1,"reason":"exit","events":[],"regions":{"events":[],"threads":[{"tid":1,"misuse":{"unnested":2},"regions":[],"paths":[{"name":"a","parent":1,"calls":1},{"name":"b","parent":0,"calls":1},{"name":"c","parent":-1,"calls":5,"wall_ns":10},{"name":"d","parent":2,"calls":2,"wall_ns":15},{"name":"e","parent":99,"calls":1},{"name":"f","parent":"x","calls":1}]}],"totals":[]}}' >h.json
	run "$PFSHIM" report --json h.json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq -r '[.region_tree[] | (.path | join("/"))] | join(",")')" = "c,c/d" ]
	# d counted past its parent's end (unnested): c's exclusive wall is below 0, and said.
	[ "$(echo "$output" | jq '.region_tree[0].metrics[0].exclusive')" -eq -5 ]
	run "$PFSHIM" report h.json
	[ "$status" -eq 0 ]
	[[ "$output" == *"MISUSE: 2 regions ended while one begun inside them was open"* ]]
	# A chain 5,000 deep: the first 256 levels taken, at once (no path printed 5,000 times).
	jq -c '.regions.threads[0].paths = [range(5000) | {name: "r\(.)", parent: (. - 1), calls: 1}]' h.json >deep.json
	run timeout 20 "$PFSHIM" report --json deep.json
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | jq '.region_tree | length')" -eq 256 ]
	[ "$(echo "$output" | jq '.region_tree[-1].path | length')" -eq 256 ]
}

# A table of zeros would read as a job that did nothing.
@test "pfshim report of inputs that all fail: each named, exit 1, no table of nothing" {
	run -1 --separate-stderr "$PFSHIM" report "$BATS_TEST_TMPDIR/no-such-dir"
	[ "$output" = "" ]
	[ "${stderr_lines[0]}" = "pfshim: $BATS_TEST_TMPDIR/no-such-dir: No such file or directory; skipped" ]
	[ "${stderr_lines[1]}" = "pfshim report: no reports read; 1 input skipped (named above)" ]
	run -1 --separate-stderr "$PFSHIM" report "$BATS_TEST_TMPDIR/no-such-dir" "$BATS_TEST_TMPDIR/nor-this"
	[ "$output" = "" ]
	[ "${stderr_lines[2]}" = "pfshim report: no reports read; 2 inputs skipped (named above)" ]
}
