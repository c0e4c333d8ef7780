#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# job-totals.bats: `pfshim run` counts the whole job as perf stat does, and
# says what of it no report holds. Each tree runs under `pfshim run` and,
# alternately, under `perf stat` with the shim loaded the same way (the
# runner's environment: reports as JSON into a directory, PFSHIM_ON_FATAL=1):
# the page-faults of the two agree within 1 %, the summary's totals are the
# kernel's count in pfshim-job.jsonl, `pfshim report --json` says the same,
# and the processes whose last program left no report are named.

load helpers

PFSHIM="$BUILD/pfshim"
EVENTS=page-faults,task-clock

setup() {
	need_perf
	cd "$BATS_TEST_TMPDIR"
	skip_under_sanitizer "pfshim run preloads the shim beside it without the sanitizer runtime before it"
	command -v perf >/dev/null && perf stat -e page-faults true 2>/dev/null ||
		skip "perf stat cannot count here (Debian linux-perf, perf_event_paranoid)"
}

# run_job CMD...: pfshim run into a new directory; $dir, $stderr, $status kept.
run_job() {
	dir="$BATS_TEST_TMPDIR/run.$RANDOM$RANDOM"
	run --separate-stderr "$PFSHIM" run -e "$EVENTS" -o "$dir" -- "$@"
}

# job_value EVENT: the kernel's total in the job count.
job_value() {
	jq --arg e "$1" '.events[] | select(.name == $e) | .value' "$dir/pfshim-job.jsonl"
}

# perf_faults CMD...: perf stat's page-faults of CMD's tree with the shim loaded as the runner loads it.
perf_faults() {
	local out="$BATS_TEST_TMPDIR/perf.$RANDOM$RANDOM"

	LD_PRELOAD="$SHIM" PFSHIM_OUTPUT="$out/" PFSHIM_FORMAT=json PFSHIM_ON_FATAL=1 \
		PFSHIM_EVENTS="$EVENTS" perf stat -x, -e page-faults -- "$@" 2>&1 >/dev/null |
		awk -F, '$3 ~ /^page-faults(:u)?$/ { print $1 }'
}

# perf_bare CMD...: perf stat's page-faults and task-clock (msec) of CMD's tree without the shim.
perf_bare() {
	env -u LD_PRELOAD perf stat -x, -e page-faults,task-clock -- "$@" 2>&1 >/dev/null |
		awk -F, '$3 ~ /^page-faults(:u)?$/ { f = $1 } $3 ~ /^task-clock(:u)?$/ { t = $1 } END { print f, t }'
}

# less_share EVENT: the summary's totals less pfshim's own share (pfshim report --json).
less_share() {
	"$PFSHIM" report --json "$dir" 2>/dev/null |
		jq --arg e "$1" '.job.less_pfshim_share[] | select(.name == $e) | .value'
}

# median N...: the middle one of three.
median() {
	printf '%s\n' "$@" | sort -n | sed -n 2p
}

# spread N...: the most less the least.
spread() {
	printf '%s\n' "$@" | sort -n | sed -n '1p;$p' | paste -sd' ' | awk '{ print $2 - $1 }'
}

# close A B SPREAD: A within 2 % of B, or 8 faults, or the runs' own spreads where those are wider.
close() {
	local d=$(($1 > $2 ? $1 - $2 : $2 - $1))

	[ "$2" -gt 0 ]
	[ "$d" -le 8 ] || [ $((d * 1000 / $2)) -le 20 ] || [ "$d" -le "$3" ]
}

