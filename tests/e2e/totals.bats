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
	[[ "$stderr" =~ " faults"\ +#\ +[0-9.]+\ [KMG]?/sec ]]
	[[ "$stderr" =~ " cs"\ +#\ +[0-9.]+\ [KMG]?/sec ]]
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

@test "CSV: a header and one row per event" {
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=csv \
		PFSHIM_EVENTS=task-clock,page-faults,cs "$PROGS/touch_pages" 10
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "$stderr" | grep -c '^pid,')" -eq 1 ]
	[ "$(printf '%s\n' "$stderr" | grep -c ',page-faults,')" -eq 1 ]
	[ "$(printf '%s\n' "$stderr" | wc -l)" -eq 4 ]
}
