#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# A program that sandboxes itself with a seccomp filter (as Chromium's and
# systemd's sandboxes do) lives on under the shim: after the filter the shim
# makes no system call but read(2) of its counters and write(2) of the report
# to a descriptor it opened before (docs/usage.md, "Sandboxes (seccomp)").
# tests/progs/sandboxed.c allows exactly read, write and exit_group, and
# kills (SIGSYS, status 159) or answers EPERM for anything else.

load helpers

# sandboxed [VAR=VALUE...] -- ARGS...: the program under the shim (none
# with NOSHIM=1), stdout to $OUT, stderr to $ERR (files: see "a pipe"
# below), its status in $rc. Bounded: a hang is a failure, not a stall.
sandboxed() {
	local vars=()
	while [ "$1" != -- ]; do vars+=("$1"); shift; done
	shift
	OUT="$BATS_TEST_TMPDIR/out" ERR="$BATS_TEST_TMPDIR/err"
	rc=0
	if [ "${NOSHIM:-}" = 1 ]; then
		timeout 20 env "${vars[@]}" "$PROGS/sandboxed" "$@" >"$OUT" 2>"$ERR" || rc=$?
	else
		timeout 20 env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json "${vars[@]}" \
			"$PROGS/sandboxed" "$@" >"$OUT" 2>"$ERR" || rc=$?
	fi
	echo "status $rc; stdout: $(cat "$OUT"); stderr:"
	cat "$ERR"
}

setup() {
	REPORTS="$BATS_TEST_TMPDIR/reports.jsonl"
	NOSHIM=1 sandboxed -- kill
	[ "$(cat "$OUT")" != "no seccomp filter" ] || skip "no seccomp filters on this kernel"
	[ "$(cat "$OUT")" != "no PR_SET_NO_NEW_PRIVS" ] || skip "no PR_SET_NO_NEW_PRIVS"
}

# The one exit report of the program in $ERR, whole: one JSON line, nothing else.
exit_report_alone() {
	[ "$(wc -l <"$ERR")" -eq 1 ]
	[ "$(jq -r '[.program, .reason, .ppid > 1] | @tsv' "$ERR")" = "$(printf 'sandboxed\texit\ttrue')" ]
	[ "$(jq -r '.events[] | select(.name == "page-faults") | .status' "$ERR")" = counted ]
}

@test "without the shim the program lives under its own filter: done, status 0" {
	for action in kill eperm; do
		NOSHIM=1 sandboxed -- "$action"
		[ "$rc" -eq 0 ]
		[ "$(cat "$OUT")" = done ]
		[ ! -s "$ERR" ]
	done
}

@test "kill-by-default and EPERM filters: status 0, done, and the exit report whole on stderr" {
	for action in kill eperm; do
		for how in seccomp tsync prctl; do
			sandboxed -- "$action" "$how"
			[ "$rc" -eq 0 ]
			[ "$(cat "$OUT")" = done ]
			exit_report_alone
		done
	done
}

@test "under the filter: argv, cwd and exit status from before it, no CPU times (getrusage is not made)" {
	(cd "$BATS_TEST_TMPDIR" && sandboxed -- kill seccomp)
	[ "$rc" -eq 0 ]
	exit_report_alone
	jq -e --arg p "$PROGS/sandboxed" --arg d "$BATS_TEST_TMPDIR" '
		.argv == [$p, "kill", "seccomp"] and .cwd == $d and .exit_status == 0 and
		.user_ns == null and .system_ns == null' "$ERR"
}

@test "the text report too: whole, from its first line to 'reported at exit'" {
	sandboxed PFSHIM_FORMAT=text -- kill
	[ "$rc" -eq 0 ]
	[ "$(sed -n 2p "$ERR")" = " pfshim: Performance counter stats for 'sandboxed' (pid $(
		grep -o 'pid [0-9]*' "$ERR" | head -1 | cut -d' ' -f2), exit):" ]
	[[ "$(sed '/^$/d; /^ pfshim: .:u. events count user space only/d' "$ERR" | tail -n 1)" == " pfshim: reported at exit by pfshim "* ]]
	[ "$(grep -c '^ *[0-9.]* *page-faults' "$ERR")" -eq 1 ]
}

