#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
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

# slow_stderr COMMAND...: COMMAND in the background with its stderr a blocking
# FIFO that is already full, so its first write there blocks until
# drain_stderr, 0.3 s later, reads it all into $REPORTS (up to COMMAND's exit).
# (A report file's open no longer blocks on a FIFO: O_NONBLOCK.)
slow_stderr() {
	fifo="$BATS_TEST_TMPDIR/stderr.fifo"
	mkfifo "$fifo"
	exec 7<>"$fifo"
	head -c 65536 /dev/zero | tr '\0' '\n' >&7	# jq reads newlines as nothing
	"$@" 2>&7 >/dev/null &
	pid=$!
	exec 8<"$fifo" 7>&-
}

drain_stderr() {
	sleep 0.3
	timeout 5 cat <&8 >"$REPORTS" || true
	exec 8<&-
}

@test "an _exit() in another thread waits for the exit report being written" {
	# The report's write blocks until a reader comes at 0.3 s; the other
	# thread's _exit() at 0.1 s must not kill the process before it writes.
	slow_stderr env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT=stderr \
		"$PROGS/exit_how" exit-then-_exit 5
	drain_stderr
	wait "$pid" || status=$?
	[ "${status:-0}" -eq 5 ]
	[ "$(reports '.reason == "exit"')" -eq 1 ]
}

@test "an _exit() waiting for an exec report that fails writes the exit report itself" {
	# The exec report blocks on the full pipe until a reader comes at 0.3 s;
	# the other thread's _exit() at 0.1 s waits; the exec then fails, and the
	# image lives on: its _exit owes the exit report.
	slow_stderr env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT=stderr \
		"$PROGS/exit_how" failed-exec-then-_exit 6
	drain_stderr
	wait "$pid" || status=$?
	[ "${status:-0}" -eq 6 ]
	[ "$(reports '.reason == "exec"')" -eq 1 ]
	[ "$(reports '.reason == "exit"')" -eq 1 ]
}
