#!/usr/bin/env bats
# compat.bats: the C++ and Fortran marker APIs (docs/compat.md), each run
# under the shim and checked in the JSON report, and run without it.

load helpers

EX="$BUILD/examples"
EV=PFSHIM_EVENTS=task-clock,page-faults

# calls REGION: the calls of REGION in the one thread of the one report.
calls() {
	jq -r --arg r "$1" '.regions.threads[0].regions[] | select(.name == $r) | .calls' "$REPORTS"
}

@test "C++: pfshim::region ends at scope exit, exceptions included" {
	run -0 shim "$EV" "$EX/region" 12
	[ "$output" = "sum 786432.511, 4 exceptions, markers active" ]
	[ "$(reports)" -eq 1 ]
	[ "$(jq '.regions.threads | length' "$REPORTS")" -eq 1 ]
	[ "$(calls solve)" -eq 1 ]
	[ "$(calls step)" -eq 12 ]
	# 12 calls, 4 of them left by an exception: every one closed, none re-entered
	[ "$(calls check)" -eq 12 ]
	[ "$(jq '[.regions.threads[0].regions[] | .reentries + .open + .unclosed] | add' "$REPORTS")" -eq 0 ]
	[ "$(jq -c '.regions.threads[0].misuse' "$REPORTS")" = \
		'{"end_without_begin":0,"bad_handle":0,"table_full":0,"unclosed":0}' ]
	# step holds the inner loop and check: its time covers check's
	[ "$(jq '.regions.threads[0].regions | (map(select(.name == "step"))[0].wall_ns) >= (map(select(.name == "check"))[0].wall_ns)' "$REPORTS")" = true ]
}

@test "C++: without the library the regions are no-ops and the output is the same" {
	run -0 "$EX/region" 12
	[ "$output" = "sum 786432.511, 4 exceptions, markers inactive" ]
	run -0 nm -u "$EX/region"
	# the only pfshim references are the weak v1 symbols
	! grep -v ' w pfshim_v1_' <<<"$output" | grep -q pfshim
}
