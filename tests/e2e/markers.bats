#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The marker API (pfshim.h): regions per thread, read by each thread from its
# own counters, totalled over threads, with misuse counted instead of trusted.

load helpers

# region THREAD-FILTER REGION KEY: a field of REGION in the threads matching the filter.
region() {
	jq -r --arg r "$2" "select(.reason == \"exit\") | .regions.threads[] | select($1)
		| .regions[] | select(.name == \$r) | .$3" "$REPORTS"
}

# region_event THREAD-FILTER REGION EVENT: the scaled value of EVENT in REGION.
region_event() {
	jq -r --arg r "$2" --arg e "$3" "select(.reason == \"exit\") | .regions.threads[]
		| select($1) | .regions[] | select(.name == \$r) | .events[]
		| select(.name == \$e) | .value" "$REPORTS"
}

# total REGION JQ-PATH: a field of REGION's totals over threads.
total() {
	jq -r --arg r "$1" "select(.reason == \"exit\") | .regions.totals[]
		| select(.name == \$r) | $2" "$REPORTS"
}

@test "1000 begin/end pairs are 1000 calls, by handle and by name" {
	run env -u LD_PRELOAD "$PROGS/markers_calls" 1
	without=${lines[1]}
	run shim PFSHIM_EVENTS=task-clock,page-faults "$PROGS/markers_calls" 1000
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "active=1" ]
	# The thread's counter fds went high: open() still returns what it would without us.
	[ "${lines[1]}" = "$without" ]
	[ "$(region true pairs calls)" -eq 1000 ]
	[ "$(region true by-name calls)" -eq 1000 ]
	[ "$(region true pairs unclosed)" -eq 0 ]
	# Each call of either kind read the counters once: 4 x 1000 reads.
	[ "$(jq '.regions.threads[0] | .user_reads + .syscall_reads' "$REPORTS")" -eq 4000 ]
}

@test "regions by name: one string at several addresses, other strings at a reused address" {
	run shim PFSHIM_EVENTS=task-clock,page-faults "$PROGS/markers_names"
	[ "$status" -eq 0 ]
	# glibc's allocator hands the freed buffer to the next name (not under ASan's quarantine).
	[ -n "$PFSHIM_SANITIZER" ] || [ "${lines[0]}" = "same_address=9" ]
	[ "$(region true shared calls)" -eq 300 ]
	for i in $(seq 0 9); do
		[ "$(region true "$(printf 'reused_%02d_with_a_long_common_prefix' "$i")" calls)" -eq $((i + 1)) ]
	done
	[ "$(region true in_place_with_a_long_prefix_1 calls)" -eq 4 ]
	[ "$(region true in_place_with_a_long_prefix_2 calls)" -eq 5 ]
	[ "$(jq '.regions.threads[0].misuse | add' "$REPORTS")" -eq 0 ]
}

@test "without the shim the program links, runs, and every call is a no-op" {
	run env -u LD_PRELOAD "$PROGS/markers_calls" 100
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "active=0" ]
}

@test "with the shim disabled the calls are no-ops too" {
	run shim PFSHIM_DISABLE=1 "$PROGS/markers_calls" 100
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "active=0" ]
	[ "$(reports)" -eq 0 ]
}

@test "4 threads: 4 thread entries with their names, and totals with 4x the calls" {
	shim PFSHIM_EVENTS=task-clock,page-faults "$PROGS/markers_threads" 4 250 64
	[ "$(jq '.regions.threads | length' "$REPORTS")" -eq 4 ]
	[ "$(jq '[.regions.threads[] | select(.exited)] | length' "$REPORTS")" -eq 4 ]
	[ "$(jq -r '[.regions.threads[].name] | sort | join(",")' "$REPORTS")" = \
		"worker-0,worker-1,worker-2,worker-3" ]
	[ "$(jq '[.regions.threads[].tid] | unique | length' "$REPORTS")" -eq 4 ]
	for n in 0 1 2 3; do
		[ "$(region ".name == \"worker-$n\"" work calls)" -eq 250 ]
		[ "$(region_event ".name == \"worker-$n\"" work page-faults)" -ge 64 ]
	done
	[ "$(total work .threads)" -eq 4 ]
	[ "$(total work .calls)" -eq 1000 ]
	[ "$(total setup .calls)" -eq 4 ]
	# sum / min / max / mean of the four threads' page-faults
	sum=$(total work '.events[] | select(.name == "page-faults") | .sum')
	min=$(total work '.events[] | select(.name == "page-faults") | .min')
	max=$(total work '.events[] | select(.name == "page-faults") | .max')
	mean=$(total work '.events[] | select(.name == "page-faults") | .mean')
	[ "$min" -ge 64 ]
	[ "$min" -le "$max" ]
	[ "$mean" -eq $((sum / 4)) ]
	[ "$sum" -eq "$(jq '[.regions.threads[].regions[] | select(.name == "work")
		| .events[] | select(.name == "page-faults") | .value] | add' "$REPORTS")" ]
}

