#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The shim lives in someone else's process: it must not change what the
# program sees, prints, or links against.

load helpers

@test "stdout is byte-for-byte what the program prints without the shim" {
	want=$(seq 1 20000 | sort -r | md5sum)
	got=$(seq 1 20000 | LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=stderr sort -r 2>/dev/null | md5sum)
	[ "$got" = "$want" ]
}

@test "the first descriptor a program opens is the one it gets without the shim" {
	run "$PROGS/first_fd"
	want=$output
	run env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT="$REPORTS" "$PROGS/first_fd"
	[ "$output" = "$want" ]
}

@test "a shell that takes over fds 3-9 keeps working and the totals stay right" {
	run env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" \
		PFSHIM_EVENTS=page-faults bash -c \
		'for fd in 3 4 5 6 7 8 9; do eval "exec $fd>/dev/null"; done; echo ok >&3; echo done'
	[ "$status" -eq 0 ]
	[ "$output" = done ]
	[ "$(field page-faults status)" = counted ]
}

@test "the library exports only pfshim_* and the libc functions it interposes" {
	exported=$(nm -D --defined-only "$SHIM_LIB" | awk '{print $3}' | sort)
	echo "$exported"
	unexpected=$(printf '%s\n' "$exported" | grep -v -E \
		'^(pfshim_.*|__libc_start_main|_exit|_Exit|abort|daemon|fork|forkpty|execve|execv|execvp|execvpe|execl|execle|execlp|fexecve|execveat|posix_spawn|posix_spawnp|system|popen|sigaction|signal|bsd_signal|ssignal|sysv_signal|__sysv_signal|sigset|siginterrupt|unshare|setns|prctl|syscall)$' || true)
	[ -z "$unexpected" ]
	printf '%s\n' "$exported" | grep -qx execve
	printf '%s\n' "$exported" | grep -qx sigaction
}

@test "the library links nothing beyond libc" {
	skip_under_sanitizer "the sanitizer's runtime is linked in"
	needed=$(readelf -d "$SHIM_LIB" | awk '/NEEDED/ {print $5}' | tr -d '[]' | sort | tr '\n' ' ')
	[ "$needed" = "libc.so.6 " ]
}

@test "the library is linked with full RELRO: every import bound at load, its table read-only" {
	# docs/security.md, class 9
	readelf -d "$SHIM_LIB" | grep -E '\(FLAGS\)' | grep -qw BIND_NOW
	readelf -lW "$SHIM_LIB" | grep -q GNU_RELRO
}

@test "a program that counts its own descriptors sees the same before and after" {
	prog='import os; print(sorted(int(f) for f in os.listdir("/proc/self/fd") if int(f) < 100))'
	command -v python3 >/dev/null || skip "python3 not installed"
	want=$(python3 -c "$prog")
	got=$(LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=/dev/null python3 -c "$prog")
	[ "$got" = "$want" ]
}

