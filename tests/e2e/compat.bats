#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
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
		'{"end_without_begin":0,"bad_handle":0,"table_full":0,"unnested":0,"unclosed":0}' ]
	# step holds the inner loop and check: its time covers check's
	[ "$(jq '.regions.threads[0].regions | (map(select(.name == "step"))[0].wall_ns) >= (map(select(.name == "check"))[0].wall_ns)' "$REPORTS")" = true ]
}

@test "C++: without the library the regions are no-ops and the output is the same" {
	run -0 "$EX/region" 12
	[ "$output" = "sum 786432.511, 4 exceptions, markers inactive" ]
	run -0 nm -u "$EX/region"
	# the only pfshim references are the weak v1 symbols
	! grep -v ' w pfshim_v1_' <<<"$output" | grep -q pfshim || false
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
	! grep -v ' w pfshim_v1_' <<<"$output" | grep -q pfshim || false
	# no dynamic dependency on pfshim either
	run -0 ldd "$EX/fregion"
	! grep -q pfshim <<<"$output" || false
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
	[ -f "$dest/usr/lib/libpfshim-compat.so" ]
	[ -f "$dest/usr/include/pfshim/compat/papi.h" ]
	# the LIKWID example against the installed compat headers and archive
	gcc -I"$dest/usr/include" -I"$dest/usr/include/pfshim/compat" -o "$BATS_TEST_TMPDIR/lk" \
		"$ROOT/tests/compat/likwid_example.c" -L"$dest/usr/lib" -l:libpfshim-compat.a -lpthread
	run -0 --separate-stderr shim "$EV" "$BATS_TEST_TMPDIR/lk"
	[ "$(jq '[.regions.threads[].regions[] | select(.name == "work") | .calls] | add' "$REPORTS")" -eq 10 ]
	: >"$REPORTS"
	gfortran -I"$dest/usr/include/pfshim" -o "$BATS_TEST_TMPDIR/f" "$ROOT/examples/fregion.f90" \
		-L"$dest/usr/lib" -lpfshim_fortran
	g++ -I"$dest/usr/include" -o "$BATS_TEST_TMPDIR/cxx" "$ROOT/examples/region.cpp"
	run -0 shim "$EV" "$BATS_TEST_TMPDIR/f" 3
	[ "${lines[1]}" = "markers active, 2 events" ]
	run -0 shim "$EV" "$BATS_TEST_TMPDIR/cxx" 3
	[[ "$output" == *", 1 exceptions, markers active" ]]
	# another compiler's way (docs/compat.md): the installed module source and C glue, no .mod
	mkdir "$BATS_TEST_TMPDIR/own"
	gcc -I"$dest/usr/include" -c -o "$BATS_TEST_TMPDIR/own/glue.o" "$dest/usr/include/pfshim/pfshim_fortran.c"
	gfortran -J"$BATS_TEST_TMPDIR/own" -o "$BATS_TEST_TMPDIR/own/f" "$dest/usr/include/pfshim/pfshim.f90" \
		"$ROOT/examples/fregion.f90" "$BATS_TEST_TMPDIR/own/glue.o"
	: >"$REPORTS"
	run -0 shim "$EV" "$BATS_TEST_TMPDIR/own/f" 3
	[ "${lines[1]}" = "markers active, 2 events" ]
}

# LIKWID and PAPI high level: the same instrumented program built against
# the real library (run with both preloads), against pfshim's headers, and
# natively must give the same regions, calls and threads.
CT="$BUILD/compat/tests"
COMPAT="$BUILD/libpfshim-compat.so"

# both PROGRAM...: under libpfshim.so and libpfshim-compat.so
both() {
	env LD_PRELOAD="$SHIM $COMPAT" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" "$EV" "$@"
}

# structure: each thread's name and its regions' names, calls and re-entries, sorted.
structure() {
	jq -c '[.regions.threads[] | [.name, [.regions[] | [.name, .calls, .reentries, .unclosed]]]] | sort' "$REPORTS"
}

