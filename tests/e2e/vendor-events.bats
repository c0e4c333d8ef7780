#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Vendor event names through libpfm4 (docs/events.md): loaded only when such a
# name is asked for, counted where the PMU is, said clearly where libpfm4 is not.
# This machine has no hardware PMU: LIBPFM_FORCE_PMU makes libpfm4 assume one,
# and its events are then <not supported> here, as cycles is.

load helpers

# The real file behind the name dlopen() asks for, whatever the multiarch directory.
libpfm_file() {
	readlink -f "$(ldconfig -p | awk '/libpfm\.so\.4 /{print $NF; exit}')"
}

@test "the default events never load libpfm4" {
	run --separate-stderr env LD_DEBUG=files LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=/dev/null \
		"$PROGS/touch_pages" 10
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"libpfshim.so"* ]]	# LD_DEBUG does list what is loaded
	[[ "$stderr" != *libpfm* ]]
	# nor does a list of built-in and sysfs names, nor an unknown-event typo of one
	run --separate-stderr env LD_DEBUG=files LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=/dev/null \
		PFSHIM_EVENTS='task-clock,cycles:u,{page-faults,cs}' "$PROGS/touch_pages" 10
	[[ "$stderr" != *libpfm* ]]
	# nor a tracepoint of a subsystem tracefs has, nor a glob: tracefs is asked first
	run --separate-stderr env LD_DEBUG=files LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=/dev/null \
		PFSHIM_TRACEFS_ROOT="$ROOT/tests/fixtures/tracefs" \
		PFSHIM_EVENTS='sched:sched_switch:u,block:*,task-clock' "$PROGS/touch_pages" 10
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"libpfshim.so"* ]]
	[[ "$stderr" != *libpfm* ]]
}

@test "a:b with tracefs and libpfm4: tracepoints tracefs has, vendor names the rest" {
	shim PFSHIM_TRACEFS_ROOT="$ROOT/tests/fixtures/tracefs" LIBPFM_FORCE_PMU=skl \
		PFSHIM_EVENTS='sched:sched_switch,INST_RETIRED:ANY_P,page-faults' "$PROGS/touch_pages" 10
	[ "$(jq -r '[.events[].name] | join(",")' "$REPORTS")" = \
		"sched:sched_switch,INST_RETIRED:ANY_P,page-faults" ]
	# and when neither knows a name, the message is for what it looks like
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=/dev/null LIBPFM_FORCE_PMU=skl \
		PFSHIM_TRACEFS_ROOT=/nonexistent PFSHIM_EVENTS=sched:sched_switch,NOT_AN_EVENT:ANY,task-clock \
		"$PROGS/touch_pages" 10
	[ "$status" -eq 0 ]
	[ "$stderr" = "pfshim: PFSHIM_EVENTS: 'sched:sched_switch': no tracefs events directory in /nonexistent; the event is skipped
pfshim: PFSHIM_EVENTS: unknown event 'NOT_AN_EVENT:ANY'; the event is skipped" ]
}

@test "a vendor name loads libpfm4 for the parse and unloads it before the program runs" {
	run --separate-stderr env LD_DEBUG=files LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=/dev/null \
		PFSHIM_EVENTS=INST_RETIRED:ANY_P,task-clock LIBPFM_FORCE_PMU=skl "$PROGS/touch_pages" 10
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"file=libpfm.so.4 [0];  dynamically loaded by"*libpfshim.so* ]]
	[[ "$stderr" == *"calling fini: "*libpfm.so.4* ]]
	# the program's own view: no libpfm4 in its address space
	run env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=/dev/null PFSHIM_EVENTS=INST_RETIRED:ANY_P,task-clock \
		LIBPFM_FORCE_PMU=skl cat /proc/self/maps
	[ "$status" -eq 0 ]
	[[ "$output" == *libpfshim.so* ]]
	[[ "$output" != *libpfm* ]]
}

