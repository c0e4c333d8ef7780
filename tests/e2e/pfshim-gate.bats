#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# pfshim-gate.bats: `pfshim diff` and `pfshim check`, the regression gate.
# Counts that are known (a region's calls, hand-written reports) are asserted
# as numbers; the others (page-faults of real runs) against jq's mean,
# min..max, perf's stddev of the mean and ratio over the same files. check's
# exit status: 0 when bounds hold, 1 when one breaks, 2 when a bound names
# what no report has. Hostile names are shown as pfshim report shows them.

load helpers

PFSHIM="$BUILD/pfshim"

setup() {
	[ -x "$PFSHIM" ] || skip "build/pfshim is not built (libjansson-dev)"
	need_perf
	cd "$BATS_TEST_TMPDIR"
}

# threads DIR CALLS: markers_threads with 2 threads, CALLS calls of "work" each (10 pages the first).
threads() {
	mkdir -p "$1"
	timeout 60 env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT="$PWD/$1/" PFSHIM_FORMAT=json \
		PFSHIM_EVENTS=task-clock,page-faults "$PROGS/markers_threads" 2 "$2" 10 >/dev/null
}

# rep PID PROGRAM PAGE_FAULTS: a version-4 exit report with that count and 1 ms of task-clock.
rep() {
	printf '{"schema":"pfshim.report","version":4,"program":"%s","pid":%d,"hostname":"h","start_ns":%d,"reason":"exit","events":[{"name":"page-faults","value":%d,"unit":"","scale":1,"status":"counted"},{"name":"task-clock","value":1000000,"unit":"msec","scale":1e-06,"status":"counted"}]}\n' \
		"$2" "$1" "$1" "$3"
}

# jq's spread of the numbers on stdin, as spread.c defines it: {n, mean, min, max, stddev}.
jq_spread() {
	jq -s -c 'length as $n | (add / $n) as $m
		| {n: $n, mean: $m, min: min, max: max,
		   stddev: (if $n < 2 then 0 else ((map((. - $m) * (. - $m)) | add) / ($n - 1) / $n | sqrt) end)}'
}

# close A B: two numbers equal to 1e-9 of their size (JSON's 15 digits, jq's doubles).
close() {
	jq -n --argjson a "$1" --argjson b "$2" \
		'if (($a - $b) | fabs) <= 1e-9 * ([($a | fabs), ($b | fabs), 1] | max) then true else error("\($a) != \($b)") end' >/dev/null
}

