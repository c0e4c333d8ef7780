#!/usr/bin/env bats
# Issue 8, classes 4, 5 (inherited SIG_IGN), 7 and 8: the host's descriptor
# budget, its ignored signals, every process reporting once with what
# identifies it, and fatal signals. Each test compares the run with and
# without the shim.

load helpers

# ---- class 5: an inherited SIG_IGN stays ignored

@test "PFSHIM_SIGNAL leaves an inherited SIG_IGN alone, in the program and its exec'd child" {
	run bash -c 'trap "" USR1; exec "$0" 10 child' "$PROGS/sig_disposition"
	want=$output
	[ "$want" = "$(printf 'ignored\nignored\nalive\nalive')" ]
	run --separate-stderr bash -c 'trap "" USR1; exec env LD_PRELOAD="$1" PFSHIM_SIGNAL=USR1 \
		PFSHIM_FORMAT=json PFSHIM_OUTPUT="$2" "$0" 10 child' \
		"$PROGS/sig_disposition" "$SHIM" "$REPORTS"
	[ "$status" -eq 0 ]
	[ "$output" = "$want" ]
	[ "$(reports '.reason == "signal"')" -eq 0 ]
	[ "$(reports '.reason == "exit"')" -eq 2 ]
	# Not ignored: the shim's handler takes the report and the program lives on.
	run --separate-stderr shim PFSHIM_SIGNAL=USR1 "$PROGS/sig_disposition" 10
	[ "$output" = "$(printf 'caught\nalive')" ]
	[ "$(reports '.reason == "signal"')" -eq 1 ]
}
