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

@test "Fortran: module pfshim, regions by name and by handle, read and report" {
	run -0 shim "$EV" "$EX/fregion" 7
	[ "${lines[0]}" = "total 458752.184, unexpected returns 0" ]
	[ "${lines[1]}" = "markers active, 2 events" ]
	# the explicit report, then the one at exit: the same regions in both
	[ "$(jq -s -c 'map(.reason)' "$REPORTS")" = '["explicit","exit"]' ]
	for r in explicit exit; do
		[ "$(jq -c --arg r "$r" 'select(.reason == $r) | .regions.threads
			| [length, (.[0].regions[] | [.name, .calls, .reentries, .open, .unclosed])]' "$REPORTS")" = \
			'[1,["setup",1,0,0,0],["step",7,0,0,0],["inner",7,0,0,0]]' ]
	done
	[ "$(jq -s '[.[].regions.threads[0].misuse[]] | add' "$REPORTS")" -eq 0 ]
	# nested: step holds inner
	[ "$(jq 'select(.reason == "exit") | .regions.totals | (map(select(.name == "step"))[0].wall_ns.sum) >= (map(select(.name == "inner"))[0].wall_ns.sum)' "$REPORTS")" = true ]
}

@test "Fortran: without the library it links, runs, and every call is inactive" {
	run -0 "$EX/fregion" 7
	[ "$output" = "$(printf 'total 458752.184, unexpected returns 0\nmarkers inactive')" ]
	# no undefined pfshim symbol but the weak v1 references of libpfshim_fortran.a
	run -0 nm -u "$EX/fregion"
	grep -q ' w pfshim_v1_region_begin' <<<"$output"
	! grep -v ' w pfshim_v1_' <<<"$output" | grep -q pfshim
	# no dynamic dependency on pfshim either
	run -0 ldd "$EX/fregion"
	! grep -q pfshim <<<"$output"
	# PFSHIM_DISABLE: the shim loaded but off gives the same as no shim
	run -0 env LD_PRELOAD="$SHIM" PFSHIM_DISABLE=1 "$EX/fregion" 7
	[ "${lines[1]}" = "markers inactive" ]
}

@test "Fortran: a program built against the installed module and archive" {
	dest="$BATS_TEST_TMPDIR/inst"
	run -0 make -C "$ROOT" -s BUILD="$BUILD" install DESTDIR="$dest" PREFIX=/usr
	[ -f "$dest/usr/include/pfshim/pfshim.mod" ]
	[ -f "$dest/usr/include/pfshim/pfshim.f90" ]
	[ -f "$dest/usr/include/pfshim/region.hpp" ]
	[ -f "$dest/usr/lib/libpfshim_fortran.a" ]
	gfortran -I"$dest/usr/include/pfshim" -o "$BATS_TEST_TMPDIR/f" "$ROOT/examples/fregion.f90" \
		-L"$dest/usr/lib" -lpfshim_fortran
	g++ -I"$dest/usr/include" -o "$BATS_TEST_TMPDIR/cxx" "$ROOT/examples/region.cpp"
	run -0 shim "$EV" "$BATS_TEST_TMPDIR/f" 3
	[ "${lines[1]}" = "markers active, 2 events" ]
	run -0 shim "$EV" "$BATS_TEST_TMPDIR/cxx" 3
	[[ "$output" == *", 1 exceptions, markers active" ]]
}
