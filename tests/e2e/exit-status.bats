#!/usr/bin/env bats
# The host's exit status, stdout and death by signal are exactly what they are without the shim.

load helpers

# same_as_without_shim ARGS...: status and stdout equal with and without the shim.
same_as_without_shim() {
	run "$PROGS/exit_how" "$@"
	want_status=$status want_output=$output
	run env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT="$REPORTS" "$PROGS/exit_how" "$@"
	echo "without: $want_status '$want_output'; with: $status '$output'"
	[ "$status" -eq "$want_status" ]
	[ "$output" = "$want_output" ]
}

@test "exit 7 stays 7" {
	same_as_without_shim exit 7
	[ "$status" -eq 7 ]
	[ -s "$REPORTS" ]
}

@test "return from main, _exit and _Exit keep their codes and each report once" {
	for how in return _exit _Exit; do
		: >"$REPORTS"
		same_as_without_shim "$how" 42
		[ "$status" -eq 42 ]
		[ "$(grep -c 'seconds time elapsed' "$REPORTS")" -eq 1 ]
	done
}

@test "death by SIGTERM and by SIGSEGV stays death by that signal" {
	same_as_without_shim signal 15
	[ "$status" -eq 143 ]
	same_as_without_shim signal 11
	[ "$status" -eq 139 ]
}

@test "an _exit() in another thread waits for the exit report being written" {
	# The report's open() of a FIFO blocks until a reader comes at 0.3 s; the
	# other thread's _exit() at 0.1 s must not kill the process before it writes.
	fifo="$BATS_TEST_TMPDIR/report.fifo"
	mkfifo "$fifo"
	env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$fifo" \
		"$PROGS/exit_how" exit-then-_exit 5 >/dev/null &
	pid=$!
	sleep 0.3
	timeout 3 cat "$fifo" >"$REPORTS" || true
	wait "$pid" || status=$?
	[ "${status:-0}" -eq 5 ]
	[ "$(reports '.reason == "exit"')" -eq 1 ]
}

@test "an _exit() waiting for an exec report that fails writes the exit report itself" {
	# The exec report blocks on the FIFO until a reader comes at 0.3 s; the
	# other thread's _exit() at 0.1 s waits; the exec then fails, and the image
	# lives on: its _exit owes the exit report.
	fifo="$BATS_TEST_TMPDIR/report.fifo"
	mkfifo "$fifo"
	env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$fifo" \
		"$PROGS/exit_how" failed-exec-then-_exit 6 >/dev/null &
	pid=$!
	sleep 0.3
	timeout 3 cat "$fifo" >"$REPORTS" || true
	timeout 3 cat "$fifo" >>"$REPORTS" || true
	wait "$pid" || status=$?
	[ "${status:-0}" -eq 6 ]
	[ "$(reports '.reason == "exec"')" -eq 1 ]
	[ "$(reports '.reason == "exit"')" -eq 1 ]
}
