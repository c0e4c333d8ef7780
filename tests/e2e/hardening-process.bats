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

# ---- class 4: the host's descriptor budget

@test "at RLIMIT_NOFILE 16 the program's first open() and its count of files are as without the shim" {
	run bash -c 'ulimit -n 16; exec "$0" files' "$PROGS/fd_budget"
	want=$output
	run --separate-stderr bash -c 'ulimit -n 16; exec env LD_PRELOAD="$1" PFSHIM_FORMAT=json \
		PFSHIM_OUTPUT="$2" "$0" files' "$PROGS/fd_budget" "$SHIM" "$REPORTS"
	echo "without: $want; with: $output; stderr: $stderr"
	[ "$status" -eq 0 ]
	[ "$output" = "$want" ]
	# What was given up is said: one line, and EMFILE for every event.
	[ "$(grep -c 'RLIMIT_NOFILE is under 256' <<<"$stderr")" -eq 1 ]
	run bash -c 'ulimit -n 16; exec env LD_PRELOAD="$1" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$2" \
		PFSHIM_EVENTS=task-clock,page-faults /bin/true' "$0" "$SHIM" "$REPORTS"
	[ "$(reports '[.events[] | select(.error == "EMFILE")] | length == 2')" -eq 1 ]
}

@test "at RLIMIT_NOFILE 1024 the shim's descriptors take no number below the top quarter" {
	run bash -c 'ulimit -n 1024; exec "$0" files' "$PROGS/fd_budget"
	want=$output
	run --separate-stderr bash -c 'ulimit -n 1024; exec env LD_PRELOAD="$1" \
		PFSHIM_OUTPUT=/dev/null PFSHIM_EVENTS=task-clock,page-faults "$0" files' \
		"$PROGS/fd_budget" "$SHIM"
	echo "without: $want; with: $output"
	[ "${output%% *}" = "${want%% *}" ]
	# The two counters cost the program two files, no more.
	[ "${output#* }" = "files=$(( ${want#*files=} - 2 ))" ]
	# Below 768 the same numbers are open as without the shim; ours are above.
	want=$(bash -c 'ulimit -n 1024; exec "$0" fds' "$PROGS/fd_budget")
	run --separate-stderr bash -c 'ulimit -n 1024; exec env LD_PRELOAD="$1" PFSHIM_OUTPUT=/dev/null \
		PFSHIM_EVENTS=task-clock,page-faults "$0" fds' "$PROGS/fd_budget" "$SHIM"
	echo "without: $want; with: $output"
	low=$(for fd in $output; do [ "$fd" -ge 768 ] || echo -n "$fd "; done)
	[ "$low" = "$want" ]
	[ "$(for fd in $output; do [ "$fd" -lt 768 ] || echo "$fd"; done | wc -l)" -eq 2 ]
}

@test "300 threads timing regions under a limit of 1024: every open() of the program succeeds" {
	run bash -c 'ulimit -n 1024; exec "$0" threads 300' "$PROGS/fd_budget"
	[ "$output" = failed=0 ]
	run --separate-stderr bash -c 'ulimit -n 1024; exec env LD_PRELOAD="$1" PFSHIM_FORMAT=json \
		PFSHIM_OUTPUT="$2" PFSHIM_EVENTS=task-clock,page-faults "$0" threads 300' \
		"$PROGS/fd_budget" "$SHIM" "$REPORTS"
	echo "$output; $stderr"
	[ "$status" -eq 0 ]
	[ "$output" = failed=0 ]
	# The threads past the budget are named in the report, and one line says so.
	[ "$(grep -c 'descriptor budget' <<<"$stderr")" -eq 1 ]
	over=$(jq '[.regions.threads[] | select(.open_error == "EMFILE")] | length' "$REPORTS")
	counted=$(jq '[.regions.threads[] | select(.open_error == null)] | length' "$REPORTS")
	echo "over budget: $over, counted: $counted"
	[ "$over" -gt 0 ]
	[ "$counted" -gt 0 ]
}
