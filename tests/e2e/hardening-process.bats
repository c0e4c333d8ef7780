#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
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
	# Not ignored: the shim's handler takes the report and the program lives on,
	# while sigaction() shows it its own action, the default, as without the shim.
	run --separate-stderr shim PFSHIM_SIGNAL=USR1 "$PROGS/sig_disposition" 10
	[ "$output" = "$(printf 'default\nalive')" ]
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

@test "a soft RLIMIT_NOFILE of 16 under a higher hard one: counted, at no cost to the program" {
	[ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -gt 200 ] || skip "hard limit too low"
	run bash -c 'ulimit -Sn 16; exec "$0" files' "$PROGS/fd_budget"
	want=$output
	run --separate-stderr bash -c 'ulimit -Sn 16; exec env LD_PRELOAD="$1" PFSHIM_OUTPUT=/dev/null \
		PFSHIM_EVENTS=task-clock,page-faults "$0" files' "$PROGS/fd_budget" "$SHIM"
	echo "without: $want; with: $output"
	[ "$output" = "$want" ]
	# Counted, the shim's descriptors above the soft limit, which is as it was.
	run --separate-stderr bash -c 'ulimit -Sn 16; exec env LD_PRELOAD="$1" PFSHIM_FORMAT=json \
		PFSHIM_OUTPUT="$2" PFSHIM_EVENTS=task-clock,page-faults \
		bash -c "ulimit -Sn; exec \"\$0\" fds" "$0"' "$PROGS/fd_budget" "$SHIM" "$REPORTS"
	echo "$output; $stderr"
	[ -z "$stderr" ]
	[ "${lines[0]}" = 16 ]
	without=$(bash -c 'ulimit -Sn 16; exec "$0" fds' "$PROGS/fd_budget")
	added=$(comm -13 <(tr ' ' '\n' <<<"$without" | sort) <(tr ' ' '\n' <<<"${lines[1]}" | sort) |
		sort -n | tr '\n' ' ')
	echo "without: $without; added: $added"
	[ "$added" = "16 17 " ]
	[ "$(reports '.program == "fd_budget" and
		([.events[] | select(.status == "counted")] | length) == 2')" -eq 1 ]
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
	# the regions' sums over threads hold the threads with counters, and say so: not
	# "scaled" (nothing was multiplexed), "counted in N of 300 threads" in the text
	[ "$(jq '[.regions.totals[].events[].scaled] | any' "$REPORTS")" = false ]
	n=$(jq '.regions.totals[0].events[0].threads' "$REPORTS")
	[ "$n" -lt 300 ]
	run --separate-stderr bash -c 'ulimit -n 1024; exec env LD_PRELOAD="$1" \
		PFSHIM_EVENTS=task-clock,page-faults "$0" threads 300' "$PROGS/fd_budget" "$SHIM"
	grep -E "task-clock  \(counted in [0-9]+ of 300 threads\)$" <<<"$stderr"
	! grep -q "(scaled)" <<<"$stderr"
}

# threads256 ULIMIT-ARGS: fd_budget's 256 threads x 8 software events under the shim; sets
# counted (threads with counters) and totals (the process's counted events).
threads256() {
	local events=task-clock,page-faults,minor-faults,major-faults,context-switches,cpu-migrations,alignment-faults,emulation-faults
	: >"$REPORTS"
	run --separate-stderr bash -c 'ulimit '"$1"'; exec env LD_PRELOAD="$1" PFSHIM_FORMAT=json \
		PFSHIM_OUTPUT="$2" PFSHIM_EVENTS="$3" "$0" threads 256' \
		"$PROGS/fd_budget" "$SHIM" "$REPORTS" "$events"
	echo "$output; $stderr"
	[ "$status" -eq 0 ]
	[ "$output" = failed=0 ]
	totals=$(jq '[.events[] | select(.status == "counted")] | length' "$REPORTS")
	counted=$(jq '[.regions.threads[] | select(.open_error == null)] | length' "$REPORTS")
	echo "ulimit $1: counted $counted, totals $totals"
	# Each counted thread's events counted (its task-clock is more than 0).
	[ "$(jq '[.regions.threads[] | select(.open_error == null) | .regions[]
		| select(.name == "work") | .events[] | select(.name == "task-clock" and .value > 0)]
		| length' "$REPORTS")" -eq "$counted" ]
}

@test "256 threads x 8 marker events under a limit of 1024: one descriptor a thread, all the band holds" {
	# The band is a quarter of 1024; each thread keeps its group's leader only (a
	# descriptor per event before: 30 threads). A report's file takes a number
	# for the moment of its write, as without markers: none is kept for it.
	# Soft and hard limit 1024: the totals' 8 are in the band too.
	threads256 "-n 1024"
	[ "$totals" -eq 8 ] || skip "only $totals of the 8 software events count here"
	[ "$counted" -eq $((256 - 8)) ]
	# Soft limit 1024 under a higher hard one (systemd's 1024:524288): the totals
	# live above the soft limit, the whole band is the threads'.
	[ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -gt 1100 ] ||
		skip "hard RLIMIT_NOFILE $(ulimit -Hn): no room above a soft limit of 1024"
	threads256 "-Sn 1024"
	[ "$counted" -eq 256 ]
	# The same to stderr, the default: the report stream's duplicate lives above
	# the soft limit too, and the report (JSON, to read it) is written whole.
	run --separate-stderr bash -c 'ulimit -Sn 1024; exec env LD_PRELOAD="$1" PFSHIM_FORMAT=json \
		PFSHIM_EVENTS="$2" "$0" threads 256' "$PROGS/fd_budget" "$SHIM" \
		task-clock,page-faults,minor-faults,major-faults,context-switches,cpu-migrations,alignment-faults,emulation-faults
	[ "$status" -eq 0 ]
	[ "$output" = failed=0 ]
	[ "$(jq -s '.[0] | [.regions.threads[] | select(.open_error == null)] | length' <<<"$stderr")" -eq 256 ]
}

# ---- class 8: PFSHIM_ON_FATAL=1

# ended_by ARGS...: how `fatal ARGS` ends, under waitcore, cores allowed, in the
# test's directory; under the shim (PFSHIM_ON_FATAL=1) when WITH_SHIM is set.
ended_by() {
	ended_by_prog fatal "$@"
}

# ended_by_prog PROG ARGS...: the same for another program of tests/progs.
ended_by_prog() {
	local prog=$1
	shift
	cd "$BATS_TEST_TMPDIR" && ulimit -c unlimited || return
	if [ -n "${WITH_SHIM:-}" ]; then
		fresh_shim PFSHIM_ON_FATAL=1 PFSHIM_EVENTS=task-clock "$PROGS/waitcore" "$PROGS/$prog" "$@"
	else
		fresh "$PROGS/waitcore" "$PROGS/$prog" "$@"
	fi
}

# fresh COMMAND...: COMMAND with every signal at its default action, whatever
# the test's own environment ignores (started under nohup, SIGHUP is ignored,
# and a program inherits that: a SIGHUP would then not end it either way).
fresh() {
	env --default-signal "$@"
}

# fresh_shim [VAR=VALUE...] COMMAND...: the same under the shim, as shim() runs it.
fresh_shim() {
	env --default-signal LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" "$@"
}

@test "PFSHIM_ON_FATAL=1: segfault, FPE, abort and SIGTERM die as without the shim, with a report" {
	skip_under_sanitizer "its runtime turns core dumps off (disable_coredump) and takes SIGSEGV for itself" asan tsan
	for how in segv fpe abort term; do
		: >"$REPORTS"
		want=$(ended_by "$how")
		got=$(WITH_SHIM=1 ended_by "$how")
		echo "$how: without '$want', with '$got'"
		[ "$got" = "$want" ]
		signo=$(sed -n 's/^signal=\([0-9]*\).*/\1/p' <<<"$want")
		[ -n "$signo" ]
		[ "$(reports ".program == \"fatal\" and .reason == \"signal\" and .signal == $signo")" -eq 1 ]
		[ "$(reports '.program == "fatal"')" -eq 1 ]
	done
	# Where the kernel writes cores to the working directory, it did so with the shim too.
	if [ "$(cat /proc/sys/kernel/core_pattern)" = core ]; then
		[ "$(WITH_SHIM=1 ended_by segv)" = "signal=11 core=1" ]
		[ "$(WITH_SHIM=1 ended_by abort)" = "signal=6 core=1" ]
	fi
	rm -f "$BATS_TEST_TMPDIR"/core*
}

@test "PFSHIM_ON_FATAL=1: abort() with a SIGABRT handler that returns, or SIGABRT ignored, dies reported" {
	skip_under_sanitizer "its runtime turns core dumps off (disable_coredump)" asan tsan
	for how in abort-handled abort-ignored; do
		: >"$REPORTS"
		want=$(ended_by "$how")
		got=$(WITH_SHIM=1 ended_by "$how")
		echo "$how: without '$want', with '$got'"
		[ "$got" = "$want" ]
		[[ "$want" == *"signal=6 "* ]]
		[ "$(reports '.program == "fatal" and .reason == "signal" and .signal == 6')" -eq 1 ]
		[ "$(reports '.program == "fatal"')" -eq 1 ]
	done
	[[ "$(ended_by abort-handled)" == "own handler"* ]]
	rm -f "$BATS_TEST_TMPDIR"/core*
}

@test "PFSHIM_ON_FATAL=1: each signal that kills by default, sent by kill, ends as without the shim" {
	skip_under_sanitizer "its runtime turns core dumps off (disable_coredump) and takes SIGSEGV for itself" asan tsan
	for sig in SEGV BUS FPE ILL ABRT TERM INT HUP QUIT PIPE ALRM USR1 USR2 XCPU XFSZ VTALRM PROF \
		SYS TRAP STKFLT PWR IO RTMIN RTMIN+5 RTMAX; do
		: >"$REPORTS"
		n=$(kill -l "$sig")
		want=$(ended_by kill "$n")
		got=$(WITH_SHIM=1 ended_by kill "$n")
		echo "$sig: without '$want', with '$got'"
		[ "$got" = "$want" ]
		[ "${want%% *}" = "signal=$n" ]
		[ "$(reports ".program == \"fatal\" and .reason == \"signal\" and .signal == $n")" -eq 1 ]
	done
	# and none whose default ignores or stops is taken: CHLD CONT TSTP TTIN TTOU URG WINCH
	cgt=$(env PFSHIM_ON_FATAL=1 LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=/dev/null cat /proc/self/status |
		sed -n 's/^SigCgt:[[:space:]]*//p')
	echo "SigCgt $cgt"
	[ $(( 0x$cgt & ((1 << 16) | (1 << 17) | (1 << 19) | (1 << 20) | (1 << 21) | (1 << 22) | (1 << 27)) )) -eq 0 ]
	[ $(( 0x$cgt & (1 << 12) )) -ne 0 ]	# PIPE is
	rm -f "$BATS_TEST_TMPDIR"/core*
}

@test "PFSHIM_ON_FATAL=1: the shell sees 139, 134 and 143 as without the shim" {
	for how in segv abort term; do
		run "$PROGS/fatal" "$how"
		want=$status
		run env PFSHIM_ON_FATAL=1 LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=/dev/null "$PROGS/fatal" "$how"
		echo "$how: without $want, with $status"
		[ "$status" -eq "$want" ]
	done
	[ "$want" -eq 143 ]
}

@test "PFSHIM_ON_FATAL=1 with cores off: no core either way" {
	want=$(cd "$BATS_TEST_TMPDIR" && ulimit -c 0 && "$PROGS/waitcore" "$PROGS/fatal" segv)
	got=$(cd "$BATS_TEST_TMPDIR" && ulimit -c 0 && shim PFSHIM_ON_FATAL=1 "$PROGS/waitcore" \
		"$PROGS/fatal" segv)
	[ "$want" = "signal=11 core=0" ]
	[ "$got" = "$want" ]
}

@test "PFSHIM_ON_FATAL=1: a handler the program installs after the shim runs, and the program lives on" {
	for style in sigaction signal bsd_signal sigset; do
		: >"$REPORTS"
		run "$PROGS/late_handler" "$style" return 15 2
		want="$status $output"
		[ "$want" = "0 $(printf 'handler\nsurvived 1\nhandler\nsurvived 2')" ]
		run shim PFSHIM_ON_FATAL=1 "$PROGS/late_handler" "$style" return 15 2
		echo "$style: $status $output"
		[ "$status $output" = "$want" ]
		[ "$(reports '.reason == "exit"')" -eq 1 ]
		[ "$(reports)" -eq 1 ]
	done
	# fatal's own-term: signal() in main, a handler that exits 3.
	run "$PROGS/fatal" own-term
	want="$status $output"
	[ "$want" = "3 own handler" ]
	run shim PFSHIM_ON_FATAL=1 "$PROGS/fatal" own-term
	[ "$status $output" = "$want" ]
	[ "$(reports '.reason == "signal"')" -eq 0 ]
}

@test "PFSHIM_ON_FATAL=1: a System V handler set after the shim runs once, then the report and the default" {
	run "$PROGS/late_handler" sysv_signal return 15 2
	want="$status $output"
	[ "$want" = "143 $(printf 'handler\nsurvived 1')" ]
	run shim PFSHIM_ON_FATAL=1 "$PROGS/late_handler" sysv_signal return 15 2
	[ "$status $output" = "$want" ]
	[ "$(reports '.reason == "signal" and .signal == 15')" -eq 1 ]
	[ "$(reports)" -eq 1 ]
}

@test "PFSHIM_ON_FATAL=1: a handler set after the shim that restores the default and re-raises dies as without it, reported" {
	skip_under_sanitizer "its runtime turns core dumps off (disable_coredump)" asan tsan
	for style in sigaction signal sysv_signal sigset; do
		for sig in TERM ABRT SEGV; do
			: >"$REPORTS"
			n=$(kill -l "$sig")
			want=$(ended_by_prog late_handler "$style" reraise "$n")
			got=$(WITH_SHIM=1 ended_by_prog late_handler "$style" reraise "$n")
			echo "$style $sig: without '$want', with '$got'"
			[ "$got" = "$want" ]
			[ "$(head -1 <<<"$want")" = handler ]
			[ "$(tail -1 <<<"$want" | cut -d' ' -f1)" = "signal=$n" ]
			[ "$(reports ".program == \"late_handler\" and .reason == \"signal\" and .signal == $n")" -eq 1 ]
			[ "$(reports '.program == "late_handler"')" -eq 1 ]
		done
		# A SIGSEGV handler that restores the default and returns: the fault again, and death.
		: >"$REPORTS"
		want=$(ended_by_prog late_handler "$style" fault)
		got=$(WITH_SHIM=1 ended_by_prog late_handler "$style" fault)
		echo "$style fault: without '$want', with '$got'"
		[ "$got" = "$want" ]
		[ "$(reports '.program == "late_handler" and .reason == "signal" and .signal == 11')" -eq 1 ]
	done
	if [ "$(cat /proc/sys/kernel/core_pattern)" = core ]; then
		[ "$(WITH_SHIM=1 ended_by_prog late_handler signal fault | tail -1)" = "signal=11 core=1" ]
	fi
	rm -f "$BATS_TEST_TMPDIR"/core*
}

@test "PFSHIM_ON_FATAL=1: the old action a program is given back is the one it set, as the kernel keeps it" {
	# Measured with libtsan.so preloaded alone: "after h1: h1 flags=0x50000000 mask=9,10,".
	skip_under_sanitizer "the runtime's sigaction() answers from its own table (SIGKILL kept, no SA_RESTORER), with or without the shim" tsan
	for sig in 15 11 1; do
		run fresh "$PROGS/late_handler" old "$sig"
		want=$output
		run fresh_shim PFSHIM_ON_FATAL=1 "$PROGS/late_handler" old "$sig"
		echo "$output"
		[ "$output" = "$want" ]
	done
	# siginterrupt(), and glibc's memory of it for later signal() calls.
	run fresh "$PROGS/late_handler" interrupt 15
	want=$output
	run fresh_shim PFSHIM_ON_FATAL=1 "$PROGS/late_handler" interrupt 15
	echo "$output"
	[ "$output" = "$want" ]
	[ "$(sed -n 3p <<<"$want")" = "then signal: h2 flags=0x4000000 mask=15," ]
	[ "$(sed -n 5p <<<"$want")" = "then signal: h2 flags=0x14000000 mask=15," ]
	run fresh "$PROGS/late_handler" old 1
	want=$output
	# What it shows: the kernel's copy (SIGKILL dropped from the mask, glibc's
	# SA_RESTORER added), SA_RESETHAND and SA_SIGINFO as set, signal()'s own.
	[ "$(sed -n 1p <<<"$want")" = "before: default flags=0 mask=" ]
	[ "$(sed -n 2p <<<"$want")" = "after h1: h1 flags=0x54000000 mask=10," ]
	[ "$(sed -n 3p <<<"$want" | cut -d' ' -f1-3)" = "now: h2 flags=0x8c000004" ]
	[ "$(sed -n 4p <<<"$want")" = "signal gave back h2" ]
	[ "$(sed -n 5p <<<"$want")" = "after signal: ignored flags=0x14000000 mask=1," ]
	[ "$(sed -n 6p <<<"$want")" = "after same struct: ignored flags=0x14000000 mask=1," ]
}

@test "PFSHIM_ON_FATAL=1: SIG_IGN set after the shim is the kernel's: an exec'd child inherits it" {
	for sig in HUP TERM; do
		n=$(kill -l "$sig")
		run "$PROGS/late_handler" ignore-exec "$n" grep SigIgn /proc/self/status
		want=$output
		# What this test's environment already ignores, and the bit of that signal.
		base=$(grep SigIgn /proc/self/status | cut -f2)
		[ "$want" = "$(printf 'SigIgn:\t%016x' $((0x$base | (1 << (n - 1)))))" ]
		run shim PFSHIM_ON_FATAL=1 "$PROGS/late_handler" ignore-exec "$n" grep SigIgn /proc/self/status
		[ "$output" = "$want" ]
		[ "$(reports '.reason == "exec" and .program == "late_handler"')" -eq 1 ]
		: >"$REPORTS"
	done
}

@test "PFSHIM_ON_FATAL=1: a stack overflow caught on the program's alternate stack is caught with the shim too" {
	# 8 KiB holds the handler and the exit report it writes, but not under a
	# sanitizer, whose frames are larger (an instrumented run died of SIGSEGV there)
	sizes="65536 16384 8192"
	[ -z "${PFSHIM_SANITIZER:-}" ] || sizes="65536 16384"
	for size in $sizes; do
		: >"$REPORTS"
		run "$PROGS/late_handler" overflow "$size"
		want="$status $output"
		[ "$want" = "5 caught overflow" ]
		run shim PFSHIM_ON_FATAL=1 "$PROGS/late_handler" overflow "$size"
		echo "$size: $status $output"
		[ "$status $output" = "$want" ]
		# Its _exit() from the handler reports.
		[ "$(reports '.reason == "exit"')" -eq 1 ]
	done
}

# early HOW ARGS...: `fatal ARGS` with a library whose constructor installed a
# SIGTERM handler before the shim's; without the shim when NOSHIM is set.
early() {
	local how=$1
	shift
	if [ -n "${NOSHIM:-}" ]; then
		env EARLY_HANDLER="$how" LD_PRELOAD="$PROGS/libearly_handler.so" "$PROGS/fatal" "$@"
	else
		env EARLY_HANDLER="$how" PFSHIM_ON_FATAL=1 PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" \
			LD_PRELOAD="$SHIM $PROGS/libearly_handler.so" "$PROGS/fatal" "$@"
	fi
}

@test "PFSHIM_ON_FATAL=1: a handler installed before the shim still runs, and the program lives on" {
	NOSHIM=1 run early return term 2
	want="$status $output"
	[ "$want" = "0 $(printf 'early handler\nsurvived 1\nearly handler\nsurvived 2')" ]
	run early return term 2
	[ "$status $output" = "$want" ]
	[ "$(reports '.reason == "signal"')" -eq 0 ]
	[ "$(reports '.reason == "exit"')" -eq 1 ]
}

@test "PFSHIM_ON_FATAL=1: a handler before the shim that restores the default and re-raises" {
	NOSHIM=1 run early reraise term
	want="$status $output"
	[ "$want" = "143 early handler" ]
	run early reraise term
	[ "$status $output" = "$want" ]
	[ "$(reports '.reason == "signal" and .signal == 15')" -eq 1 ]
	[ "$(reports)" -eq 1 ]
}

@test "PFSHIM_ON_FATAL=1: an SA_RESETHAND handler before the shim runs once, then the default" {
	NOSHIM=1 run early resethand term 2
	want="$status $output"
	[ "$want" = "143 $(printf 'early handler\nsurvived 1')" ]
	run early resethand term 2
	[ "$status $output" = "$want" ]
	[ "$(reports '.reason == "signal" and .signal == 15')" -eq 1 ]
}

@test "PFSHIM_ON_FATAL=1 leaves an ignored signal ignored" {
	run bash -c 'trap "" TERM; exec "$0" term' "$PROGS/fatal"
	want="$status $output"
	[ "$want" = "0 survived 1" ]
	run bash -c 'trap "" TERM; exec env PFSHIM_ON_FATAL=1 LD_PRELOAD="$1" PFSHIM_FORMAT=json \
		PFSHIM_OUTPUT="$2" "$0" term' "$PROGS/fatal" "$SHIM" "$REPORTS"
	[ "$status $output" = "$want" ]
	[ "$(reports '.reason == "exit"')" -eq 1 ]
}

@test "without PFSHIM_ON_FATAL no handler is installed: death by signal writes no report" {
	run env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" "$PROGS/fatal" term
	[ "$status" -eq 143 ]
	[ "$(reports)" -eq 0 ]
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_ON_FATAL=yes PFSHIM_OUTPUT=/dev/null \
		"$PROGS/fatal" term
	[ "$status" -eq 143 ]
	[ "$stderr" = "pfshim: PFSHIM_ON_FATAL: expected 0 or 1; off" ]
	# sigaction() and signal() go to libc unchanged: the program's handler, its old actions
	# (not under TSan, whose own sigaction() answers from its table: see above).
	if [ "${PFSHIM_SANITIZER:-}" != tsan ]; then
		run "$PROGS/late_handler" old 15
		want=$output
		run shim "$PROGS/late_handler" old 15
		[ "$output" = "$want" ]
	fi
	: >"$REPORTS"
	run shim "$PROGS/late_handler" sysv_signal return 15 2
	[ "$status $output" = "143 $(printf 'handler\nsurvived 1')" ]
	[ "$(reports)" -eq 0 ]
}

# ---- class 7: every process reports once per image, with what identifies it

@test "quick_exit() reports, once, and keeps its status" {
	run "$PROGS/proc_ways" quick_exit
	want=$status
	[ "$want" -eq 4 ]
	run shim PFSHIM_EVENTS=task-clock "$PROGS/proc_ways" quick_exit
	[ "$status" -eq "$want" ]
	[ "$(reports '.reason == "exit"')" -eq 1 ]
	[ "$(reports)" -eq 1 ]
}

# wait_reports N: wait (bounded) until N reports are in, for processes nobody waits for.
wait_reports() {
	for _ in $(seq 100); do
		[ "$(reports)" -ge "$1" ] && return 0
		sleep 0.05
	done
	return 0
}

@test "daemon(): the parent half and the child each report once" {
	run "$PROGS/proc_ways" daemon "$BATS_TEST_TMPDIR/nopid"
	[ "$status" -eq 0 ]
	run shim PFSHIM_EVENTS=task-clock "$PROGS/proc_ways" daemon "$BATS_TEST_TMPDIR/pid"
	[ "$status" -eq 0 ]
	for _ in $(seq 100); do [ -s "$BATS_TEST_TMPDIR/pid" ] && break; sleep 0.05; done
	wait_reports 2
	child=$(cat "$BATS_TEST_TMPDIR/pid")
	cat "$REPORTS"
	[ "$(reports '.reason == "exit"')" -eq 2 ]
	[ "$(reports ".pid == $child")" -eq 1 ]
	[ "$(reports ".pid != $child")" -eq 1 ]
	[ "$(jq -r "select(.pid == $child) | .events[0].status" "$REPORTS")" = counted ]
}

@test "children of the raw fork system call and of clone() report, saying nothing counted them" {
	for how in raw-fork clone; do
		: >"$REPORTS"
		run "$PROGS/proc_ways" "$how"
		want="$status $output"
		[ "$want" = "0 child exited 0" ]
		run shim PFSHIM_EVENTS=task-clock,page-faults "$PROGS/proc_ways" "$how"
		[ "$status $output" = "$want" ]
		cat "$REPORTS"
		[ "$(reports)" -eq 2 ]
		parent=$(jq -s -r 'map(select(.events[0].status == "counted")) | .[0].pid' "$REPORTS")
		# The child: its own pid, its parent, every event not counted with ECHILD.
		[ "$(reports ".ppid == $parent and .reason == \"exit\" and
			([.events[] | select(.status == \"not-counted\" and .error == \"ECHILD\")] | length) == 2")" -eq 1 ]
	done
}

@test "a clone(CLONE_VM) child shares the parent's memory: it touches nothing, reports nothing" {
	# Measured with libtsan.so preloaded alone, no shim: its clone() interceptor takes the
	# call for a fork ("forked new process"), redoes its fork-child set-up in memory the
	# child shares with its parent, and the child dies of SIGSEGV at pc 0x2: "child exited -1".
	skip_under_sanitizer "the runtime's clone() interceptor kills a CLONE_VM child, with or without the shim" tsan
	run shim PFSHIM_EVENTS=task-clock "$PROGS/proc_ways" clone-vm
	[ "$status" -eq 0 ]
	[ "$output" = "child exited 0" ]
	[ "$(reports)" -eq 1 ]
}

@test "a runtime that searches PATH itself writes one exec report for one exec" {
	command -v python3 >/dev/null || skip "python3 not installed"
	mkdir -p "$BATS_TEST_TMPDIR/empty1" "$BATS_TEST_TMPDIR/empty2"
	path="$BATS_TEST_TMPDIR/none:$BATS_TEST_TMPDIR/empty1:$BATS_TEST_TMPDIR/empty2:$(dirname "$(type -P true)")"
	# The interpreter itself (python3 may be a wrapper script, pyenv's).
	python=$(python3 -c 'import sys; print(sys.executable)')
	run env PATH="$path" "$python" -c 'import os; os.execvp("true", ["true"])'
	[ "$status" -eq 0 ]
	run shim PFSHIM_EVENTS=task-clock PATH="$path" "$python" -c 'import os; os.execvp("true", ["true"])'
	[ "$status" -eq 0 ]
	[ "$(reports '.reason == "exec"')" -eq 1 ]
	[ "$(reports '.reason == "exit" and .program == "true"')" -eq 1 ]
	[ "$(reports)" -eq 2 ]
	# execlp() of names found nowhere in PATH, then of one that is: one exec report.
	: >"$REPORTS"
	run shim PFSHIM_EVENTS=task-clock "$PROGS/proc_ways" candidates
	[ "$status" -eq 0 ]
	[ "$(reports '.reason == "exec" and .program == "proc_ways"')" -eq 1 ]
	[ "$(reports '.reason == "exit" and .program == "true"')" -eq 1 ]
	[ "$(reports)" -eq 2 ]
	# An exec that fails for another reason than a missing file still reports, then exit does.
	: >"$REPORTS"
	run shim PFSHIM_EVENTS=task-clock "$python" -c 'import os
try: os.execv("/etc/passwd", ["x"])
except OSError as e: print(e.errno)'
	[ "$output" = 13 ]
	[ "$(reports '.reason == "exec"')" -eq 1 ]
	[ "$(reports '.reason == "exit"')" -eq 1 ]
}

@test "two pid namespaces' pid 1 writing one file are told apart by their pid namespace" {
	unshare --pid --fork true 2>/dev/null || skip "unshare --pid needs root"
	# Two containers at once: the first waits on a FIFO, its namespace alive, while the
	# second runs (a namespace's number is reused once it is gone).
	fifo="$BATS_TEST_TMPDIR/go"
	mkfifo "$fifo"
	shim PFSHIM_EVENTS=task-clock unshare --pid --fork \
		sh -c 'read x <"$0"; exec "$1"' "$fifo" "$PROGS/first_fd" >/dev/null &
	# The second starts once the FIFO is open for writing: that open returns when the
	# first container's shell opens it for reading, its namespace made (started one
	# after the other, the second could run and end before the first namespace existed).
	timeout 20 sh -c 'exec 3>"$0"; "$@" >/dev/null; echo go >&3' "$fifo" \
		env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" \
		PFSHIM_EVENTS=task-clock unshare --pid --fork "$PROGS/first_fd"
	wait
	run jq -s -c 'map(select(.program == "first_fd")) | map([.pid, .pid_ns])' "$REPORTS"
	echo "$output"
	[ "$(jq -s '[.[] | select(.program == "first_fd" and .pid == 1 and .pid_ns > 0)] | length' \
		"$REPORTS")" -eq 2 ]
	[ "$(jq -s '[.[] | select(.program == "first_fd") | .pid_ns] | unique | length' \
		"$REPORTS")" -eq 2 ]
	# unshare itself, in the initial namespace: null.
	[ "$(reports '.program == "unshare" and .pid_ns == null')" -ge 2 ]
	# Text and CSV say it too (on stderr: a descendant's report goes there only when asked).
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock PFSHIM_OUTPUT=stderr \
		unshare --pid --fork "$PROGS/first_fd"
	grep -q "'first_fd' (pid 1 in pid namespace [0-9]*, exit)" <<<"$stderr"
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock PFSHIM_FORMAT=csv \
		PFSHIM_OUTPUT=stderr unshare --pid --fork "$PROGS/first_fd"
	grep -q "^1,first_fd,exit,.*,[0-9][0-9]*,,,,$(cat "$ROOT/VERSION")\$" <<<"$stderr"
}

@test "reports taken while other threads' reports run all keep their regions" {
	# 32 threads x 50 reports at once: before, about one in ten had its regions
	# left out ("a thread was exiting (or this signal interrupted one)").
	shim PFSHIM_EVENTS=task-clock,page-faults "$PROGS/markers_report_race" 32 50
	[ "$(reports '.reason == "explicit"')" -eq 1600 ]
	[ "$(reports '.reason == "explicit" and .regions.note == null and
		(.regions.totals | map(select(.name == "work")) | .[0].threads) == 32')" -eq 1600 ]
}

@test "with PFSHIM_OUTPUT unset, a raw-fork child is a descendant: its report goes to the job, not its stderr" {
	export XDG_RUNTIME_DIR="$BATS_TEST_TMPDIR/run"
	mkdir -m 0700 "$XDG_RUNTIME_DIR"
	for how in raw-fork clone; do
		run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock \
			"$PROGS/proc_ways" "$how"
		[ "$status $output" = "0 child exited 0" ]
		# One report on stderr (the root's), and the line naming the job's one other report.
		[ "$(grep -c 'Performance counter stats' <<<"$stderr")" -eq 1 ]
		grep -q "'proc_ways' (pid" <<<"$stderr"
		dir=$(sed -n 's/^pfshim: 1 report of a descendant process in \([^ ]*\) .*/\1/p' <<<"$stderr")
		[ -d "$dir" ]
		[ "$(jq -s '[.[] | select(.reason == "exit" and .events[0].error == "ECHILD")] | length' \
			"$dir"/*.json)" -eq 1 ]
		rm -rf "$dir"
	done
}