@test "PFSHIM_OUTPUT=FILE under the filter: no file, one line saying why, the report on stderr" {
	for action in kill eperm; do
		file="$BATS_TEST_TMPDIR/r-$action.json"
		sandboxed PFSHIM_OUTPUT="$file" -- "$action"
		[ "$rc" -eq 0 ]
		[ "$(cat "$OUT")" = done ]
		[ ! -e "$file" ]
		[ "$(head -n 1 "$ERR")" = "pfshim: cannot write a report to '$file' under the program's seccomp filter (after it pfshim makes no system call but read and write); report written to stderr" ]
		[ "$(wc -l <"$ERR")" -eq 2 ]
		[ "$(tail -n 1 "$ERR" | jq -r .reason)" = exit ]
	done
}

@test "PFSHIM_OUTPUT=DIR/ under the filter: nothing in it, one line saying why, the report on stderr" {
	dir="$BATS_TEST_TMPDIR/reports/"
	mkdir "$dir"
	sandboxed PFSHIM_OUTPUT="$dir" -- kill
	[ "$rc" -eq 0 ]
	[ "$(cat "$OUT")" = done ]
	[ -z "$(ls -A "$dir")" ]
	[ "$(head -n 1 "$ERR")" = "pfshim: cannot write a report to '$dir' under the program's seccomp filter (after it pfshim makes no system call but read and write); report written to stderr" ]
	[ "$(tail -n 1 "$ERR" | jq -r .reason)" = exit ]
}

@test "a descendant of a job under the filter: status 0, nothing on its streams, no report" {
	run --separate-stderr timeout 20 env LD_PRELOAD="$SHIM" XDG_RUNTIME_DIR="$BATS_TEST_TMPDIR" \
		sh -c '"$1" kill 2>"$2"; echo "rc=$?"' sh "$PROGS/sandboxed" "$BATS_TEST_TMPDIR/child-err"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'done\nrc=0')" ]
	[ ! -s "$BATS_TEST_TMPDIR/child-err" ]
	[ -z "$(find "$BATS_TEST_TMPDIR/pfshim" -name '*.json' 2>/dev/null)" ]
}

@test "PFSHIM_INTERVAL with a TSYNC filter: the shim's thread stops first, the program lives" {
	sandboxed PFSHIM_INTERVAL=10ms -- kill tsync 100000000
	[ "$rc" -eq 0 ]
	[ "$(cat "$OUT")" = done ]
	[ "$(grep -c '^pfshim:' "$ERR")" -eq 1 ]
	grep -qx "pfshim: PFSHIM_INTERVAL: interval reports stop here: the program installs a seccomp filter on all its threads (TSYNC), under which the shim's thread could not sleep; the final report still comes" "$ERR"
	[ "$(grep -v '^pfshim:' "$ERR" | jq -r .reason | tail -n 1)" = exit ]
}

@test "PFSHIM_INTERVAL with a filter on the main thread alone: every report whole, the last at exit" {
	sandboxed PFSHIM_INTERVAL=10ms -- kill seccomp 100000000
	[ "$rc" -eq 0 ]
	[ "$(cat "$OUT")" = done ]
	[ "$(grep -c '^pfshim:' "$ERR")" -eq 0 ]
	jq -e . "$ERR" >/dev/null
	[ "$(jq -r .reason "$ERR" | tail -n 1)" = exit ]
	[ "$(jq -r .reason "$ERR" | grep -vc -e interval -e exit)" -eq 0 ]
}

@test "PFSHIM_ON_FATAL=1: a fault after the filter dies of SIGSEGV, as without the shim" {
	for action in kill eperm; do
		NOSHIM=1 sandboxed -- "$action" seccomp 0 segv
		[ "$rc" -eq 139 ]
		sandboxed PFSHIM_ON_FATAL=1 -- "$action" seccomp 0 segv
		[ "$rc" -eq 139 ]
		[ ! -s "$OUT" ]
		[ ! -s "$ERR" ]
	done
}

@test "stderr a pipe: a report that could raise SIGPIPE is not written; with SIGPIPE ignored it is" {
	run timeout 20 bash -c 'LD_PRELOAD="$1" PFSHIM_FORMAT=json "$2" kill 2>&1 | cat; echo "rc=${PIPESTATUS[0]}"' \
		sh "$SHIM" "$PROGS/sandboxed"
	[ "$output" = "$(printf 'done\nrc=0')" ]
	run timeout 20 bash -c 'trap "" PIPE; LD_PRELOAD="$1" PFSHIM_FORMAT=json "$2" kill 2>&1 | cat; echo "rc=${PIPESTATUS[0]}"' \
		sh "$SHIM" "$PROGS/sandboxed"
	[ "${lines[0]}" = done ]
	[ "$(printf '%s\n' "${lines[1]}" | jq -r .reason)" = exit ]
	[ "${lines[2]}" = rc=0 ]
}
