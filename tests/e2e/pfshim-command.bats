#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# pfshim-command.bats: build/pfshim. `pfshim run` runs a real build under the
# shim and prints one summary whose sums are those of the per-process
# reports (checked here with jq, independently); `pfshim report` sums files,
# directories, JSON Lines and stdin, and names and skips what is not a report.

load helpers

PFSHIM="$BUILD/pfshim"

setup() {
	need_perf
	cd "$BATS_TEST_TMPDIR"
}

# A small project: four objects and a link, two jobs at a time.
write_project() {
	mkdir -p proj
	for f in a b c; do echo "int f_$f(void) { return 1; }" >"proj/$f.c"; done
	echo 'int main(void) { return 0; }' >proj/main.c
	printf 'prog: a.o b.o c.o main.o\n\t$(CC) -o $@ $^\n%%.o: %%.c\n\t$(CC) -O2 -c -o $@ $<\n' \
		>proj/Makefile
}

# jq_sum EVENT DIR [PROGRAM]: the sum of EVENT's counted values over DIR's reports.
jq_sum() {
	jq -s --arg e "$1" --arg p "${3:-}" \
		'map(select(.schema == "pfshim.report" and ($p == "" or .program == $p)) | .events[] | select(.name == $e and .value != null) | .value) | add // 0' \
		"$2"/*.json
}

# job_total EVENT DIR: the kernel's count of the whole job, in pfshim run's pfshim-job.jsonl.
job_total() {
	jq --arg e "$1" '.events[] | select(.name == $e) | .value' "$2/pfshim-job.jsonl"
}

# group N: 1234567 -> 1,234,567, as the summary prints counts.
group() {
	sed ':a;s/\B[0-9]\{3\}\>/,&/;ta' <<<"$1"
}

@test "pfshim --help, run --help and report --help are manuals" {
	run -0 "$PFSHIM" --help
	[[ "$output" == *"Usage: pfshim COMMAND"* ]]
	run -0 "$PFSHIM" run --help
	[[ "$output" == *"-o, --output DIR"* ]] && [[ "$output" == *"Exit status"* ]]
	run -0 "$PFSHIM" report --help
	[[ "$output" == *"--json"* ]] && [[ "$output" == *"--csv"* ]]
	run -2 "$PFSHIM" frobnicate
	[[ "$output" == *"unknown command 'frobnicate'"* ]]
	run -2 "$PFSHIM" run
	[[ "$output" == *"no command to run"* ]]
	# a mistake names its command, and says what is wrong once
	run -2 --separate-stderr "$PFSHIM" run -x -- true
	[ "${stderr_lines[0]}" = "pfshim run: invalid option -- 'x'" ]
	run -2 --separate-stderr "$PFSHIM" report --bogus
	[ "${stderr_lines[0]}" = "pfshim report: unrecognized option '--bogus'" ]
	run -2 --separate-stderr "$PFSHIM" report --json --csv
	[ "$stderr" = "pfshim report: --json and --csv: one output format at a time" ]
	# -e's mistakes stop the run: not said as "skipped", as the shim in a process says them
	run -2 --separate-stderr "$PFSHIM" run -e 'page-faults,,task-clock' -- true
	[[ "$stderr" == "pfshim run: -e: empty item in the event list ("*")" ]]
	run -2 --separate-stderr "$PFSHIM" run -e '{task-clock' -- true
	[ "$stderr" = "pfshim run: -e: unbalanced '{': the group '{task-clock' is never closed" ]
}

@test "pfshim run -- make -j2: the kernel's totals, the per-process reports' sums by program, the rest in no row" {
	skip_under_sanitizer "pfshim run preloads the shim beside it without the sanitizer runtime before it, and make's children crash in the late-loaded runtime"
	write_project
	run -0 --separate-stderr "$PFSHIM" run -e task-clock,page-faults,context-switches \
		-o "$BATS_TEST_TMPDIR/reports" -- make -C proj -j2
	[[ "$output" == *"cc -o prog"* ]]		# make's own output, on stdout
	[ -x proj/prog ]
	echo "$stderr"
	[ "$(grep -c 'Performance counter stats' <<<"$stderr")" -eq 1 ]
	dir="$BATS_TEST_TMPDIR/reports"
	n=$(jq -s 'map(select(.schema == "pfshim.report")) | length' "$dir"/*.json)
	[ "$n" -ge 10 ]		# make, 5 cc drivers, 4 cc1, 4 as, a linker ...
	[[ "$stderr" == *"($(jq '.processes | length' "$dir/pfshim-job.jsonl") processes counted by the kernel; $(jq -s 'map(select(.schema == "pfshim.report") | .pid) | unique | length' "$dir"/*.json) processes, $n images, $n reports,"* ]]
	# totals: the kernel's; page-faults and context-switches are integers: printed exactly
	pf=$(job_total page-faults "$dir")
	cs=$(job_total context-switches "$dir")
	grep -Eq "^ +$(group "$pf")  +page-faults$" <<<"$stderr"
	grep -Eq "^ +$(group "$cs")  +context-switches$" <<<"$stderr"
	# what no row holds: the total less the rows' sum
	rest=$((pf - $(jq_sum page-faults "$dir")))
	grep -Eq "^ in no row +[0-9.]+ +$(group "$rest") " <<<"$stderr"
	# per program: cc1 ran once per source file, its page-faults summed
	cc1=$(jq_sum page-faults "$dir" cc1)
	grep -Eq "^ cc1 +4 +[0-9.]+ +$(group "$cc1") " <<<"$stderr"
	[[ "$stderr" == *"the reports are in $dir/"* ]]
}

@test "pfshim run: the job's elapsed time, and its task-clock over it as CPUs utilized" {
	skip_under_sanitizer "pfshim run preloads the shim beside it without the sanitizer runtime before it"
	t0=$(date +%s%N)
	run -0 --separate-stderr "$PFSHIM" run -e task-clock,page-faults -o "$BATS_TEST_TMPDIR/r" \
		-- "$PROGS/burn_threads" 2 100
	t1=$(date +%s%N)
	echo "$stderr"
	job="$BATS_TEST_TMPDIR/r/pfshim-job.jsonl"
	elapsed=$(jq .elapsed_ns "$job")
	tc=$(job_total task-clock "$BATS_TEST_TMPDIR/r")
	# Two threads burn 100 ms of CPU each: at least 100 ms go by, within what this shell saw.
	[ "$elapsed" -ge 100000000 ]
	[ "$elapsed" -le $((t1 - t0)) ]
	want_s=$(awk -v e="$elapsed" 'BEGIN { printf "%.9f", e / 1e9 }')
	want_u=$(awk -v c="$tc" -v e="$elapsed" 'BEGIN { printf "%.3f", c / e }')
	grep -Eq "^ +$want_s seconds time elapsed$" <<<"$stderr"
	grep -Eq " msec  task-clock   # +$want_u CPUs utilized$" <<<"$stderr"
	# No clock, no utilisation: page-faults' line is bare.
	grep -Eq "^ +[0-9,]+ +page-faults$" <<<"$stderr"
	run -0 "$PFSHIM" report --json "$BATS_TEST_TMPDIR/r"
	[ "$(jq .job.elapsed_ns <<<"$output")" -eq "$elapsed" ]
}

@test "pfshim report --json: the same sums as jq's, per program too" {
	skip_under_sanitizer "pfshim run preloads the shim beside it without the sanitizer runtime before it, and make's children crash in the late-loaded runtime"
	write_project
	"$PFSHIM" run -o reports -- make -s -C proj -j2 2>/dev/null
	run -0 "$PFSHIM" report --json reports
	echo "$output" >summary.json
	for e in task-clock page-faults context-switches; do
		[ "$(jq --arg e "$e" '.events[] | select(.name == $e) | .value' summary.json)" = "$(jq_sum "$e" reports)" ]
	done
	[ "$(jq '.reports' summary.json)" -eq "$(ls reports/*.json | grep -vc /pfshim-job.jsonl)" ]
	# the kernel's count of the job, beside
	[ "$(jq '.job.events[] | select(.name == "page-faults") | .value' summary.json)" = \
	  "$(job_total page-faults reports)" ]
	# the default events: cycles counted or not supported, said per report (no PMU in most VMs)
	[ "$(jq '.events[] | select(.name == "cycles") | .not_supported' summary.json)" = \
	  "$(jq -s 'map(select(.schema == "pfshim.report") | .events[] | select(.name == "cycles" and .status == "not-supported")) | length' reports/*.json)" ]
	for p in $(jq -r '.groups[].group' summary.json); do
		[ "$(jq --arg p "$p" '.groups[] | select(.group == $p) | .events[] | select(.name == "page-faults") | .value' summary.json)" = "$(jq_sum page-faults reports "$p")" ]
		[ "$(jq --arg p "$p" '.groups[] | select(.group == $p) | .reports' summary.json)" = "$(jq -s --arg p "$p" 'map(select(.schema == "pfshim.report" and .program == $p)) | length' reports/*.json)" ]
	done
	# CSV: the same totals
	run -0 "$PFSHIM" report --csv reports
	[ "${lines[0]}" = "scope,program,reports,images,event,value,counted,not_supported,unit,scale" ]
	grep -q "^total,,[0-9]*,[0-9]*,page-faults,$(jq_sum page-faults reports)," <<<"$output"
}

# A command killed by a signal kills the runner by the same one, as perf stat does: a calling
# shell sees the signal (its loop stops at ^C as a loop of the bare commands does), not an exit
# status; its summary written first, no core of the runner's. A summary into a pipe nobody reads
# does not kill the runner: the command's status still, its directory removed.
@test "pfshim run exits with the command's status, and dies of the command's signal" {
	run -3 "$PFSHIM" run -o r1 -- sh -c 'exit 3'
	# started in the background (nohup, a script's &), the test inherits SIGINT ignored: env
	# puts the default back, for the command to be killed as in a terminal
	run -130 env --default-signal=INT "$PFSHIM" run -o r2 -- sh -c 'kill -INT $$'
	for sig in INT TERM SEGV; do
		run -0 python3 -c 'import signal, subprocess, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
print(r.returncode, "Performance counter stats" in r.stderr)' \
			env --default-signal=INT "$PFSHIM" run -o "r-$sig" -- sh -c "kill -$sig \$\$"
		[ "$output" = "-$(python3 -c "import signal; print(int(signal.SIG$sig))") True" ]
	done
	[ -z "$(find . -maxdepth 1 -name 'core*')" ]
	export TMPDIR="$BATS_TEST_TMPDIR/tmp"
	mkdir "$TMPDIR"
	run -0 bash -c '"$0" run -- sh -c "sleep 0.2; exit 3" 2>&1 | true; echo "${PIPESTATUS[0]}"' "$PFSHIM"
	[ "$output" = 3 ]
	[ -z "$(ls -A "$TMPDIR")" ]
	run -127 "$PFSHIM" run -o r3 -- /no/such/program
	[[ "$output" == *"pfshim run: /no/such/program: No such file or directory"* ]]
}

# A command that never ran: its error alone, no summary of nothing, and no calibration (seconds
# of /bin/true runs) for a count that was never made. An exit of 127 of the command's own is
# still the command's.
# The libraries already in LD_PRELOAD are kept after the shim's path, however long the list.
@test "pfshim run keeps a long LD_PRELOAD whole" {
	list="$(for _ in $(seq 900); do printf 'libm.so.6 '; done)libdl.so.2"
	run -0 --separate-stderr env LD_PRELOAD="$list" "$PFSHIM" run -o r -- \
		sh -c 'printf "%s" "$LD_PRELOAD"'
	[[ "${output%% *}" == */libpfshim.so* ]]
	[ "${output#* }" = "$list" ]
	! grep -q "cannot be preloaded" <<<"$stderr" || false
}