# same_as_perf CMD...: three alternated runs each of pfshim run, perf stat with the shim loaded
# as the runner loads it, and perf stat of the bare tree. The medians of the page-faults: the
# job's totals within 2 % of perf stat's with the shim (or 8 faults, or the two sets' spreads
# added, where that is wider); the totals less pfshim's own share within 2 % of perf stat's of
# the bare tree, or 8 faults, or 5 faults per image that loaded the shim and per child forked
# without an exec (the share's bias for one process, measured in docs/pfshim.md) plus the two
# spreads. Each median lies within its own runs' spread, so two medians of one count can differ
# by both: with the wider spread alone, a `make -j2` failed once in 12 tries on a quiet VM and
# once in 4 with the build before (pfshim run's and perf stat's medians 324 faults apart, the
# spreads 264 and 101). Measured: within 1 % on every tree when the machine is quiet (a
# 240-fault `timeout 0.2 yes` varies by 4 either way run to run), but a `make -j2`'s faults
# vary by 3-5 % run to run on either side (perf stat 9,494 to 10,087 in one series), which no
# tool's count can be closer than. A process the count missed is its whole count
# short (a cc1 here: 1,300), past any of these. task-clock less the share is printed beside perf
# stat's bare one as a ratio, not asserted: on this shared 2-core VM one tree's task-clock varies
# by more than 5 % from run to run; at load 4-7, with the reports through the spool into an ext4
# /tmp, the trees' medians went from 0.94 to 1.08 (docs/pfshim.md, "pfshim's own share").
same_as_perf() {
	local ours=() theirs=() less=() bare=() bare_ms=() less_ms=() o t l b s1 s2 bp bt loaded
	for i in 1 2 3; do
		run_job "$@"
		ours+=("$(job_value page-faults)")
		less+=("$(less_share page-faults)")
		less_ms+=("$(less_share task-clock)")
		theirs+=("$(perf_faults "$@")")
		read -r bp bt < <(perf_bare "$@")
		bare+=("$bp")
		bare_ms+=("$bt")
	done
	o=$(median "${ours[@]}") t=$(median "${theirs[@]}")
	l=$(median "${less[@]}") b=$(median "${bare[@]}")
	s1=$(spread "${ours[@]}") s2=$(spread "${theirs[@]}")
	echo "page-faults: pfshim run ${ours[*]} (median $o), perf stat ${theirs[*]} (median $t)"
	echo "page-faults less pfshim's share ${less[*]} (median $l), perf stat bare ${bare[*]} (median $b)"
	echo "task-clock less pfshim's share / perf stat bare: $(median "${less_ms[@]}") ns /" \
		"$(median "${bare_ms[@]}") ms = $(awk -v l="$(median "${less_ms[@]}")" \
		-v b="$(median "${bare_ms[@]}")" 'BEGIN { printf "%.3f", l / 1e6 / b }')"
	close "$o" "$t" "$((s1 + s2))"
	s1=$(spread "${less[@]}") s2=$(spread "${bare[@]}")
	# the share's accuracy per image that loaded the shim: over by up to 5 faults for a program
	# that uses more of libc than /bin/true, and as much for each child forked without an exec
	# (docs/pfshim.md), beside the two sets' spreads
	loaded=$(jq '.shim_images' "$dir/pfshim-job.jsonl")
	forked=$("$PFSHIM" report --json "$dir" | jq '.job.share_images - .job.shim_images')
	close "$l" "$b" "$((5 * (loaded + (forked > 0 ? forked : 0)) + s1 + s2))"
}

# The summary prints the job count's totals, and pfshim report --json and --csv the same.
summary_is_job_count() {
	local faults

	faults=$(group "$(job_value page-faults)")
	grep -E "^ +$faults +page-faults$" <<<"$stderr"
	"$PFSHIM" report --json "$dir" >summary.json
	[ "$(jq '.job.events[] | select(.name == "page-faults") | .value' summary.json)" = \
		"$(job_value page-faults)" ]
	"$PFSHIM" report --csv "$dir" >summary.csv
	[ "$(csv_value job page-faults)" = "$(job_value page-faults)" ]
	# (empty and null where a process outlived the command: not known)
	[ "$(csv_value in-no-row page-faults)" = \
		"$(jq -r '.job.in_no_row[] | select(.name == "page-faults") | .value // ""' summary.json)" ]
}

# csv_value SCOPE EVENT: the value of summary.csv's row of SCOPE (no group) and EVENT.
csv_value() {
	awk -F, -v s="$1" -v e="$2" '$1 == s && $2 == "" && $5 == e { print $6 }' summary.csv
}

# group N: 1234567 -> 1,234,567, as the summary prints counts.
group() {
	sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$1"
}

# unreported: the programs the summary names as in no row, as "NAME xN" words, every kind.
unreported() {
	sed -n 's/^ pfshim: [0-9]* process.* (\(.*\)): .*; their counts are in the totals, not in a row .*/\1/p' \
		<<<"$stderr" | paste -sd' '
}

