#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# job-concurrent.bats: one `pfshim run` at a time in an output directory.
# A second run started into a directory whose runner is still alive is
# refused before its command runs, by the first runner's lock on the
# directory's .pfshim-run, and the first run's job stays exact; a runner
# killed by SIGKILL holds nothing, and its directory is refused as holding
# reports, as any earlier run's is.

load helpers

setup() {
	need_perf
	OUT="$BATS_TEST_TMPDIR/out"
	FIFO="$BATS_TEST_TMPDIR/go"
	mkfifo "$FIFO"
}

# release: the word A's job waits for (for 30 s at most: read -t)
release() {
	timeout 5 sh -c 'echo go >"$0"' "$FIFO"
}

teardown() {
	# a test that failed before releasing run A: never leave it waiting
	[ -z "${A_PID:-}" ] || { release || true; wait "$A_PID" || true; }
}

@test "a second pfshim run into a directory whose runner is alive: refused before its command, the first run's summary exact" {
	skip_under_sanitizer "pfshim run preloads the shim beside it without the sanitizer runtime before it"
	# run A (exec: $! is the runner): bash waits on the FIFO, then runs true twice (not exec'd: the :)
	(exec "$BUILD/pfshim" run -e page-faults -o "$OUT" -- \
		bash -c 'read -t 30 go <>"$0"; /bin/true; /bin/true; :' "$FIFO" 2>"$BATS_TEST_TMPDIR/a.err") &
	A_PID=$!
	# A's shell has started (its image is mapped), so A has made its ledger and spool
	for i in $(seq 100); do [ -e "$OUT/.pfshim-ledger" ] && break; sleep 0.05; done
	[ -e "$OUT/.pfshim-ledger" ]
	sleep 0.2
	# run B into the same directory: refused, its command never run
	run -2 --separate-stderr timeout 20 "$BUILD/pfshim" run -e page-faults -o "$OUT" -- \
		sh -c 'touch "$0"; /bin/true' "$BATS_TEST_TMPDIR/b-ran"
	[ "$stderr" = "pfshim run: -o $OUT: another pfshim run (pid $A_PID) is writing its job there; choose a new directory" ]
	[ -z "$output" ]
	[ ! -e "$BATS_TEST_TMPDIR/b-ran" ]
	# release A: its summary and its directory hold its own processes only
	release
	wait "$A_PID"
	A_PID=
	cat "$BATS_TEST_TMPDIR/a.err"
	grep -q "(3 processes counted by the kernel; 3 processes, 5 images, 5 reports, 2 programs)" \
		"$BATS_TEST_TMPDIR/a.err"
	! grep -q 'cannot write\|left no report\|EEXIST' "$BATS_TEST_TMPDIR/a.err" || false
	[ "$(find "$OUT" -maxdepth 1 -name "*.json" | wc -l)" -eq 5 ]
	[ "$(jq -r .processes[].program "$OUT/pfshim-job.jsonl" | sort | tr '\n' ' ')" = "bash true true " ]
	run -0 --separate-stderr "$BUILD/pfshim" report --json "$OUT"
	[ "$(jq -r ".reports" <<<"$output")" -eq 5 ]
	[ "$(jq -r '.job.unreported | length' <<<"$output")" -eq 0 ]
}

@test "a runner killed by SIGKILL blocks no later run: its directory is refused as holding reports, a new one runs" {
	skip_under_sanitizer "pfshim run preloads the shim beside it without the sanitizer runtime before it"
	(exec "$BUILD/pfshim" run -e page-faults -o "$OUT" -- \
		bash -c '/bin/true; read -t 30 go <>"$0"' "$FIFO" 2>/dev/null) &
	A_PID=$!
	for i in $(seq 100); do [ -e "$OUT/.pfshim-ledger" ] && break; sleep 0.05; done
	sleep 0.3
	kill -KILL "$A_PID"
	wait "$A_PID" || true
	A_PID=
	release	# its job's shell ends, its report in the spool A left
	run -2 --separate-stderr timeout 20 "$BUILD/pfshim" run -e page-faults -o "$OUT" -- \
		touch "$BATS_TEST_TMPDIR/b-ran"
	[ "$stderr" = "pfshim run: -o $OUT: holds reports already; choose a new directory" ]
	[ ! -e "$BATS_TEST_TMPDIR/b-ran" ]
	# the lock went with its runner: its directory less the reports is the new run's
	rm "$OUT"/.pfshim-spool.*
	[ -e "$OUT/.pfshim-run" ]
	run -0 --separate-stderr timeout 20 "$BUILD/pfshim" run -e page-faults -o "$OUT" -- /bin/true
	[[ "$stderr" == *"1 process, 1 image, 1 report"* ]]
}
