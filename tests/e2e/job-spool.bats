#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# job-spool.bats: `pfshim run`'s spool (preload/output/spool.h). The job's
# processes append their reports to one file the runner made and make none
# of their own; after the job the runner splits it into the file per image
# they would have written, never following or replacing anything planted in
# the directory; a record cut short is dropped, and a spool a killed runner
# left is read by `pfshim report`.

load helpers

setup() {
	need_perf
	OUT="$BATS_TEST_TMPDIR/out"
	HOST=$(uname -n)
	SPOOL="$OUT/.pfshim-spool.$HOST"
}

# json_files DIR: the report files in DIR, one a line.
json_files() {
	find "$1" -maxdepth 1 -name '*.json' -printf '%f\n' | sort
}

@test "the job's processes append to the spool and make no file; after it, one file per image with what each spooled" {
	skip_under_sanitizer "pfshim run preloads the shim beside it without the sanitizer runtime before it"
	command -v strace >/dev/null || skip "no strace"
	run -0 --separate-stderr "$BUILD/pfshim" run -e page-faults -o "$OUT" -- \
		strace -f -qq -o "$BATS_TEST_TMPDIR/trace" -e trace=openat,linkat,writev \
		sh -c '/bin/true; ls / >/dev/null'
	# the three traced processes opened the spool to append, and made no file of their own
	[ "$(grep -c "openat([0-9]*, \".pfshim-spool.$HOST\", O_WRONLY|O_APPEND" "$BATS_TEST_TMPDIR/trace")" -eq 3 ]
	! grep -q 'O_TMPFILE\|linkat(' "$BATS_TEST_TMPDIR/trace" || false
	[ ! -e "$SPOOL" ]
	# strace, its child's exec into sh, true, ls: a file each image, with its own report
	[ "$(json_files "$OUT" | wc -l)" -eq 5 ]
	for f in $(json_files "$OUT"); do
		pid=$(sed -n 's/.*\.p0*\([0-9]*\)\..*/\1/p' <<<"$f")
		[ "$(jq -r '.pid' "$OUT/$f")" = "$pid" ]
	done
	[ "$(cat "$OUT"/*.json | jq -r '"\(.program) \(.reason)"' | sort | tr '\n' ,)" = \
		"$(sh_name) exit,ls exit,strace exec,strace exit,true exit," ]
	# the runner's ledger has each report's line, 0: written
	[ "$(awk '$2 == 0' "$OUT/.pfshim-ledger" | wc -l)" -eq 5 ]
	[[ "$stderr" == *"4 processes, 5 images, 5 reports"* ]]
}

@test "an image's last record is its file: an exec keeps both images, a report then exit keeps the exit's" {
	skip_under_sanitizer "pfshim run preloads the shim beside it without the sanitizer runtime before it"
	run -0 --separate-stderr "$BUILD/pfshim" run -e page-faults -o "$OUT" -- sh -c 'exec /bin/true'
	[ "$(json_files "$OUT" | wc -l)" -eq 2 ]
	[ "$(cat "$OUT"/*.json | jq -r '"\(.pid) \(.reason)"' | sort -k2 | awk '{print $2}' | tr '\n' ' ')" = "exec exit " ]
	[ "$(cat "$OUT"/*.json | jq -r .pid | sort -u | wc -l)" -eq 1 ]
	rm -r "$OUT"
	run -0 --separate-stderr "$BUILD/pfshim" run -e page-faults -o "$OUT" -- "$PROGS/markers_report"
	[ "$output" = 0 ]
	[ "$(json_files "$OUT" | wc -l)" -eq 1 ]
	[ "$(jq -r .reason "$OUT"/*.json)" = exit ]
	[ "$(jq -r '[.regions.totals[].name] | sort | join(",")' "$OUT"/*.json)" = first,second ]
}

@test "40 processes reporting at once: every record whole, every report a file" {
	skip_under_sanitizer "pfshim run preloads the shim beside it without the sanitizer runtime before it"
	run -0 --separate-stderr "$BUILD/pfshim" run -e page-faults -o "$OUT" -- \
		sh -c 'for i in $(seq 40); do /bin/true & done; wait'
	# the shell, seq's subshell and its exec, 40 subshells and their exec of true
	[ "$(json_files "$OUT" | wc -l)" -eq 83 ]
	[[ "$stderr" != *"cut short"* ]]
	for f in "$OUT"/*.json; do jq -e '.schema == "pfshim.report"' "$f" >/dev/null; done
	[ "$(cat "$OUT"/*.json | jq -r 'select(.program == "true") | .pid' | sort -u | wc -l)" -eq 40 ]
	[ "$(awk '$2 == 0' "$OUT/.pfshim-ledger" | wc -l)" -eq 83 ]
}

@test "a spool planted at the name (a link, a FIFO, another user's, a second name): never used, nothing hangs" {
	mkdir -p "$OUT"
	echo victim >"$BATS_TEST_TMPDIR/victim"
	kinds="link fifo hardlink"
	[ "$(id -u)" -ne 0 ] || kinds="$kinds other"	# another user's file: root can make one
	for kind in $kinds; do
		rm -f "$SPOOL" "$OUT"/*.json
		case $kind in
		link) ln -s "$BATS_TEST_TMPDIR/victim" "$SPOOL" ;;
		fifo) mkfifo -m 600 "$SPOOL" ;;
		other) install -m 600 /dev/null "$SPOOL" && chown nobody "$SPOOL" ;;
		hardlink) install -m 600 /dev/null "$SPOOL" && ln "$SPOOL" "$BATS_TEST_TMPDIR/second" ;;
		esac
		run -0 --separate-stderr timeout 20 env LD_PRELOAD="$SHIM" PFSHIM_RUN=1 \
			PFSHIM_EVENTS=page-faults PFSHIM_OUTPUT="$OUT/" /bin/true
		echo "$kind: $stderr"
		[ -z "$stderr" ]
		# the report is a file of its own; the planted thing is as it was
		[ "$(json_files "$OUT" | wc -l)" -eq 1 ]
		[ "$(cat "$BATS_TEST_TMPDIR/victim")" = victim ]
		[ -L "$SPOOL" ] || [ -p "$SPOOL" ] || [ ! -s "$SPOOL" ]
		rm -f "$BATS_TEST_TMPDIR/second"
	done
}

@test "a spool a killed runner left: pfshim report reads it and skips a torn record; pfshim run does not mix a new job in" {
	mkdir -p "$OUT"
	install -m 600 /dev/null "$SPOOL"
	# a process of a job whose runner is gone appends to the spool, as any would
	run -0 env LD_PRELOAD="$SHIM" PFSHIM_RUN=1 PFSHIM_EVENTS=page-faults PFSHIM_OUTPUT="$OUT/" /bin/true
	[ "$(json_files "$OUT" | wc -l)" -eq 0 ]
	[ "$(head -c 1 "$SPOOL" | od -An -tx1 | tr -d ' ')" = 1e ]
	# a record cut short (its process killed inside its write), then a whole one
	printf '\036%s x.r-.p0000001.T.0.json 900\n{"schema":"pfshim.report","pid":1' 1.5 >>"$SPOOL"
	env LD_PRELOAD="$SHIM" PFSHIM_RUN=1 PFSHIM_EVENTS=page-faults PFSHIM_OUTPUT="$OUT/" /bin/echo hi >/dev/null
	[ -x "$BUILD/pfshim" ] || skip "build/pfshim is not built (make tool)"
	run -0 --separate-stderr "$BUILD/pfshim" report --json "$OUT"
	[ "$(jq -r '.reports' <<<"$output")" -eq 2 ]
	[ "$(jq -r '[.groups[].group] | sort | join(",")' <<<"$output")" = echo,true ]
	[[ "$stderr" == *"a report cut short in the spool (its process killed while writing it, or past its file size limit); skipped"* ]]
	# they are reports: a new run will not mix its own with them
	skip_under_sanitizer "pfshim run preloads the shim beside it without the sanitizer runtime before it"
	run -2 --separate-stderr "$BUILD/pfshim" run -e page-faults -o "$OUT" -- /bin/true
	[ "$stderr" = "pfshim run: -o $OUT: holds reports already; choose a new directory" ]
	# a spool of nothing but a torn record: the run drops it, says so, and makes its own
	rm -r "$OUT" && mkdir "$OUT"
	printf '\036%s x.r-.p0000001.T.0.json 900\n{"schema":"pfshim.report","pid":1' 1.5 >"$SPOOL"
	chmod 600 "$SPOOL"
	run -0 --separate-stderr "$BUILD/pfshim" run -e page-faults -o "$OUT" -- /bin/true
	[[ "$stderr" == *"pfshim run: 1 report was cut short in the spool and dropped (a process killed while writing it, or one past its file size limit, which then wrote a file of its own)"* ]]
	[ "$(json_files "$OUT" | wc -l)" -eq 1 ]
	[ ! -e "$SPOOL" ]
}

@test "a file size limit the spool is past: no SIGXFSZ, each report its own file; a lock held past 2 s: the same" {
	skip_under_sanitizer "pfshim run preloads the shim beside it without the sanitizer runtime before it"
	command -v strace >/dev/null || skip "no strace"
	# 4 KiB: the spool passes it after a report or two; without the shim the script exits 0
	run -0 --separate-stderr "$BUILD/pfshim" run -e page-faults -o "$OUT" -- \
		bash -c 'ulimit -f 4; for i in 1 2 3 4 5 6; do /bin/true || exit 9; done'
	[[ "$stderr" != *SIGXFSZ* ]] && [[ "$stderr" != *"killed by"* ]]
	[ "$(cat "$OUT"/*.json | jq -r 'select(.program == "true") | .pid' | sort -u | wc -l)" -eq 6 ]
	[ "$(awk '$2 == 0' "$OUT/.pfshim-ledger" | wc -l)" -eq "$(json_files "$OUT" | wc -l)" ]
	# another process holds the spool locked for 4 s: true's report waits 2 s, then is a file
	rm -r "$OUT"
	run -0 --separate-stderr "$BUILD/pfshim" run -e page-faults -o "$OUT" -- \
		sh -c 'flock -x "$0" sleep 4 & sleep 0.5; strace -qq -o "$1" -e trace=flock,linkat /bin/true; wait' \
		"$SPOOL" "$BATS_TEST_TMPDIR/trace"
	grep -Eq 'flock\([0-9]+, LOCK_SH\|LOCK_NB\) += -1 EAGAIN' "$BATS_TEST_TMPDIR/trace"
	grep -q 'linkat(.*\.json' "$BATS_TEST_TMPDIR/trace"
	[ "$(cat "$OUT"/*.json | jq -r 'select(.program == "true") | .pid' | wc -l)" -eq 1 ]
}

@test "a job's process that keeps the spool open and shrinks it while the runner reads it: the runner lives and says the job's status" {
	skip_under_sanitizer "pfshim run preloads the shim beside it without the sanitizer runtime before it"
	command -v python3 >/dev/null || skip "python3 not installed"
	# it flips the unlinked spool between 256 MiB of hole and nothing for 3 s after the job
	cat >"$BATS_TEST_TMPDIR/shrink.py" <<'PYEOF'
import os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
if os.fork():
    os._exit(3)
open(sys.argv[2], "w").write(str(os.getpid()))
end = time.time() + 3
while time.time() < end:
    os.ftruncate(fd, 256 << 20)
    os.ftruncate(fd, 0)
PYEOF
	for try in 1 2 3 4 5 6; do
		rm -rf "$OUT"
		run --separate-stderr timeout 60 "$BUILD/pfshim" run -e page-faults -o "$OUT" -- \
			python3 "$BATS_TEST_TMPDIR/shrink.py" "$SPOOL" "$BATS_TEST_TMPDIR/pid"
		echo "try $try: status $status: $stderr"
		# the job's status, never a SIGBUS of the runner's (135)
		[ "$status" -eq 3 ]
		[[ "$stderr" == *"Performance counter stats"* ]]
		kill "$(cat "$BATS_TEST_TMPDIR/pid")" 2>/dev/null || true
	done
}

@test "a directory the job fills after its processes reported: their reports kept in the spool, none lost, pfshim report reads them" {
	skip_under_sanitizer "pfshim run preloads the shim beside it without the sanitizer runtime before it"
	[ "$(id -u)" -eq 0 ] || skip "mounting a small tmpfs needs root"
	need_unshare -m
	# 20 reports spooled, then dd fills the 400 KiB file system: no room for a file per report
	mkdir "$BATS_TEST_TMPDIR/mnt"
	run --separate-stderr timeout 60 unshare -m sh -c '
		mount -t tmpfs -o size=400k tmpfs "$1" &&
		"$2/pfshim" run -e page-faults -o "$1/o" -- sh -c "for i in \$(seq 20); do /bin/true; done;
			dd if=/dev/zero of=$1/fill bs=4k 2>/dev/null; exit 0" &&
		rm "$1/fill" && "$2/pfshim" report --json "$1/o" >"$3"' \
		sh "$BATS_TEST_TMPDIR/mnt" "$BUILD" "$BATS_TEST_TMPDIR/report"
	echo "$stderr"
	[ "$status" -eq 0 ]
	# true's 20 reports are all somewhere pfshim report reads: files or what the spool kept
	[ "$(jq -r '[.groups[] | select(.group == "true") | .images] | add' "$BATS_TEST_TMPDIR/report")" -eq 20 ]
	[[ "$stderr" == *"kept in the spool"* ]]
}

@test "a spool a job's process made 1 GiB of hole: the runner holds what was written, not the hole, and every report is a file" {
	skip_under_sanitizer "pfshim run preloads the shim beside it without the sanitizer runtime before it"
	[ -x /usr/bin/time ] || skip "no /usr/bin/time (Debian time) to read the max RSS with"
	run -0 --separate-stderr timeout 120 /usr/bin/time -f '%M' -o "$BATS_TEST_TMPDIR/rss" \
		"$BUILD/pfshim" run -e page-faults -o "$OUT" -- sh -c 'truncate -s 1G "$0"; /bin/true' "$SPOOL"
	# sh, truncate, true: their records after the hole, each a file, nothing torn
	[ "$(json_files "$OUT" | wc -l)" -eq 3 ]
	[[ "$stderr" != *"cut short"* ]]
	echo "max RSS $(cat "$BATS_TEST_TMPDIR/rss") KiB"
	[ "$(cat "$BATS_TEST_TMPDIR/rss")" -lt $((64 * 1024)) ]
}
