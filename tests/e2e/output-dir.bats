#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# output-dir.bats: PFSHIM_OUTPUT templates (%r %t %n) and directories: one
# whole file per process image, names that sort by host, rank and pid and
# never collide, and no partial file whatever instant a process is killed.

load helpers

setup() {
	need_perf
	OUT="$BATS_TEST_TMPDIR/out"
	cd "$BATS_TEST_TMPDIR"
}

# indir [VAR=VALUE...] COMMAND...: JSON reports into $OUT/ (created by the shim).
indir() {
	env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock,page-faults PFSHIM_FORMAT=json \
		PFSHIM_OUTPUT="$OUT/" "$@"
}

@test "%r takes the launchers' rank variables in order, %t the start time, %n a free number" {
	env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock PFSHIM_FORMAT=json \
		PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/r%r.%t.%n" SLURM_PROCID=9 PMI_RANK=5 /bin/true
	env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock PFSHIM_FORMAT=json \
		PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/r%r.%n" OMPI_COMM_WORLD_RANK=2 PMIX_RANK=3 /bin/true
	env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock PFSHIM_FORMAT=json \
		PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/r%r.%n" OMPI_COMM_WORLD_RANK=2 /bin/true
	env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock PFSHIM_FORMAT=json \
		PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/none%r.%n" /bin/true
	f=$(ls r5.*.0)
	[[ "$f" =~ ^r5\.[0-9]{8}T[0-9]{6}Z\.0$ ]]
	# the time in the name is the report's start time, to the second
	start=$(jq -r '.start_time' "$f")
	[ "${f:3:15}" = "$(date -u -d "$start" +%Y%m%dT%H%M%S)" ]
	[ "$(jq '.rank' "$f")" = 5 ]
	[ -f r2.0 ] && [ -f r2.1 ]	# %n: a second process, a second file
	[ "$(jq '.rank' r2.0)" = 2 ] && [ "$(jq '.rank' r2.1)" = 2 ]
	[ "$(jq '.rank' none.0)" = null ]
}

