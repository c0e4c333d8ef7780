#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Bad PFSHIM_* values: one clear "pfshim:" line each, and the program runs normally.

load helpers

# run_bad VAR=VALUE...: run exit_how under the shim with stderr apart;
# the program must print "out" and exit 5 whatever the shim thinks.
run_bad() {
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=stderr "$@" "$PROGS/exit_how" exit 5
	echo "stderr: $stderr"
	[ "$status" -eq 5 ]
	[ "$output" = out ]
}

# warnings: the pfshim: lines on stderr that are not the report.
warnings() {
	printf '%s\n' "$stderr" | grep '^pfshim: ' || true
}

@test "an unknown event: did-you-mean, and the other events are counted" {
	run_bad PFSHIM_EVENTS=cylces,page-faults
	[ "$(warnings | wc -l)" -eq 1 ]
	[[ "$(warnings)" == *"PFSHIM_EVENTS"*"'cylces'"*"did you mean 'cycles'"* ]]
	[[ "$stderr" == *"page-faults"* ]]
}

@test "a generic event's name in another case is refused, as perf refuses it" {
	# libpfm4 knows TASK-CLOCK; perf stat says "event syntax error" and the report
	# would sum it apart from task-clock, without its unit
	run_bad PFSHIM_EVENTS=TASK-CLOCK,page-faults
	[ "$(warnings | wc -l)" -eq 1 ]
	[[ "$(warnings)" == *"PFSHIM_EVENTS"*"unknown event 'TASK-CLOCK' (perf's event names are case-sensitive: did you mean 'task-clock'?); the event is skipped"* ]]
	[[ "$stderr" == *"page-faults"* ]]
	[[ "$stderr" != *" TASK-CLOCK"$'\n'* ]]
}

@test "broken braces and empty items are named, and the rest counted" {
	run_bad PFSHIM_EVENTS='cs,{task-clock,page-faults'
	[ "$(warnings | wc -l)" -eq 1 ]
	[[ "$(warnings)" == *"PFSHIM_EVENTS"*"never closed"* ]]
	[[ "$stderr" == *" cs"* ]]
	run_bad PFSHIM_EVENTS='task-clock,,page-faults'
	[ "$(warnings | wc -l)" -eq 1 ]
	[[ "$stderr" == *"msec task-clock"* ]]
	[[ "$stderr" == *"page-faults"* ]]
}

@test "nothing usable: the problem, then that pfshim is off; no report" {
	run_bad PFSHIM_EVENTS='nonsense'
	[ "$(warnings | wc -l)" -eq 2 ]
	[[ "$stderr" != *"seconds time elapsed"* ]]
}

@test "128 KiB of garbage in PFSHIM_EVENTS (the most one variable can hold)" {
	garbage=$(head -c 200000 /dev/urandom | tr -dc 'a-z,{}/:=0-9' | head -c 131000)
	run_bad PFSHIM_EVENTS="$garbage"
	[ "$(warnings | wc -l)" -le 12 ]
}

@test "bad format, signal and output template each get one line and their default" {
	run_bad PFSHIM_FORMAT=xml PFSHIM_EVENTS=task-clock
	[ "$(warnings | wc -l)" -eq 1 ]
	[[ "$(warnings)" == *PFSHIM_FORMAT* ]]
	[[ "$stderr" == *"msec task-clock"* ]]
	run_bad PFSHIM_SIGNAL=KILL PFSHIM_EVENTS=task-clock
	[[ "$(warnings)" == *PFSHIM_SIGNAL* ]]
	run_bad PFSHIM_SIGNAL=NOSUCH PFSHIM_EVENTS=task-clock
	[[ "$(warnings)" == *PFSHIM_SIGNAL* ]]
}

@test "case mistakes in values are taken: PFSHIM_FORMAT=JSON, PFSHIM_OUTPUT=STDERR" {
	cd "$BATS_TEST_TMPDIR"
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=JSON PFSHIM_OUTPUT=STDERR \
		PFSHIM_EVENTS=page-faults "$PROGS/exit_how" exit 5
	[ "$status" -eq 5 ] && [ "$output" = out ]
	[ "$(warnings | wc -l)" -eq 0 ]
	[ "$(jq -r .schema <<<"$stderr")" = pfshim.report ]
	[ ! -e STDERR ]
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=Stdout PFSHIM_EVENTS=page-faults \
		"$PROGS/exit_how" exit 5
	[[ "$output" == out*"page-faults"* ]]
	[ ! -e Stdout ]
}

@test "an empty PFSHIM_EVENTS: said once, and the default events counted" {
	run_bad PFSHIM_EVENTS=
	[ "$(warnings)" = "pfshim: PFSHIM_EVENTS: empty; counting the default events" ]
	[[ "$stderr" == *"msec task-clock"* ]] && [[ "$stderr" == *" page-faults"* ]]
}

@test "a misspelled PFSHIM_ variable: one did-you-mean line; pfshim run stops before running" {
	run_bad PFSHIM_EVNETS=page-faults PFSHIM_EVENTS=task-clock
	[ "$(warnings)" = "pfshim: PFSHIM_EVNETS: not a pfshim variable (did you mean 'PFSHIM_EVENTS'?); ignored" ]
	[[ "$stderr" == *"msec task-clock"* ]]
	[ -x "$BUILD/pfshim" ] || skip "build/pfshim is not built (libjansson-dev)"
	run -2 --separate-stderr env PFSHIM_ON_FATL=1 "$BUILD/pfshim" run -o "$BATS_TEST_TMPDIR/r" -- echo ran
	[ "$output" = "" ]
	[ "$stderr" = "pfshim run: PFSHIM_ON_FATL: not a pfshim variable (did you mean 'PFSHIM_ON_FATAL'?)" ]
}

@test "an unwritable output path: one warning, the report goes to stderr" {
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock \
		PFSHIM_OUTPUT=/nonexistent/dir/report.txt "$PROGS/exit_how" exit 5
	[ "$status" -eq 5 ]
	[ "$output" = out ]
	[ "$(printf '%s\n' "$stderr" | grep -c "^pfshim: cannot write '/nonexistent/dir/report.txt' (ENOENT)")" -eq 1 ]
	[[ "$stderr" == *"msec task-clock"* ]]
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock \
		PFSHIM_OUTPUT='/tmp/x%q' "$PROGS/exit_how" exit 5
	[ "$status" -eq 5 ]
	[[ "$stderr" == *"unknown % sequence"* ]]
}

@test "PFSHIM_DISABLE=1: nothing at all" {
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_DISABLE=1 PFSHIM_EVENTS=cylces \
		"$PROGS/exit_how" exit 5
	[ "$status" -eq 5 ]
	[ "$output" = out ]
	[ -z "$stderr" ]
}
