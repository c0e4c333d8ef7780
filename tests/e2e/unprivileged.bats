#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# An unprivileged user at perf_event_paranoid 2 may count only user space:
# the shim retries with exclude_kernel and says so, as perf stat does.

load helpers

setup() {
	need_perf
	[ "$(id -u)" -eq 0 ] || skip "needs root to switch user and set perf_event_paranoid"
	command -v setpriv >/dev/null || skip "setpriv (util-linux) not installed"
	SAVED_PARANOID=$(cat /proc/sys/kernel/perf_event_paranoid)
	echo 2 >/proc/sys/kernel/perf_event_paranoid
	DIR=$(mktemp -d /tmp/pfshim-unpriv.XXXXXX)
	cp "$SHIM_LIB" "$PROGS/touch_pages" "$PROGS/markers_nested" "$DIR/"
	chmod 755 "$DIR" "$DIR"/*
	REPORTS="$DIR/reports.jsonl"
	: >"$REPORTS"
	chmod 666 "$REPORTS"
}

teardown() {
	[ -n "${SAVED_PARANOID:-}" ] && echo "$SAVED_PARANOID" >/proc/sys/kernel/perf_event_paranoid
	rm -rf "${DIR:-/nonexistent}"
}

as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups env LD_PRELOAD="${PFSHIM_PRELOAD:+$PFSHIM_PRELOAD }$DIR/libpfshim.so" \
		PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" "$@"
}

@test "paranoid 2: events are reopened user-only and marked so" {
	run as_nobody PFSHIM_EVENTS=task-clock,page-faults,context-switches "$DIR/touch_pages" 3000
	[ "$status" -eq 0 ]
	[ "$(field task-clock user_only)" = true ]
	[ "$(field task-clock status)" = counted ]
	[ "$(field page-faults status)" = counted ]
	# Faults of user-space writes are still counted in user-only mode.
	[ "$(value page-faults)" -ge 3000 ]
}

@test "paranoid 2: context-switches is said to be always 0, not shown as a plausible 0" {
	run as_nobody PFSHIM_EVENTS=context-switches,cpu-migrations,task-clock "$DIR/touch_pages" 1
	[ "$(field context-switches zero_when_user_only)" = true ]
	[ "$(field cpu-migrations zero_when_user_only)" = true ]
	[ "$(field task-clock zero_when_user_only)" = false ]
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups \
		env LD_PRELOAD="${PFSHIM_PRELOAD:+$PFSHIM_PRELOAD }$DIR/libpfshim.so" PFSHIM_EVENTS=context-switches "$DIR/touch_pages" 1
	echo "$stderr"
	[[ "$stderr" == *"context-switches"* ]]
	[[ "$stderr" == *"user"* ]]
}

@test "an explicit :u modifier is honoured without a retry" {
	run as_nobody PFSHIM_EVENTS=task-clock:u "$DIR/touch_pages" 1
	[ "$(field task-clock:u status)" = counted ]
	[ "$(field task-clock:u user_only)" = false ]
}

@test "paranoid 2: each thread's marker groups open user-only, like the totals" {
	run as_nobody PFSHIM_EVENTS=task-clock,page-faults "$DIR/markers_nested" 100 50
	[ "$status" -eq 0 ]
	[ "$(field task-clock user_only)" = true ]
	# Without the totals' exclude_kernel the thread's open would fail with EACCES.
	[ "$(jq -r '.regions.threads[0].open_error' "$REPORTS")" = null ]
	[ "$(jq '.regions.threads[0].regions[] | select(.name == "inner") | .events[1].value' \
		"$REPORTS")" -ge 50 ]
}

# pfshim_run_as_nobody ARGS...: pfshim run ARGS as uid 65534 from a home of its own
# ($DIR/home: its cache, TMPDIR and working directory), into run's $status and $stderr.
pfshim_run_as_nobody() {
	cp "$BUILD/pfshim" "$DIR/"
	chmod 755 "$DIR/pfshim"
	mkdir "$DIR/home"
	chown 65534:65534 "$DIR/home"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups env -C "$DIR/home" \
		HOME="$DIR/home" XDG_CACHE_HOME="$DIR/home/cache" TMPDIR="$DIR/home" \
		"$DIR/pfshim" run "$@"
	echo "$stderr"
}

# A program its user may execute but not read (mode 0711) leaves the process not dumpable: the
# kernel stops counting it at the exec (for perf stat too), while the loader still preloads the
# shim there and it reports. Its row then holds what the totals do not: said, and "in no row"
# not known rather than clamped to 0.
@test "a program its user may run but not read: reported, not in the totals, said so" {
	skip_under_sanitizer "pfshim run copied without the sanitizer runtime's preload"
	cp "$DIR/touch_pages" "$DIR/secret"
	chmod 0711 "$DIR/secret"
	pfshim_run_as_nobody -e page-faults -o "$DIR/home/r" -- sh -c "'$DIR/secret' 3000; true"
	[ "$status" -eq 0 ]
	grep -q "^ pfshim: 1 process the kernel stopped counting at an exec reported all the same (secret): " <<<"$stderr"
	grep -Eq '^ in no row +not known$' <<<"$stderr"
	run -0 "$BUILD/pfshim" report --any-owner --json "$DIR/home/r"
	[ "$(jq -c '[.job.uncounted_reported, .job.uncounted_reported_programs]' <<<"$output")" = '[1,["secret"]]' ]
	# its 3000 pages in its row, not in the kernel's total
	[ "$(jq '.job.events[] | select(.name == "page-faults:u" or .name == "page-faults") | .value' <<<"$output")" -lt 3000 ]
}

# pfshim run names each process of the job from the kernel's records (a dummy event's
# FORK, COMM and EXIT), which a user at paranoid 2 may open only excluding the kernel:
# opened as root opens it, every process was unnamed ("0 processes counted by the kernel").
@test "paranoid 2: pfshim run names the job's processes, a killed one too" {
	skip_under_sanitizer "pfshim run copied without the sanitizer runtime's preload"
	pfshim_run_as_nobody -e page-faults -- sh -c 'sleep 0.2 & sleep 5 & kill -9 $!; wait; true'
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"(3 processes counted by the kernel; 2 processes, "* ]]
	# killed before or after its exec of sleep
	grep -Eq "^ pfshim: 1 process that loaded the shim but left no report \((sh|sleep)\)" <<<"$stderr"
	! grep -q "could not name" <<<"$stderr"
}