@test "pfshim diff A1 A2 A3 -- B1 B2 B3: region calls exact, every mean, spread and ratio as jq computes them" {
	for k in 1 2 3; do threads "a$k" 20; threads "b$k" 30; done
	run -0 "$PFSHIM" diff --json a1 a2 a3 -- b1 b2 b3
	echo "$output" >d.json
	[ "$(jq -c '[.schema, .version, .repeats, .a, .b]' d.json)" = '["pfshim.diff",1,"runs",["a1","a2","a3"],["b1","b2","b3"]]' ]
	# 2 threads x 20 calls against 2 x 30, in each run: exact, no noise, apart
	[ "$(jq -c '.rows[] | select(.scope == "region" and .name == "work" and .event == "calls") | [.a.n, .a.mean, .a.stddev, .b.mean, .ratio, .change_percent, .beyond_noise]' d.json)" = '[3,40,0,60,1.5,50,true]' ]
	[ "$(jq -c '.rows[] | select(.scope == "region" and .name == "setup" and .event == "calls") | [.a.mean, .b.mean, .ratio, .beyond_noise]' d.json)" = '[2,2,1,false]' ]
	# the totals, the program's row and the region's page-faults against jq over the same files
	for side in a b; do
		for sel in total program region; do
			case $sel in
			total|program) per_run='[.[] | .events[] | select(.name == "page-faults") | .value] | add' ;;
			region) per_run='[.[] | .regions.totals[] | select(.name == "work") | .events[] | select(.name == "page-faults") | .sum] | add' ;;
			esac
			expected=$(for k in 1 2 3; do jq -s "$per_run" "$side$k"/*; done | jq_spread)
			name=$([ $sel = region ] && echo work || echo markers_threads)
			got=$(jq -c --arg s "$sel" --arg n "$name" --arg side "$side" '.rows[] | select(.scope == $s and (.name == null or .name == $n) and .event == "page-faults") | .[$side]' d.json)
			echo "$side $sel: expected $expected got $got"
			for f in n mean min max stddev; do
				close "$(jq ".$f" <<<"$expected")" "$(jq ".$f" <<<"$got")"
			done
		done
	done
	# the ratio and the change are B's mean over A's
	jq -c '.rows[] | select(.a != null and .b != null and .a.mean != 0) | [.ratio, .b.mean / .a.mean, .change_percent, 100 * (.b.mean / .a.mean - 1)]' d.json |
		while read -r r; do
			close "$(jq '.[0]' <<<"$r")" "$(jq '.[1]' <<<"$r")"
			close "$(jq '.[2]' <<<"$r")" "$(jq '.[3]' <<<"$r")"
		done
	# the text: the same calls row, with the noise of each side
	run -0 "$PFSHIM" diff a1 a2 a3 -- b1 b2 b3
	grep -q "^ pfshim diff: A = a1 a2 a3 (3 runs), B = b1 b2 b3 (3 runs)$" <<<"$output"
	row=$(sed -n "/^ region 'work'$/,/^ region/p" <<<"$output" | grep '^   calls ')
	echo "$row"
	[ "$(echo $row)" = "calls 40 +-0.00% 60 +-0.00% 1.500 +50.00% beyond noise" ]
}

@test "pfshim diff A B: one run a side, a program's images are its repeats (mean per image, perf's stddev)" {
	{ rep 1 cc1 100; rep 2 cc1 120; rep 3 ld 50; } >a.jsonl
	{ rep 1 cc1 150; rep 2 cc1 170; rep 3 ld 50; } >b.jsonl
	run -0 "$PFSHIM" diff a.jsonl b.jsonl
	echo "$output"
	# totals: one value a side, no noise said
	[ "$(grep '^   page-faults ' <<<"$output" | head -1 | xargs)" = "page-faults 270 370 1.370 +37.04%" ]
	# cc1: 110 and 160 per image; sqrt(200/1/2) = 10: 9.09 % and 6.25 %; 100..120 and 150..170 apart
	grep -q "^ program 'cc1' (per image: A 2, B 2 images)$" <<<"$output"
	[ "$(sed -n "/^ program 'cc1'/,/^ program/p" <<<"$output" | grep '^   page-faults' | xargs)" = \
	  "page-faults 110 +-9.09% 160 +-6.25% 1.455 +45.45% beyond noise" ]
	[ "$(sed -n "/^ program 'ld'/,\$p" <<<"$output" | grep '^   page-faults' | xargs)" = \
	  "page-faults 50 50 1.000 +0.00%" ]
	[ "$(sed -n "/^ program 'cc1'/,/^ program/p" <<<"$output" | grep '^   task-clock' | xargs)" = \
	  "task-clock msec 1.00 +-0.00% 1.00 +-0.00% 1.000 +0.00% within noise" ]
	# overlapping ranges: within noise
	{ rep 1 cc1 100; rep 2 cc1 140; } >c.jsonl
	run -0 "$PFSHIM" diff --json a.jsonl c.jsonl
	[ "$(jq -c '.rows[] | select(.name == "cc1" and .event == "page-faults") | [.a.mean, .b.mean, .b.stddev, .beyond_noise]' <<<"$output")" = '[110,120,20,false]' ]
	# a program on one side only: its other side null, no ratio
	[ "$(jq -c '.rows[] | select(.name == "ld" and .event == "page-faults") | [.a.mean, .b, .ratio]' <<<"$output")" = '[50,null,null]' ]
}

@test "pfshim diff: a real job's images as jq computes their mean and spread" {
	for side in a b; do
		mkdir "$side"
		timeout 60 env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT="$PWD/$side/" PFSHIM_FORMAT=json \
			PFSHIM_EVENTS=page-faults "$PROGS/fork_children" 4 $([ $side = a ] && echo 100 || echo 300) 0 >/dev/null
	done
	run -0 "$PFSHIM" diff --json a b
	echo "$output" >d.json
	[ "$(jq -r .repeats d.json)" = images ]
	for side in a b; do
		expected=$(jq '.events[] | select(.name == "page-faults") | .value' "$side"/* | jq_spread)
		got=$(jq -c --arg side "$side" '.rows[] | select(.scope == "program" and .name == "fork_children" and .event == "page-faults") | .[$side]' d.json)
		echo "$side: expected $expected got $got"
		[ "$(jq .n <<<"$got")" -eq 5 ]
		for f in n mean min max stddev; do
			close "$(jq ".$f" <<<"$expected")" "$(jq ".$f" <<<"$got")"
		done
	done
}

@test "pfshim diff: usage errors and unreadable inputs exit 2 with one pfshim diff: line" {
	rep 1 cc1 100 >a.jsonl
	mkdir empty
	for args in "a.jsonl" "a.jsonl a.jsonl a.jsonl" "a.jsonl --" "-- a.jsonl" "--bogus a.jsonl a.jsonl"; do
		# shellcheck disable=SC2086
		run --separate-stderr -2 "$PFSHIM" diff $args
		[ -z "$output" ]
	done
	run --separate-stderr -2 "$PFSHIM" diff a.jsonl
	[ "$stderr" = "pfshim diff: give A B, or A1 A2... -- B1 B2... (pfshim diff --help)" ]
	run --separate-stderr -2 "$PFSHIM" diff a.jsonl missing
	[ -z "$output" ]
	[ "$(grep -c '^pfshim diff: ' <<<"$stderr")" -eq 1 ]
	grep -qx 'pfshim diff: B: missing could not be read' <<<"$stderr"
	run --separate-stderr -2 "$PFSHIM" diff empty a.jsonl
	grep -qx 'pfshim diff: A: no report in empty' <<<"$stderr"
	run -0 "$PFSHIM" diff --help
	[[ "${lines[0]}" == "Usage: pfshim diff [OPTIONS] A B" ]]
}

@test "pfshim check: bounds that hold exit 0; one broken exits 1, each line with the value measured" {
	threads r 20
	pf=$(jq -s '[.[] | .events[] | select(.name == "page-faults") | .value] | add' r/*)
	rpf=$(jq -s '[.[] | .regions.totals[] | select(.name == "work") | .events[] | select(.name == "page-faults") | .sum] | add' r/*)
	tc=$(jq -s '[.[] | .events[] | select(.name == "task-clock") | .value] | add' r/*)
	run -0 "$PFSHIM" check --max "total page-faults $pf" --min "total page-faults $pf" \
		--max 'region:work calls 40' --min 'region:setup calls 2' \
		--max "region:work page-faults/call $rpf" --max "program:markers_threads task-clock 1000s" r
	echo "$output"
	[ "${#lines[@]}" -eq 6 ]
	[ "${lines[0]}" = "ok      total page-faults = $pf (max $pf)" ]
	[ "${lines[1]}" = "ok      total page-faults = $pf (min $pf)" ]
	[ "${lines[2]}" = "ok      region:work calls = 40 (max 40)" ]
	[ "${lines[3]}" = "ok      region:setup calls = 2 (min 2)" ]
	[ "${lines[4]}" = "ok      region:work page-faults/call = $(jq -n "$rpf / 40") (max $rpf)" ]
	[ "${lines[5]}" = "ok      program:markers_threads task-clock = $tc ns (max 1000000000000 ns)" ]
	run -1 "$PFSHIM" check --max 'region:work calls 39' --max "total page-faults $pf" \
		--min "total page-faults $((pf + 1))" --max 'program:markers_threads page-faults/image 0' r
	echo "$output"
	[ "${lines[0]}" = "BROKEN  region:work calls = 40 (max 39)" ]
	[ "${lines[1]}" = "ok      total page-faults = $pf (max $pf)" ]
	[ "${lines[2]}" = "BROKEN  total page-faults = $pf (min $((pf + 1)))" ]
	[ "${lines[3]}" = "BROKEN  program:markers_threads page-faults/image = $pf (max 0)" ]
	# the same from stdin, as pfshim report reads it
	run -1 sh -c "cat r/* | '$PFSHIM' check --max 'region:work calls 39'"
}

@test "pfshim check: a region, program or event no report has exits 2, never passes" {
	threads r 20
	run --separate-stderr -2 "$PFSHIM" check --max 'region:solve calls 1' --max 'region:work calls 40' r
	[ "${lines[0]}" = "MISSING region:solve calls (max 1): no value" ]
	[ "${lines[1]}" = "ok      region:work calls = 40 (max 40)" ]
	[ "$stderr" = "pfshim check: no report has region 'solve' (regions: work, setup)" ]
	run --separate-stderr -2 "$PFSHIM" check --max 'program:cc1 page-faults 1' r
	[ "$stderr" = "pfshim check: no report has program 'cc1' (programs: markers_threads)" ]
	run --separate-stderr -2 "$PFSHIM" check --min 'total instructions 1' r
	[ "$stderr" = "pfshim check: total: no report has event 'instructions' (events: task-clock, page-faults)" ]
	# a broken bound beside a missing one: still 2, the missing one is the louder
	run --separate-stderr -2 "$PFSHIM" check --max 'region:work calls 1' --max 'region:work instructions/call 1' r
	[ "${lines[0]}" = "BROKEN  region:work calls = 40 (max 1)" ]
	# named but counted nowhere (cycles: no PMU here, or not asked): not a pass either
	printf '%s\n' '{"schema":"pfshim.report","version":4,"program":"p","pid":1,"hostname":"h","start_ns":1,"reason":"exit","events":[{"name":"cycles","value":null,"unit":"","scale":1,"status":"not-supported"}]}' >ns.json
	run --separate-stderr -2 "$PFSHIM" check --max 'total cycles 1' ns.json
	[ "$stderr" = "pfshim check: total cycles: not counted in the reports" ]
	# usage: a bad bound, no bound, no report, a time unit on a count
	run --separate-stderr -2 "$PFSHIM" check --max 'total page-faults' r
	[ "$stderr" = "pfshim check: --max 'total page-faults': not three words: SCOPE EVENT[/call|/image] VALUE" ]
	run --separate-stderr -2 "$PFSHIM" check r
	run --separate-stderr -2 "$PFSHIM" check --max 'total page-faults 1' missing
	mkdir empty
	run --separate-stderr -2 "$PFSHIM" check --max 'total page-faults 1' empty
	[ "$stderr" = "pfshim check: no report read: nothing checked" ]
	run --separate-stderr -2 "$PFSHIM" check --max 'total page-faults 1ms' r
	[ "$stderr" = "pfshim check: total page-faults: a time unit, but page-faults is not a clock" ]
}

@test "pfshim diff and check: a program's control bytes are shown as pfshim report shows them, never sent" {
	hostile() {
		printf '%s\n' '{"schema":"pfshim.report","version":4,"program":"=cmd|ev\u001b]0;pwned\u0007il\u009b2J","pid":'"$1"',"hostname":"h","start_ns":'"$1"',"reason":"exit","events":[{"name":"page-faults","value":'"$2"',"unit":"","scale":1,"status":"counted"}],"regions":{"totals":[{"name":"r\u001b[2J","calls":3,"wall_ns":{"status":"counted","threads":1,"sum":5,"min":5,"max":5}}]}}'
	}
	hostile 5 10 >a.jsonl
	hostile 6 30 >b.jsonl
	shown='=cmd|ev\x1b]0;pwned\x07il\x9b2J'
	"$PFSHIM" report a.jsonl | grep -qF "$shown"
	for view in "" --json; do
		# shellcheck disable=SC2086
		"$PFSHIM" diff $view a.jsonl b.jsonl >out
		[ "$(tr -d '\n' <out | LC_ALL=C grep -c '[[:cntrl:]]')" -eq 0 ]
		! LC_ALL=C grep -q $'\xc2\x9b' out || false
	done
	"$PFSHIM" diff a.jsonl b.jsonl >out
	grep -qxF " program '$shown' (per image: A 1, B 1 images)" out
	grep -qxF " region 'r\\x1b[2J'" out
	[ "$("$PFSHIM" diff --json a.jsonl b.jsonl | jq -r '.rows[] | select(.scope == "program") | .name')" = "$shown" ]
	# check names it by what report shows
	run -1 "$PFSHIM" check --max "program:$shown page-faults 20" a.jsonl b.jsonl
	[ "$output" = "BROKEN  program:$shown page-faults = 40 (max 20)" ]
	run --separate-stderr -2 "$PFSHIM" check --max 'region:nothere calls 1' a.jsonl
	[ "$(printf %s "$stderr" | tr -d '\n' | LC_ALL=C grep -c '[[:cntrl:]]')" -eq 0 ]
	grep -qF "(regions: r\\x1b[2J)" <<<"$stderr"
}

@test "pfshim run -r 3: each run's reports apart, the totals' mean and perf's noise as jq computes them from the job counts" {
	run --separate-stderr -3 timeout 120 "$PFSHIM" run -r 3 -o rr -e task-clock,page-faults -- \
		sh -c "'$PROGS/markers_threads' 2 20 10 >/dev/null; exit 3"
	echo "$stderr"
	[ -z "$output" ]
	[ "$(ls rr | tr "\n" " ")" = "run-1 run-2 run-3 " ]
	grep -qF "pfshim: Performance counter stats for 'sh -c '$PROGS/markers_threads' 2 20 10 >/dev/null; exit 3' (3 runs):" <<<"$stderr"
	for e in page-faults task-clock; do
		spread=$(for k in 1 2 3; do
			jq --arg e "$e" 'select(.schema == "pfshim.job") | .events[] | select(.name == $e) | .value' rr/run-$k/pfshim-job.jsonl
		done | jq_spread)
		# the mean as shown (task-clock in msec), to its 2 decimals; the noise as printf rounds it
		scale=$([ "$e" = task-clock ] && echo 1e-6 || echo 1)
		pct=$(jq '100 * .stddev / .mean' <<<"$spread")
		line=$(grep " $e " <<<"$stderr")
		echo "$e: $spread: '$line'"
		# (shown with perf's thousands separators: 1,407.33 under a sanitizer)
		jq -n --argjson shown "$(awk '{gsub(",", "", $1); print $1}' <<<"$line")" --argjson s "$spread" --argjson k "$scale" \
			'if (($shown - $s.mean * $k) | fabs) <= 0.005 + 1e-9 then true else error("mean") end' >/dev/null
		grep -qF -- "( +- $(printf '%5.2f' "$pct")% )" <<<"$line"
	done
	# the runs are what pfshim diff takes
	run -0 "$PFSHIM" diff --json rr/run-1 rr/run-2 -- rr/run-3
	[ "$(jq -c '.rows[] | select(.scope == "region" and .name == "work" and .event == "calls") | [.a.n, .a.mean, .b.mean]' <<<"$output")" = '[2,40,40]' ]
	run --separate-stderr -2 "$PFSHIM" run -r 0 true
	[ "$stderr" = "pfshim run: -r 0: not a number of runs from 1 to 10000" ]
}
