#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Tracepoints (subsys:name, from tracefs) counted like any event, with exact
# counts; the counting modifiers on real opens. tracefs is not mounted on the
# build machines by default: as root, the suite mounts it and unmounts it
# after, only if it was the one to mount it. The shim itself never mounts.

load helpers

TRACEFS=/sys/kernel/tracing

setup_file() {
	export MOUNTED_HERE=0
	if [ "$(id -u)" -eq 0 ] && [ ! -e "$TRACEFS/events" ] &&
	   mount -t tracefs nodev "$TRACEFS" 2>/dev/null; then
		export MOUNTED_HERE=1
	fi
}

teardown_file() {
	if [ "${MOUNTED_HERE:-0}" = 1 ]; then
		umount "$TRACEFS"
	fi
}

# Tests that count real tracepoints: root, with tracefs there.
need_tracefs() {
	[ "$(id -u)" -eq 0 ] || skip "needs root to read tracefs (its files are root's only)"
	[ -e "$TRACEFS/events/syscalls" ] || skip "tracefs is not mounted and could not be mounted"
}

@test "a program that calls write() N times has exactly N syscalls:sys_enter_write" {
	need_tracefs
	# strace -c and perf stat agree: the C runtime writes nothing of its own,
	# and the shim's report is written after the counters are read.
	for n in 0 1 1000; do
		: >"$REPORTS"
		shim PFSHIM_EVENTS=syscalls:sys_enter_write,syscalls:sys_exit_write \
			"$PROGS/write_fork" "$n" 0
		[ "$(value syscalls:sys_enter_write)" -eq "$n" ]
		[ "$(value syscalls:sys_exit_write)" -eq "$n" ]
		[ "$(field syscalls:sys_enter_write status)" = counted ]
	done
}

@test "N forks are exactly N sched:sched_process_fork, and the writes beside them" {
	need_tracefs
	shim PFSHIM_EVENTS='sched:sched_process_fork,{syscalls:sys_enter_write,task-clock}' \
		"$PROGS/write_fork" 37 7
	# The parent's report, and one per child (a child counts its own: none).
	[ "$(reports)" -eq 8 ]
	[ "$(jq -s '[.[] | .events[] | select(.name == "sched:sched_process_fork") | .value] | sort' "$REPORTS" | jq -c .)" = "[0,0,0,0,0,0,0,7]" ]
	[ "$(jq -s '[.[] | .events[] | select(.name == "syscalls:sys_enter_write") | .value] | sort' "$REPORTS" | jq -c .)" = "[0,0,0,0,0,0,0,37]" ]
}

@test "a glob is every matching tracepoint, each its own event, sorted as perf sorts them" {
	need_tracefs
	expected=$(cd "$TRACEFS/events/block" && for d in *; do
		[ -f "$d/id" ] && echo "block:$d"; done | LC_ALL=C sort)
	shim PFSHIM_EVENTS='block:*' "$PROGS/write_fork" 1 0
	got=$(jq -r '.events[].name' "$REPORTS")
	[ -n "$expected" ]
	[ "$got" = "$expected" ]
	[ "$(jq '[.events[] | select(.status != "counted")] | length' "$REPORTS")" -eq 0 ]
	: >"$REPORTS"
	shim PFSHIM_EVENTS='syscalls:sys_*_write:u' "$PROGS/write_fork" 5 0
	[ "$(jq -r '[.events[].name] | join(",")' "$REPORTS")" = \
	  "syscalls:sys_enter_write:u,syscalls:sys_exit_write:u" ]
	[ "$(value syscalls:sys_enter_write:u)" -eq 5 ]
}

@test "an unknown tracepoint: did you mean, and the other events still counted" {
	need_tracefs
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" \
		PFSHIM_EVENTS=sched:sched_swich,page-faults "$PROGS/write_fork" 1 0
	[ "$status" -eq 0 ]
	[ "$stderr" = "pfshim: PFSHIM_EVENTS: unknown tracepoint 'sched_swich' in subsystem 'sched' of 'sched:sched_swich' (did you mean 'sched_switch'?); the event is skipped" ]
	[ "$(field page-faults status)" = counted ]
}

@test "no tracefs: one line says how to mount it, the program runs as without the shim" {
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_TRACEFS_ROOT=/nonexistent \
		PFSHIM_EVENTS=sched:sched_switch,task-clock PFSHIM_FORMAT=json \
		PFSHIM_OUTPUT="$REPORTS" "$PROGS/write_fork" 3 0
	[ "$status" -eq 0 ]
	[ "$stderr" = "pfshim: PFSHIM_EVENTS: 'sched:sched_switch': no tracefs events directory in /nonexistent; the event is skipped" ]
	[ "$(jq -r '[.events[].name] | join(",")' "$REPORTS")" = task-clock ]
}

