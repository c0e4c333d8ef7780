#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# job-storage.bats: a job's storage (docs/usage.md, "A process tree is one
# job") is bounded and cleaned, and when it fails (full, out of inodes,
# removed mid-job) no descendant speaks on its streams: scripts that read
# `$(cmd 2>&1)` get the same answers as without the shim, and the root says
# what was lost.

load helpers

setup() {
	job_setup
}

# A script's captures: "changed" for every one that is not empty.
CAPTURES='for i in $(seq 40); do x=$(/bin/true 2>&1); [ -z "$x" ] || echo "changed: $x"; done; echo end'

# in_tmpfs OPTIONS SCRIPT ARGS...: SCRIPT in a private mount namespace where $RUN is a
# fresh tmpfs mounted with OPTIONS (mode 0700, $RUN/pfshim made in it), $1 being $RUN.
in_tmpfs() {
	unshare -m true 2>/dev/null || skip "unshare -m not possible here (needs root)"
	local options=$1 script=$2
	shift 2
	unshare -m sh -c 'mount --make-rprivate / &&
		mount -t tmpfs -o "$0,mode=0700" tmpfs "$1" && mkdir -m 0700 "$1/pfshim" &&
		'"$script" "$options" "$RUN" "$@"
}

@test "a full tmpfs: every capture as without the shim; the root says reports were lost" {
	need_unshare -m
	without=$(sh -c "$CAPTURES" 2>&1)
	run -0 --separate-stderr in_tmpfs size=64k '
		{ head -c 1048576 /dev/zero >"$1/filler" 2>/dev/null; true; } &&
		LD_PRELOAD="$2" PFSHIM_EVENTS=task-clock sh -c "$3"' "$SHIM" "$CAPTURES"
	[ "$output" = "$without" ]
	[ "$output" = end ]
	[[ "$stderr" == *"pfshim: 0 reports of descendant processes in $RUN/pfshim/job-"* ]]
	[[ "$stderr" == *"pfshim: reports of descendant processes were lost ($RUN/pfshim: it is full)"* ]]
	[ "$(grep -c 'Performance counter stats' <<<"$stderr")" -eq 1 ]
}

@test "a tmpfs out of inodes: every capture as without the shim; the root says the job has no directory" {
	need_unshare -m
	without=$(sh -c "$CAPTURES" 2>&1)
	run -0 --separate-stderr in_tmpfs size=4m,nr_inodes=64 '
		i=0; while touch "$1/f$i" 2>/dev/null; do i=$((i+1)); done &&
		LD_PRELOAD="$2" PFSHIM_EVENTS=task-clock sh -c "$3"' "$SHIM" "$CAPTURES"
	[ "$output" = "$without" ]
	[[ "$stderr" == *"pfshim: no job directory ($RUN/pfshim: ENOSPC): the reports of descendant processes were dropped; set PFSHIM_OUTPUT to keep them"* ]]
	[ "$(grep -c 'Performance counter stats' <<<"$stderr")" -eq 1 ]
	# room for the root's job directory and crumb only: the descendants find the job through
	# their parent's descriptor, cannot even count themselves in it, and stay silent
	run -0 --separate-stderr in_tmpfs size=4m,nr_inodes=64 '
		i=0; while touch "$1/f$i" 2>/dev/null; do i=$((i+1)); done && rm "$1/f0" "$1/f1" &&
		LD_PRELOAD="$2" PFSHIM_EVENTS=task-clock sh -c "$3"' "$SHIM" "$CAPTURES"
	[ "$output" = "$without" ]
	[[ "$stderr" == *"pfshim: reports of descendant processes were lost ($RUN/pfshim: it was full or unusable for a while)"* ]]
	[ "$(grep -c 'Performance counter stats' <<<"$stderr")" -eq 1 ]
}