@test "a directory is created with its parents, one file per process, named HOST.rRANK.pPID.TIME.N.json" {
	OUT="$BATS_TEST_TMPDIR/a/b/out"
	run -0 indir PMI_RANK=12 sh -c '/bin/true; /bin/true'
	[ -z "$output" ]
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/a")" = "$(printf '%o' $((0777 & ~$(umask))))" ]
	n=0
	for f in "$OUT"/*; do
		n=$((n + 1))
		name=$(basename "$f")
		pid=$(jq .pid "$f")
		[[ "$name" == "$(uname -n).r000012.p$(printf %07d "$pid").20"*Z.[0-9]*.json ]]
		jq -e '.rank == 12 and .schema == "pfshim.report"' "$f"
	done
	[ "$n" -eq "$(jq -s length "$OUT"/*)" ]
	[ "$n" -ge 3 ]
}

@test "the JSON carries what a combiner needs: rank, host, pid, ppid, program, argv0, start time" {
	indir OMPI_COMM_WORLD_RANK=4 "$PROGS/touch_pages" 10
	jq -e --arg h "$(uname -n)" '.rank == 4 and .hostname == $h and (.pid | type) == "number"
		and (.ppid | type) == "number" and .program == "touch_pages"
		and (.argv0 | endswith("touch_pages")) and (.start_time | test("Z$"))
		and (.start_ns | type) == "number"' "$OUT"/*.json
}

@test "50 concurrent processes never collide" {
	for i in $(seq 50); do indir /bin/true & done
	wait
	[ "$(ls "$OUT" | wc -l)" -eq 50 ]
	[ "$(jq -s 'map(.pid) | unique | length' "$OUT"/*.json)" -eq 50 ]
}

@test "fork children and the exec'd images of one pid get files of their own" {
	run -0 indir "$PROGS/fork_children" 5 10
	[ "$(jq -s 'map(select(.program == "fork_children")) | length' "$OUT"/*.json)" -eq 6 ]
	rm -r "$OUT"
	# exec_chain execs /bin/true: two images of one pid, started the same second
	indir "$PROGS/exec_chain" execve /bin/true
	[ "$(ls "$OUT" | wc -l)" -eq 2 ]
	[ "$(jq -s 'map(.pid) | unique | length' "$OUT"/*.json)" -eq 1 ]
	jq -s -e 'map(.reason) | sort == ["exec", "exit"]' "$OUT"/*.json
}

@test "later reports of one image replace its file: one file, the last report" {
	indir "$PROGS/report_loop" 30
	[ "$(ls -A "$OUT" | wc -l)" -eq 1 ]
	jq -e '.reason == "exit"' "$OUT"/*.json
}

@test "16 threads' explicit reports at once: all 3,201 written, one file, the exit report last" {
	# 16 threads x 200 pfshim_report() at once, then the exit report. Before, 50 to 90 of
	# them per run failed (EEXIST, ENOENT: the threads shared the hidden name a report is
	# renamed from, and the name of the image's file) and went to stderr, and two first
	# reports at once could each publish a file of their own.
	mkdir -p "$OUT"
	: >"$OUT/.pfshim-ledger"	# each report's outcome, "PID ERRNO" (0: written)
	run --separate-stderr timeout 120 env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock,page-faults \
		PFSHIM_FORMAT=json PFSHIM_OUTPUT="$OUT/" "$PROGS/markers_report_race" 16 200
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(wc -l <"$OUT/.pfshim-ledger")" -eq 3201 ]
	[ "$(awk '$2 == 0' "$OUT/.pfshim-ledger" | wc -l)" -eq 3201 ]
	[ "$(cut -d' ' -f1 "$OUT/.pfshim-ledger" | sort -u | wc -l)" -eq 1 ]
	# one file, nothing hidden left beside it: the exit report, with every thread's region
	[ "$(find "$OUT" -type f ! -name .pfshim-ledger | wc -l)" -eq 1 ]
	f=$(find "$OUT" -type f -name '*.json')
	[ "$(jq -r '.reason' "$f")" = exit ]
	[ "$(jq -c '.regions.totals | map(select(.name == "work")) | .[0] | [.threads, .calls]' \
		"$f")" = "[16,16]" ]
	[ "$(jq '.pid' "$f")" -eq "$(cut -d' ' -f1 "$OUT/.pfshim-ledger" | head -1)" ]
	# without the ledger a lost report would say so on stderr: nothing there either
	rm -r "$OUT"
	run --separate-stderr timeout 120 env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock \
		PFSHIM_FORMAT=json PFSHIM_OUTPUT="$OUT/" "$PROGS/markers_report_race" 16 200
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(find "$OUT" -type f | wc -l)" -eq 1 ]
	[ "$(jq -r '.reason' "$OUT"/*.json)" = exit ]
}

@test "200 kill -9 at random instants: every file is a whole report, none partial" {
	events=task-clock,page-faults,context-switches,cpu-migrations,minor-faults,major-faults
	# 0-9.9 ms after the start; a sanitizer's runtime starts far slower (70 ms for /bin/true
	# under ASan: all 200 were killed before their first report): 0-399 ms there
	scale=0.00
	for i in $(seq 200); do
		(
			env LD_PRELOAD="$SHIM" PFSHIM_EVENTS="$events,$events" PFSHIM_FORMAT=json \
				PFSHIM_OUTPUT="$OUT/" "$PROGS/report_loop" 0 &
			pid=$!
			[ -z "${PFSHIM_SANITIZER:-}" ] || scale=0.$((RANDOM % 4))
			sleep "$scale$((RANDOM % 10))$((RANDOM % 10))"
			kill -9 "$pid"
			wait "$pid"
		) 2>/dev/null || true
	done
	files=$(find "$OUT" -type f | wc -l)
	hidden=$(find "$OUT" -type f -name '.*' | wc -l)
	whole=0
	for f in $(find "$OUT" -type f); do
		jq -e '.schema == "pfshim.report"' "$f" >/dev/null && whole=$((whole + 1))
	done
	echo "# 200 kills: $files files ($hidden hidden .tmp), $whole whole, $((files - whole)) partial" >&3
	[ "$files" -gt 0 ]
	[ "$whole" -eq "$files" ]
	# published names: one per process at most; anything else is a hidden whole .tmp
	[ "$(find "$OUT" -type f -name '*.json' ! -name '.*' | wc -l)" -le 200 ]
	[ -z "$(find "$OUT" -type f ! -name '*.json' ! -name '.*.json.[0-9]*.tmp')" ]
}

@test "main calls pthread_exit(): the exit report still goes into the directory" {
	# the report is written by the last thread, the leader a zombie, whose
	# /proc/self/fd/ is gone (ENOENT): the file is linked by /proc/thread-self/fd/
	dir="$BATS_TEST_TMPDIR/out/"
	run -0 timeout -s KILL 10 env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock \
		PFSHIM_OUTPUT="$dir" "$PROGS/main_leaves" 1 50
	[ "$output" = atexit ]
	[ "$(ls "$dir" | wc -l)" -eq 1 ]
	jq -e '.reason == "exit" and .exit_status == 0 and .program == "main_leaves"' "$dir"*.json
}

@test "a directory that cannot be made: one pfshim line, the report on stderr" {
	: >"$BATS_TEST_TMPDIR/file"
	run -0 env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/file/sub/" /bin/true
	[[ "$output" == *"pfshim: cannot write a report into '$BATS_TEST_TMPDIR/file/sub/' (ENOTDIR); report written to stderr"* ]]
	# in the directory's format: JSON, PFSHIM_FORMAT being unset
	[[ "$output" == *'"schema":"pfshim.report"'*'"program":"true"'* ]]
}