@test "a shell tree: totals as perf stat's; the kernel's total is the rows plus 'in no row'" {
	same_as_perf sh -c 'true; ls / >/dev/null; /bin/true'
	run_job sh -c 'true; ls / >/dev/null; /bin/true'
	[ "$status" -eq 0 ]
	summary_is_job_count
	# rows + in no row = the job's total, to the fault
	rows=$(jq -s 'map(select(.schema == "pfshim.report") | .events[] |
		select(.name == "page-faults") | .value) | add' "$dir"/*.json)
	rest=$(jq '.job.in_no_row[] | select(.name == "page-faults") | .value' summary.json)
	[ $((rows + rest)) -eq "$(job_value page-faults)" ]
	[ -z "$(unreported)" ]
}

@test "yes | head -1: yes, ended by SIGPIPE, reports under PFSHIM_ON_FATAL (pfshim run's default)" {
	# Not against perf stat: how far yes gets before its SIGPIPE is a race, and its faults
	# with it (medians of 372 and 385 in one run); the trees around it are compared.
	run_job sh -c 'yes | head -1'
	[ "$status" -eq 0 ] && [ "$output" = y ]
	summary_is_job_count
	[ -z "$(unreported)" ]
	[ "$(jq -s 'map(select(.program == "yes" and .reason == "signal" and .signal == 13)) | length' \
		"$dir"/*.json)" -eq 1 ]
	grep -qxF " pfshim: 1 process killed by SIGPIPE (yes): its report written at the signal (PFSHIM_ON_FATAL): in the rows" <<<"$stderr"
	[ "$(jq -c '.job.killed_reported' summary.json)" = \
		'[{"program":"yes","signal":"SIGPIPE","processes":1}]' ]
}

@test "a process killed by SIGKILL: no report, named, its counts in the totals" {
	same_as_perf sh -c 'sleep 5 & sleep 0.3; kill -9 $!; wait'
	run_job sh -c 'sleep 5 & sleep 0.3; kill -9 $!; wait'
	[ "$status" -eq 0 ]
	summary_is_job_count
	[ "$(unreported)" = sleep ]
	grep -qxF " pfshim: 1 process that loaded the shim but left no report (sleep): killed by SIGKILL or ended by a raw exit_group (the kernel does not say which), a vfork() child that did not exec, pfshim off in it (PFSHIM_DISABLE), or its report lost; their counts are in the totals, not in a row (docs/usage.md, Limits)" <<<"$stderr"
	[ "$(jq -c '.job.unreported' summary.json)" = \
		'[{"program":"sleep","processes":1,"kind":"no-report"}]' ]
	# pfshim report on the directory says the same
	"$PFSHIM" report "$dir" >report.txt
	grep -qxF " pfshim: 1 process that loaded the shim but left no report (sleep): killed by SIGKILL or ended by a raw exit_group (the kernel does not say which), a vfork() child that did not exec, pfshim off in it (PFSHIM_DISABLE), or its report lost; their counts are in the totals, not in a row (docs/usage.md, Limits)" report.txt
	# the page says the same: the kernel's totals, the reports' sum, what no row holds, who
	"$PFSHIM" report --html page.html "$dir" >/dev/null
	grep -q '<th>the reports.&#39;\? sum</th><th>in no row</th>\|<th>the reports. sum</th><th>in no row</th>' page.html
	grep -q "1 process that loaded the shim but left no report (sleep)" page.html
}

@test "timeout 1 yes: killed by SIGTERM, reported under PFSHIM_ON_FATAL (pfshim run's default)" {
	# (yes's output to /dev/null: bats would hold a second of it in memory)
	same_as_perf sh -c 'timeout 1 yes >/dev/null'
	run_job sh -c 'timeout 1 yes >/dev/null'
	[ "$status" -eq 124 ]
	summary_is_job_count
	[ -z "$(unreported)" ]
	# yes's report says the signal that ended it
	[ "$(jq -s 'map(select(.program == "yes")) | length' "$dir"/*.json)" -eq 1 ]
	grep -qxF " pfshim: 1 process killed by SIGTERM (yes): its report written at the signal (PFSHIM_ON_FATAL): in the rows" <<<"$stderr"
}