# An exec report into a directory makes its file before its last read of the
# counters (preload/output/dir.c, output_dir_reserve()): after an exec that
# fails, the program holds the descriptors it held before, and the directory
# one whole report, replaced by the exit's.
@test "a failed exec with reports into a directory: the program's descriptors as before it" {
	# Debian's python3 itself: a launcher (pyenv's) would add images of its own
	[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 not installed"
	printf 'x' >"$BATS_TEST_TMPDIR/noexec"
	prog='import os, sys
fds = lambda: sorted(int(f) for f in os.listdir("/proc/self/fd"))
before = fds()
try:
    os.execv(sys.argv[1], [sys.argv[1]])
except PermissionError:
    pass
print(before == fds(), [f for f in before if f < 100])'
	out="$BATS_TEST_TMPDIR/reports/"
	want=$(/usr/bin/python3 -c "$prog" "$BATS_TEST_TMPDIR/noexec")
	got=$(LD_PRELOAD="$SHIM" PFSHIM_OUTPUT="$out" PFSHIM_FORMAT=json \
		/usr/bin/python3 -c "$prog" "$BATS_TEST_TMPDIR/noexec")
	echo "without: $want, with: $got"
	[ "$got" = "$want" ]
	[ "$(ls -A "$out" | wc -l)" -eq 1 ]
	[ "$(jq -r .reason "$out"/*.json)" = exit ]
}

@test "a report to a pipe nobody reads does not kill the program with SIGPIPE" {
	# The reader exits first; without the shim the writes would have nothing to fail.
	run --separate-stderr bash -c '{ sleep 0.2; LD_PRELOAD="$0" PFSHIM_OUTPUT=stdout /bin/true; } | true
		echo "${PIPESTATUS[0]}"' "$SHIM"
	[ "$output" = 0 ]
	# The lost report leaves a trace where one can go.
	[ "$stderr" = "pfshim: the report could not be written to stdout (EPIPE); it is lost" ]
	# A "pfshim:" warning on a dead stderr, then the report there too.
	run bash -c '{ sleep 0.2; LD_PRELOAD="$0" PFSHIM_FORMAT=bogus /bin/true; } 2>&1 | true
		echo "${PIPESTATUS[0]}"' "$SHIM"
	[ "$output" = 0 ]
}

@test "started with stderr closed, the program's own fd 2 gets no report" {
	# A daemon started with 2>&- may open its own file as fd 2: not ours to write in.
	f="$BATS_TEST_TMPDIR/fd2"
	env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock sh -c 'exec 2>"$0"; echo data >&2' "$f" 2>&-
	[ "$(cat "$f")" = data ]
	f="$BATS_TEST_TMPDIR/fd1"
	env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=stdout PFSHIM_EVENTS=task-clock \
		sh -c 'exec >"$0"; echo data' "$f" >&-
	[ "$(cat "$f")" = data ]
}

@test "errno survives fork() in the child, where the shim reopens its counters" {
	# The default events include cycles, whose open fails here with ENOENT.
	run env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT="$REPORTS" "$PROGS/errno_fork"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'child 1234\nparent 1234')" ]
}

# layout_part NAME: the start and end symbols of one of preload/layout.ld's parts, in hex.
layout_part() {
	nm "$SHIM_LIB" | awk -v s="__pfshim_$1_start" -v e="__pfshim_$1_end" \
		'$3 == s { start = $1 } $3 == e { end = $1 } END { print start, end }'
}