@test "pfshim run of a command that cannot be executed: its error and 127, no summary, no calibration" {
	export XDG_CACHE_HOME="$BATS_TEST_TMPDIR/cache"
	run -127 --separate-stderr "$PFSHIM" run -o r1 -- /no/such/program
	[ "$output" = "" ]
	[ "$stderr" = "pfshim run: /no/such/program: No such file or directory" ]
	[ ! -e "$XDG_CACHE_HOME/pfshim/calibration.json" ]
	[ ! -e r1/pfshim-job.jsonl ]
	run -127 --separate-stderr "$PFSHIM" run -o r2 -- sh -c 'exit 127'
	[[ "$stderr" == *"Performance counter stats for 'sh -c exit 127'"* ]]
	[ -s r2/pfshim-job.jsonl ]
}

@test "pfshim run refuses an output directory that already holds reports" {
	"$PFSHIM" run -o r -- /bin/true 2>/dev/null
	run -2 "$PFSHIM" run -o r -- /bin/true
	[[ "$output" == *"holds reports already"* ]]
}

# The job's directory is where reports are read from and its argv and cwd are written: it is
# judged as the shim judges every directory (docs/security.md, class 2b). Another user's on
# the way (a link in /tmp to it, or its TMPDIR) is refused before anything runs; what -o makes
# is 0700.
@test "pfshim run: -o or TMPDIR through another user's directory refused, nothing written there" {
	[ "$(id -u)" -eq 0 ] || skip "needs root (to make another user's directory)"
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	chmod 0755 "$BATS_TEST_TMPDIR"
	evil="$BATS_TEST_TMPDIR/evil"
	mkdir -m 0777 "$evil"
	ln -s "$evil" "$BATS_TEST_TMPDIR/link"
	chown -h nobody "$evil" "$BATS_TEST_TMPDIR/link"
	run -2 --separate-stderr "$PFSHIM" run -o "$BATS_TEST_TMPDIR/link" -- sh -c 'echo ran'
	[ "$output" = "" ]
	[ "$stderr" = "pfshim run: -o $BATS_TEST_TMPDIR/link: a symbolic link on the way belongs to another user" ]
	run -2 --separate-stderr "$PFSHIM" run -o "$evil/sub" -- sh -c 'echo ran'
	[ "$stderr" = "pfshim run: -o $evil/sub: a directory on the way belongs to another user" ]
	run -2 --separate-stderr env TMPDIR="$evil" "$PFSHIM" run -- sh -c 'echo ran'
	[ "$stderr" = "pfshim run: TMPDIR $evil: a directory on the way belongs to another user" ]
	[ -z "$(ls -A "$evil")" ]
	run -0 --separate-stderr "$PFSHIM" run -o "$BATS_TEST_TMPDIR/mine/job" -- true
	[ "$(stat -c %a "$BATS_TEST_TMPDIR/mine" "$BATS_TEST_TMPDIR/mine/job" | sort -u)" = 700 ]
}