@test "a static program: no report at all, the totals still the kernel's, and it is named" {
	cc -static -O1 -I"$ROOT/include" -o touch_static "$ROOT/tests/progs/touch_pages.c" 2>/dev/null ||
		skip "no static libc here (libc6-dev's libc.a)"
	same_as_perf ./touch_static 2000
	run_job ./touch_static 2000
	[ "$status" -eq 0 ]
	summary_is_job_count
	[ "$(unreported)" = touch_static ]
	grep -qxF " pfshim: 1 process of a static or non-ELF program (touch_static): no preload can load there; their counts are in the totals, not in a row (docs/usage.md, Limits)" <<<"$stderr"
	[ "$(jq -c '.job.unreported' summary.json)" = \
		'[{"program":"touch_static","processes":1,"kind":"static"}]' ]
	# no image loaded the shim: its share is 0, and the totals less it are the totals
	[ "$(jq '.job.shim_images' summary.json)" -eq 0 ]
	[ "$(jq '.job.pfshim_share[] | select(.name == "page-faults") | .value' summary.json)" -eq 0 ]
	# its exec is the kernel's records' alone (the calibration prices no page fault for it)
	[ "$(jq '.job.execs' summary.json)" -eq 1 ]
	# 2000 pages touched: all in the total, none in a row
	[ "$(job_value page-faults)" -ge 2000 ]
	grep -q "0 processes, 0 images, 0 reports" <<<"$stderr"
}