# pfshim run's output directory full (preload/output/ledger.h): each process
# notes its report's fate in the ledger the runner made with room reserved,
# and says nothing; the runner names the lost reports by program and error,
# and keeps the kernel's count in memory when it cannot write it beside them.
@test "pfshim run into a full directory: captures unchanged; the summary names each lost report and its error" {
	need_unshare -m
	local n r l
	without=$(sh -c "$CAPTURES" 2>&1)
	run -0 --separate-stderr in_tmpfs size=1m,nr_inodes=12 '
		"$2" run -e page-faults -o "$1/out" -- sh -c "$3"; ls "$1/out" | sed "s/^/listed: /" >&2' \
		"$BUILD/pfshim" "$CAPTURES"
	echo "$stderr"
	[ "$output" = "$without" ]
	# the runner's lines only: no process said it could not write, nor wrote a report here
	! grep -q '^pfshim: cannot write\|"schema"' <<<"$stderr" || false
	# the kernel's count beside the reports, or, when it did not fit, said and kept in memory
	grep -qxF "listed: pfshim-job.jsonl" <<<"$stderr" ||
		grep -qxF "pfshim run: cannot write $RUN/out/pfshim-job.jsonl (ENOSPC): \`pfshim report\` on the directory will have the reports' sums only" <<<"$stderr"
	n=$(sed -n 's/.*(\([0-9]*\) processes counted by the kernel; \([0-9]*\) processes,.*/\1/p' <<<"$stderr")
	r=$(sed -n 's/.*(\([0-9]*\) processes counted by the kernel; \([0-9]*\) processes,.*/\2/p' <<<"$stderr")
	l=$(sed -n 's/^ pfshim: \([0-9]*\) processes whose report could not be written (.*ENOSPC.*): the output directory refused it.*/\1/p' <<<"$stderr")
	echo "kernel $n, reports $r, lost $l"
	[ "$r" -gt 0 ] && [ "$l" -gt 0 ] && [ "$n" -eq $((r + l)) ]
	[ "$(grep -c 'Performance counter stats' <<<"$stderr")" -eq 1 ]
}

# A process of the job that dropped privileges cannot write into the runner's directory: it
# finds the runner's ledger there (the directory owner's), says nothing, and the summary
# counts it among the processes without a report.
@test "pfshim run: a process that dropped privileges stays silent; the summary names it" {
	[ "$(id -u)" -eq 0 ] || skip "needs root (to drop privileges)"
	command -v setpriv >/dev/null || skip "setpriv not installed"
	without=$(sh -c 'setpriv --reuid=65534 --regid=65534 --clear-groups /bin/true; echo ok' 2>&1)
	run -0 --separate-stderr "$BUILD/pfshim" run -e page-faults -o "$BATS_TEST_TMPDIR/out" -- \
		sh -c 'setpriv --reuid=65534 --regid=65534 --clear-groups /bin/true; echo ok'
	echo "$stderr"
	[ "$output" = "$without" ]
	! grep -q '^pfshim: cannot write\|"schema"' <<<"$stderr" || false
	grep -q '^ pfshim: 1 process that loaded the shim but left no report (true): ' <<<"$stderr"
}

# A .pfshim-ledger pfshim run did not make (one of an earlier job's, whose pids are someone
# else's now) is not its ledger: its lines "PID ERRNO" must not say which of this job's
# processes lost their report. Planted here with a line for every pid: the job's sh, killed by
# SIGKILL, left no report and no line, and the summary must say just that. A shared sticky
# directory, where another user could plant one (or a report), is refused as -o outright.
@test "pfshim run -o: a shared directory refused; an earlier job's .pfshim-ledger is not read" {
	local max d
	max=$(cat /proc/sys/kernel/pid_max)
	[ "$max" -le 4194304 ] || skip "pid_max $max: too many pids to plant a line for each"
	d="$BATS_TEST_TMPDIR/shared"
	mkdir -m 1777 "$d"
	run -2 --separate-stderr timeout 60 "$BUILD/pfshim" run -e page-faults -o "$d" -- true
	[[ "$stderr" == "pfshim run: -o $d: other users may write in it, and a report they put there would be counted: name a directory of your own (-o makes it, mode 0700)" ]]
	[ -z "$(ls -A "$d")" ]
	d="$BATS_TEST_TMPDIR/own"
	mkdir -m 0700 "$d"
	seq 1 "$max" | sed 's/$/ 28/' >"$d/.pfshim-ledger"
	run -137 --separate-stderr timeout 60 "$BUILD/pfshim" run -e page-faults -o "$d" -- \
		sh -c 'kill -9 $$'
	echo "$stderr"
	grep -q '^ pfshim: 1 process that loaded the shim but left no report (sh): ' <<<"$stderr"
	! grep -q 'could not be written' <<<"$stderr" || false
	[ "$(jq -r '.processes[].report_error' "$d/pfshim-job.jsonl")" = null ]
}