@test "LIKWID: real liblikwid with the compat preload, pfshim's header, and native pfshim agree" {
	run -0 shim "$EV" "$CT/likwid_example.native"
	native="$(structure)"
	[ "$native" = '[["likwid_example.",[["setup",1,0,0]]],["worker-0",[["work",5,0,0],["inner",5,0,0]]],["worker-1",[["work",5,0,0],["inner",5,0,0]]]]' ]
	for v in real pfshim; do
		: >"$REPORTS"
		run -0 --separate-stderr both "$CT/likwid_example.$v"
		[ "$(structure)" = "$native" ]
		# LIKWID's GET: the calling thread's calls and time; RESET clears them;
		# a stop of a tag never started is -EFAULT (-14) and a misuse in the report
		# GET: the thread's calls, time and counts (64 fresh pages per call: >= 320 page-faults)
		[ "$(sort <<<"${lines[0]}
${lines[1]}")" = "$(printf 'worker-0 get work: count 5 time>0 1 events 2 faults>=320 1\nworker-1 get work: count 5 time>0 1 events 2 faults>=320 1')" ]
		[ "${lines[2]}" = "main get setup: count 1" ]
		[ "${lines[3]}" = "main reset setup: 0" ]
		[ "${lines[4]}" = "main get setup after reset: count 0" ]
		[ "${lines[5]}" = "main stop not started: -14" ]
		[ "$(jq '[.regions.threads[].misuse.end_without_begin] | add' "$REPORTS")" -eq 1 ]
		[ "$stderr" = "pfshim: likwid: stopping an unknown/not-started region idle" ]
		# each call of inner touches 64 fresh pages
		[ "$(jq '[.regions.threads[].regions[] | select(.name == "inner") | .events[] | select(.name == "page-faults") | .value] | min' "$REPORTS")" -ge 320 ]
	done
}

@test "LIKWID: GET sums every call: 3 calls of 100 ms are 0.3 s or more, 3 x 64 page-faults or more; RESET clears them" {
	# The bounds are the program's own: nanosleep's 100 ms at least, its own
	# clock around each start..stop at most (tests/compat/likwid_time.c).
	run -0 --separate-stderr timeout 60 env LD_PRELOAD="$SHIM $COMPAT" PFSHIM_FORMAT=json \
		PFSHIM_OUTPUT="$REPORTS" "$EV" "$CT/likwid_time.pfshim"
	[ "${lines[0]}" = "count 3 time>=0.3 1 time<=own 1 events 2 faults>=192 1" ]
	[ "${lines[1]}" = "after reset: count 0 time 0 faults 0" ]
	# without libpfshim.so the layer's own table sums the calls' times
	run -0 --separate-stderr timeout 60 "$CT/likwid_time.pfshim"
	[[ "${lines[0]}" == "count 3 time>=0.3 1 time<=own 1 "* ]]
}

@test "LIKWID: the header build runs without libpfshim.so or LIKWID; without the compat preload real LIKWID is untouched" {
	run -0 --separate-stderr "$CT/likwid_example.pfshim"
	# calls and time are the compat layer's own; no counts without the shim
	[[ "${lines[0]}" == worker-?" get work: count 5 time>0 1 events 0 faults>=320 0" ]]
	[ "${lines[6]}" = "done" ]
	run -0 ldd "$CT/likwid_example.pfshim"
	! grep -q -E 'likwid|pfshim' <<<"$output" || false
	# libpfshim.so alone (no opt-in): the program keeps LIKWID's own calls and no regions appear
	run -0 --separate-stderr shim "$EV" "$CT/likwid_example.real"
	[[ "${lines[0]}" == worker-?" get work: count 0 time>0 0 events "* ]]
	[ "$(jq '.regions' "$REPORTS")" = null ]
}

@test "PAPI high level: real libpapi with the compat preload, pfshim's header, and native pfshim agree" {
	run -0 shim "$EV" "$CT/papi_hl_example.native"
	native="$(structure)"
	[ "$native" = '[["papi_hl_example",[["setup",1,0,0]]],["worker-0",[["work",5,0,0],["inner",5,0,0]]],["worker-1",[["work",5,0,0],["inner",5,0,0]]]]' ]
	for v in real pfshim; do
		: >"$REPORTS"
		run -0 both "$CT/papi_hl_example.$v"
		[ "$output" = done ]
		[ "$(structure)" = "$native" ]
		[ "$(jq '[.regions.threads[].misuse[]] | add' "$REPORTS")" -eq 0 ]
		# inner's page-faults: 64 pages touched 5 times per thread, at least once each
		[ "$(jq '[.regions.threads[].regions[] | select(.name == "inner") | .events[] | select(.name == "page-faults") | .value] | min' "$REPORTS")" -ge 320 ]
	done
	# without libpfshim.so the header build runs, every call PAPI_OK
	run -0 "$CT/papi_hl_example.pfshim"
	[ "$output" = done ]
}

# faults: the count papi_lowlevel or papi_mixed printed ("faults N").
faults() {
	sed -n 's/^faults //p' <<<"$output"
}

@test "PAPI low level beside the preloaded shim and compat library still counts" {
	need_papi
	# the event set holds only the loop over 3000 fresh pages (THP off for them):
	# one fault per page, and at most a few of the loop's own
	run -0 "$CT/papi_lowlevel" 3000
	[ "${lines[1]}" = ok ]
	between 3000 "$(faults)" 3016
	run -0 both "$CT/papi_lowlevel" 3000
	[ "${lines[1]}" = ok ]
	between 3000 "$(faults)" 3016
	# the shim counted the same faults and the process's start and exit around them
	between 3000 "$(value page-faults)" 3600
	: >"$REPORTS"
	run -0 shim "$EV" "$CT/papi_lowlevel" 3000
	[ "${lines[1]}" = ok ]
	between 3000 "$(faults)" 3016
}

