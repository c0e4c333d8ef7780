#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# job.bats: with no PFSHIM_OUTPUT, a process tree is one job: only the
# process the user started reports on its stderr; every descendant's report
# goes into the job directory, whole, and none is lost. Scripts that read
# their children's streams as data get the same answers as without the shim.

load helpers

setup() {
	need_perf
	job_setup
}

job_dir() {
	ls -d "$RUN"/pfshim/job-*/
}

job_reports() {
	find "$RUN/pfshim" -name '*.json' | wc -l
}

# A configure script's probes: a flag works when the compiler says nothing.
write_configure() {
	cat >configure.sh <<'SH'
echo 'int main(void) { return 0; }' >t.c
for flag in -Wall -O2 -fno-such-flag-pfshim; do
	out=$(cc $flag -c t.c 2>&1)
	if [ -z "$out" ]; then echo "$flag: yes"; else echo "$flag: no"; fi
done
x=$(uname -s 2>&1)
echo "uname: [$x]"
y=$(sh -c 'echo err >&2' 2>&1)
echo "sh: [$y]"
SH
}

@test "a configure script's probes answer the same with and without the shim" {
	write_configure
	sh configure.sh >without.out 2>without.err
	under sh configure.sh >with.out 2>with.err
	diff without.out with.out
	grep -q -- '-Wall: yes' with.out
	grep -q -- '-fno-such-flag-pfshim: no' with.out
	grep -qx 'uname: \[Linux\]' with.out
	# the root's own report is on its stderr, and the job is named
	grep -q "Performance counter stats for '$(sh_name)'" with.err
	grep -q 'reports of descendant processes in' with.err
	[ "$(grep -c 'Performance counter stats' with.err)" -eq 1 ]
}

@test "x=\$(cmd 2>&1) captures only what cmd says" {
	run -0 --separate-stderr under sh -c 'x=$(uname -s 2>&1); y=$(cat /dev/null 2>&1); echo "[$x][$y]"'
	[[ "$stderr" == *"Performance counter stats for '$(sh_name)'"* ]]
	[ "$output" = "[Linux][]" ]
}

@test "a pipeline: its output as without the shim, its members' reports in the job" {
	pipeline='seq 1 2000 | sort -rn | tail -3 | tr "\n" " "'
	expected=$(sh -c "$pipeline" 2>&1)
	run -0 under sh -c "out=\$($pipeline 2>&1); echo \"\$out\""
	[ "${lines[0]}" = "$expected" ]
	for p in seq sort tail tr; do
		jq -s -e --arg p "$p" 'map(select(.program == $p)) | length == 1' "$(job_dir)"*.json
	done
}

# A root that dies of a signal it reported (PFSHIM_ON_FATAL) still says where its
# descendants' reports went, and takes its crumb with it, as at exit.
@test "a root killed by TERM with PFSHIM_ON_FATAL: its report, then the line naming its descendants' reports" {
	run -143 under env PFSHIM_ON_FATAL=1 sh -c 'for i in 1 2 3; do /bin/true; done; kill -TERM $$'
	[[ "$output" == *" pfshim: reported on signal 15 (SIGTERM) by pfshim "* ]]
	[ "$(job_reports)" -eq 3 ]
	[[ "${lines[-1]}" == "pfshim: 3 reports of descendant processes in $(job_dir) "* ]]
	[ -z "$(find "$RUN/pfshim" -mindepth 1 -maxdepth 1 -name 'p*')" ]	# no crumb left
}

@test "no report is lost: 20 children, 20 reports, and the root counts them" {
	run -0 under sh -c 'for i in $(seq 20); do /bin/true; done'
	n=$(jq -s 'map(select(.program == "true")) | length' "$(job_dir)"*.json)
	[ "$n" -eq 20 ]
	total=$(job_reports)
	[[ "$output" == *"pfshim: $total reports of descendant processes in $(job_dir) "* ]]
	# every descendant of the same script, with PFSHIM_OUTPUT to one file: as many
	env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock PFSHIM_FORMAT=json \
		PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/all.jsonl" \
		sh -c 'for i in $(seq 20); do /bin/true; done'
	[ "$(($(wc -l <"$BATS_TEST_TMPDIR/all.jsonl") - 1))" -eq "$total" ]
}