@test "nested regions: inclusive counts, outer >= inner, N touched pages >= N faults" {
	shim PFSHIM_EVENTS=task-clock,page-faults "$PROGS/markers_nested" 300 200
	outer_pf=$(region_event true outer page-faults)
	inner_pf=$(region_event true inner page-faults)
	[ "$inner_pf" -ge 200 ]
	[ "$outer_pf" -ge 500 ]
	[ "$outer_pf" -ge "$inner_pf" ]
	[ "$(region_event true outer task-clock)" -ge "$(region_event true inner task-clock)" ]
	[ "$(region true outer wall_ns)" -ge "$(region true inner wall_ns)" ]
	# One call each: per-call min and max of the first event are the total.
	[ "$(region true inner first_min)" -eq "$(region_event true inner task-clock)" ]
}

@test "misuse is counted and never crashes: end without begin, bad handle, unclosed, recursion" {
	run shim PFSHIM_EVENTS=task-clock,page-faults "$PROGS/markers_misuse"
	[ "$status" -eq 0 ]
	main='.regions.threads[] | select(.exited | not)'
	[ "$(jq "$main | .misuse.end_without_begin" "$REPORTS")" -eq 2 ]
	[ "$(jq "$main | .misuse.bad_handle" "$REPORTS")" -eq 1 ]
	[ "$(jq "$main | .misuse.unclosed" "$REPORTS")" -eq 1 ]
	[ "$(region '.exited | not' left-open unclosed)" -eq 1 ]
	[ "$(region '.exited | not' left-open calls)" -eq 0 ]
	# 3 outermost entries, each 5 deep: counted once per outermost entry.
	[ "$(region '.exited | not' recurse calls)" -eq 3 ]
	[ "$(region '.exited | not' recurse reentries)" -eq 12 ]
	[ "$(total left-open .unclosed)" -eq 1 ]
	# A thread that exits with a region open: unclosed at its exit.
	[ "$(region .exited thread-open unclosed)" -eq 1 ]
	[ "$(region .exited thread-open open)" -eq 0 ]
	[ "$(jq '[.regions.threads[] | select(.exited)] | length' "$REPORTS")" -eq 1 ]
}

@test "misuse shows in the text report" {
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock "$PROGS/markers_misuse"
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"MISUSE: 2 end without begin"* ]]
	[[ "$stderr" == *"region 'left-open': 0 calls"*"MISUSE: left open 1 time"* ]]
	[[ "$stderr" == *"region 'recurse': 3 calls"*"12 re-entries counted once"* ]]
}

@test "pfshim_report() writes an explicit report with the regions so far" {
	run shim PFSHIM_EVENTS=task-clock "$PROGS/markers_report"
	[ "$status" -eq 0 ]
	[ "$output" = 0 ]
	[ "$(reports '.reason == "explicit"')" -eq 1 ]
	[ "$(reports '.reason == "exit"')" -eq 1 ]
	[ "$(jq -r 'select(.reason == "explicit") | [.regions.threads[0].regions[].name] | join(",")' \
		"$REPORTS")" = first ]
	[ "$(region true second calls)" -eq 1 ]
}

