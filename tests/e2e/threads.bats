#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Threads are counted: inherit + inherit_thread sum every thread into the totals.

load helpers

@test "task-clock of 4 threads burning 200 ms each covers all four" {
	shim PFSHIM_EVENTS=task-clock,context-switches "$PROGS/burn_threads" 4 200
	# 4 x 200 ms of thread CPU time, in ns; the main thread adds a little.
	# task-clock and CLOCK_THREAD_CPUTIME_ID are different clocks, and each
	# thread stops within ~10 us of its 200 ms: allow them 1% apart.
	[ "$(value task-clock)" -ge 792000000 ]
	[ "$(value task-clock)" -lt 1600000000 ]
	[ "$(reports)" -eq 1 ]
}

@test "one thread burning 200 ms is counted once, not four times" {
	shim PFSHIM_EVENTS=task-clock "$PROGS/burn_threads" 1 200
	between 198000000 "$(value task-clock)" 400000000
}

@test "a thread that calls exit() writes the one report" {
	run env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" \
		PFSHIM_EVENTS=task-clock "$PROGS/exit_how" thread-exit 9
	[ "$status" -eq 9 ]
	[ "$(reports '.reason == "exit"')" -eq 1 ]
}