@test "a descendant whose main calls pthread_exit(): its report is in the job, none lost" {
	run -0 timeout -s KILL 10 env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock \
		sh -c '"$1" 1 50; true' sh "$PROGS/main_leaves"
	echo "$output"
	[[ "$output" != *lost* ]]
	jq -s -e 'length == 1 and .[0].program == "main_leaves" and .[0].reason == "exit"
		and .[0].exit_status == 0' "$(job_dir)"*.json
	[[ "$output" == *"pfshim: 1 report of a descendant process in $(job_dir) "* ]]
}

@test "every report in the job directory is whole JSON from a descendant, with its parent" {
	under sh -c 'sh -c "/bin/true; /bin/true" & wait' 2>root.err
	root=$(sed -n 's/.*(pid \([0-9]*\), exit).*/\1/p' root.err)
	for f in "$(job_dir)"*.json; do
		jq -e --argjson r "$root" '.schema == "pfshim.report" and .pid != $r' "$f" >/dev/null
	done
	# the direct children name the root as their parent
	jq -s -e --argjson r "$root" 'map(select(.ppid == $r)) | length > 0' "$(job_dir)"*.json
}

@test "the root's exec chain keeps its stderr; a forked subshell is a descendant" {
	run -0 under sh -c '(/bin/true); exec /bin/true'
	[ "$(grep -c 'Performance counter stats' <<<"$output")" -eq 2 ]
	[[ "$output" == *"for '$(sh_name)'"*"(pid "*", exec)"* ]]
	[[ "$output" == *"for 'true'"*", exit)"* ]]
	jq -s -e 'map(select(.program == "true")) | length == 1' "$(job_dir)"*.json
}

@test "a program alone makes no job directory" {
	run -0 under /bin/true
	[[ "$output" == *"Performance counter stats for 'true'"* ]]
	[[ "$output" != *descendant* ]]
	[ ! -e "$RUN"/pfshim/job-* ]
	# and leaves no crumb behind
	[ -z "$(ls -A "$RUN/pfshim")" ]
}

@test "the environment a descendant sees is the one it would see without the shim" {
	# (bash sets "_" to the command it runs: env here, sh there)
	without=$(sh -c 'env' | grep -v -e '^LD_PRELOAD=' -e '^_=' | sort)
	with=$(under sh -c 'env' 2>/dev/null | grep -v -e '^LD_PRELOAD=' -e '^PFSHIM_EVENTS=' -e '^_=' | sort)
	[ "$with" = "$without" ]
}

@test "an explicit PFSHIM_OUTPUT=stderr keeps its meaning: every process on its stderr" {
	run -0 --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock PFSHIM_OUTPUT=stderr \
		sh -c 'x=$(/bin/true 2>&1); echo "$x" | grep -c "Performance counter stats"'
	[ "${lines[0]}" = "1" ]
	[ ! -e "$RUN/pfshim" ]
}

@test "a runtime directory that is a link is refused: the root says so, descendants stay silent" {
	mkdir -m 0700 "$BATS_TEST_TMPDIR/elsewhere"
	ln -s "$BATS_TEST_TMPDIR/elsewhere" "$RUN/pfshim"
	run -0 under sh -c 'x=$(uname -s 2>&1); echo "[$x]"'
	[ "${lines[0]}" = "[Linux]" ]
	[[ "$output" == *"pfshim: no job directory ($RUN/pfshim: it is not a directory)"* ]]
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/elsewhere")" ]
}