@test "an exec report carries the regions; the new image starts without them" {
	run shim PFSHIM_EVENTS=task-clock "$PROGS/markers_report" exec
	[ "$status" -eq 0 ]
	[ "$(reports '.reason == "exec"')" -eq 1 ]
	[ "$(jq -r 'select(.reason == "exec") | [.regions.threads[0].regions[] | "\(.name)=\(.calls)"]
		| join(",")' "$REPORTS")" = "first=1,second=1" ]
	[ "$(reports '.program == "true" and (has("regions") | not)')" -eq 1 ]
}

@test "PFSHIM_DISABLE_MARKERS compiles the macros and functions away: no pfshim_v1 reference" {
	[ "$(nm "$PROGS/markers_disabled" | grep -c pfshim_v1)" -eq 0 ]
	# The same source without it does reference the API, so the check can fail.
	[ "$(nm "$PROGS/markers_macros" | grep -c pfshim_v1)" -gt 0 ]
	shim PFSHIM_EVENTS=task-clock "$PROGS/markers_disabled"	# each call PFSHIM_INACTIVE, exit 0
	[ "$(jq -s 'map(select(.regions)) | length' "$REPORTS")" -eq 0 ]
	: >"$REPORTS"
	shim PFSHIM_EVENTS=task-clock "$PROGS/markers_macros"
	[ "$(region true macro calls)" -eq 10 ]
	[ "$(region true handle calls)" -eq 10 ]
	"$PROGS/markers_macros"	# without the shim: every call PFSHIM_INACTIVE
}

@test "a program that uses no marker has no regions in its report" {
	shim PFSHIM_EVENTS=task-clock "$PROGS/touch_pages" 10
	[ "$(jq 'has("regions")' "$REPORTS")" = false ]
}

@test "a fork()ed child sets up again and reports only its own regions" {
	run shim PFSHIM_EVENTS=task-clock,page-faults "$PROGS/markers_fork"
	[ "$status" -eq 0 ]
	child=$output
	[ "$(reports)" -eq 2 ]
	[ "$(jq -r "select(.pid == $child) | [.regions.threads[].regions[].name] | join(\",\")" \
		"$REPORTS")" = child ]
	[ "$(jq -r "select(.pid == $child) | .regions.threads[0].tid" "$REPORTS")" -eq "$child" ]
	[ "$(jq -r "select(.pid == $child) | .regions.threads[0].regions[0].calls" "$REPORTS")" -eq 10 ]
	[ "$(jq -r "select(.pid != $child) | .regions.threads[0].regions[0].calls" "$REPORTS")" -eq 1 ]
}

@test "reads are counted per thread: read(2) here, where software events have no user-space path" {
	shim PFSHIM_EVENTS=task-clock,page-faults "$PROGS/markers_calls" 10
	# docs/kernel-notes.md: software events' pages have index 0, so every read is a read(2).
	[ "$(jq '.regions.threads[0].user_reads' "$REPORTS")" -eq 0 ]
	[ "$(jq '.regions.threads[0].syscall_reads' "$REPORTS")" -eq 40 ]
}

@test "events that failed to open for the totals are left out of the regions" {
	shim PFSHIM_EVENTS=cycles,task-clock,instructions,page-faults "$PROGS/markers_calls" 10
	[ "$(field cycles status)" = not-supported ] || skip "this machine has a hardware PMU"
	[ "$(jq -c '.regions.events' "$REPORTS")" = '["task-clock","page-faults"]' ]
}

@test "CSV and text reports carry the regions too" {
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock,page-faults \
		PFSHIM_FORMAT=csv "$PROGS/markers_threads" 2 10 0
	[ "$status" -eq 0 ]
	header="pid,program,reason,scope,tid,thread,region,threads,calls,reentries,unclosed,wall_ns,event,value,raw,enabled_ns,running_ns,status,min,max,mean,compensated,job_scheduler,job_id,job_step,pfshim_version"
	[[ "$stderr" == *"$header"* ]]
	# 2 threads x 2 regions x 2 events, then 2 regions x 2 events of totals
	[ "$(grep -c ',exit,thread,' <<<"$stderr")" -eq 8 ]
	[ "$(grep -c ',exit,total,' <<<"$stderr")" -eq 4 ]
	grep -q ',total,,,work,2,20,0,0,' <<<"$stderr"
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock \
		"$PROGS/markers_threads" 2 10 0
	[[ "$stderr" == *"thread "*"'worker-1' (exited)"* ]]
	[[ "$stderr" == *"region 'work': 2 threads, 20 calls"* ]]
}

@test "report signals while 4 threads run markers: no crash, no deadlock, consistent totals" {
	env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" PFSHIM_SIGNAL=USR2 \
		PFSHIM_EVENTS=task-clock,page-faults "$PROGS/markers_threads" 4 200000 0 &
	pid=$!
	wait_caught "$pid" USR2
	for i in $(seq 30); do
		sleep 0.02
		kill -USR2 "$pid" 2>/dev/null || break
	done
	wait "$pid"
	[ "$(reports '.reason == "exit"')" -eq 1 ]
	[ "$(reports '.reason == "signal"')" -ge 1 ]
	[ "$(total work .calls)" -eq 800000 ]
	[ "$(jq -s 'all(.[]; .regions.threads | length <= 4)' "$REPORTS")" = true ]
}

@test "examples: matmul has one region per phase, threads has 4 workers with nested rounds" {
	run shim PFSHIM_EVENTS=task-clock,page-faults "$BUILD/examples/matmul" 100
	[ "$status" -eq 0 ]
	[ "$output" = "matmul 100 x 100: checked (markers on)" ]
	[ "$(jq -r '[.regions.threads[0].regions[] | "\(.name)=\(.calls)"] | join(",")' "$REPORTS")" = \
		"init=1,multiply=1,check=1" ]
	: >"$REPORTS"
	run shim PFSHIM_EVENTS=task-clock,page-faults "$BUILD/examples/threads" 5
	[ "$status" -eq 0 ]
	[ "$(jq '.regions.threads | length' "$REPORTS")" -eq 4 ]
	[ "$(total round .calls)" -eq 20 ]
	[ "$(total compute .calls)" -eq 4 ]
	# "alloc" faults in 512, 1024, 1536, 2048 pages of doubles (4 KB pages).
	[ "$(getconf PAGESIZE)" -eq 4096 ] || skip "page size $(getconf PAGESIZE)"
	[ "$(region '.name == "worker-3"' alloc 'events[] | select(.name == "page-faults") | .value')" -ge 2048 ]
	[ "$(total alloc '.events[] | select(.name == "page-faults") | .min')" -ge 512 ]
}

@test "after make install, pkg-config --cflags pfshim builds a program whose regions are reported" {
	dest="$BATS_TEST_TMPDIR/dest"
	make -s -C "$ROOT" install DESTDIR="$dest" PREFIX=/usr >/dev/null
	cflags=$(PKG_CONFIG_PATH="$dest/usr/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest" \
		pkg-config --cflags pfshim)
	cc $cflags -o "$BATS_TEST_TMPDIR/matmul" "$ROOT/examples/matmul.c"
	run "$BATS_TEST_TMPDIR/matmul" 50
	[ "$output" = "matmul 50 x 50: checked (markers off: run under libpfshim.so to see them)" ]
	run env LD_PRELOAD="$dest/usr/lib/libpfshim.so" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" \
		PFSHIM_EVENTS=task-clock "$BATS_TEST_TMPDIR/matmul" 50
	[ "$status" -eq 0 ]
	[ "$(region true multiply calls)" -eq 1 ]
}

@test "pfshim_read: the calling thread's counts in PFSHIM_EVENTS order" {
	skip_under_sanitizer "its runtime's shadow memory adds page faults to the exact count" tsan
	run shim PFSHIM_EVENTS=cycles,page-faults,task-clock "$PROGS/markers_read" 300
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "ret=0" ]
	[ "${lines[1]}" = "nr=3" ]
	read -r i faults ran <<<"${lines[3]}"
	[ "$i" -eq 1 ] && [ "$ran" -eq 1 ]
	between 300 "$faults" 320
	read -r i clock ran <<<"${lines[4]}"
	[ "$ran" -eq 1 ] && [ "$clock" -gt 0 ]
	[ "$(field cycles status)" = not-supported ] || skip "this machine has a hardware PMU"
	[ "${lines[2]}" = "0 0 0" ]
}

@test "pfshim_read in a signal handler, every 50 us, around 300,000 pairs: each end keeps its own sample, the thread is set up once" {
	# The handler's read swaps the thread's sample vectors: an end it lands in
	# must close with its own (a wall time of 2^64 ns otherwise), and a read
	# inside the thread's first call must not set the thread up a second time.
	start=$(date +%s%N)
	run -0 timeout 120 env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" \
		PFSHIM_EVENTS=task-clock,page-faults "$PROGS/markers_read_signal" 300000
	elapsed=$(($(date +%s%N) - start))
	echo "$output"
	read -r signals failed bad <<<"$(sed 's/[a-z]*=//g' <<<"$output")"
	[ "$bad" -eq 0 ]
	[ "$signals" -ge 100 ]
	# Only the reads that came while the thread was setting up fail (one here,
	# four under TSan's slower set-up): never most of them.
	[ "$failed" -lt $((signals / 10)) ]
	[ "$(jq -s '[.[] | select(.reason == "exit") | .regions.threads[]] | length' "$REPORTS")" -eq 1 ]
	[ "$(region true pairs calls)" -eq 300000 ]
	# Compared by jq: a wrapped time is beyond what [ -lt ] can read.
	[ "$(region true pairs "wall_max_ns < $elapsed and .wall_ns < $elapsed")" = true ]
}

@test "pfshim_read without the shim: PFSHIM_INACTIVE" {
	run env -u LD_PRELOAD "$PROGS/markers_read" 10
	[ "${lines[0]}" = "ret=-1" ]
}

@test "limits: 300 exited threads, 300 names, a full thread table: counted, never fatal" {
	run shim PFSHIM_EVENTS=task-clock,page-faults "$PROGS/markers_limits" 300 300
	[ "$status" -eq 0 ]
	# "t" and n0..n254 fill the 256 names: 45 refused.
	[ "$output" = "refused=45" ]
	[ "$(jq '.regions.names_refused' "$REPORTS")" -eq 45 ]
	# 256 exited threads listed, 44 in the totals only; the main thread listed live.
	[ "$(jq '.regions.threads | length' "$REPORTS")" -eq 257 ]
	[ "$(jq '.regions.threads_unlisted' "$REPORTS")" -eq 44 ]
	# pfshim report's tree holds the listed threads' paths and says the others are in none
	[ "$("$BUILD/pfshim" report --json "$REPORTS" | jq .region_tree_threads_unlisted)" -eq 44 ]
	"$BUILD/pfshim" report "$REPORTS" | grep -q "^ pfshim: 44 threads are in no path: a process lists 256"
	[ "$(total t .calls)" -eq 300 ]
	[ "$(total t .threads)" -eq 300 ]
	# The main thread's table holds `capacity` regions; each refused begin is one
	# table_full, its end no second misuse; a 0 handle is a bad handle, begin and end.
	cap=$(jq '.regions.capacity' "$REPORTS")
	main='.regions.threads[-1]'
	[ "$(jq "$main.regions | length" "$REPORTS")" -eq "$cap" ]
	[ "$(jq "$main.misuse.table_full" "$REPORTS")" -eq $((255 - cap)) ]
	[ "$(jq "$main.misuse.end_without_begin" "$REPORTS")" -eq 0 ]
	[ "$(jq "$main.misuse.bad_handle" "$REPORTS")" -eq 90 ]
}

@test "a thread whose counters cannot open says PFSHIM_FAILED and the report says why" {
	# At a limit of 256 the shim's band is 64 numbers: 60 events fit for the
	# totals, opened first, with 2 spare, but the thread's own 60, in 4 groups of
	# at most 16, keep a descriptor per group: 4 would pass the budget (EMFILE).
	# (58 events leave room for the thread's 4.)
	events=$(for i in $(seq 30); do printf 'page-faults,task-clock,'; done)
	out=$(ulimit -n 256 && env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT=stdout \
		PFSHIM_EVENTS="${events%,}" "$PROGS/markers_read" 10 2>&-)
	# (the report is written at exit, before stdio flushes the program's lines)
	[ "$(grep '^ret=' <<<"$out")" = "ret=-3" ]
	report=$(grep '^{' <<<"$out")
	[ "$(jq -r '[.events[] | select(.status == "counted")] | length' <<<"$report")" -eq 60 ]
	[ "$(jq -r '.regions.threads[0].open_error' <<<"$report")" = EMFILE ]
}

# copies_agree [JQ-FILTER]: in every report (matching), every thread's every region counted
# the same value for each of the 3 copies of page-faults.
copies_agree() {
	[ "$(jq -s -c "map(select(${1:-true}) | .regions.threads[].regions[]
		| [.events[] | select(.name == \"page-faults\") | .value] | unique | length) | unique" \
		"$REPORTS")" = "[1]" ]
	[ "$(jq -s "map(select(${1:-true}) | .regions.threads[].regions[].events[]
		| select(.status != \"counted\")) | length" "$REPORTS")" -eq 0 ]
}

@test "members whose descriptors are shed count as their leader: threads that exit, a fork child, an exec" {
	# One group: the leader keeps its descriptor, the two others are closed once mapped.
	ev=PFSHIM_EVENTS=page-faults,page-faults,page-faults
	shim "$ev" "$PROGS/markers_threads" 4 250 64
	[ "$(jq '[.regions.threads[] | select(.exited and .open_error == null)] | length' "$REPORTS")" -eq 4 ]
	copies_agree
	[ "$(region '.name == "worker-2"' work events[2].value)" -ge 64 ]
	: >"$REPORTS"
	run shim "$ev" "$PROGS/markers_fork"
	[ "$status" -eq 0 ]
	[ "$(reports)" -eq 2 ]
	copies_agree
	[ "$(jq -s "map(.regions.threads[].regions[].calls) | add" "$REPORTS")" -eq 11 ]
	: >"$REPORTS"
	run shim "$ev" "$PROGS/markers_report" exec
	[ "$status" -eq 0 ]
	copies_agree '.reason == "exec"'
	[ "$(jq -s 'map(select(.reason == "exec") | .regions.threads[0].regions | length) | add' \
		"$REPORTS")" -eq 2 ]
}

@test "20 events: the thread's counters are split into groups of at most 16, all exact" {
	events=$(for i in $(seq 10); do printf 'page-faults,task-clock,'; done)
	shim PFSHIM_EVENTS="${events%,}" "$PROGS/markers_nested" 300 200
	[ "$(jq '.regions.events | length' "$REPORTS")" -eq 20 ]
	# 2 regions x (begin + end) x 2 groups: one read(2) per group per call
	[ "$(jq '.regions.threads[0].syscall_reads' "$REPORTS")" -eq 8 ]
	# Every copy of page-faults, in either group, saw the same faults. Not under TSan: its
	# instrumented code between the two groups' reads faults in shadow pages (one in some runs).
	[ "${PFSHIM_SANITIZER:-}" = tsan ] ||
	[ "$(jq '[.regions.threads[0].regions[] | select(.name == "inner") | .events[]
		| select(.name == "page-faults") | .value] | unique | length' "$REPORTS")" -eq 1 ]
	[ "$(region_event true inner page-faults | head -1)" -ge 200 ]
}

@test "the first marker calls leave the host's errno as it was" {
	run shim PFSHIM_EVENTS=task-clock,page-faults,cycles "$PROGS/markers_errno"
	[ "$status" -eq 0 ]
	[ "$output" = "errno kept" ]
}

# The markers' own cost (preload/markers/probe.c): measured at each thread's
# set-up with an empty begin/end pair, shown beside the regions; subtracted
# with PFSHIM_COMPENSATE=1. No PMU here: task-clock and page-faults only.
@test "probe: every report shows pfshim's own count per call, for every event, per thread" {
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=page-faults,task-clock \
		"$PROGS/markers_compensate" 10
	[ "$status" -eq 0 ]
	# One line per thread (an exited one and main), every event on it.
	[ "$(grep -c '   each call includes ~0 page-faults, ~[0-9.]* usec task-clock of pfshim itself$' <<<"$stderr")" -eq 2 ]
	[[ "$stderr" == *"pfshim itself in each call, per thread (included in every region):"* ]]
	shim PFSHIM_EVENTS=page-faults,task-clock "$PROGS/markers_compensate" 10
	# The probe is no region: 3 regions per thread, and the probe's own reads
	# (5 pairs) are not counted: 2 per call of outer, empty and spin (1 + 3 + 3).
	[ "$(jq '[.regions.threads[] | .regions | length] == [3,3]' "$REPORTS")" = true ]
	[ "$(jq '[.regions.threads[] | .syscall_reads] == [14,14]' "$REPORTS")" = true ]
	[ "$(jq '[.regions.totals[].name] == ["outer","empty","spin"]' "$REPORTS")" = true ]
	# A pair touches no new page: the least of 5 tries is 0 page-faults.
	[ "$(jq -c '[.regions.threads[].probe[] | select(.name == "page-faults") | .value]' "$REPORTS")" = '[0,0]' ]
	[ "$(jq '[.regions.threads[].probe[] | select(.name == "task-clock") | .value > 0] | all' "$REPORTS")" = true ]
	# Over threads: min, max and mean of the threads' probes.
	[ "$(jq -c '.regions.probe[] | select(.name == "page-faults") | [.threads, .min, .max, .mean]' "$REPORTS")" = '[2,0,0,0]' ]
	[ "$(jq '.regions.compensated' "$REPORTS")" = false ]
	# The program's table keeps its whole capacity but the probe's slot.
	[ "$(jq '.regions.capacity > 0' "$REPORTS")" = true ]
	# CSV: a probe row per thread and event, and one over threads per event.
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=page-faults,task-clock \
		PFSHIM_FORMAT=csv "$PROGS/markers_compensate" 10
	# each row ends with the batch job (none here: empty) and the version of pfshim (VERSION) that wrote it
	v=$(cat "$ROOT/VERSION")
	[ "$(grep -c ",exit,probe,[0-9]*,markers_compens,,1,,,,,page-faults,0,0,,,counted,,,,0,,,,$v\$" <<<"$stderr")" -eq 2 ]
	[ "$(grep -c ",exit,probe_total,,,,2,,,,,page-faults,,,,,counted,0,0,0,0,,,,$v\$" <<<"$stderr")" -eq 1 ]
	# OpenMetrics: the mean probe per event, and whether it was subtracted.
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=page-faults,task-clock \
		PFSHIM_FORMAT=openmetrics "$PROGS/markers_compensate" 10
	grep -q '^pfshim_markers_probe{.*,event="page-faults"} 0$' <<<"$stderr"
	grep -q '^pfshim_markers_compensated{.*} 0$' <<<"$stderr"
}

@test "PFSHIM_COMPENSATE=1: the probe is subtracted, no count goes below 0, totals agree" {
	shim PFSHIM_COMPENSATE=1 PFSHIM_EVENTS=task-clock,page-faults "$PROGS/markers_compensate" 1000
	[ "$(jq '.regions.compensated' "$REPORTS")" = true ]
	# Never below zero: a wrapped unsigned count would read about 1.8e19.
	[ "$(jq '[.regions.threads[].regions[] | .first_min, .first_max, (.events[] | .value, .raw)] | all(. >= 0 and . < 1e15)' "$REPORTS")" = true ]
	# Compensated once per thread, exited (at its exit) and live (in the report):
	# each total is the sum of its threads' values.
	for r in outer empty spin; do
		for e in task-clock page-faults; do
			sum=$(jq --arg r "$r" --arg e "$e" '[.regions.threads[].regions[] | select(.name == $r)
				| .events[] | select(.name == $e) | .value] | add' "$REPORTS")
			[ "$(total "$r" ".events[] | select(.name == \"$e\") | .sum")" -eq "$sum" ]
		done
	done
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_COMPENSATE=1 \
		PFSHIM_EVENTS=task-clock,page-faults "$PROGS/markers_compensate" 10
	[ "$(grep -c '   subtracted from each call (PFSHIM_COMPENSATE=1): ~[0-9.]* usec task-clock, ~0 page-faults of pfshim itself$' <<<"$stderr")" -eq 2 ]
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_COMPENSATE=1 PFSHIM_FORMAT=csv \
		PFSHIM_EVENTS=task-clock "$PROGS/markers_compensate" 10
	# Every region row says it: the column before the job's three and the version.
	[ "$(grep -c ",exit,thread,.*,1,,,,$(cat "$ROOT/VERSION")\$" <<<"$stderr")" -eq 6 ]
}

@test "PFSHIM_COMPENSATE: a bad value is one pfshim: line, the program runs on uncompensated" {
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_COMPENSATE=yes PFSHIM_FORMAT=json \
		PFSHIM_EVENTS=page-faults "$PROGS/markers_compensate" 10
	[ "$status" -eq 0 ]
	[ "$output" = "calls=3 spin_minus_empty_instructions=20" ]
	[ "$(grep -c '^pfshim: ' <<<"$stderr")" -eq 1 ]
	[[ "$stderr" == *"pfshim: PFSHIM_COMPENSATE: expected 0 or 1; off"* ]]
	[ "$(grep -v '^pfshim: ' <<<"$stderr" | jq '.regions.compensated')" = false ]
}

@test "pfshim report carries the probe: min, max and mean over threads, and who subtracted it" {
	PFSHIM="$BUILD/pfshim"
	[ -x "$PFSHIM" ] || skip "pfshim (tools/) not built: no libjansson"
	shim PFSHIM_EVENTS=page-faults,task-clock "$PROGS/markers_compensate" 10
	shim PFSHIM_COMPENSATE=1 PFSHIM_EVENTS=page-faults,task-clock "$PROGS/markers_compensate" 10
	run -0 --separate-stderr "$PFSHIM" report --json "$REPORTS"
	[ "$(jq -c '.region_probe | [.reports, .compensated_reports]' <<<"$output")" = '[2,1]' ]
	[ "$(jq -c '.region_probe.events[] | select(.name == "page-faults") | [.threads, .min, .max, .mean]' <<<"$output")" = '[4,0,0,0]' ]
	want=$(jq -s '[.[].regions.threads[].probe[] | select(.name == "task-clock") | .value] | min' "$REPORTS")
	[ "$(jq '.region_probe.events[] | select(.name == "task-clock") | .min' <<<"$output")" -eq "$want" ]
	run -0 --separate-stderr "$PFSHIM" report "$REPORTS"
	[[ "$output" == *"pfshim itself in each call, per thread (min, max, mean over 4 threads' probes): subtracted in 1 of 2 reports only (PFSHIM_COMPENSATE=1)"* ]]
	run -0 --separate-stderr "$PFSHIM" report --csv "$REPORTS"
	grep -q '^probe,,,page-faults,,1,,,4,,,,,0,,0,0$' <<<"$output"
}

# ---- the read path and the fast path on x86 without a PMU, through synthetic pages
# libfakepmu.so (tests/progs/lib/fakepmu.c), preloaded behind the shim, gives
# each perf page the shim maps a counter (index, cap_user_rdpmc, a clock) and
# emulates rdpmc: slot s reads n << 48 | (s + 1) << 36 | 1000 * n, n the
# thread's reads so far. A read of E events moves each by 1000 * E, exactly,
# and the bits above the counter's 48 change at every read.

# need_fakepmu: FAKE, the command prefix running a program so.
need_fakepmu() {
	[ "$(uname -m)" = x86_64 ] || skip "libfakepmu.so emulates x86's rdpmc only"
	skip_under_sanitizer "the emulated rdpmc's SIGSEGV handler sits behind the runtime's own"
	FAKE=(env LD_PRELOAD="$SHIM $PROGS/libfakepmu.so" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS")
}

FAKE_EVENTS=(task-clock task-clock,page-faults task-clock,page-faults,minor-faults
	task-clock,page-faults,minor-faults,major-faults
	task-clock,page-faults,minor-faults,major-faults,cpu-migrations)

@test "synthetic counter pages (x86, no PMU): pfshim_read takes the pages' counters, exactly, 1 to 5 events" {
	need_fakepmu
	for e in 1 2 3 4 5; do
		run -0 timeout 60 "${FAKE[@]}" PFSHIM_EVENTS="${FAKE_EVENTS[e - 1]}" "$PROGS/markers_read" 10
		echo "$e events: $output"
		want="ret=0
nr=$e"
		for ((i = 0; i < e; i++)); do want+="
$i $((1000 * e)) 1"; done
		[ "$output" = "$want" ]
	done
}

@test "synthetic counter pages (x86, no PMU): the markers' fast path counts each pair's counter moves, exactly, 1 to 5 events" {
	need_fakepmu
	for e in 1 2 3 4 5; do
		: >"$REPORTS"
		run -0 timeout 60 "${FAKE[@]}" PFSHIM_EVENTS="${FAKE_EVENTS[e - 1]}" "$PROGS/markers_calls" 1000
		got=$(jq -c '[.regions.threads[].regions[] | [.name, .calls, ([.events[].value] | unique)]]' "$REPORTS")
		echo "$e events: $got"
		[ "$got" = "[[\"pairs\",1000,[$((1000000 * e))]],[\"by-name\",1000,[$((1000000 * e))]]]" ]
	done
	# Two groups: the general path, both read at each call (4 counters: 4000 a call each).
	: >"$REPORTS"
	run -0 timeout 60 "${FAKE[@]}" PFSHIM_EVENTS='{task-clock,page-faults},{minor-faults,major-faults}' \
		"$PROGS/markers_calls" 1000
	got=$(jq -c '[.regions.threads[].regions[] | [.name, .calls, [.events[].value]]]' "$REPORTS")
	echo "two groups: $got"
	[ "$got" = '[["pairs",1000,[4000000,4000000,4000000,4000000]],["by-name",1000,[4000000,4000000,4000000,4000000]]]' ]
}

# path_event THREAD-FILTER PATH EVENT: EVENT's value on the node PATH ("solve/kernel") of
# each matching thread's paths, one line per thread; a node's path is its parents' names.
path_event() {
	jq -r --arg p "$2" --arg e "$3" 'def path($ps; $i): if $ps[$i].parent < 0 then $ps[$i].name
			else path($ps; $ps[$i].parent) + "/" + $ps[$i].name end;
		select(.reason == "exit") | .regions.threads[] | select('"$1"') | .paths as $ps
		| range($ps | length) | select(path($ps; .) == $p)
		| $ps[.].events[] | select(.name == $e) | .value' "$REPORTS"
}

@test "region tree: a region under two parents keeps each path's own counts, exactly, per thread" {
	skip_under_sanitizer "the instrumented program faults shadow pages inside its regions" asan tsan
	run shim PFSHIM_EVENTS=task-clock,page-faults "$PROGS/markers_tree" 2
	[ "$status" -eq 0 ]
	# 3 threads, 3 rounds each: setup 50 > kernel 100 pages; solve 20 (+10 re-entered) > kernel 300.
	[ "$(path_event true setup page-faults | sort -u)" = 450 ]
	[ "$(path_event true setup/kernel page-faults | sort -u)" = 300 ]
	[ "$(path_event true solve page-faults | sort -u)" = 990 ]
	[ "$(path_event true solve/kernel page-faults | sort -u)" = 900 ]
	[ "$(path_event true setup page-faults | wc -l)" -eq 3 ]
	# No node for the re-entered solve: recursion is counted once, outermost.
	[ "$(jq '[.regions.threads[].paths[] | select(.name == "solve")] | length' "$REPORTS")" -eq 3 ]
	[ "$(jq '[.regions.threads[].paths[] | select(.name == "solve") | .reentries] | add' "$REPORTS")" -eq 9 ]
}

@test "region tree: every region's flat entry is the sum of its paths, calls and every event" {
	run shim PFSHIM_EVENTS=task-clock,page-faults "$PROGS/markers_tree" 2
	[ "$status" -eq 0 ]
	# Per thread and region: calls, wall and each event's raw sum over the paths, against the flat entry.
	run jq -r '.regions.threads[] | . as $t | .regions[] | .name as $n
		| [.calls, .wall_ns, (.events[] | .raw)] as $flat
		| [[$t.paths[] | select(.name == $n) | [.calls, .wall_ns, (.events[] | .raw)]]
		   | transpose[] | add] as $sum
		| "\($n) \($flat == $sum)"' "$REPORTS"
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | wc -l)" -eq 9 ]
	[ "$(echo "$output" | grep -c ' true$')" -eq 9 ]
	[ "$(jq '[.regions.threads[].paths[] | select(.name == "kernel") | .calls] | add' "$REPORTS")" -eq 18 ]
	[ "$(total kernel .calls)" -eq 18 ]
	[ "$(jq '[.regions.threads[].misuse.unnested] | add' "$REPORTS")" -eq 0 ]
}

@test "region tree: a thread's table holds 63 paths with 4 events, exactly; the 64th and on are table_full" {
	skip_under_sanitizer "the instrumented program faults shadow pages inside its regions" asan tsan
	ev=task-clock,page-faults,context-switches,cpu-migrations
	# 31 parents, each with its own "leaf": 62 paths, every one kept and exact.
	run shim PFSHIM_EVENTS=$ev "$PROGS/markers_tree" wide 31
	[ "$status" -eq 0 ]
	[ "$(jq '.regions.capacity' "$REPORTS")" -eq 63 ]
	[ "$(jq '.regions.threads[0].misuse.table_full' "$REPORTS")" -eq 0 ]
	[ "$(jq '.regions.threads[0].paths | length' "$REPORTS")" -eq 62 ]
	# every path exact: a page of the table first touched inside a region would be one more
	for i in $(seq 0 30); do
		[ "$(path_event true "p$i/leaf" page-faults)" -eq $((i + 1)) ]
		[ "$(path_event true "p$i" page-faults)" -eq $((10 + i + 1)) ]
	done
	[ "$(jq '[.regions.threads[0].paths[] | select(.name == "leaf") | .events[] | select(.name == "page-faults") | .value] | add' "$REPORTS")" -eq 496 ]
	# 40 parents, 80 paths: the first 63 begun are kept, each later begin of a new path is one table_full.
	: >"$REPORTS"
	run shim PFSHIM_EVENTS=$ev "$PROGS/markers_tree" wide 40
	[ "$status" -eq 0 ]
	[ "$(jq '.regions.threads[0].paths | length' "$REPORTS")" -eq 63 ]
	[ "$(jq '.regions.threads[0].misuse.table_full' "$REPORTS")" -eq 17 ]
	[ "$(path_event true p30/leaf page-faults)" -eq 31 ]
	[ "$(path_event true p31 page-faults)" -eq 42 ]
	[ "$(jq '.regions.threads[0].misuse.end_without_begin' "$REPORTS")" -eq 0 ]
}

@test "region tree: a fork()ed child starts its own tree, the parent's regions not in it" {
	run shim PFSHIM_EVENTS=task-clock,page-faults "$PROGS/markers_tree" 0 fork
	[ "$status" -eq 0 ]
	child=$output
	[ "$(reports)" -eq 2 ]
	for pid in "$child" "$(jq -r "select(.pid != $child) | .pid" "$REPORTS")"; do
		[ "$(jq -r "select(.pid == $pid) | [.regions.threads[].paths[]
			| \"\(.name):\(.parent):\(.calls)\"] | join(\",\")" "$REPORTS")" = \
			"setup:-1:3,kernel:0:3,solve:-1:3,kernel:2:3" ]
	done
}