# A write past the ledger's reserved room may be short and join two lines ("4242 2" and the
# next "4243 0\n": "4242 24243 0"). Planted here by the job itself, before a line of its own
# child saying ENOSPC: the reading skips the malformed line, counts it, and reads on.
@test "pfshim run: a malformed line of the ledger is skipped and counted; the lines after it are read" {
	run -137 --separate-stderr timeout 60 "$BUILD/pfshim" run -e page-faults \
		-o "$BATS_TEST_TMPDIR/out" -- sh -c 'printf "4242 24243 0\n" >>"$0/.pfshim-ledger"
			sh -c "echo \$\$ 28 >>\"\$0/.pfshim-ledger\"; kill -9 \$\$" "$0"' \
		"$BATS_TEST_TMPDIR/out"
	echo "$stderr"
	job="$BATS_TEST_TMPDIR/out/pfshim-job.jsonl"
	[ "$(jq .ledger_malformed "$job")" -eq 1 ]
	# the child's line, after the malformed one: its report said lost, with its error
	[ "$(jq -c '[.processes[] | .report_error]' "$job")" = '[null,"ENOSPC"]' ]
	grep -qxF " pfshim: 1 process whose report could not be written (sh: ENOSPC): the output directory refused it (the error beside each program); their counts are in the totals, not in a row (docs/usage.md, Limits)" <<<"$stderr"
	grep -q "^ pfshim: 1 line of the reports' ledger (.pfshim-ledger) could not be read" <<<"$stderr"
	# pfshim report says it too, in JSON
	run -0 "$BUILD/pfshim" report --json "$BATS_TEST_TMPDIR/out"
	[ "$(jq .job.ledger_malformed <<<"$output")" -eq 1 ]
}

@test "the runtime directory removed mid-job (as at logout): captures unchanged, the root says so" {
	script='x=$(/bin/true 2>&1); rm -rf "$XDG_RUNTIME_DIR/pfshim"; '"$CAPTURES"
	without=$(sh -c "$script" 2>&1)
	run -0 --separate-stderr under sh -c "$script"
	[ "$output" = "$without" ]
	[[ "$stderr" == *"pfshim: the runtime directory $RUN/pfshim was removed or replaced during the job: the reports of descendant processes written there are gone, and those written after were dropped"* ]]
	[ "$(grep -c 'Performance counter stats' <<<"$stderr")" -eq 1 ]
	# XDG_RUNTIME_DIR itself removed: the job's processes move nowhere else either
	script='x=$(/bin/true 2>&1); rm -rf "$XDG_RUNTIME_DIR"; '"$CAPTURES"
	run -0 --separate-stderr under sh -c "$script"
	[ "$output" = "$without" ]
	[[ "$stderr" == *"pfshim: the runtime directory $RUN/pfshim was removed"* ]]
	[ "$(grep -c 'Performance counter stats' <<<"$stderr")" -eq 1 ]
}