@test "a vendor name of a PMU this machine lacks is <not supported>, named as written" {
	shim PFSHIM_EVENTS='{INST_RETIRED:ANY_P,cycles}:u,inst_retired.any_p,page-faults' \
		LIBPFM_FORCE_PMU=skl "$PROGS/touch_pages" 100
	[ "$(jq -r '[.events[].name] | join(",")' "$REPORTS")" = \
		"INST_RETIRED:ANY_P:u,cycles:u,inst_retired.any_p,page-faults" ]
	if [ ! -e /sys/bus/event_source/devices/cpu ]; then
		[ "$(field INST_RETIRED:ANY_P:u status)" = not-supported ]
		[ "$(field INST_RETIRED:ANY_P:u error)" = ENOENT ]
		[ "$(field inst_retired.any_p status)" = not-supported ]
	fi
	[ "$(field page-faults status)" = counted ]
	# and in the text report, as perf stat shows it
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=skl::L1D:REPLACEMENT,task-clock \
		LIBPFM_FORCE_PMU=skl "$PROGS/touch_pages" 10
	[ "$status" -eq 0 ]
	if [ ! -e /sys/bus/event_source/devices/cpu ]; then
		[[ "$stderr" =~ "<not supported>"\ +"skl::L1D:REPLACEMENT" ]]
	fi
}

@test "libpfm4's generic perf:: names count for real: page faults as the built-in name does" {
	shim PFSHIM_EVENTS='{page-faults,PERF_COUNT_SW_PAGE_FAULTS,perf::PERF_COUNT_SW_PAGE_FAULTS:u}' \
		"$PROGS/touch_pages" 5000
	n=$(value page-faults)
	[ "$n" -ge 5000 ]
	# one group, read together: the same faults (all of them are in user space)
	[ "$(value PERF_COUNT_SW_PAGE_FAULTS)" -eq "$n" ]
	[ "$(value perf::PERF_COUNT_SW_PAGE_FAULTS:u)" -eq "$n" ]
}