@test "pfshim run without -o: a new directory under TMPDIR, removed after the summary unless --keep" {
	run -0 env TMPDIR="$BATS_TEST_TMPDIR" "$PFSHIM" run -- sh -c '/bin/true'
	[[ "$output" == *"Performance counter stats for 'sh -c /bin/true'"* ]]
	[[ "$output" != *"the reports are in"* ]]
	[ -z "$(ls "$BATS_TEST_TMPDIR" | grep pfshim-run)" ]
	run -0 env TMPDIR="$BATS_TEST_TMPDIR" "$PFSHIM" run --keep -- sh -c '/bin/true'
	dir=$(sed -n 's/.*the reports are in \([^ ]*\) .*/\1/p' <<<"$output")
	[[ "$dir" == "$BATS_TEST_TMPDIR"/pfshim-run.*/ ]]
	[ "$(ls "$dir" | wc -l)" -eq 3 ]		# sh's report, true's, and the job's count
	[ -f "$dir/pfshim-job.jsonl" ]
}

# same_streams [-n FDS] SCRIPT: sh -c SCRIPT without pfshim, then under pfshim run (that
# shell the job's root, what it starts descendants), with RLIMIT_NOFILE FDS if given; each
# bounded in time. The same status, stdout byte for byte, and stderr up to the summary: no
# process of the job writes on its own streams (docs/pfshim.md). SCRIPT prints what it
# captured of its children's streams.
same_streams() {
	local fds=$(ulimit -n) st=0 rst=0 n
	if [ "$1" = -n ]; then fds=$2; shift 2; fi
	(ulimit -n "$fds" && exec timeout 60 sh -c "$1") >plain.out 2>plain.err || st=$?
	(ulimit -n "$fds" && exec timeout 60 "$PFSHIM" run -- sh -c "$1") >run.out 2>run.err || rst=$?
	echo "without: $st"; cat plain.out plain.err
	echo "with: $rst"; cat run.out run.err
	[ "$rst" -eq "$st" ]
	cmp plain.out run.out
	# the summary: a blank line, then its first line, once
	[ "$(grep -c '^ pfshim: Performance counter stats for ' run.err)" -eq 1 ]
	n=$(grep -n '^ pfshim: Performance counter stats for ' run.err | cut -d: -f1)
	[ -z "$(sed -n "$((n - 1))p" run.err)" ]
	head -n "$((n - 2))" run.err | cmp plain.err -
}

# Each problem a process of the job could name on its stderr, where the program may capture it:
# the runner names it once, or the process says nothing and its report is lost (docs/usage.md,
# Limits). One line per process was in a shell's $(...) before.
@test "pfshim run, RLIMIT_NOFILE under 256: no line on the command's streams" {
	skip_under_sanitizer "pfshim run preloads the shim beside it without the sanitizer runtime before it"
	same_streams -n 64 'x=$(uname -s 2>&1); echo "[$x]"'
	[ "$(cat run.out)" = "[$(uname -s)]" ]
}

@test "pfshim run, perf_event_open refused in a part of the job: no line on its streams, the processes named" {
	skip_under_sanitizer "pfshim run preloads the shim beside it without the sanitizer runtime before it"
	same_streams "x=\$('$PROGS/deny_perf' sh -c 'uname -s; /bin/true' 2>&1); echo \"[\$x]\""
	[ "$(cat run.out)" = "[$(uname -s)]" ]
	grep -q "^ pfshim: 3 processes that loaded the shim but left no report (sh, uname, true): " run.err
}

@test "pfshim run, a descendant under its own seccomp filter: its report lost, not on its stderr, and named" {
	skip_under_sanitizer "pfshim run preloads the shim beside it without the sanitizer runtime before it"
	same_streams "'$PROGS/sandboxed' kill seccomp 2>child.err; echo \"rc=\$?\"; cat child.err"
	[ "$(cat run.out)" = "$(printf 'done\nrc=0')" ]
	grep -q "^ pfshim: 1 process that loaded the shim but left no report (sandboxed): " run.err
}

