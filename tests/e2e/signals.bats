#!/usr/bin/env bats
# PFSHIM_SIGNAL: a report mid-run, and the program carries on.

load helpers

@test "PFSHIM_SIGNAL=USR1 writes a report mid-run and the program carries on" {
	run --separate-stderr shim PFSHIM_SIGNAL=USR1 PFSHIM_EVENTS=page-faults \
		"$PROGS/signal_self" 10 4000
	[ "$status" -eq 0 ]
	[ "$output" = after ]
	[ "$(reports)" -eq 2 ]
	[ "$(reports '.reason == "signal" and .signal == 10')" -eq 1 ]
	mid=$(value page-faults '.reason == "signal"')
	end=$(value page-faults '.reason == "exit"')
	echo "mid $mid, end $end"
	# Each of the 4000 fresh pages touched before the signal faults once, and so
	# does each of the 4000 after it: the report came between the two halves
	# exactly when it holds the first 4000 and the exit report 4000 more. (How
	# many other faults start-up, the report and exit take varies from run to
	# run, by one or two, and by more under a sanitizer's runtime: no bound.)
	[ "$mid" -ge 4000 ]
	[ $((end - mid)) -ge 4000 ]
}

@test "a report signal given by number, and a real-time one" {
	shim PFSHIM_SIGNAL=12 PFSHIM_EVENTS=task-clock "$PROGS/signal_self" 12 10
	[ "$(reports '.reason == "signal" and .signal == 12')" -eq 1 ]
	: >"$REPORTS"
	rt=$(( $(kill -l RTMIN) + 1 ))
	shim PFSHIM_SIGNAL=RTMIN+1 PFSHIM_EVENTS=task-clock "$PROGS/signal_self" "$rt" 10
	[ "$(reports ".reason == \"signal\" and .signal == $rt")" -eq 1 ]
}

@test "reports on signals sent from outside, many times, while threads run" {
	env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" PFSHIM_SIGNAL=USR2 \
		PFSHIM_EVENTS=task-clock "$PROGS/burn_threads" 2 600 &
	pid=$!
	wait_caught "$pid" USR2
	for i in 1 2 3 4 5; do kill -USR2 "$pid"; sleep 0.05; done
	wait "$pid"
	[ "$(reports '.reason == "signal"')" -eq 5 ]
	[ "$(reports '.reason == "exit"')" -eq 1 ]
	# Totals only grow.
	jq -s -e '[.[] | .events[0].value] | . == sort' "$REPORTS"
}

@test "without PFSHIM_SIGNAL the signal keeps its default action" {
	run shim PFSHIM_EVENTS=task-clock "$PROGS/signal_self" 10 10
	[ "$status" -eq 138 ]
}

@test "a program with a small alternate signal stack survives the report signal" {
	run --separate-stderr shim PFSHIM_SIGNAL=USR1 PFSHIM_EVENTS=page-faults \
		"$PROGS/small_altstack" 10
	[ "$status" -eq 0 ]
	[ "$output" = after ]
	[ "$(reports '.reason == "signal"')" -eq 1 ]
}

@test "the report signal landing on a thread with the smallest stack allowed" {
	skip_under_sanitizer "instrumented code needs more stack than PTHREAD_STACK_MIN leaves" asan
	run --separate-stderr shim PFSHIM_SIGNAL=USR1 PFSHIM_EVENTS=page-faults \
		"$PROGS/small_stack_thread" 10
	[ "$status" -eq 0 ]
	[ "$output" = after ]
	[ "$(reports '.reason == "signal"')" -eq 1 ]
}
