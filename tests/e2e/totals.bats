#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Whole-process totals on real programs: the numbers that can be known.

load helpers

# How far two runs' faults may differ besides the N pages one of them
# touches: the mmap, the loop's own stack and code, and address-space layout
# randomisation moving a boundary. Measured -1 to +3 here.
FAULT_SLACK=32

@test "page-faults of a program that touches N pages is N more than touching none" {
	shim PFSHIM_EVENTS=page-faults "$PROGS/touch_pages" 0
	base=$(value page-faults)
	: >"$REPORTS"
	shim PFSHIM_EVENTS=page-faults "$PROGS/touch_pages" 20000
	n=$(value page-faults)
	between $((20000 - FAULT_SLACK)) $((n - base)) $((20000 + FAULT_SLACK))
}

@test "page-faults are exact in a group with other software events" {
	shim PFSHIM_EVENTS='{task-clock,page-faults,minor-faults,major-faults}' "$PROGS/touch_pages" 0
	base=$(value page-faults)
	: >"$REPORTS"
	shim PFSHIM_EVENTS='{task-clock,page-faults,minor-faults,major-faults}' "$PROGS/touch_pages" 25600
	n=$(value page-faults)
	between $((25600 - FAULT_SLACK)) $((n - base)) $((25600 + FAULT_SLACK))
	[ "$(value minor-faults)" -le "$n" ]
	[ "$(field page-faults status)" = counted ]
}

@test "the default events: software counted, hardware not supported here" {
	shim "$PROGS/touch_pages" 100
	[ "$(reports)" -eq 1 ]
	[ "$(jq '.events | length' "$REPORTS")" -eq 8 ]
	for e in task-clock context-switches cpu-migrations page-faults; do
		[ "$(field "$e" status)" = counted ]
	done
	if [ ! -e /sys/bus/event_source/devices/cpu ] && [ ! -e /sys/bus/event_source/devices/armv8_pmuv3 ]; then
		for e in cycles instructions branches branch-misses; do
			[ "$(field "$e" status)" = not-supported ]
		done
	fi
}

@test "the text report looks like perf stat's and goes to stderr" {
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock,page-faults \
		"$PROGS/exit_how" return 0
	[ "$status" -eq 0 ]
	[ "$output" = out ]
	[[ "$stderr" == *"msec task-clock"* ]]
	[[ "$stderr" == *"page-faults"* ]]
	[[ "$stderr" == *"seconds time elapsed"* ]]
}