@test "pfshim run, a descendant whose descriptor table is full (EMFILE): its report lost, not on its stderr, and named" {
	skip_under_sanitizer "pfshim run preloads the shim beside it without the sanitizer runtime before it"
	same_streams -n 1024 "'$PROGS/fd_reuse' dup2 data 2>child.err; echo \"rc=\$?\"; cat data child.err"
	[ "$(cat run.out)" = "$(printf 'rc=0\ndata')" ]
	grep -q "^ pfshim: 1 process that loaded the shim but left no report (fd_reuse): " run.err
}

@test "pfshim run -e with a mistake: said once by the runner, exit 2, nothing run" {
	run -2 --separate-stderr "$PFSHIM" run -e task-clok,page-faults -o typo -- sh -c 'echo ran'
	[ "$output" = "" ]
	[ "$stderr" = "pfshim run: -e: unknown event 'task-clok' (did you mean 'task-clock'?)" ]
	[ ! -e typo ]
}

# -M GROUP is PFSHIM_GROUP for the job, the group read by the runner first: a group file
# of software events (no hardware PMU here), its metrics in every report, and the job's
# by pfshim report --metrics, the events summed before the formula.
@test "pfshim run -M GROUP: the group's metrics in every report; a group that cannot be read stops the run" {
	printf '%s\n' 'SHORT Faults' '' 'EVENTSET' 'PMC0  page-faults' 'PMC1  task-clock' '' \
		'METRICS' 'Faults per ms of CPU [1/ms]  PMC0/(PMC1*1.0E-06)' >FAULTS.txt
	run -0 --separate-stderr "$PFSHIM" run -M "$PWD/FAULTS.txt" -e page-faults,task-clock -o m -- \
		sh -c "'$PROGS/touch_pages' 300; '$PROGS/touch_pages' 100"
	# the summary has the job's metrics too, before where the reports are, as report --metrics has them
	summary=$stderr
	grep -qF " pfshim: metrics of the job (3 images): each metric's events summed over the images, then its formula computed" <<<"$summary"
	[ "$(grep -A1 '^ FAULTS, all:$' <<<"$summary" | tail -1)" = \
		"$("$PFSHIM" report --metrics m | grep -A1 '^ FAULTS, all:$' | tail -1)" ]
	[[ "$(tail -n 1 <<<"$summary")" == " pfshim: the reports are in "* ]]
	# every report carries the group and its metric, equal to its own counts' formula
	[ "$(jq -s 'map(select(.schema == "pfshim.report")) | length' m/*.json)" -eq 3 ]
	[ "$(jq -s 'map(select(.metric_group == "FAULTS")) | length' m/*.json)" -eq 3 ]
	jq -e -s 'map(select(.schema == "pfshim.report")) | all(.[];
		(.events | map({(.name): .value}) | add) as $v |
		(.metrics[] | select(.name == "Faults per ms of CPU") | .value) as $m |
		(($m - $v["page-faults"] / ($v["task-clock"] * 1e-6)) | fabs) <= 1e-9 * $m)' m/*.json
	# the job's: the events summed over the images, then the formula
	run -0 "$PFSHIM" report --metrics --json m
	want=$(jq -s 'map(select(.schema == "pfshim.report") | .events | map({(.name): .value}) | add) |
		(map(."page-faults") | add) / ((map(."task-clock") | add) * 1e-6)' m/*.json)
	got=$(jq '.metrics[] | select(.group == null and .region == null and .name == "Faults per ms of CPU") | .value' <<<"$output")
	echo "job: $got, from the summed counts: $want"
	jq -n -e --argjson g "$got" --argjson w "$want" '(($g - $w) | fabs) <= 1e-9 * $w'
	# a group that cannot be read: one line from the runner, exit 2, nothing run
	run -2 --separate-stderr "$PFSHIM" run -M /etc/hostname -o bad -- sh -c 'echo ran'
	[ "$output" = "" ]
	[[ "$stderr" == "pfshim run: -M /etc/hostname: /etc/hostname, line 1: not a group file's line" ]]
	[ ! -e bad ]
}