@test "a runtime directory others may enter is refused" {
	mkdir -m 0777 "$RUN/pfshim"
	run -0 under sh -c 'x=$(uname -s 2>&1); echo "[$x]"'
	[ "${lines[0]}" = "[Linux]" ]
	[[ "$output" == *"mode is not 0700"* ]]
	[ -z "$(ls -A "$RUN/pfshim")" ]
}

@test "without XDG_RUNTIME_DIR the job lives in /dev/shm/pfshim-UID, mode 0700" {
	run -0 env -u XDG_RUNTIME_DIR LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock \
		sh -c 'x=$(/bin/true 2>&1); [ -z "$x" ]'
	dir=$(sed -n 's/.*descendant processes* in \([^ ]*\) (see.*/\1/p' <<<"$output")
	[[ "$dir" == /dev/shm/pfshim-$(id -u)/job-* ]]
	[ "$(stat -c %a "/dev/shm/pfshim-$(id -u)")" = 700 ]
	rm -r "$dir"
}

@test "a descendant killed with SIGKILL leaves no crumb once the root exits" {
	run -0 under sh -c 'sh -c "kill -9 \$\$"; /bin/true'
	[ -z "$(find "$RUN/pfshim" -mindepth 1 -maxdepth 1 -name 'p*')" ]
	# its parent's report, and /bin/true's, are in the job; its own never was written
	[ "$(job_reports)" -eq 1 ]
}

@test "grandchildren, system() and posix_spawn children belong to the same job" {
	[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
	run -0 --separate-stderr under sh -c 'sh -c "sh -c /bin/true"; /usr/bin/python3 -c "import os, subprocess; os.system(\"/bin/true\"); subprocess.run([\"/bin/true\"])"'
	[ -z "$output" ]
	[ "$(ls -d "$RUN"/pfshim/job-* | wc -l)" -eq 1 ]
	# three /bin/true: the nested shells', system()'s and subprocess's
	[ "$(jq -s 'map(select(.program == "true")) | length' "$(job_dir)"*.json)" -eq 3 ]
	[[ "$stderr" != *"for 'true'"* ]]
}

@test "a descendant's PFSHIM_SIGNAL report goes to the job too, replaced by its exit report" {
	run -0 --separate-stderr under env PFSHIM_SIGNAL=USR1 sh -c "x=\$('$PROGS/signal_self' 10 100 2>&1); echo \"[\$x]\""
	[ "$output" = "[after]" ]
	jq -s -e 'map(select(.program == "signal_self")) | length == 1 and .[0].reason == "exit"' \
		"$(job_dir)"*.json
}

@test "an XDG_RUNTIME_DIR that does not exist: the job moves to /dev/shm/pfshim-UID" {
	run -0 env XDG_RUNTIME_DIR="$BATS_TEST_TMPDIR/gone" LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock \
		sh -c 'x=$(/bin/true 2>&1); [ -z "$x" ]'
	dir=$(sed -n 's/.*descendant processes* in \([^ ]*\) (see.*/\1/p' <<<"$output")
	[[ "$dir" == /dev/shm/pfshim-$(id -u)/job-* ]]
	[ ! -e "$BATS_TEST_TMPDIR/gone" ]
	rm -r "$dir"
}

@test "a descendant keeps no duplicate of its stderr: it never writes there" {
	# the root's stderr goes to a file of its own; the descendant sleeps while its
	# descriptors are listed: only fd 2 is that file (before, a duplicate at a high number)
	run -0 under sh -c 'exec 2>"$0"; sleep 3 & pid=$!; sleep 1
		for f in /proc/$pid/fd/*; do echo "${f##*/} $(readlink "$f")"; done; kill $pid' \
		"$BATS_TEST_TMPDIR/root.err"
	echo "$output"
	[ "$(grep -c " $BATS_TEST_TMPDIR/root.err\$" <<<"$output")" -eq 1 ]
	grep -q "^2 $BATS_TEST_TMPDIR/root.err\$" <<<"$output"
}