@test "the text report's metrics follow the kind the parser resolved, whatever the alias" {
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock:u,faults,cs \
		"$PROGS/touch_pages" 100
	[ "$status" -eq 0 ]
	[[ "$stderr" =~ "msec task-clock:u"\ +#\ +[0-9.]+\ CPUs\ utilized ]]
	[[ "$stderr" =~ " faults"(:u)?\ +#\ +[0-9.]+\ [KMG]?/sec ]]
	[[ "$stderr" =~ " cs"(\ +#\ +[0-9.]+\ [KMG]?/sec|":u"\ +#\ always\ 0\ when\ counting\ user\ space\ only) ]]
}

@test "the report holds the program, argv0, pids, host and times" {
	shim PFSHIM_EVENTS=task-clock "$PROGS/touch_pages" 1
	jq -e --arg host "$(uname -n)" --argjson ppid "$BASHPID" '
		.schema == "pfshim.report" and .version == 4 and
		.program == "touch_pages" and (.argv0 | endswith("touch_pages")) and
		.pid > 0 and .ppid == $ppid and .hostname == $host and
		.reason == "exit" and .wall_ns > 0 and .start_ns > 1700000000000000000' "$REPORTS"
	[ "$(field task-clock enabled_ns)" -gt 0 ]
	[ "$(field task-clock running_ns)" -gt 0 ]
}

@test "argv: every argument exact, control bytes escaped, a 10 KiB one cut and flagged" {
	big=$(head -c 10240 /dev/zero | tr '\0' x)
	args=(return 0 $'new\nline' 'a "quoted" one' $'\e[31mred' '')
	shim PFSHIM_EVENTS=task-clock "$PROGS/exit_how" "${args[@]}" "$big"
	want=$(jq -cn '$ARGS.positional' --args "$PROGS/exit_how" "${args[@]}")
	# The text holds 4096 bytes, each argument's NUL included: the big one gets what is left.
	used=$(( ${#PROGS} + 9 + 1 ))
	for a in "${args[@]}"; do used=$((used + ${#a} + 1)); done
	jq -e --argjson want "$want" --argjson cut $((4096 - used - 1)) '
		.argv[:-1] == $want and .argc == 8 and .argv_truncated == true and
		(.argv[-1] | length) == $cut and (.argv[-1] | test("^x+$"))' "$REPORTS"
	# On the wire, JSON's escapes: no raw newline or ESC in the line.
	grep -qF '"new\nline","a \"quoted\" one","\u001b[31mred","",' "$REPORTS"
	[ "$(grep -c $'\e' "$REPORTS")" -eq 0 ]
	: >"$REPORTS"
	shim PFSHIM_EVENTS=task-clock "$PROGS/exit_how" return 0
	jq -e --arg p "$PROGS/exit_how" '.argv == [$p, "return", "0"] and .argc == 3 and
		.argv_truncated == false' "$REPORTS"
}

@test "argv: at most 64 arguments, the rest counted in argc and flagged" {
	shim PFSHIM_EVENTS=task-clock "$PROGS/exit_how" return 0 $(seq 1 100)
	jq -e '(.argv | length) == 64 and .argc == 103 and .argv_truncated == true and
		.argv[3:] == ([range(1; 62)] | map(tostring))' "$REPORTS"
}

@test "exit_status: exit(3), return 0, _exit(7), _Exit(9), exit(-1); null for a signal and an exec" {
	for how in "exit 3" "return 0" "_exit 7" "_Exit 9" "exit -1" "thread-exit 4"; do
		: >"$REPORTS"
		rc=0
		shim PFSHIM_EVENTS=task-clock "$PROGS/exit_how" $how >/dev/null || rc=$?
		want=${how#* }
		[ "$rc" -eq $((want & 255)) ]
		jq -e --argjson s $((want & 255)) '.reason == "exit" and .exit_status == $s and
			.signal == null' "$REPORTS"
	done
	: >"$REPORTS"
	rc=0
	shim PFSHIM_EVENTS=task-clock PFSHIM_ON_FATAL=1 "$PROGS/exit_how" signal 15 >/dev/null || rc=$?
	[ "$rc" -eq 143 ]
	jq -e '.reason == "signal" and .signal == 15 and .exit_status == null' "$REPORTS"
	: >"$REPORTS"
	shim PFSHIM_EVENTS=task-clock sh -c 'exec true'
	[ "$(jq -r '[.reason, (.exit_status | tostring)] | @tsv' "$REPORTS")" = "$(printf 'exec\tnull\nexit\t0')" ]
}

@test "cwd: the directory the program started in, a newline in its name escaped" {
	dir="$BATS_TEST_TMPDIR/work"$'\n'"dir"
	mkdir "$dir"
	(cd "$dir" && shim PFSHIM_EVENTS=task-clock "$PROGS/exit_how" return 0 >/dev/null)
	jq -e --arg d "$dir" '.cwd == $d' "$REPORTS"
	grep -qF '"cwd":"'"$BATS_TEST_TMPDIR"'/work\ndir"' "$REPORTS"
	# A fork child's is where it was forked: the shell's, not the program's it runs later.
	: >"$REPORTS"
	(cd "$BATS_TEST_TMPDIR" && shim PFSHIM_EVENTS=task-clock sh -c \
		'cd "$1"; (exit 0); exit 0' sh "$dir")
	jq -s -e --arg top "$BATS_TEST_TMPDIR" --arg d "$dir" '
		map(.cwd) | sort == ([$top, $d] | sort)' "$REPORTS"
}

@test "user_ns + system_ns: the kernel's CPU time of the process, within task-clock's bounds" {
	shim PFSHIM_EVENTS=task-clock "$PROGS/burn_threads" 2 200
	tc=$(value task-clock)
	cpu=$(jq '.user_ns + .system_ns' "$REPORTS")
	echo "task-clock $tc ns, user+sys $cpu ns"
	# Both are the scheduler's runtime of every thread; user+sys adds the time
	# before the shim started counting (exec, loading: a few ms at most).
	[ "$cpu" -gt 0 ]
	[ "$cpu" -ge $((tc * 9 / 10)) ]
	[ "$cpu" -le $((tc * 11 / 10 + 10000000)) ]
	[ "$(jq '.user_ns >= 0 and .system_ns >= 0 and (.user_ns % 1000) == 0' "$REPORTS")" = true ]
}

@test "CSV: a header and one row per event" {
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=csv \
		PFSHIM_EVENTS=task-clock,page-faults,cs "$PROGS/touch_pages" 10
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$stderr" | grep -c '^pid,')" -eq 1 ]
	[ "$(printf '%s\n' "$stderr" | grep -c ',page-faults,')" -eq 1 ]
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 4 ]
}
