#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# seccomp.bats: programs under a seccomp filter that refuses perf_event_open
# EPERM, as Docker's default profile does (tests/progs/deny_perf): the shim
# says so in one line for the whole job and every program runs as without it
# (docs/usage.md "perf_event_open refused"); `pfshim run` says there are no
# counters instead of a summary.

load helpers

DENY="$PROGS/deny_perf"
LINE="pfshim: perf_event_open is refused here (EPERM for every event, user space only too: a seccomp filter, as a container's default profile): nothing is counted and no report written. To count, allow it (docker run --security-opt seccomp=PROFILE); PFSHIM_DISABLE=1 turns pfshim off without this line"

setup() {
	# the job's crumbs where this test can see them all (docs/usage.md "A process tree is one job")
	export XDG_RUNTIME_DIR="$BATS_TEST_TMPDIR/xdg"
	mkdir -m 0700 "$XDG_RUNTIME_DIR"
}

# same COMMAND...: COMMAND under the filter without the shim, then with it (PFSHIM_OUTPUT
# unset: one job): the same stdout and status, and stderr with the one line first.
same() {
	run --separate-stderr timeout 60 "$DENY" "$@"
	local out=$output err=$stderr st=$status
	run --separate-stderr timeout 60 "$DENY" env LD_PRELOAD="$SHIM" "$@"
	echo "without: $st [$out] [$err]"
	echo "with:    $status [$output] [$stderr]"
	[ "$status" -eq "$st" ]
	[ "$output" = "$out" ]
	[ "$stderr" = "$LINE${err:+
$err}" ]
	# every crumb gone, no job directory: nothing reported anywhere
	[ -z "$(ls -A "$XDG_RUNTIME_DIR/pfshim")" ]
}

@test "deny_perf refuses perf_event_open EPERM, under a seccomp filter" {
	# perf_event_open(cpu-clock, this process): x86_64's and arm64's call numbers
	run -0 timeout 60 "$DENY" python3 -c '
import ctypes, errno, platform
libc = ctypes.CDLL(None, use_errno=True)
attr = (ctypes.c_uint32 * 32)(1, 128)    # PERF_TYPE_SOFTWARE, size 128, config 0
nr = {"x86_64": 298, "aarch64": 241}[platform.machine()]
print(libc.syscall(nr, attr, 0, -1, -1, 0), errno.errorcode[ctypes.get_errno()])
print([l for l in open("/proc/self/status") if l.startswith("Seccomp:")][0].split()[1])'
	[ "$output" = "-1 EPERM
2" ]
}

@test "a shell pipeline: one line for the whole job, and its output, errors and status as without pfshim" {
	same sh -c 'echo hi | tr a-z A-Z; ls /nonexistent-dir; echo err >&2; exit 3'
	# its last command exec'd by the shell: still one line (the root's next image is muted)
	same sh -c 'echo a | cat; exec sh -c "echo b; exit 5"'
}

@test "threaded programs, an interval thread and the marker API: as without pfshim" {
	same "$PROGS/burn_threads" 4 20
	same env PFSHIM_INTERVAL=10ms "$PROGS/burn_threads" 2 50
	# the regions are inactive, as without the library
	same "$BUILD/examples/region" 3
	[ "$output" = "sum 196608.039, 1 exceptions, markers inactive" ]
	same "$PROGS/markers_threads" 2 3 8
}

@test "PFSHIM_OUTPUT set: the line, no report file; PFSHIM_DISABLE=1: not even the line" {
	run --separate-stderr timeout 60 "$DENY" env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/r.json" \
		PFSHIM_FORMAT=json /bin/echo hi
	[ "$status" -eq 0 ]
	[ "$output" = hi ]
	[ "$stderr" = "$LINE" ]
	[ ! -e "$BATS_TEST_TMPDIR/r.json" ]
	run --separate-stderr timeout 60 "$DENY" env LD_PRELOAD="$SHIM" PFSHIM_DISABLE=1 /bin/echo hi
	[ "$output" = hi ]
	[ -z "$stderr" ]
}

@test "pfshim run: the command runs as without pfshim, and one line says there are no counters" {
	export TMPDIR="$BATS_TEST_TMPDIR/tmp"
	mkdir "$TMPDIR"
	run --separate-stderr timeout 60 "$DENY" sh -c 'echo hi | tr a-z A-Z; exit 3'
	want=$output
	run --separate-stderr timeout 60 "$DENY" "$BUILD/pfshim" run -- sh -c 'echo hi | tr a-z A-Z; exit 3'
	[ "$status" -eq 3 ]
	[ "$output" = "$want" ]
	[ "$stderr" = "pfshim run: no counters: perf_event_open is refused here (EPERM for every event, user space only too: a seccomp filter, as a container's default profile); the command ran as without pfshim. To count, allow it (docker run --security-opt seccomp=PROFILE)" ]
	# no directory of reports left behind
	[ -z "$(ls -A "$TMPDIR")" ]
}