@test "pfshim report: malformed, truncated and foreign inputs are named and skipped" {
	mkdir in
	env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=page-faults PFSHIM_FORMAT=json PFSHIM_OUTPUT="$PWD/in/" \
		sh -c '/bin/true; /bin/true'
	good=$(ls in/*.json | wc -l)
	sum=$(jq_sum page-faults in)
	f=$(ls in/*.json | head -1)
	head -c 100 "$f" >in/truncated.json
	echo 'not json {' >in/garbage.json
	echo '{"schema":"other.thing","version":1}' >in/foreign.json
	echo '{"schema":"pfshim.report","version":99,"pid":1,"events":[]}' >in/future.json
	echo '{"schema":"pfshim.report","version":1,"pid":1,"events":[{"name":"x","value":"7"}]}' >in/badevent.json
	: >in/empty.json
	printf '\x00\xff\xfe' >in/binary.json
	run -0 --separate-stderr "$PFSHIM" report --json in
	[ "$(jq .reports <<<"$output")" -eq "$good" ]
	[ "$(jq .skipped <<<"$output")" -eq 6 ]
	[ "$(jq '.events[0].value' <<<"$output")" = "$sum" ]
	[[ "$stderr" == *"in/truncated.json: truncated or malformed JSON"* ]]
	[[ "$stderr" == *"in/garbage.json: truncated or malformed JSON"* ]]
	[[ "$stderr" == *"in/foreign.json: not a pfshim report"* ]]
	[[ "$stderr" == *"in/future.json: a report of a newer schema version"* ]]
	[[ "$stderr" == *"in/badevent.json: a pfshim report with a malformed event"* ]]
	[[ "$stderr" == *"in/binary.json: truncated or malformed JSON"* ]]
	run -1 "$PFSHIM" report in/garbage.json /no/such/file
	[[ "$output" == *"/no/such/file: No such file or directory; skipped"* ]]
}

@test "pfshim report reads JSON Lines from a file and from stdin" {
	env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=page-faults PFSHIM_FORMAT=json \
		PFSHIM_OUTPUT="$PWD/all.jsonl" sh -c '/bin/true; /bin/true; /bin/true'
	n=$(wc -l <all.jsonl)
	run -0 "$PFSHIM" report --json all.jsonl
	[ "$(jq .reports <<<"$output")" -eq "$n" ]
	run -0 "$PFSHIM" report --json - <all.jsonl
	[ "$(jq .reports <<<"$output")" -eq "$n" ]
	[ "$(jq '.events[0].value' <<<"$output")" = "$(jq -s 'map(.events[0].value) | add' all.jsonl)" ]
}

@test "the job directory of a plain LD_PRELOAD run is what pfshim report reads" {
	mkdir -m 0700 run
	run -0 env XDG_RUNTIME_DIR="$PWD/run" LD_PRELOAD="$SHIM" PFSHIM_EVENTS=page-faults \
		sh -c 'for i in 1 2 3; do /bin/true; done'
	dir=$(sed -n 's/.*descendant processes* in \([^ ]*\) (see.*/\1/p' <<<"$output")
	run -0 "$PFSHIM" report --json "$dir"
	[ "$(jq '.groups[] | select(.group == "true") | .reports' <<<"$output")" -eq 3 ]
}

@test "pfshim run's calibration cache: the user's own directory, never one another user controls" {
	c="$BATS_TEST_TMPDIR/cache"
	run -0 --separate-stderr env XDG_CACHE_HOME="$c" "$PFSHIM" run -o r1 -- /bin/true
	[[ "$stderr" == *"pfshim's own share"* ]]
	[ "$(stat -c '%a %U' "$c/pfshim" "$c/pfshim/calibration.json" | paste -sd' ')" = \
		"700 $(id -un) 600 $(id -un)" ]
	[ "$(jq -r '.entries[0].key' "$c/pfshim/calibration.json" | cut -c1-4)" = "lib " ]
	[ "$(id -u)" -eq 0 ] || skip "needs root (a directory of another user's)"
	# root with another user's cache directory (sudo -E): calibrates, writes nothing there
	mkdir "$BATS_TEST_TMPDIR/theirs"
	chown 65534 "$BATS_TEST_TMPDIR/theirs"
	run -0 --separate-stderr env XDG_CACHE_HOME="$BATS_TEST_TMPDIR/theirs" "$PFSHIM" run -o r2 -- /bin/true
	[[ "$stderr" == *"pfshim's own share"* ]]
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/theirs")" ]
	# nor through a link they put where root's own directory would be
	mkdir -m 700 "$BATS_TEST_TMPDIR/mine" "$BATS_TEST_TMPDIR/elsewhere"
	ln -s "$BATS_TEST_TMPDIR/elsewhere" "$BATS_TEST_TMPDIR/mine/pfshim"
	run -0 --separate-stderr env XDG_CACHE_HOME="$BATS_TEST_TMPDIR/mine" "$PFSHIM" run -o r3 -- /bin/true
	[ -z "$(ls -A "$BATS_TEST_TMPDIR/elsewhere")" ]
}

@test "pfshim run's calibration: 31 rounds, task-clock as each run's whole CPU time where the kernel keeps it" {
	c="$BATS_TEST_TMPDIR/cache"
	run -0 --separate-stderr env XDG_CACHE_HOME="$c" "$PFSHIM" run -e page-faults,task-clock -o r1 -- /bin/true
	cal=$(jq -c .calibration r1/pfshim-job.jsonl)
	if [ -r /proc/self/schedstat ]; then want=process; else want=counter; fi
	[ "$(jq -c '[.runs, .task_clock, .cached]' <<<"$cal")" = "[31,\"$want\",false]" ]
	# off and preloaded are bare plus the rounds' median differences, never below them
	[ "$(jq '[.events[] | .off >= .bare and .preloaded >= .off + .in_process] | all' <<<"$cal")" = true ]
	# the next run takes it from the cache, with how it was measured
	run -0 --separate-stderr env XDG_CACHE_HOME="$c" "$PFSHIM" run -e page-faults,task-clock -o r2 -- /bin/true
	[ "$(jq -c '.calibration | [.runs, .task_clock, .cached]' r2/pfshim-job.jsonl)" = "[31,\"$want\",true]" ]
	# another event list calibrates once, and the first stays cached beside it
	run -0 --separate-stderr env XDG_CACHE_HOME="$c" "$PFSHIM" run -e page-faults -o r2c -- /bin/true
	[ "$(jq .calibration.cached r2c/pfshim-job.jsonl)" = false ]
	run -0 --separate-stderr env XDG_CACHE_HOME="$c" "$PFSHIM" run -e page-faults,task-clock -o r2d -- /bin/true
	[ "$(jq .calibration.cached r2d/pfshim-job.jsonl)" = true ]
	# the one used last first: what 8 other lists push out is the least recently used
	[[ "$(jq -r '.entries[0].key' "$c/pfshim/calibration.json")" == *" events page-faults task-clock" ]]
	run -0 --separate-stderr env XDG_CACHE_HOME="$c" "$PFSHIM" run -e page-faults -o r2e -- /bin/true
	[ "$(jq .calibration.cached r2e/pfshim-job.jsonl)" = true ]
	[[ "$(jq -r '.entries[0].key' "$c/pfshim/calibration.json")" == *" events page-faults" ]]
	[ "$(jq '.entries | length' "$c/pfshim/calibration.json")" -eq 2 ]
	# entries that are not calibrations (no key, not objects, a key again) are passed over
	cp "$c/pfshim/calibration.json" two.json
	jq -c '.entries = [1, "x", {key: 5}] + .entries + [.entries[0]]' two.json >"$c/pfshim/calibration.json"
	run -0 --separate-stderr env XDG_CACHE_HOME="$c" "$PFSHIM" run -e page-faults -o r2ee -- /bin/true
	[ "$(jq .calibration.cached r2ee/pfshim-job.jsonl)" = true ]
	cp two.json "$c/pfshim/calibration.json"
	# at most 8 kept, the newest first: 8 others' (made up) and a new one leave it and 7
	jq -c '.entries = [range(8) as $i | .entries[0] | .key = "other \($i)"]' \
		"$c/pfshim/calibration.json" >eight.json
	cp eight.json "$c/pfshim/calibration.json"
	run -0 --separate-stderr env XDG_CACHE_HOME="$c" "$PFSHIM" run -e page-faults,task-clock -o r2f -- /bin/true
	[ "$(jq .calibration.cached r2f/pfshim-job.jsonl)" = false ]
	[ "$(jq -c '[.entries[] | .key[0:4]]' "$c/pfshim/calibration.json")" = \
		'["lib ","othe","othe","othe","othe","othe","othe","othe"]' ]
	[ "$(jq -r '.entries[-1].key' "$c/pfshim/calibration.json")" = "other 6" ]
	# a cache of one object (an earlier pfshim's) is read as one entry
	jq -c '.entries[0]' "$c/pfshim/calibration.json" >one.json
	cp one.json "$c/pfshim/calibration.json"
	run -0 --separate-stderr env XDG_CACHE_HOME="$c" "$PFSHIM" run -e page-faults,task-clock -o r2g -- /bin/true
	[ "$(jq .calibration.cached r2g/pfshim-job.jsonl)" = true ]
	# a cache of 12 KiB (the same JSON value, padded) is read as well
	printf '%12288s\n' '' >>"$c/pfshim/calibration.json"
	run -0 --separate-stderr env XDG_CACHE_HOME="$c" "$PFSHIM" run -e page-faults,task-clock -o r2b -- /bin/true
	[ "$(jq .calibration.cached r2b/pfshim-job.jsonl)" = true ]
	# a calibration kept by a build of another method (a key without it) is measured anew
	sed -i 's/ method [0-9]* events/ events/' "$c/pfshim/calibration.json"
	run -0 --separate-stderr env XDG_CACHE_HOME="$c" "$PFSHIM" run -e page-faults,task-clock -o r3 -- /bin/true
	[ "$(jq .calibration.cached r3/pfshim-job.jsonl)" = false ]
	# the cache read whole, not a read(2) a byte (jansson's json_loadfd: 13,000 for this file)
	strace -o /dev/null true 2>/dev/null || skip "strace cannot trace here (no ptrace in this container)"
	printf '%12288s\n' '' >>"$c/pfshim/calibration.json"
	run -0 --separate-stderr strace -f -e trace=read -o reads.txt env XDG_CACHE_HOME="$c" \
		"$PFSHIM" run -e page-faults,task-clock -o r4 -- /bin/true
	[ "$(jq .calibration.cached r4/pfshim-job.jsonl)" = true ]
	[ "$(grep -c 'read(' reads.txt)" -lt 100 ]
}

