#!/usr/bin/env bats
# PFSHIM_OUTPUT and PFSHIM_FORMAT: where reports go and what they look like there.

load helpers

@test "%p gives one file per process" {
	run env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_EVENTS=page-faults \
		PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/r.%p.json" "$PROGS/fork_children" 2 10 0
	[ "$status" -eq 0 ]
	for pid in "${lines[@]}"; do
		jq -e ".pid == $pid" "$BATS_TEST_TMPDIR/r.$pid.json"
	done
	[ "$(ls "$BATS_TEST_TMPDIR"/r.*.json | wc -l)" -eq 3 ]
}

@test "%e, %h and %% expand" {
	env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock \
		PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/%e@%h-100%%.txt" "$PROGS/touch_pages" 1
	grep -q 'seconds time elapsed' "$BATS_TEST_TMPDIR/touch_pages@$(uname -n)-100%.txt"
}

@test "stdout on request" {
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=stdout PFSHIM_FORMAT=json \
		PFSHIM_EVENTS=task-clock "$PROGS/exit_how" return 0
	[ "${lines[0]}" = out ]
	printf '%s\n' "${lines[1]}" | jq -e '.program == "exit_how"'
	[ -z "$stderr" ]
}

@test "64 concurrent processes appending to one file never interleave" {
	for i in $(seq 64); do
		shim PFSHIM_EVENTS='task-clock,page-faults,context-switches' "$PROGS/touch_pages" 50 &
	done
	wait
	[ "$(wc -l <"$REPORTS")" -eq 64 ]
	# Every line is one whole JSON report.
	[ "$(jq -s 'length' "$REPORTS")" -eq 64 ]
}

@test "a file gathers reports in JSON Lines: one object per line" {
	shim PFSHIM_EVENTS=task-clock sh -c "$PROGS/touch_pages 1; $PROGS/touch_pages 2"
	[ "$(wc -l <"$REPORTS")" -eq "$(jq -s length "$REPORTS")" ]
	[ "$(reports '.program == "touch_pages" and .reason == "exit"')" -eq 2 ]
	[ "$(reports ".program == \"$(sh_name)\" and .reason == \"exit\"")" -eq 1 ]
}

@test "a program that closes its stderr at exit (coreutils ls) still gets its report on stderr" {
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=page-faults PFSHIM_FORMAT=csv ls /
	[ "$status" -eq 0 ]
	[[ "$stderr" == *",ls,exit,"*",page-faults,"* ]]
}