@test "on a CPU PAPI does not know, the tests of real PAPI skip, naming the CPU and PAPI's error" {
	run -0 env PFSHIM_TEST_FORCE_NO_PAPI=1 timeout 120 bats --filter '^PAPI low level beside' "$BATS_TEST_FILENAME"
	[ "$output" = "1..1
ok 1 PAPI low level beside the preloaded shim and compat library still counts # skip Debian's PAPI fails on this CPU ($(cpu_name)) with no shim at all: forced by PFSHIM_TEST_FORCE_NO_PAPI" ]
}

@test "PAPI low level and PAPI_hl in one program: the low level stays PAPI's, the regions pfshim's" {
	need_papi
	run -0 both "$CT/papi_mixed" 3000
	[ "${lines[0]}" = "hl 0 0 0 0" ]
	# the event set holds the 3000 pages and the region's begin and end: the
	# first begin sets the thread's regions up (measured: 18 faults)
	between 3000 "$(faults)" 3064
	[ "$(structure)" = '[["papi_mixed",[["touch",1,0,0],["idle",1,0,0]]]]' ]
	# touch: the 3000 pages, as pfshim counts them in the region
	between 3000 "$(jq '.regions.threads[0].regions[] | select(.name == "touch") | .events[] | select(.name == "page-faults") | .value' "$REPORTS")" 3016
	between 0 "$(jq '.regions.threads[0].regions[] | select(.name == "idle") | .events[] | select(.name == "page-faults") | .value' "$REPORTS")" 8
	[ "$(jq '[.regions.threads[].misuse[]] | add' "$REPORTS")" -eq 0 ]
}

@test "libpfshim-compat.so exports the LIKWID marker and PAPI high-level calls and the shim's hook only" {
	run -0 nm -D --defined-only "$COMPAT"
	[ "$(awk '{print $3}' <<<"$output" | grep -v -c -E '^(likwid_marker(Init|ThreadInit|RegisterRegion|StartRegion|StopRegion|ResetRegion|GetRegion|NextGroup|Close)|PAPI_hl_(region_begin|read|region_end|stop)|pfshim_compat_v1_getenv)$')" -eq 0 ]
	[ "$(awk '{print $3}' <<<"$output" | grep -c .)" -eq 14 ]
	# it needs nothing but libc: no PAPI, no LIKWID
	run -0 ldd "$COMPAT"
	! grep -q -E 'papi|likwid' <<<"$output" || false
}

@test "LIKWID: start of a running tag, stop of a stopped one, calls outside init/close" {
	run -0 --separate-stderr shim "$EV" "$CT/likwid_twice.pfshim"
	[ "$output" = "$(printf 'start before init: -14\nstart: 0\nstart again: 0\nstop: 0\nstop again: -14\nstart after close: -14')" ]
	[ "$stderr" = "$(printf 'pfshim: likwid: region twice was already started\npfshim: likwid: stopping an unknown/not-started region twice')" ]
	# one call, closed: the second start did not nest; the second stop is a misuse
	[ "$(jq -c '.regions.threads[0] | [(.regions[] | [.name, .calls, .reentries, .open, .unclosed]), .misuse.end_without_begin]' "$REPORTS")" = '[["twice",1,0,0,0],1]' ]
}

@test "LIKWID from Fortran (use likwid, liblikwid) with the compat preload gets pfshim regions" {
	run -0 --separate-stderr both "$CT/likwid_fortran"
	[ "$output" = "sum 6.146" ]
	[ "$(structure)" = '[["likwid_fortran",[["work",4,0,0],["inner",4,0,0]]]]' ]
	# without the opt-in, LIKWID's own calls: no regions
	: >"$REPORTS"
	run -0 --separate-stderr shim "$EV" "$CT/likwid_fortran"
	[ "$output" = "sum 6.146" ]
	[ "$(jq '.regions' "$REPORTS")" = null ]
}

# papi PAPI-CALL...: tests/compat/papi_codes on the real libpapi (perf::TASK-CLOCK
# counts without a PMU), its JSON files kept out of the way.
papi() {
	env PAPI_EVENTS=perf::TASK-CLOCK PAPI_OUTPUT_DIRECTORY="$BATS_TEST_TMPDIR/papi" \
		"$CT/papi_codes" "$@" 2>/dev/null
}

# The same rule as real PAPI's (the test below compares them where PAPI runs),
# here on any host: the empty name is a region of its own, and its end not
# begun is "Cannot find matching region", PAPI_EINVAL, after which the
# high-level layer is off (PAPI_EMISC).
@test "PAPI high level under pfshim: the empty name's end without its begin is PAPI_EINVAL, then off" {
	run -0 both "$CT/papi_codes" b: e: e: b:a
	[ "$output" = "b:=0 e:=0 e:=-1 b:a=-14" ]
}

@test "PAPI high level: the return codes of real PAPI 7.0, call by call" {
	need_papi
	local seqs=(
		"b: e: b:a e:a"				# the empty name is a region
		"e:x r:x s b:a r:a r:y e:a s s b:c e:c s"	# before the first begin; stop twice
		"b:a e:b s b:c r:c e:c s"		# an end not begun: PAPI_EINVAL, then off
		"b:a s e:a e:a b:c"			# after a stop: as before it
		"b:a b:a e:a e:a b:b e: b:c"		# re-begun; an empty end not begun
		"b:$(printf 'x%.0s' {1..80}) e:$(printf 'x%.0s' {1..80})"	# a name of 80 bytes
		"$(for i in $(seq 80); do printf 'b:r%d r:r%d e:r%d ' $i $i $i; done)s"	# past pfshim's table
	)
	for seq in "${seqs[@]}"; do
		real="$(papi $seq)"
		: >"$REPORTS"
		ours="$(both "$CT/papi_codes" $seq 2>/dev/null)"
		echo "real:   $real" >&2
		echo "pfshim: $ours" >&2
		[ "$ours" = "$real" ]
	done
	# 80 regions: as many as pfshim's table holds, each once; the rest table_full
	cap="$(jq '.regions.capacity' "$REPORTS")"
	between 8 "$cap" 63
	[ "$(jq -c '.regions.threads[0] | [(.regions | length), ([.regions[].calls] | unique), .misuse.table_full]' "$REPORTS")" = "[$cap,[1],$((80 - cap))]" ]
	# the codes themselves, so that a change of either side shows
	[ "$(papi b:a e:b s b:c r:c e:c s)" = "b:a=0 e:b=-1 s=-7 b:c=-14 r:c=-14 e:c=-14 s=-7" ]
	[ "$(papi b:a s e:a e:a b:c)" = "b:a=0 s=0 e:a=0 e:a=-1 b:c=-14" ]
	[ "$(papi b: e: b:a e:a)" = "b:=0 e:=0 b:a=0 e:a=0" ]
	# what reached pfshim: a and b, each once; the end of x a misuse; c, after it, nothing
	: >"$REPORTS"
	run -0 both "$CT/papi_codes" b:a e:a s b:b e:b b: e: e:x b:c e:c
	[ "$output" = "b:a=0 e:a=0 s=0 b:b=0 e:b=0 b:=0 e:=0 e:x=-1 b:c=-14 e:c=-14" ]
	[ "$(structure)" = '[["papi_codes",[["a",1,0,0],["b",1,0,0]]]]' ]
	[ "$(jq '.regions.threads[0].misuse.end_without_begin' "$REPORTS")" -eq 1 ]
	# a long name is one region, shortened the same way at begin and end
	: >"$REPORTS"
	long="$(printf 'y%.0s' {1..80})"
	run -0 both "$CT/papi_codes" "b:$long" "e:$long" "b:$long" "e:$long"
	[ "$(jq -c '.regions.threads[0].regions[] | [.name, .calls]' "$REPORTS")" = \
		"[\"$(printf 'y%.0s' {1..54})~$(python3 -c 'h=2166136261
for c in b"y"*80: h=((h^c)*16777619)&0xffffffff
print("%08x"%h)')\",2]" ]
}

@test "LIKWID: 66 tags in one thread, and a tag of 100 bytes: every stop 0, GET knows them all" {
	run -0 --separate-stderr shim "$EV" "$CT/likwid_many.pfshim"
	[ "$output" = "$(printf 'get tag-00: count 2\nget tag-63: count 2\nget tag-65: count 2\nlong start 0 stop 0\nget LLLLLLLL: count 1\nstop never started: -14\nbad 0')" ]
	# one line, for the one stop that was wrong
	[ "$stderr" = "pfshim: likwid: stopping an unknown/not-started region never" ]
	# pfshim's own table holds regions.capacity regions per thread (63 with 2 events):
	# each of those is 2 calls; every begin beyond it (the rest twice, the long one
	# once) is table_full, and the one wrong stop is the one end_without_begin
	cap="$(jq '.regions.capacity' "$REPORTS")"
	[ "$cap" -eq 63 ]
	[ "$(jq -c '.regions.threads[0] | [(.regions | length), ([.regions[].calls] | unique)]' "$REPORTS")" = "[$cap,[2]]" ]
	[ "$(jq -c '.regions.threads[0].regions[0].name, .regions.threads[0].misuse' "$REPORTS" | paste -sd' ')" = \
		"\"tag-00\" {\"end_without_begin\":1,\"bad_handle\":0,\"table_full\":$(( (66 - cap) * 2 + 1 )),\"unnested\":0,\"unclosed\":0}" ]
}

# get LABEL: the numbers likwid_get printed for LABEL (count, time_ns, then each event).
get() {
	awk -v l="$1: " 'index($0, l) == 1 { sub(l, ""); print $2, $4, substr($0, index($0, "values") + 7) }' <<<"$output"
}

# report TAG: the tag's region in the one thread of the report, as get prints it.
report() {
	jq -r --arg r "$1" '.regions.threads[0].regions[] | select(.name == $r) | "\(.calls) \(.wall_ns) \([.events[].value] | join(" "))"' "$REPORTS"
}

@test "LIKWID: GET is pfshim's region of the thread: several pairs, nested tags on two paths, never started, RESET, started twice" {
	run -0 --separate-stderr timeout 60 env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" "$EV" \
		"$CT/likwid_get.pfshim"
	[ "${lines[-1]}" = "bad 0" ]
	[ "$stderr" = "pfshim: likwid: region twice was already started" ]
	# never started, here or in another thread: nothing, no events
	[ "$(get never | sort -u)" = "0 0 " ]
	[ "$(get 'other thread outer')" = "0 0 " ]
	# inner: 2 calls in each of 4 outer ones and 1 on its own, two paths, all in GET; each
	# call touches 16 fresh pages. GET is the thread's region in the report, to the ns and count.
	read -r calls ns task faults <<<"$(get inner)"
	[ "$calls" -eq 9 ]
	[ "$faults" -ge $((9 * 16)) ]
	[ "$(get inner)" = "$(report inner)" ]
	[ "$(jq '[.regions.threads[0].paths[] | select(.name == "inner")] | length' "$REPORTS")" -eq 2 ]
	# outer holds 8 inner calls: at least their faults, and its time at least theirs
	read -r calls ns task faults <<<"$(get outer)"
	[ "$calls" -eq 4 ]
	[ "$faults" -ge $((8 * 16)) ]
	[ "$ns" -gt 0 ]
	# RESET: GET starts again from 0, the report keeps every call (4 + 1 after the reset)
	[ "$(get 'outer after reset')" = "0 0 0 0" ]
	read -r calls2 ns2 task2 faults2 <<<"$(get 'outer after reset and a call')"
	[ "$calls2" -eq 1 ]
	[ "$faults2" -ge 16 ]
	[ "$(report outer)" = "$((calls + calls2)) $((ns + ns2)) $((task + task2)) $((faults + faults2))" ]
	# started twice, stopped once: one call, not re-entered, in GET and in the report
	[ "$(get twice | cut -d' ' -f1)" -eq 1 ]
	[ "$(jq -c '.regions.threads[0].regions[] | select(.name == "twice") | [.calls, .reentries, .open]' "$REPORTS")" = '[1,0,0]' ]
}

# ---- LIKWID_EVENTS, PAPI_EVENTS, PAPI_OUTPUT_DIRECTORY: read for the shim only
# when the user preloads the compat library (compat/env.c)

# opted [VAR=VALUE...] COMMAND...: under both preloads, PFSHIM_EVENTS unset.
opted() {
	env -u PFSHIM_EVENTS LD_PRELOAD="$SHIM $COMPAT" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" "$@"
}

# plain [VAR=VALUE...] COMMAND...: under libpfshim.so alone, PFSHIM_EVENTS unset.
plain() {
	env -u PFSHIM_EVENTS LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" "$@"
}

# names: the events of the (first) report, comma-separated.
names() {
	jq -s -r '.[0] | [.events[].name] | join(",")' "$REPORTS"
}

DEFAULTS=task-clock,context-switches,cpu-migrations,page-faults,cycles,instructions,branches,branch-misses
RAW_HINT="For those, set PFSHIM_EVENTS to perf's names instead (see perf list; a raw event is rUUEE or cpu/event=0xEE,umask=0xUU/)"

@test "LIKWID_EVENTS with the compat preload: the events that map are counted, one line names the rest" {
	lk='CPU_CLK_UNHALTED_CORE:FIXC1,page-faults:PMC0,L1D_REPLACEMENT:PMC1,CPU_CLOCKS_UNHALTED:PMC2|MEM'
	run -0 --separate-stderr opted LIKWID_EVENTS="$lk" "$CT/likwid_example.real"
	[ "$(names)" = cycles,page-faults ]
	[ "$stderr" = "$(printf '%s\n%s' \
		"pfshim: LIKWID_EVENTS: no perf event for L1D_REPLACEMENT:PMC1, MEM (a LIKWID group: counted when LIKWID_EVENTS names it alone); counting cycles,page-faults. $RAW_HINT" \
		"pfshim: likwid: stopping an unknown/not-started region idle")" ]
	# the program ran on: LIKWID's GET has page-faults second, as LIKWID_EVENTS put it
	[ "$(sort <<<"${lines[0]}
${lines[1]}")" = "$(printf 'worker-0 get work: count 5 time>0 1 events 2 faults>=320 1\nworker-1 get work: count 5 time>0 1 events 2 faults>=320 1')" ]
	[ "${lines[6]}" = done ]
	[ "$(jq '[.regions.threads[].regions[] | select(.name == "inner") | .events[] | select(.name == "page-faults") | .value] | min' "$REPORTS")" -ge 320 ]
}

@test "LIKWID_EVENTS naming a group, as likwid-perfctr -g: the group's metrics beside pfshim's defaults" {
	# A group file (LIKWID's format) of software events, so that any host counts it.
	printf 'SHORT faults\nEVENTSET\nPMC0 page-faults\nPMC1 task-clock\nMETRICS\nFaults per ms [1/ms] PMC0/(PMC1*1.0E-06)\n' \
		>"$BATS_TEST_TMPDIR/FAULTS.txt"
	run -0 --separate-stderr opted LIKWID_EVENTS="$BATS_TEST_TMPDIR/FAULTS.txt" "$PROGS/touch_pages" 500
	[ "$stderr" = "" ]
	[ "$(names)" = "$DEFAULTS" ]	# the group's events are among them: counted once
	[ "$(jq -r '.metric_group, .metrics[0].name, .metrics[0].status' "$REPORTS" | paste -sd' ')" = \
		"FAULTS Faults per ms computed" ]
	jq -e '.metrics[0].value == ([.events[] | select(.name == "page-faults") | .value][0] /
		([.events[] | select(.name == "task-clock") | .value][0] * 1.0E-06))' "$REPORTS"
	# A group name LIKWID has no file for here: one line naming LIKWID_EVENTS, and the defaults.
	: >"$REPORTS"
	run -0 --separate-stderr opted LIKWID_EVENTS=NO_SUCH_GROUP /bin/true
	[[ "$stderr" == "pfshim: LIKWID_EVENTS: "*"NO_SUCH_GROUP"* || "$stderr" == "pfshim: LIKWID_EVENTS: LIKWID's groups have none for this CPU"* ]]
	[ "$(names)" = "$DEFAULTS" ]
}

@test "LIKWID_EVENTS and PAPI_EVENTS without the compat preload: libpfshim.so reads neither" {
	run -0 --separate-stderr plain LIKWID_EVENTS=INSTR_RETIRED_ANY:FIXC0,MEM PAPI_EVENTS=perf::PAGE-FAULTS \
		PAPI_OUTPUT_DIRECTORY="$BATS_TEST_TMPDIR/papi" /bin/true
	[ "$stderr" = "" ]
	[ "$(names)" = "$DEFAULTS" ]
	[ ! -e "$BATS_TEST_TMPDIR/papi" ]
	# nor does a program built against pfshim's headers (the archive holds no hook)
	: >"$REPORTS"
	run -0 --separate-stderr plain LIKWID_EVENTS=MEM "$CT/likwid_example.pfshim"
	[ "$stderr" = "pfshim: likwid: stopping an unknown/not-started region idle" ]
	[ "$(names)" = "$DEFAULTS" ]
}

@test "PFSHIM_EVENTS wins over LIKWID_EVENTS and PAPI_EVENTS, silently; LIKWID_EVENTS over PAPI_EVENTS" {
	run -0 --separate-stderr opted PFSHIM_EVENTS=task-clock LIKWID_EVENTS=MEM PAPI_EVENTS=PAPI_FP_OPS /bin/true
	[ "$stderr" = "" ]
	[ "$(names)" = task-clock ]
	: >"$REPORTS"
	run -0 --separate-stderr opted LIKWID_EVENTS=page-faults:PMC0 PAPI_EVENTS=perf::TASK-CLOCK /bin/true
	[ "$stderr" = "pfshim: PAPI_EVENTS: not read: LIKWID_EVENTS is set too, and pfshim counts one list of events (set PFSHIM_EVENTS to choose)" ]
	[ "$(names)" = page-faults ]
}

@test "PAPI_EVENTS with the compat preload: presets and perf:: names counted, one line names the rest" {
	need_papi
	run -0 --separate-stderr opted \
		PAPI_EVENTS=perf::PAGE-FAULTS,PAPI_TOT_INS,PAPI_FP_OPS,perf::TASK-CLOCK,rapl::RAPL_ENERGY_PKG,PAPI_BR_MSP \
		"$CT/papi_mixed" 3000
	[ "$stderr" = "pfshim: PAPI_EVENTS: no perf event for PAPI_FP_OPS, rapl::RAPL_ENERGY_PKG; counting page-faults,instructions,task-clock,branch-misses. $RAW_HINT" ]
	[ "$(names)" = page-faults,instructions,task-clock,branch-misses ]
	[ "${lines[0]}" = "hl 0 0 0 0" ]
	between 3000 "$(faults)" 3064
	between 3000 "$(jq '.regions.threads[0].regions[] | select(.name == "touch") | .events[] | select(.name == "page-faults") | .value' "$REPORTS")" 3016
	# the task-clock of the region is counted too (a software event: here, a PMU or not)
	[ "$(jq '.regions.threads[0].regions[] | select(.name == "touch") | .events[] | select(.name == "task-clock") | .value > 0' "$REPORTS")" = true ]
	# nothing that maps: one line, pfshim's defaults
	: >"$REPORTS"
	run -0 --separate-stderr opted PAPI_EVENTS=PAPI_FP_OPS /bin/true
	[ "$stderr" = "pfshim: PAPI_EVENTS: no perf event for PAPI_FP_OPS; counting pfshim's defaults. $RAW_HINT" ]
	[ "$(names)" = "$DEFAULTS" ]
}

# papi_dir [VAR=VALUE...] COMMAND...: both preloads, no PFSHIM_OUTPUT: reports go where PAPI_OUTPUT_DIRECTORY says.
papi_dir() {
	env -u PFSHIM_EVENTS -u PFSHIM_OUTPUT -u PFSHIM_FORMAT LD_PRELOAD="$SHIM $COMPAT" "$@"
}

@test "PAPI_OUTPUT_DIRECTORY with the compat preload: one PAPI-format file in DIR/pfshim_output/" {
	need_papi
	dir="$BATS_TEST_TMPDIR/papi out%d"	# made with its parents; a '%' is a '%'
	run -0 --separate-stderr papi_dir PAPI_EVENTS=perf::PAGE-FAULTS PAPI_OUTPUT_DIRECTORY="$dir/run" \
		"$CT/papi_mixed" 3000
	[ "$stderr" = "" ]			# the report is not on stderr
	[ "${lines[0]}" = "hl 0 0 0 0" ]
	run -0 find "$dir" -type f
	[ "${#lines[@]}" -eq 1 ]
	file="${lines[0]}"
	[[ "$file" =~ ^"$dir/run/pfshim_output/rank_"[^/]*\.r-\.p[0-9]{7}\.[0-9]{8}T[0-9]{6}Z\.0\.json$ ]]
	# one whole JSON document as PAPI writes it: papi_mixed's regions, with its events
	[ "$(jq -s length "$file")" -eq 1 ]
	[ "$(jq -c '[.event_definitions, [.threads["0"].regions[] | [.name, .region_count]]]' "$file")" = \
		'[{"perf::PAGE-FAULTS":{"component":"perf_event","type":"delta"}},[["touch","1"],["idle","1"]]]' ]
	between 3000 "$(jq -r '.threads["0"].regions["0"]["perf::PAGE-FAULTS"]' "$file")" 3016
	# PFSHIM_OUTPUT, when set, wins
	rm -rf "$dir"
	run -0 papi_dir PAPI_OUTPUT_DIRECTORY="$dir" PFSHIM_OUTPUT="$REPORTS" PFSHIM_FORMAT=json /bin/true
	[ ! -e "$dir" ]
	[ "$(reports)" -eq 1 ]
	# without the compat preload: not read, the report on stderr as always
	run -0 --separate-stderr env -u PFSHIM_OUTPUT LD_PRELOAD="$SHIM" PAPI_OUTPUT_DIRECTORY="$dir" /bin/true
	[ ! -e "$dir" ]
	[[ "$stderr" == *"Performance counter stats for 'true'"* ]]
}

@test "PAPI_OUTPUT_DIRECTORY: PAPI's own papi_hl_output_writer reads pfshim's file, and its numbers are pfshim's" {
	command -v papi_hl_output_writer >/dev/null || skip "papi_hl_output_writer is not installed (papi-tools)"
	local events=PAPI_EVENTS=perf::TASK-CLOCK,perf::PAGE-FAULTS dir="$BATS_TEST_TMPDIR/papi"
	run -0 --separate-stderr papi_dir "$events" PAPI_OUTPUT_DIRECTORY="$dir" "$CT/papi_hl_example.pfshim"
	[ -z "$stderr" ]
	# a process that ran no region writes no file, as PAPI's
	papi_dir "$events" PAPI_OUTPUT_DIRECTORY="$dir" /bin/true
	[ "$(ls "$dir/pfshim_output" | grep -c '^rank_.*\.json$')" -eq 1 ]
	# the same program as pfshim's JSON report, for the calls
	papi_dir "$events" PFSHIM_OUTPUT="$REPORTS" PFSHIM_FORMAT=json "$CT/papi_hl_example.pfshim" >/dev/null
	mkdir "$BATS_TEST_TMPDIR/w" && cd "$BATS_TEST_TMPDIR/w"	# the script writes into the working directory
	for type in detail summary; do
		for notation in raw derived; do
			run -0 timeout 60 papi_hl_output_writer --source "$dir/pfshim_output" --type $type --notation $notation
		done
	done
	timeout 60 papi_hl_output_writer --source "$dir/pfshim_output" --type summary --notation raw >/dev/null
	mv papi_sum.json raw.json
	timeout 60 papi_hl_output_writer --source "$dir/pfshim_output" >/dev/null
	python3 - "$dir/pfshim_output"/rank_* "$REPORTS" raw.json papi_sum.json <<'PY'
import json, sys

ours, report = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
raw, derived = json.load(open(sys.argv[3])), json.load(open(sys.argv[4]))
# the file, summed here: per region, its calls and each event over threads
sums = {}
for t in ours["threads"].values():
    for g in t["regions"].values():
        s = sums.setdefault(g["name"], {})
        for k, v in g.items():
            if k != "name":
                s[k] = s.get(k, 0) + int(v)
# the calls are those of pfshim's own report of the same program: work and inner 5 in each of 2 threads
calls = {}
for t in report["regions"]["threads"]:
    for g in t["regions"]:
        calls[g["name"]] = calls.get(g["name"], 0) + g["calls"]
assert calls == {"setup": 1, "work": 10, "inner": 10}, calls
assert {n: s["region_count"] for n, s in sums.items()} == calls, sums
for name, s in sums.items():
    r, d = raw[name], derived[name]
    assert r["region_count"] == d["Region count"] == calls[name], (name, r, d)
    if calls[name] == 1:
        assert r["perf::PAGE-FAULTS"] == d["perf::PAGE-FAULTS"] == s["perf::PAGE-FAULTS"], (name, r, d)
        continue
    for event in ("perf::PAGE-FAULTS", "perf::TASK-CLOCK", "real_time_nsec"):
        assert r[event]["total"] == s[event], (name, event, r[event], s[event])
    assert d["perf::PAGE-FAULTS"]["total"] == s["perf::PAGE-FAULTS"], (name, d)
    assert d["CPU time in s"] == round(s["perf::TASK-CLOCK"] / 1e9, 2), (name, d)
    assert (d["Number of ranks"], d["Number of threads per rank"]) == (1, 2), d
    # each call of inner faults in 64 fresh pages; work holds inner. The rest is the
    # program's own allocations: up to 17 more seen under ASan; less than one call more.
    assert 640 <= s["perf::PAGE-FAULTS"] < 640 + 64, (name, s)
print({n: (s["region_count"], s["perf::PAGE-FAULTS"]) for n, s in sums.items()})
PY
}

teardown() {
	[ -z "${SUID_DIR:-}" ] || rm -rf "$SUID_DIR"
}

@test "a setuid program: LIKWID_EVENTS, PAPI_EVENTS and PAPI_OUTPUT_DIRECTORY are not read either" {
	[ "$(id -u)" -eq 0 ] || skip "needs root (a setuid file, mounts)"
	need_unshare -m
	SUID_DIR=$(mktemp -d /tmp/pfshim-suid.XXXXXX)
	dir=$SUID_DIR
	chmod 755 "$dir"
	cp "$PROGS/first_fd" "$dir/suid"
	cp "$PROGS/first_fd" "$dir/plain"
	chown root:root "$dir/suid"
	chmod 4755 "$dir/suid"
	mkdir -m 1777 "$dir/out"
	mkdir "$dir/up" "$dir/work"
	echo "$SHIM $COMPAT" >"$dir/up/ld.so.preload"
	want=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$dir/suid")
	run timeout 120 unshare -m sh -c '
		mount --make-rprivate / &&
		mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/up,workdir=$1/work" /etc &&
		for prog in plain suid; do
			echo "$prog: $(PFSHIM_DISABLE=1 setpriv --reuid=65534 --regid=65534 --clear-groups \
				env -u PFSHIM_DISABLE LIKWID_EVENTS=MEM:PMC0 PAPI_OUTPUT_DIRECTORY="$1/out/$prog" PFSHIM_FORMAT=json \
				"$1/$prog" 2>&1)"
		done' sh "$dir"
	echo "$output"
	rm -rf "$dir/up" "$dir/work"
	[ "$status" -eq 0 ]
	# (setpriv and env, disabled, only pass the variables on)
	# the plain copy read both, as its user: one line, a report file in its directory
	[ "$(grep -c 'pfshim: LIKWID_EVENTS: no perf event for MEM:PMC0' <<<"$output")" -eq 1 ]
	[[ "$output" == *"plain: pfshim: LIKWID_EVENTS: no perf event for MEM:PMC0"* ]]
	[ "$(stat -c %U "$dir/out/plain/pfshim_output")" = nobody ]
	[ "$(find "$dir/out/plain" -name '*.json' | wc -l)" -ge 1 ]
	# the setuid one: what it prints without the shim, no line, no directory
	[ "$(printf '%s\n' "$output" | grep '^suid: ')" = "suid: $want" ]
	[ ! -e "$dir/out/suid" ]
}