# expected_share DIR EVENT FIELD: pfshim's own share of EVENT computed here from DIR's files, by
# docs/pfshim.md's sum: the reports' shares, the loader's part per image that loaded the shim,
# the end's per image that reported, the set-up's per image that loaded it and did not report,
# the price per 1000 faults the reports counted and per fork their images made, and the job's
# records' price per image its tasks exec'd.
expected_share() {
	jq -n --arg e "$2" --arg f "$3" --slurpfile job "$1/pfshim-job.jsonl" \
		--slurpfile r <(cat "$1"/*.json) '
		($r | map(select(.schema == "pfshim.report" and .pfshim_share != null))) as $rep |
		($job[0].calibration.events[] | select(.name == $e)) as $c |
		([$c.off - $c.bare, 0] | max) as $loader |
		([([$c.preloaded - $c.in_process, 0] | max) - $c.off, 0] | max) as $tail |
		($job[0].shim_images) as $loaded |
		([$loaded - ($rep | map(select(.pfshim_share.loaded)) | length), 0] | max) as $unreported |
		($rep | map(.events[] | select(.name == "page-faults") | .value) | add) as $faults |
		($rep | map(.pfshim_share.forks) | add) as $forks |
		($rep | map(.pfshim_share[$f]) | add) + $loader * $loaded + $tail * ($rep | length) +
		$c.setup * $unreported + ($c.per_1000_faults * $faults / 1000 | floor) +
		$c.per_fork * $forks + $c.per_exec * $job[0].execs'
}

@test "pfshim run's share: each page fault and each fork at the price the calibration says" {
	c="$BATS_TEST_TMPDIR/cache"
	run -0 --separate-stderr env XDG_CACHE_HOME="$c" "$PFSHIM" run -e page-faults,task-clock \
		-o r1 -- "$PROGS/fork_children" 5 300 2000
	# one exec (the command's), priced: a count in every event's calibration
	[ "$(jq -c '[.execs, ([.calibration.events[] | .per_exec | type == "number"] | all)]' \
		r1/pfshim-job.jsonl)" = "[1,true]" ]
	# the parent's report says its 5 forks; each child's, none
	[ "$(jq -s -c 'map(select(.schema == "pfshim.report") | .pfshim_share.forks) | sort' r1/*.json)" = \
		"[0,0,0,0,0,5]" ]
	[ "$(jq -c '.calibration.units' r1/pfshim-job.jsonl)" = '{"pages":2048,"forks":16}' ]
	[ "$(jq '[.calibration.events[] | (.per_1000_faults | type) == "number" and
		(.per_fork | type) == "number"] | all' r1/pfshim-job.jsonl)" = true ]
	for e in page-faults:page_faults task-clock:task_clock_ns; do
		[ "$("$PFSHIM" report --json r1 | jq --arg e "${e%%:*}" '.job.pfshim_share[] |
			select(.name == $e) | .value')" = "$(expected_share r1 "${e%%:*}" "${e#*:}")" ]
	done
	# prices of our own in the cache: the next run's share has them, to the unit
	jq -c '(.entries[0].calibration.events[] | select(.share == "task_clock_ns")) |= (.per_1000_faults = 1000000 |
		.per_fork = 7000000 | .per_exec = 500000) | (.entries[0].calibration.events[] |
		select(.share == "page_faults")) |= (.per_fork = 3 | .per_exec = 2)' \
		"$c/pfshim/calibration.json" >cal.json
	cp cal.json "$c/pfshim/calibration.json"
	run -0 --separate-stderr env XDG_CACHE_HOME="$c" "$PFSHIM" run -e page-faults,task-clock \
		-o r2 -- "$PROGS/fork_children" 5 300 2000
	[ "$(jq .calibration.cached r2/pfshim-job.jsonl)" = true ]
	faults=$(jq -s 'map(select(.schema == "pfshim.report") | .events[] |
		select(.name == "page-faults") | .value) | add' r2/*.json)
	[ "$faults" -ge $((5 * 300 + 2000)) ]
	"$PFSHIM" report --json r2 >r2.json
	tc=$(jq '.job.pfshim_share[] | select(.name == "task-clock") | .value' r2.json)
	pf=$(jq '.job.pfshim_share[] | select(.name == "page-faults") | .value' r2.json)
	[ "$tc" = "$(expected_share r2 task-clock task_clock_ns)" ]
	[ "$pf" = "$(expected_share r2 page-faults page_faults)" ]
	# beyond the same job read without prices: 1 us per fault counted, 7 ms and 3 faults per fork,
	# 0.5 ms and 2 faults for the one exec
	mkdir r2z
	cp r2/*.json r2z/
	jq -c '.calibration.events[] |= (.per_1000_faults = 0 | .per_fork = 0 | .per_exec = 0)' \
		r2/pfshim-job.jsonl >r2z/pfshim-job.jsonl
	"$PFSHIM" report --json r2z >r2z.json
	[ $((tc - $(jq '.job.pfshim_share[] | select(.name == "task-clock") | .value' r2z.json))) -eq \
		$((faults * 1000 + 5 * 7000000 + 500000)) ]
	[ $((pf - $(jq '.job.pfshim_share[] | select(.name == "page-faults") | .value' r2z.json))) -eq 17 ]
	[ "$(jq '.job.execs' r2.json)" -eq 1 ]
	run -0 "$PFSHIM" report r2
	[[ "$output" == *"; the kernel's records of 1 exec, beyond perf stat's counting"* ]]
	[ "$(jq '.job.share_forks' r2.json)" -eq 5 ]
	# a price that is not a count (negative, text) is not taken: the run calibrates anew
	jq -c '.entries[0].calibration.events[0].per_fork = -1' cal.json >"$c/pfshim/calibration.json"
	run -0 --separate-stderr env XDG_CACHE_HOME="$c" "$PFSHIM" run -e page-faults,task-clock -o r3 -- /bin/true
	[ "$(jq .calibration.cached r3/pfshim-job.jsonl)" = false ]
	jq -c '.entries[0].calibration.events[1].per_1000_faults = "1e9"' cal.json >"$c/pfshim/calibration.json"
	run -0 --separate-stderr env XDG_CACHE_HOME="$c" "$PFSHIM" run -e page-faults,task-clock -o r4 -- /bin/true
	[ "$(jq .calibration.cached r4/pfshim-job.jsonl)" = false ]
	# the pricing program typed by a person: bounded, no work past 4 GiB of pages or 65536 forks
	run -2 "$PFSHIM" __calibrate-child 99999999999999999999 0
	run -2 "$PFSHIM" __calibrate-child 0 70000
	run -2 "$PFSHIM" __calibrate-child 1
	run -0 "$PFSHIM" __calibrate-child 10 2
	[ "$(wc -w <<<"$output")" -eq 3 ]
}

@test "pfshim run: the refusal probe's counters close only once the job count's are open" {
	# The first open of a software event type, and its last close, flip the kernel's static key
	# (text patched, an IPI to every CPU): closed at once, the probe's and the job count's
	# events each flipped them: twice the flips, 0.23 ms of CPU a run here (docs/performance.md).
	strace -o /dev/null true 2>/dev/null || skip "strace cannot trace here (no ptrace in this container)"
	run -0 --separate-stderr strace -f -qq -e trace=perf_event_open,close,fcntl,clone,clone3 \
		-o trace.txt "$PFSHIM" run -e page-faults,context-switches -o r -- /bin/true
	# The runner's lines: the probe's descriptors are those it moved into its band before the
	# fork; each must close after its first open of an event on the child's pid. A call that
	# another process's interrupted is two lines ("<unfinished ...>", "<... close resumed>"):
	# joined again first.
	run awk '
		NR == 1 { runner = $1 }
		/ <unfinished \.\.\.>$/ { sub(/ <unfinished \.\.\.>$/, ""); pending[$1] = $0; next }
		/^[0-9]+ +<\.\.\. [a-z0-9_]+ resumed>/ {
			rest = $0; sub(/^[0-9]+ +<\.\.\. [a-z0-9_]+ resumed>/, "", rest)
			$0 = pending[$1] rest
		}
		$1 != runner { next }
		!child && /^[0-9]+ +clone3?\(/ { child = $NF }
		!child && /F_DUPFD_CLOEXEC/ { probe[$NF] = 1; opened++ }
		child && index($0, "}, " child ", ") && /perf_event_open/ { counting = 1 }
		$2 ~ /^close\([0-9]+\)$/ {
			fd = $2; gsub(/[^0-9]/, "", fd)
			if (fd in probe) { closed++; early += !counting }
		}
		END {
			printf "probe: %d opened, %d closed, %d before the job count\n", opened, closed, early
			exit !(opened == 2 && closed == 2 && early == 0)
		}' trace.txt
	echo "$output"
	[ "$status" -eq 0 ]
}

# TERM to pfshim run: passed on to the job, whose summary then comes without seconds of
# calibration runs (a calibration kept from an earlier run is still taken).
@test "pfshim run sent TERM: the job ends by it, the summary comes, no calibration is started" {
	export XDG_CACHE_HOME="$BATS_TEST_TMPDIR/cache"
	"$PFSHIM" run -o r -- sleep 30 2>"$BATS_TEST_TMPDIR/err" &
	runner=$!
	for _ in $(seq 100); do
		[ -n "$(pgrep -P "$runner" sleep)" ] && break
		sleep 0.05
	done
	kill -TERM "$runner"
	status=0
	wait "$runner" || status=$?
	cat "$BATS_TEST_TMPDIR/err"
	[ "$status" -eq 143 ]
	grep -q "Performance counter stats for 'sleep 30'" "$BATS_TEST_TMPDIR/err"
	grep -q "loading it is not in it (Operation canceled)" "$BATS_TEST_TMPDIR/err"
	[ ! -e "$XDG_CACHE_HOME/pfshim/calibration.json" ]
}

# A background process the command did not wait for has no exit record when the command
# ends: named as still running (kind "running"), not as killed.
@test "pfshim run of a command that leaves a process running: said to be still running, not killed" {
	# longer than a first calibration (6-13 s), which comes before the summary
	run -0 --separate-stderr "$PFSHIM" run -o r -- sh -c 'sleep 61 >/dev/null 2>&1 & true'
	echo "$stderr"
	grep -q "^ pfshim: 1 process still running when the command ended (" <<<"$stderr"
	! grep -q "left no report" <<<"$stderr"
	run -0 "$PFSHIM" report --json r
	[ "$(jq -r '.job.unreported | map(.kind) | join(",")' <<<"$output")" = running ]
	pkill -f '^sleep 61$' || true
}

# A process that outlives the command reports later into the job's directory: without -o the
# temporary directory is kept for it (0700, named), not removed under it (its report would
# make it again, 0755 in /tmp, readable by all); pfshim report then has its rows, the subshell's
# exec report and seq's, whose counts run past the totals' end: "in no row" is not known
# rather than 0.
@test "pfshim run without -o, a process outliving the command: the directory kept for it, in no row not known" {
	export TMPDIR="$BATS_TEST_TMPDIR/tmp"
	mkdir "$TMPDIR"
	mkfifo go	# the process waits for it: at most 120 s (a first calibration comes first)
	run -0 --separate-stderr "$PFSHIM" run -e task-clock,page-faults,cycles -- \
		sh -c '(timeout 120 cat go; exec seq 3000000) >/dev/null 2>&1 & true'
	echo "$stderr"
	grep -Eq "^ pfshim: [1-3] process(es)? still running when the command ended \(" <<<"$stderr"
	dir=$(sed -n 's|^ pfshim: the reports are in \(.*\)/ (pfshim report .*|\1|p' <<<"$stderr")
	[ -n "$dir" ]
	[ "$(dirname "$dir")" = "$TMPDIR" ]
	[ "$(stat -c %a "$dir")" = 700 ]
	timeout 10 sh -c 'echo go >go'
	for _ in $(seq 400); do
		jq -e 'select(.program == "seq")' "$dir"/*.json >/dev/null 2>&1 && break
		sleep 0.025
	done
	[ "$(stat -c %a "$dir")" = 700 ]
	run -0 --separate-stderr "$PFSHIM" report --json "$dir"
	# the subshell's exec report and seq's at least (timeout's and cat's, as far as they got)
	[ "$(jq '.job.outlived' <<<"$output")" -ge 2 ]
	[ "$(jq -c '[.job.in_no_row[] | .value] | unique' <<<"$output")" = '[null]' ]
	# the rows' task-clock (seq's whole life) beyond the kernel's, which stopped at the end
	rows=$(jq_sum task-clock "$dir")
	total=$(job_total task-clock "$dir")
	echo "rows $rows total $total"
	[ "$rows" -gt "$total" ]
	# cycles, where no PMU counts it, is not supported there as everywhere, not "not known"
	cycles=$("$PFSHIM" report --json "$dir" | jq -r '.job.events[] | select(.name == "cycles") |
		if .not_supported > 0 then "<not supported>" else "not known" end')
	run -0 --separate-stderr "$PFSHIM" report "$dir"
	grep -Eq "^ in no row +not known +not known +$cycles\$" <<<"$output"
	grep -Eq "^ pfshim: [0-9]+ images reported after the command ended \(.*seq.*\): the totals hold them up to the command's end" <<<"$output"
	run -0 --separate-stderr "$PFSHIM" report --csv "$dir"
	grep -q '^in-no-row,,[0-9]*,[0-9]*,task-clock,,0,0,' <<<"$output"	# empty: not known
	rm -r "$dir"
}

# The command may end between a background child's exec and its loader's mapping of the
# shim: a dynamic image with no exit record is still running, whether or not its shim was
# seen yet; one that exited without the shim did not load it. The job file, edited.
@test "pfshim report: a running process whose shim was not seen yet is running, not without the shim" {
	run -0 --separate-stderr "$PFSHIM" run -o r -- true
	job=r/pfshim-job.jsonl
	jq -c '.processes += [
		{pid: 999991, ppid: 1, program: "sleep", exited: false, dynamic: true, shim: false},
		{pid: 999992, ppid: 1, program: "sudo", exited: true, dynamic: true, shim: false},
		{pid: 999993, ppid: 1, program: "busybox", exited: false, dynamic: false, shim: false}]' \
		"$job" >job.new
	mv job.new "$job"
	run -0 "$PFSHIM" report --json r
	[ "$(jq -r '.job.unreported | map(.program + ":" + .kind) | sort | join(",")' <<<"$output")" = \
		busybox:static,sleep:running,sudo:no-shim ]
}

# TERM while the runner calibrates (after the job): the calibration stops between rounds and
# is not kept, and the TERM goes to no process (the job's pid is reaped, its number free).
@test "pfshim run sent TERM during its calibration: it stops there, keeps none, signals nothing else" {
	export XDG_CACHE_HOME="$BATS_TEST_TMPDIR/cache" TMPDIR="$BATS_TEST_TMPDIR/tmp"
	mkdir "$TMPDIR"
	strace -f -qq -e trace=kill -o "$BATS_TEST_TMPDIR/kills" \
		"$PFSHIM" run -o r -- /bin/true 2>"$BATS_TEST_TMPDIR/err" &
	tracer=$!
	for _ in $(seq 400); do
		compgen -G "$TMPDIR/pfshim-calibrate.*" >/dev/null && break
		sleep 0.025
	done
	compgen -G "$TMPDIR/pfshim-calibrate.*" >/dev/null || skip "the calibration was not seen starting"
	runner=$(pgrep -P "$tracer" -x pfshim)
	kill -TERM "$runner"
	status=0
	wait "$tracer" || status=$?
	cat "$BATS_TEST_TMPDIR/err"
	[ "$status" -eq 0 ]	# /bin/true's
	grep -q "loading it is not in it (Operation canceled)" "$BATS_TEST_TMPDIR/err"
	[ ! -e "$XDG_CACHE_HOME/pfshim/calibration.json" ]
	# the runner's own kill(2) calls: none after the job was reaped
	! grep -q "kill(" "$BATS_TEST_TMPDIR/kills" || { cat "$BATS_TEST_TMPDIR/kills"; false; }
}