@test "a process that did not load the shim (LD_PRELOAD removed): named as such, in the totals" {
	same_as_perf sh -c 'env -u LD_PRELOAD /bin/true; /bin/true'
	run_job sh -c 'env -u LD_PRELOAD /bin/true; /bin/true'
	[ "$status" -eq 0 ]
	summary_is_job_count
	# env loaded the shim and reported at its exec; the true it became did not load it
	grep -qxF " pfshim: 1 process that did not load the shim (true): LD_PRELOAD removed from its environment, or a setuid program the kernel still counts (its user's own); their counts are in the totals, not in a row (docs/usage.md, Limits)" <<<"$stderr"
	[ "$(jq -c '.job.unreported' summary.json)" = \
		'[{"program":"true","processes":1,"kind":"no-shim"}]' ]
	# sh, env and the second true loaded it; each image's share is in the report
	[ "$(jq '.job.shim_images' summary.json)" -eq 3 ]
	# four execs (sh, env, the true it became, the second true), the one without the shim too
	[ "$(jq '.job.execs' summary.json)" -eq 4 ]
	[ "$(jq -s 'map(select(.schema == "pfshim.report" and .pfshim_share.page_faults > 0)) |
		length' "$dir"/*.json)" -ge 3 ]
}

# An exec that gives the process another user's rights leaves it not dumpable, and the kernel
# removes its inherited events there (perf_event_exit_task()), for perf stat's as for ours:
# its exit record comes before the new program's first mapping. Named as uncounted, never as
# a static program, the totals as perf stat's, both without its 800 pages. As root: a copy of
# touch_pages set-user-ID to nobody.
@test "a setuid program of another user: named as uncounted, its pages missing from both totals" {
	[ "$(id -u)" -eq 0 ] || skip "making a program set-user-ID to another user needs root"
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	suid="$BATS_TEST_TMPDIR/suid"
	cp "$PROGS/touch_pages" "$suid"
	chown nobody "$suid"
	chmod 4755 "$suid"
	findmnt -no OPTIONS -T "$suid" | grep -qw nosuid && skip "$BATS_TEST_TMPDIR is mounted nosuid"
	same_as_perf sh -c "$suid 800; $PROGS/touch_pages 900"
	run_job sh -c "$suid 800; $PROGS/touch_pages 900"
	[ "$status" -eq 0 ]
	summary_is_job_count
	grep -qF " pfshim: 1 process that exec'd a setuid, setgid or file-capability program, or one it may not read (suid): the kernel stops counting a process at an exec that leaves it not dumpable (another user's rights, or a program it may not read), for perf stat too; their counts up to that exec are in the totals; after it, theirs and their children's are in none (docs/usage.md, Limits)" <<<"$stderr"
	[ "$(jq -c '.job.unreported' summary.json)" = \
		'[{"program":"suid","processes":1,"kind":"uncounted"}]' ]
	total=$(job_value page-faults)
	[ "$total" -ge 900 ]
	[ "$total" -lt $((900 + 800)) ]
}

# A process killed by SIGKILL after interval reports has a row, its last interval report: the
# summary says that row ends there, in text and HTML; a job whose processes all ended says none.
@test "a process killed by SIGKILL after interval reports: its row said to end at its last report" {
	export PFSHIM_INTERVAL=50ms
	line=" pfshim: 1 image whose last report read is not its end (an interval or explicit report: still running, or killed after it): counted up to that report"
	run_job sh -c 'sleep 3 & p=$!; sleep 0.5; kill -9 $p; wait'
	[ "$status" -eq 0 ]
	grep -qxF "$line" <<<"$stderr"
	run -0 "$PFSHIM" report --html "$BATS_TEST_TMPDIR/job.html" "$dir"
	grep -qF "<li>1 process image whose last report read is not its end" "$BATS_TEST_TMPDIR/job.html"
	run_job sh -c 'sleep 0.2'
	[ "$status" -eq 0 ]
	! grep -q "whose last report read is not" <<<"$stderr"
}

@test "forked children that never exec: each reports, all in the totals" {
	same_as_perf "$PROGS/fork_children" 20 200 100
	run_job "$PROGS/fork_children" 20 200 100
	[ "$status" -eq 0 ]
	summary_is_job_count
	[ -z "$(unreported)" ]
	[ "$(jq -r .processes summary.json)" -eq 21 ]
	[ "$(jq .job.processes summary.json)" -eq 21 ]
	[ "$(job_value page-faults)" -ge $((20 * 200 + 100)) ]
}

@test "a real autoconf configure: totals as perf stat's, every process named by the kernel" {
	command -v autoconf >/dev/null || skip "no autoconf (Debian autoconf)"
	mkdir conf && cd conf
	cat >configure.ac <<-'EOF'
		AC_INIT([demo], [1.0])
		AC_PROG_CC
		AC_CHECK_HEADERS([stdlib.h string.h unistd.h sys/mman.h])
		AC_CHECK_FUNCS([mmap strdup])
		AC_CONFIG_FILES([Makefile])
		AC_OUTPUT
	EOF
	echo 'all:' >Makefile.in
	autoconf
	same_as_perf ./configure -q
	run_job ./configure -q
	[ "$status" -eq 0 ]
	summary_is_job_count
	[ "$(jq .job.processes summary.json)" -ge 50 ]
	[ "$(jq .job.lost_records summary.json)" -eq 0 ]
}

@test "make -j2 of a C project: totals as perf stat's" {
	mkdir proj
	for f in a b c; do echo "int f_$f(void) { return 1; }" >"proj/$f.c"; done
	echo 'int main(void) { return 0; }' >proj/main.c
	printf 'prog: a.o b.o c.o main.o\n\t$(CC) -o $@ $^\n%%.o: %%.c\n\t$(CC) -O2 -c -o $@ $<\n' \
		>proj/Makefile
	same_as_perf sh -c 'rm -f proj/*.o proj/prog; make -s -C proj -j2'
	rm -f proj/*.o proj/prog
	run_job make -s -C proj -j2
	[ "$status" -eq 0 ]
	summary_is_job_count
	[ -z "$(unreported)" ]
}

@test "a Python Pool with spawn and terminate(): the killed workers are in the totals" {
	cat >pool.py <<-'EOF'
		import multiprocessing as mp, time
		def work(n):
		    b = bytearray(n * 4096)
		    for i in range(0, len(b), 4096): b[i] = 1
		    time.sleep(30)
		if __name__ == "__main__":
		    mp.set_start_method("spawn")
		    p = mp.Pool(2)
		    p.map_async(work, [500, 500])
		    time.sleep(2)
		    p.terminate()
		    p.join()
		    print("done")
	EOF
	same_as_perf python3 pool.py
	run_job python3 pool.py
	[ "$status" -eq 0 ] && [ "$output" = done ]
	summary_is_job_count
	[ "$(job_value page-faults)" -ge 1000 ]
}

@test "^C to the job's process group: the job ends as without pfshim, the totals are whole" {
	# setsid: a process group of its own, as a terminal's foreground job has
	# A terminal's foreground job takes ^C: bash starts background jobs with it ignored, so
	# env puts the default back; a pipeline's members take it (sh -c's & would ignore it).
	setsid env --default-signal=INT "$PFSHIM" run -e "$EVENTS" -o "$BATS_TEST_TMPDIR/int" -- \
		sh -c 'yes | sleep 30' 2>int.err &
	runner=$!
	for i in $(seq 100); do pgrep -s $runner -x sleep >/dev/null && break; sleep 0.05; done
	kill -INT -- -$runner
	wait $runner || status=$?
	dir="$BATS_TEST_TMPDIR/int"
	cat int.err
	[ "${status:-0}" -eq $((128 + 2)) ]
	[ "$(jq .end.signal "$dir/pfshim-job.jsonl")" -eq 2 ]
	[ "$(jq '.processes | length' "$dir/pfshim-job.jsonl")" -ge 3 ]	# sh, yes, sleep
	[ "$(job_value page-faults)" -gt 0 ]
	# Against perf stat of the bare tree: sh -c 'sleep 30 | sleep 30' (how far yes gets before
	# ^C is a race), ^C after the set-up, the totals less pfshim's share as perf stat's.
	less=() bare=()
	for i in 1 2 3; do
		dir="$BATS_TEST_TMPDIR/int$i"
		setsid env --default-signal=INT "$PFSHIM" run -e "$EVENTS" -o "$dir" -- \
			sh -c 'sleep 30 | sleep 30' 2>/dev/null &
		runner=$!
		for k in $(seq 100); do [ "$(pgrep -s $runner -x sleep | wc -l)" -eq 2 ] && break; sleep 0.05; done
		sleep 0.1	# past the shim's set-up
		kill -INT -- -$runner
		wait $runner || true
		less+=("$(less_share page-faults)")
		setsid env --default-signal=INT env -u LD_PRELOAD perf stat -x, -e page-faults \
			-o "perf$i" -- sh -c 'sleep 30 | sleep 30' &
		perf=$!
		for k in $(seq 100); do [ "$(pgrep -s $perf -x sleep | wc -l)" -eq 2 ] && break; sleep 0.05; done
		sleep 0.1
		kill -INT -- -$perf
		wait $perf || true
		bare+=("$(awk -F, '$3 ~ /^page-faults(:u)?$/ { print $1 }' "perf$i")")
	done
	echo "page-faults less pfshim's share ${less[*]}, perf stat bare ${bare[*]}"
	# 5 faults for each of the 3 images that loaded the shim (docs/pfshim.md), and the spread
	close "$(median "${less[@]}")" "$(median "${bare[@]}")" \
		$((15 + $(spread "${less[@]}") + $(spread "${bare[@]}")))
}

@test "SIGTERM to pfshim run: passed to the command; the summary is still printed" {
	"$PFSHIM" run -e "$EVENTS" -o "$BATS_TEST_TMPDIR/term" -- sleep 30 2>term.err &
	runner=$!
	for i in $(seq 100); do pgrep -P $runner sleep >/dev/null && break; sleep 0.05; done
	kill -TERM $runner
	wait $runner || status=$?
	dir="$BATS_TEST_TMPDIR/term"
	cat term.err
	[ "${status:-0}" -eq $((128 + 15)) ]
	[ "$(jq .end.signal "$dir/pfshim-job.jsonl")" -eq 15 ]
	grep -q 'Performance counter stats' term.err
	# sleep's own report, written under PFSHIM_ON_FATAL before it died of SIGTERM
	[ "$(jq -s 'map(select(.program == "sleep")) | length' "$dir"/*.json)" -eq 1 ]
	# the totals less pfshim's share as perf stat's of a bare sleep ended the same way
	less=() bare=()
	for i in 1 2 3; do
		dir="$BATS_TEST_TMPDIR/term$i"
		"$PFSHIM" run -e "$EVENTS" -o "$dir" -- sleep 30 2>/dev/null &
		runner=$!
		for k in $(seq 100); do pgrep -P $runner sleep >/dev/null && break; sleep 0.05; done
		sleep 0.1	# past the shim's set-up
		kill -TERM $runner
		wait $runner || true
		less+=("$(less_share page-faults)")
		env -u LD_PRELOAD perf stat -x, -e page-faults -o "perf$i" -- sleep 30 &
		perf=$!
		for k in $(seq 100); do pgrep -P $perf -x sleep >/dev/null && break; sleep 0.05; done
		sleep 0.1
		pkill -TERM -P $perf -x sleep
		wait $perf || true
		bare+=("$(awk -F, '$3 ~ /^page-faults(:u)?$/ { print $1 }' "perf$i")")
	done
	echo "page-faults less pfshim's share ${less[*]}, perf stat bare ${bare[*]}"
	close "$(median "${less[@]}")" "$(median "${bare[@]}")" 5
}