@test "the runtime directory removed under Python subprocesses: their outputs unchanged" {
	[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
	py='import os, shutil, subprocess
shutil.rmtree(os.environ["XDG_RUNTIME_DIR"] + "/pfshim", ignore_errors=True)
outs = [subprocess.run(["/bin/true"], capture_output=True) for _ in range(40)]
print(sum(1 for o in outs if o.stdout or o.stderr), "changed")'
	without=$(/usr/bin/python3 -c "$py" 2>&1)
	run -0 --separate-stderr under /usr/bin/python3 -c "$py"
	[ "$output" = "$without" ]
	[ "$output" = "0 changed" ]
}

@test "PFSHIM_JOB_MAX caps a job's reports, and the root says how many were not kept" {
	script='for i in $(seq 10); do /bin/true; done'
	run -0 under sh -c "$script"
	all=$(ls "$(job_of "$output")" | wc -l)
	[[ "$output" == *"(see: pfshim report $(job_of "$output"); a job keeps at most 10000)"* ]]
	rm -r "$RUN/pfshim"/job-*
	run -0 under env PFSHIM_JOB_MAX=5 sh -c "$script"
	dir=$(job_of "$output")
	[ "$(ls "$dir" | wc -l)" -eq 5 ]
	[[ "$output" == *"pfshim: 5 reports of descendant processes in $dir (see: pfshim report $dir; a job keeps at most 5)"* ]]
	[[ "$output" == *"pfshim: $((all - 5)) reports of descendant processes not kept: the job holds at most 5 (PFSHIM_JOB_MAX)"* ]]
	# 0: no cap
	run -0 under env PFSHIM_JOB_MAX=0 sh -c "$script"
	dir=$(job_of "$output")
	[ "$(ls "$dir" | wc -l)" -eq "$all" ]
	[[ "$output" == *"(see: pfshim report $dir; no cap: PFSHIM_JOB_MAX=0)"* ]]
	[[ "$output" != *"not kept"* ]]
}

@test "job directories expire: a root removes those idle past PFSHIM_JOB_EXPIRE whose root is gone" {
	mkdir -m 0700 "$RUN/pfshim"
	# pids past pid_max: their roots are surely gone
	for job in old:2147483601 recent:2147483602; do
		d="$RUN/pfshim/job-20200101T000000Z-${job#*:}"
		mkdir "$d"
		echo '{}' >"$d/r.json"
	done
	touch -d '3 days ago' "$RUN/pfshim/job-20200101T000000Z-2147483601"
	touch -d '2 hours ago' "$RUN/pfshim/job-20200101T000000Z-2147483602"
	# a lone program removes nothing
	run -0 under /bin/true
	[ "$(ls -d "$RUN"/pfshim/job-* | wc -l)" -eq 2 ]
	# off
	run -0 under env PFSHIM_JOB_EXPIRE=0 sh -c '/bin/true; /bin/true'
	[ -d "$RUN/pfshim/job-20200101T000000Z-2147483601" ]
	# the default, one day: the old one goes
	run -0 under sh -c '/bin/true; /bin/true'
	[ ! -e "$RUN/pfshim/job-20200101T000000Z-2147483601" ]
	[ -d "$RUN/pfshim/job-20200101T000000Z-2147483602" ]
	# one hour: the other one too, and not this job's own
	run -0 under env PFSHIM_JOB_EXPIRE=1h sh -c '/bin/true; /bin/true'
	[ ! -e "$RUN/pfshim/job-20200101T000000Z-2147483602" ]
	[ -d "$(job_of "$output")" ]
}

@test "20,000 shell commands: the job's storage stays under its cap, measured on tmpfs" {
	need_unshare -m
	loop='i=0; while [ $i -lt 20000 ]; do /bin/true; i=$((i+1)); done'
	run -0 in_tmpfs size=256m '
		LD_PRELOAD="$2" PFSHIM_EVENTS=task-clock timeout 600 sh -c "$3" 2>"$1/root.err" &&
		find "$1/pfshim" -type f | wc -l && find "$1/pfshim" -type l | wc -l &&
		df -k --output=used "$1" | tail -1 && tail -2 "$1/root.err"' "$SHIM" "$loop"
	files=${lines[0]} links=${lines[1]} used_kib=${lines[2]}
	echo "# 20,000 commands: $files files, $links crumbs left, $used_kib KiB of tmpfs" >&3
	# the cap's 10,000 reports and the ledger; no crumb left
	[ "$files" -eq 10001 ]
	[ "$links" -eq 0 ]
	# a page per report, and the ledger's 5 pages: 40 MiB and a little
	between 40000 "$used_kib" 40100
	[[ "${lines[3]}" == "pfshim: 10000 reports of descendant processes in "* ]]
	[[ "${lines[4]}" == *" reports of descendant processes not kept: the job holds at most 10000 (PFSHIM_JOB_MAX)" ]]
}