# pages_in START END: how many of the page offsets on stdin lie in [START, END).
pages_in() {
	local n=0 page
	while read -r page; do
		[ $((16#$page)) -lt $((16#$1)) ] || [ $((16#$page)) -ge $((16#$2)) ] || n=$((n + 1))
	done
	echo "$n"
}

@test "at exit no page of the shim's cold code is resident, nor of its warm code but in pfshim run's command" {
	# The exit report touches the shim's code before it reads its counters
	# (prefault_self), all but the cold segments, which no report runs after
	# its read, and the warm one, which a default run never calls: they cost
	# a small program no memory. Their own mappings, so fault-around (64 KiB
	# about a fault) never reaches into them either.
	skip_under_sanitizer "an instrumented shim touches other pages"
	strace -o /dev/null true 2>/dev/null || skip "no ptrace here (a container without it)"
	local cold warm pages in_cold in_warm
	read -r -a cold <<<"$(layout_part cold)"
	read -r -a warm <<<"$(layout_part warm)"
	[ "${#cold[@]}" = 2 ] && [ "${#warm[@]}" = 2 ]
	# The cold part is most of the code: the parser, resolvers, formats, markers.
	[ $((16#${cold[1]} - 16#${cold[0]})) -gt $((64 * 1024)) ]
	# The warm part: signals, the interposed calls but execve, regions, metrics.
	[ $((16#${warm[1]} - 16#${warm[0]})) -gt $((16 * 1024)) ]
	# The default events and output (PFSHIM_EVENTS, PFSHIM_OUTPUT unset: a
	# job's root writing on stderr), into a file, to /dev/null, and a list
	# of the parser's.
	for run in default PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/r" PFSHIM_OUTPUT=/dev/null \
		"PFSHIM_EVENTS=task-clock,page-faults PFSHIM_OUTPUT=$BATS_TEST_TMPDIR/r"; do
		# The shim in /bin/true only: a tracer under it would make it a job's descendant.
		pages=$(env -u PFSHIM_EVENTS -u PFSHIM_OUTPUT timeout 20 "$PROGS/exit_pages" \
			libpfshim.so env ${run#default} LD_PRELOAD="$SHIM" /bin/true 2>/dev/null)
		in_cold=$(pages_in "${cold[@]}" <<<"$pages")
		in_warm=$(pages_in "${warm[@]}" <<<"$pages")
		echo "$run: $(wc -l <<<"$pages") pages resident, $in_cold cold, $in_warm warm"
		[ "$(wc -l <<<"$pages")" -gt 8 ]
		[ "$in_cold" = 0 ] && [ "$in_warm" = 0 ]
	done
	[ -s "$BATS_TEST_TMPDIR/r" ]	# the reports were written
	# A job's descendant (sh's child), its report into the job's directory.
	pages=$(env -u PFSHIM_EVENTS -u PFSHIM_OUTPUT timeout 20 "$PROGS/exit_pages" -f \
		libpfshim.so env LD_PRELOAD="$SHIM" sh -c '/bin/true; :' 2>/dev/null)
	in_cold=$(pages_in "${cold[@]}" <<<"$pages")
	in_warm=$(pages_in "${warm[@]}" <<<"$pages")
	echo "sh and its child: $(wc -l <<<"$pages") pages resident, $in_cold cold, $in_warm warm"
	[ "$(wc -l <<<"$pages")" -gt 16 ]
	[ "$in_cold" = 0 ] && [ "$in_warm" = 0 ]
	# A pfshim run job: no process maps cold code (the runner's settings and
	# the hand-over are hot), and only the command, whose count is perf
	# stat's since its exec, maps the warm code, before its report's read.
	# The calibration (pfshim.md) first, untraced: its runs are no job's.
	export XDG_CACHE_HOME="$BATS_TEST_TMPDIR/cache"
	"$BUILD/pfshim" run -o "$BATS_TEST_TMPDIR/j1" -- /bin/true 2>/dev/null
	pages=$(env -u PFSHIM_EVENTS -u PFSHIM_OUTPUT timeout 20 "$PROGS/exit_pages" -f \
		libpfshim.so "$BUILD/pfshim" run -o "$BATS_TEST_TMPDIR/j2" -- sh -c '/bin/true; :' \
		2>/dev/null)
	in_cold=$(pages_in "${cold[@]}" <<<"$pages")
	in_warm=$(pages_in "${warm[@]}" <<<"$pages")
	echo "pfshim run's sh and its child: $(wc -l <<<"$pages") pages, $in_cold cold, $in_warm warm"
	[ "$(wc -l <<<"$pages")" -gt 16 ]
	[ "$in_cold" = 0 ]
	[ "$in_warm" = $(((16#${warm[1]} - 16#${warm[0]} + 4095) / 4096)) ]
}

@test "a job's descendant maps no memory for its exit report" {
	# The report that ends an image is read and formatted in the shim's own
	# .bss (process.c, final_memory), not in two mmap()s of its own: what
	# /bin/true maps anonymously (not over a library's image) is what it maps
	# without the shim.
	command -v strace >/dev/null || skip "no strace"
	skip_under_sanitizer "the sanitizer's runtime maps memory of its own"
	need_perf
	job_setup
	local maps pid
	for variant in bare shim; do
		preload=()
		[ "$variant" = bare ] || preload=(-E LD_PRELOAD="$SHIM")
		run -0 --separate-stderr timeout 60 strace -f -o "$BATS_TEST_TMPDIR/$variant" \
			-e trace=execve,mmap "${preload[@]}" sh -c '/bin/true; :'
		sed -i -E 's/^([0-9]+) +/\1 /' "$BATS_TEST_TMPDIR/$variant"
		pid=$(grep -E '^[0-9]+ execve\("/bin/true"' "$BATS_TEST_TMPDIR/$variant" | cut -d' ' -f1)
		[ -n "$pid" ]
		maps[${#maps[@]}]=$(sed -n "/^$pid execve(\"\/bin\/true\"/,\$p" "$BATS_TEST_TMPDIR/$variant" |
			grep "^$pid mmap(" | grep MAP_ANONYMOUS | grep -vc MAP_FIXED)
	done
	# the shim's run was a job: /bin/true a descendant
	[[ "$stderr" == *"1 report of a descendant process in"* ]]
	echo "anonymous mappings of /bin/true: bare ${maps[0]}, under the shim ${maps[1]}"
	[ "${maps[0]}" -gt 0 ]
	[ "${maps[1]}" = "${maps[0]}" ]
}