@test "tracefs root's only: an unprivileged user is told so, the rest counts" {
	need_tracefs
	command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"
	[ "$(stat -c %a "$TRACEFS")" = 700 ] || skip "tracefs here is readable by others"
	dir=$(mktemp -d /tmp/pfshim-tracefs.XXXXXX)
	cp "$SHIM_LIB" "$PROGS/write_fork" "$dir/"
	chmod 755 "$dir" "$dir"/*
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		env LD_PRELOAD="${PFSHIM_PRELOAD:+$PFSHIM_PRELOAD }$dir/libpfshim.so" \
		PFSHIM_EVENTS=syscalls:sys_enter_write,page-faults PFSHIM_OUTPUT=/dev/null \
		"$dir/write_fork" 3 0
	rm -rf "$dir"
	[ "$status" -eq 0 ]
	[ "$stderr" = "pfshim: PFSHIM_EVENTS: 'syscalls:sys_enter_write': tracefs (/sys/kernel/tracing) is not readable by this user (its files are root's only by default: run as root, or mount it with gid= of one of your groups); the event is skipped" ]
}

@test "D pins a group on its leader only (a pinned member is EINVAL): both count" {
	shim PFSHIM_EVENTS='{task-clock,page-faults}:D' "$PROGS/write_fork" 1 0
	[ "$(field task-clock:D status)" = counted ]
	[ "$(field page-faults:D status)" = counted ]
}

@test "I, e, H, G, S and W open and count on software events" {
	shim PFSHIM_EVENTS='{task-clock,page-faults}:eIS,minor-faults:H,major-faults:G,{cs,cpu-clock}:W' \
		"$PROGS/write_fork" 1 0
	for e in task-clock:eIS page-faults:eIS minor-faults:H major-faults:G cs:W cpu-clock:W; do
		[ "$(field "$e" status)" = counted ]
	done
}

@test "p is said to be for sampling only, and the event is counted without it" {
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=page-faults:pp \
		PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" "$PROGS/write_fork" 1 0
	[ "$status" -eq 0 ]
	[ "$stderr" = "pfshim: PFSHIM_EVENTS: modifier 'pp' of 'page-faults:pp' is for sampling only (precise_ip): counted without it" ]
	[ "$(field page-faults:pp status)" = counted ]
}

@test "name= names the event in the report; period= is said to be for sampling only" {
	run --separate-stderr env LD_PRELOAD="$SHIM" \
		PFSHIM_EVENTS='software/config=2,name=faults,period=1000/' \
		PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" "$PROGS/write_fork" 1 0
	[ "$status" -eq 0 ]
	[ "$stderr" = "pfshim: PFSHIM_EVENTS: term 'period' in 'software/config=2,name=faults,period=1000/' is for sampling only: ignored for counting" ]
	[ "$(field faults status)" = counted ]
}

# attr FIELD CONFIG: FIELD of the perf_event_open(2) of CONFIG in $TRACE (strace -v).
attr() {
	grep "config=$2," "$TRACE" | grep -o "[ {]$1=[0-9]*" | cut -d= -f2 | head -1
}

@test "each modifier reaches perf_event_open(2) as its attr bit, D on leaders only" {
	command -v strace >/dev/null || skip "strace not installed"
	TRACE="$BATS_TEST_TMPDIR/trace"
	env PFSHIM_OUTPUT=/dev/null \
		PFSHIM_EVENTS='{task-clock,page-faults}:D,minor-faults:e,major-faults:I,cs:G,cpu-migrations:H,alignment-faults:ppp,emulation-faults,cpu-clock:D' \
		strace -qq -o "$TRACE" -e trace=perf_event_open -e signal=none -v \
		env LD_PRELOAD="$SHIM" "$PROGS/write_fork" 1 0 2>/dev/null
	[ "$(attr pinned PERF_COUNT_SW_TASK_CLOCK)" = 1 ]	# the group's leader
	[ "$(attr pinned PERF_COUNT_SW_PAGE_FAULTS)" = 0 ]	# its member: EINVAL if pinned
	[ "$(attr pinned PERF_COUNT_SW_CPU_CLOCK)" = 1 ]	# not first, so a group of its own
	[ "$(attr exclusive PERF_COUNT_SW_PAGE_FAULTS_MIN)" = 1 ]
	[ "$(attr exclude_idle PERF_COUNT_SW_PAGE_FAULTS_MAJ)" = 1 ]
	[ "$(attr exclude_host PERF_COUNT_SW_CONTEXT_SWITCHES)" = 1 ]
	[ "$(attr exclude_guest PERF_COUNT_SW_CONTEXT_SWITCHES)" = 0 ]
	[ "$(attr exclude_guest PERF_COUNT_SW_CPU_MIGRATIONS)" = 1 ]
	[ "$(attr exclude_host PERF_COUNT_SW_CPU_MIGRATIONS)" = 0 ]
	[ "$(attr precise_ip PERF_COUNT_SW_ALIGNMENT_FAULTS)" = 0 ]
	for f in pinned exclusive exclude_idle exclude_host exclude_guest precise_ip; do
		[ "$(attr $f PERF_COUNT_SW_EMULATION_FAULTS)" = 0 ]
	done
}