@test "an unknown name: libpfm4 lacks it too, the message is the usual one" {
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=/dev/null \
		PFSHIM_EVENTS=NOT_AN_EVENT:ANY,INST_RETIRED:BOGUS,cylces,task-clock LIBPFM_FORCE_PMU=skl \
		"$PROGS/touch_pages" 10
	[ "$status" -eq 0 ]
	[ "$stderr" = "pfshim: PFSHIM_EVENTS: unknown event 'NOT_AN_EVENT:ANY'; the event is skipped
pfshim: PFSHIM_EVENTS: libpfm4 cannot encode 'INST_RETIRED:BOGUS': invalid event attribute; the event is skipped
pfshim: PFSHIM_EVENTS: unknown event 'cylces' (did you mean 'cycles'?); the event is skipped" ]
}

@test "without libpfm4 installed: one clear message, and nothing else changes" {
	[ "$(id -u)" -eq 0 ] || skip "needs root (a mount namespace hiding libpfm.so.4)"
	need_unshare -m
	lib=$(libpfm_file)
	[ -n "$lib" ] || skip "libpfm4 is not installed here"
	# An empty file over libpfm.so.4, seen only inside this mount namespace.
	run --separate-stderr timeout 120 unshare -m sh -c '
		mount --make-rprivate / && mount --bind /dev/null "$1" &&
		env LD_PRELOAD="$2" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$3" \
			PFSHIM_EVENTS=inst_retired.any_p,INST_RETIRED:ANY_P:u,cylces,page-faults \
			"$4" 100 &&
		env LD_PRELOAD="$2" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$3" "$4" 100' \
		sh "$lib" "$SHIM" "$REPORTS" "$PROGS/touch_pages"
	echo "$stderr"
	[ "$status" -eq 0 ]
	[ "$stderr" = "pfshim: PFSHIM_EVENTS: unknown event 'inst_retired.any_p' (vendor names need libpfm4: apt-get install libpfm4); the event is skipped
pfshim: PFSHIM_EVENTS: unknown event 'INST_RETIRED:ANY_P' in 'INST_RETIRED:ANY_P:u' (vendor names need libpfm4: apt-get install libpfm4); the event is skipped
pfshim: PFSHIM_EVENTS: unknown event 'cylces' (did you mean 'cycles'?); the event is skipped" ]
	[ "$(reports)" -eq 2 ]
	# the first run counts what it can; the second, the default events, as ever
	[ "$(jq -s -r '.[0].events | map(.name) | join(",")' "$REPORTS")" = page-faults ]
	[ "$(jq -s -r '.[0].events[0].status' "$REPORTS")" = counted ]
	[ "$(jq -s -r '.[1].events | map(.name) | join(",")' "$REPORTS")" = \
		task-clock,context-switches,cpu-migrations,page-faults,cycles,instructions,branches,branch-misses ]
	[ "$(jq -s -r '.[1].events[3].status' "$REPORTS")" = counted ]
}

# libpfm_loads DIR: how many images loaded libpfm4 (LD_DEBUG=files, LD_DEBUG_OUTPUT=DIR/ld:
# a file a pid, which an exec keeps).
libpfm_loads() {
	cat "$1"/ld.* | grep -c 'file=libpfm.so.4 \[0\];  dynamically loaded by'
}

@test "a job asks libpfm4 once: each image the shim starts takes the answers it was handed" {
	mkdir "$BATS_TEST_TMPDIR/ld"
	# a fork and exec, a pipeline, Python's subprocess (vfork and exec) and posix_spawnp
	run --separate-stderr env LD_DEBUG=files LD_DEBUG_OUTPUT="$BATS_TEST_TMPDIR/ld/ld" \
		LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" \
		PFSHIM_EVENTS='{page-faults,perf::PERF_COUNT_SW_PAGE_FAULTS}' \
		sh -c '/bin/true; env | grep -c PFSHIM_RESOLVED; python3 -c "
import os, subprocess
subprocess.run([\"/bin/true\"])
os.waitpid(os.posix_spawnp(\"true\", [\"true\"], os.environ), 0)"'
	[ "$status" -eq 0 ]
	[ "$output" = 0 ]	# the program never sees the variable
	[ "$stderr" = "" ]
	[ "$(libpfm_loads "$BATS_TEST_TMPDIR/ld")" -eq 1 ]
	# every image counted libpfm4's page faults as the built-in ones, in one group
	[ "$(reports '.program == "true"')" -eq 3 ]
	[ "$(reports '.program | startswith("python3")')" -ge 1 ]
	[ "$(reports '[.events[].name] == ["page-faults", "perf::PERF_COUNT_SW_PAGE_FAULTS"]')" \
		-eq "$(reports)" ]
	[ "$(reports '.events[1].status == "counted" and .events[1].value > 0 and
		      .events[1].value == .events[0].value')" -eq "$(reports)" ]
}

@test "an image handed libpfm4's answer for a name reads no sysfs for it" {
	command -v strace >/dev/null || skip "no strace"
	strace -o /dev/null true 2>/dev/null || skip "no ptrace here (a container without it)"
	run -0 strace -ff -e trace=openat,execve -o "$BATS_TEST_TMPDIR/t" env LD_PRELOAD="$SHIM" \
		PFSHIM_OUTPUT=/dev/null PFSHIM_EVENTS=perf::PERF_COUNT_SW_PAGE_FAULTS \
		sh -c '/bin/true; /bin/true'
	# the root (sh) looked in sysfs before it asked libpfm4; the two images of
	# /bin/true, handed its answer, did not
	[ "$(grep -lE 'execve\("[^"]*/sh", .* = 0$' "$BATS_TEST_TMPDIR"/t.* |
		xargs grep -l event_source | wc -l)" -eq 1 ]
	[ "$(grep -l 'execve("/bin/true"' "$BATS_TEST_TMPDIR"/t.* | wc -l)" -eq 2 ]
	[ "$(grep -l 'execve("/bin/true"' "$BATS_TEST_TMPDIR"/t.* | xargs grep -l event_source | wc -l)" -eq 0 ]
}

@test "handing libpfm4's answers over never costs an exec: a small stack, a big environment" {
	mkdir "$BATS_TEST_TMPDIR/ld" "$BATS_TEST_TMPDIR/ld2"
	# a thread with the smallest stack (KiB; a sanitizer's instrumented shim takes
	# more of it, with or without the answers) execs: handed over (1 load, 2 images)
	local stack=16
	[ -z "${PFSHIM_SANITIZER:-}" ] || stack=128
	run -0 env LD_DEBUG=files LD_DEBUG_OUTPUT="$BATS_TEST_TMPDIR/ld/ld" LD_PRELOAD="$SHIM" \
		PFSHIM_OUTPUT=/dev/null PFSHIM_EVENTS=perf::PERF_COUNT_SW_TASK_CLOCK \
		"$PROGS/exec_small_stack" "$stack" /bin/true
	[ "$(libpfm_loads "$BATS_TEST_TMPDIR/ld")" -eq 1 ]
	# 40,000 variables: their copy would take 320 KB of that stack, so none is made
	# and the next image asks libpfm4 itself; 63 names of 118 bytes the same
	big=$(seq -f 'V%g=x' 40000)
	# shellcheck disable=SC2086
	run -0 env $big LD_DEBUG=files LD_DEBUG_OUTPUT="$BATS_TEST_TMPDIR/ld2/ld" LD_PRELOAD="$SHIM" \
		PFSHIM_OUTPUT=/dev/null PFSHIM_EVENTS=perf::PERF_COUNT_SW_TASK_CLOCK \
		"$PROGS/exec_small_stack" "$stack" /bin/true
	[ "$(libpfm_loads "$BATS_TEST_TMPDIR/ld2")" -eq 2 ]
	names=$(seq -f 'X%02gAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' 63 | paste -sd,)
	run -0 env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=/dev/null PFSHIM_EVENTS="$names,task-clock" \
		"$PROGS/exec_small_stack" "$stack" /bin/true
	# an exec that fails E2BIG with them is made again without them: the
	# largest argument that fits beside the program's environment (by exec
	# through syscall(2), which the shim passes on as it is), then an execv()
	run -0 bash -c 'ulimit -s 512 && exec "$@"' bash env LD_PRELOAD="$SHIM" \
		PFSHIM_OUTPUT=/dev/null PFSHIM_EVENTS=perf::PERF_COUNT_SW_TASK_CLOCK python3 -c '
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def fits(n):
    pid = os.fork()
    if pid == 0:
        env = [("%s=%s" % kv).encode() for kv in os.environ.items()]
        libc.syscall(59, b"/bin/true", (ctypes.c_char_p * 3)(b"true", b"x" * n, None),
                     (ctypes.c_char_p * (len(env) + 1))(*env, None))
        os._exit(1)
    return os.waitpid(pid, 0)[1] == 0
lo, hi = 1, 140000
assert fits(lo) and not fits(hi)
while hi - lo > 1:
    mid = (lo + hi) // 2
    lo, hi = (mid, hi) if fits(mid) else (lo, mid)
print(lo, flush=True)
os.execv("/bin/true", ["true", "x" * lo])'
	[ "$output" -gt 100000 ]
}

@test "a misspelt name is asked once too, and every image still says it" {
	mkdir "$BATS_TEST_TMPDIR/ld"
	run --separate-stderr env LD_DEBUG=files LD_DEBUG_OUTPUT="$BATS_TEST_TMPDIR/ld/ld" \
		LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=/dev/null LIBPFM_FORCE_PMU=skl \
		PFSHIM_EVENTS=NOT_AN_EVENT:ANY,INST_RETIRED:BOGUS,task-clock \
		sh -c '/bin/true; /bin/true'
	[ "$status" -eq 0 ]
	[ "$(libpfm_loads "$BATS_TEST_TMPDIR/ld")" -eq 1 ]
	said="pfshim: PFSHIM_EVENTS: unknown event 'NOT_AN_EVENT:ANY'; the event is skipped
pfshim: PFSHIM_EVENTS: libpfm4 cannot encode 'INST_RETIRED:BOGUS': invalid event attribute; the event is skipped"
	[ "$stderr" = "$said
$said
$said" ]
}

@test "libpfm4's answers are not taken where they may not hold" {
	mkdir "$BATS_TEST_TMPDIR/ld" "$BATS_TEST_TMPDIR/ld2"
	# another LIBPFM_FORCE_PMU (another CPU for libpfm4): the child asks again, and
	# gets the other model's answer
	run --separate-stderr env LD_DEBUG=files LD_DEBUG_OUTPUT="$BATS_TEST_TMPDIR/ld/ld" \
		LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" LIBPFM_FORCE_PMU=skl \
		PFSHIM_EVENTS=INST_RETIRED:ANY_P,task-clock \
		sh -c 'LIBPFM_FORCE_PMU=amd64_fam17h /bin/true'
	[ "$status" -eq 0 ]
	[ "$(libpfm_loads "$BATS_TEST_TMPDIR/ld")" -eq 2 ]
	[ "$stderr" = "pfshim: PFSHIM_EVENTS: unknown event 'INST_RETIRED:ANY_P'; the event is skipped" ]
	[ "$(reports '.program == "true" and (.events | length) == 1')" -eq 1 ]
	# a value written for another process (copied, or set by hand) is ignored and
	# removed: the program asks libpfm4 itself and never sees it
	run --separate-stderr env LD_DEBUG=files LD_DEBUG_OUTPUT="$BATS_TEST_TMPDIR/ld2/ld" \
		LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=/dev/null LIBPFM_FORCE_PMU=skl \
		PFSHIM_RESOLVED='1;1;0;18:INST_RETIRED:ANY_P=1,2,0,0,0;' \
		PFSHIM_EVENTS=INST_RETIRED:ANY_P,task-clock env
	[ "$status" -eq 0 ]
	[ "$stderr" = "" ]
	[[ "$output" != *PFSHIM_RESOLVED* ]]
	[ "$(libpfm_loads "$BATS_TEST_TMPDIR/ld2")" -eq 1 ]
	# an image that will not load the shim is not handed them
	run -0 env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=/dev/null LIBPFM_FORCE_PMU=skl \
		PFSHIM_EVENTS=INST_RETIRED:ANY_P,task-clock env -u LD_PRELOAD env
	[[ "$output" == *PFSHIM_EVENTS=* ]]
	[[ "$output" != *PFSHIM_RESOLVED* ]]
	# nor one whose exec is secure (real and effective ids apart): glibc ignores the preload
	if [ "$(id -u)" -eq 0 ]; then
		run -0 env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=/dev/null LIBPFM_FORCE_PMU=skl \
			PFSHIM_EVENTS=INST_RETIRED:ANY_P,task-clock python3 -c '
import os
os.setresuid(65534, 0, 0)
os.execv("/usr/bin/env", ["env"])'
		[[ "$output" == *PFSHIM_EVENTS=* ]]
		[[ "$output" != *PFSHIM_RESOLVED* ]]
	fi
	# a posix_spawn() whose file actions may change the working directory: handed
	# for an absolute path only (./true loads libpfm4 once more than /bin/true)
	cp /bin/true "$BATS_TEST_TMPDIR/true"
	cd "$BATS_TEST_TMPDIR"
	for path in ./true /bin/true; do
		mkdir "$BATS_TEST_TMPDIR/ld-${path##*/}-${#path}"
		run -0 env LD_DEBUG=files LD_DEBUG_OUTPUT="$BATS_TEST_TMPDIR/ld-${path##*/}-${#path}/ld" \
			LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=/dev/null \
			PFSHIM_EVENTS=perf::PERF_COUNT_SW_TASK_CLOCK python3 -c '
import os, sys
os.waitpid(os.posix_spawn(sys.argv[1], ["true"], os.environ,
                          file_actions=[(os.POSIX_SPAWN_CLOSE, 0)]), 0)' "$path"
	done
	[ "$(libpfm_loads "$BATS_TEST_TMPDIR/ld-true-6")" -eq \
		$(($(libpfm_loads "$BATS_TEST_TMPDIR/ld-true-9") + 1)) ]
}
