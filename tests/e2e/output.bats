#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# PFSHIM_OUTPUT and PFSHIM_FORMAT: where reports go and what they look like there.

load helpers

@test "%p gives one file per process" {
	run env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_EVENTS=page-faults \
		PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/r.%p.json" "$PROGS/fork_children" 2 10 0
	[ "$status" -eq 0 ]
	for pid in "${lines[@]}"; do
		jq -e ".pid == $pid" "$BATS_TEST_TMPDIR/r.$pid.json"
	done
	[ "$(ls "$BATS_TEST_TMPDIR"/r.*.json | wc -l)" -eq 3 ]
}

@test "%e, %h and %% expand" {
	env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock \
		PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/%e@%h-100%%.txt" "$PROGS/touch_pages" 1
	grep -q 'seconds time elapsed' "$BATS_TEST_TMPDIR/touch_pages@$(uname -n)-100%.txt"
}

@test "a relative PFSHIM_OUTPUT is where the first process meant: a child or the process itself that changes directory writes there too" {
	mkdir -p "$BATS_TEST_TMPDIR/100%x/sub" && cd "$BATS_TEST_TMPDIR/100%x"
	# dash changes directory, then forks true; bash and dash both see the absolute value (a % doubled: a template)
	run -0 --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=page-faults PFSHIM_OUTPUT=rel/ \
		sh -c 'cd sub && /bin/true && bash -c '\''printf "%s\n" "$PFSHIM_OUTPUT"'\''; exit 0'
	[ -z "$stderr" ]
	[ "$output" = "$BATS_TEST_TMPDIR/100%%x/rel/" ]
	[ ! -e sub/rel ]
	# sh, true and bash: their JSON reports (a directory's default), all in ./rel/
	[ "$(jq -r .program rel/* | sort | tr '\n' ' ')" = "$(printf '%s\n' bash true "$(basename "$(readlink -f /bin/sh)")" | sort | tr '\n' ' ')" ]
	# a file template the same way
	run -0 env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=page-faults PFSHIM_FORMAT=json PFSHIM_OUTPUT=r.%p.json \
		sh -c 'cd sub && /bin/true; exit 0'
	[ "$(ls r.*.json | wc -l)" -eq 2 ] && [ -z "$(ls sub)" ]
}

@test "stdout on request" {
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=stdout PFSHIM_FORMAT=json \
		PFSHIM_EVENTS=task-clock "$PROGS/exit_how" return 0
	[ "${lines[0]}" = out ]
	printf '%s\n' "${lines[1]}" | jq -e '.program == "exit_how"'
	[ -z "$stderr" ]
}

@test "64 concurrent processes appending to one file never interleave" {
	for i in $(seq 64); do
		shim PFSHIM_EVENTS='task-clock,page-faults,context-switches' "$PROGS/touch_pages" 50 &
	done
	wait
	[ "$(wc -l <"$REPORTS")" -eq 64 ]
	# Every line is one whole JSON report.
	[ "$(jq -s 'length' "$REPORTS")" -eq 64 ]
}

# 60 events: a JSON report of ~13.5 KiB, above PIPE_BUF (4 KiB), which the kernel keeps whole.
big_events() {
	local e='task-clock,page-faults,context-switches,cpu-migrations,minor-faults,major-faults'

	printf '%s' "$e"
	for _ in $(seq 9); do printf ',%s' "$e"; done
}

# whole_reports FILE: FILE holds 20 whole reports of 60 events, one per line, of 20 processes.
whole_reports() {
	[ "$(wc -l <"$1")" -eq 20 ]
	[ "$(awk 'length > 4096' "$1" | wc -l)" -eq 20 ]
	[ "$(jq -s 'map(select(.events | length == 60)) | length' "$1")" -eq 20 ]
	[ "$(jq -s 'map(.pid) | unique | length' "$1")" -eq 20 ]
}

# 20 processes at once, each one report to stderr: a pipe read only after 0.5 s (the pipe fills
# up: 272 KiB into 64), then slowly, 64 bytes a read, so that writers wait for room in the middle
# of their reports again and again, where the kernel lets another writer in.
@test "20 processes' 14 KiB reports into one pipe arrive whole" {
	out="$BATS_TEST_TMPDIR/pipe.jsonl"
	timeout 60 bash -c 'for _ in $(seq 20); do
			env LD_PRELOAD="$1" PFSHIM_FORMAT=json PFSHIM_EVENTS="$2" /bin/true &
		done
		wait' _ "$SHIM" "$(big_events)" 2>&1 | { sleep 0.5; exec dd bs=64 status=none; } >"$out"
	whole_reports "$out"
}

@test "20 processes' 14 KiB reports into one FIFO arrive whole" {
	fifo="$BATS_TEST_TMPDIR/fifo"
	out="$BATS_TEST_TMPDIR/fifo.jsonl"
	pids=()
	mkfifo "$fifo"
	timeout 60 sh -c 'sleep 0.5; exec dd bs=64 status=none' <"$fifo" >"$out" &
	reader=$!
	exec {hold}>"$fifo"	# a writer, so that the reader's open returns; the shim's need a reader
	for _ in $(seq 20); do
		timeout 60 env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_EVENTS="$(big_events)" \
			PFSHIM_OUTPUT="$fifo" /bin/true &
		pids+=($!)
	done
	wait "${pids[@]}"
	exec {hold}>&-
	wait "$reader"
	whole_reports "$out"
}

@test "a file gathers reports in JSON Lines: one object per line" {
	shim PFSHIM_EVENTS=task-clock sh -c "$PROGS/touch_pages 1; $PROGS/touch_pages 2"
	[ "$(wc -l <"$REPORTS")" -eq "$(jq -s length "$REPORTS")" ]
	[ "$(reports '.program == "touch_pages" and .reason == "exit"')" -eq 2 ]
	[ "$(reports ".program == \"$(sh_name)\" and .reason == \"exit\"")" -eq 1 ]
}

@test "a program that closes its stderr at exit (coreutils ls) still gets its report on stderr" {
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=page-faults PFSHIM_FORMAT=csv ls /
	[ "$status" -eq 0 ]
	[[ "$stderr" == *",ls,exit,"*",page-faults,"* ]]
}

@test "every format names the pfshim that wrote the report: VERSION's" {
	version=$(cat "$ROOT/VERSION")
	[ -n "$version" ]
	shim PFSHIM_EVENTS=task-clock "$PROGS/touch_pages" 1
	[ "$(jq -r .pfshim_version "$REPORTS")" = "$version" ]
	run -0 --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock "$PROGS/touch_pages" 1
	grep -qx " pfshim: reported at exit by pfshim $version" <<<"$stderr"
	run -0 --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock PFSHIM_FORMAT=csv \
		"$PROGS/touch_pages" 1
	[ "$(head -n 1 <<<"$stderr" | awk -F, '{ print $NF }')" = pfshim_version ]
	[ "$(sed -n 2p <<<"$stderr" | awk -F, '{ print $NF }')" = "$version" ]
	run -0 --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock PFSHIM_FORMAT=openmetrics \
		"$PROGS/touch_pages" 1
	grep -q "^pfshim_report_info{.*,pfshim_version=\"$version\"} 1$" <<<"$stderr"
}

# docs/output.md, "The batch job": each scheduler's documented variables, set
# by hand as the scheduler sets them (slurm.bats runs the real Slurm).
@test "the batch job: Slurm's job and step, an LSF array element, Flux inside Slurm, PBS" {
	shim PFSHIM_EVENTS=page-faults SLURM_JOB_ID=1234 SLURM_STEP_ID=0 SLURM_PROCID=2 "$PROGS/touch_pages" 1
	shim PFSHIM_EVENTS=page-faults LSB_JOBID=4321 LSB_JOBINDEX=12 "$PROGS/touch_pages" 1
	shim PFSHIM_EVENTS=page-faults FLUX_JOB_ID=ƒ2KnEi3Kqs SLURM_JOB_ID=1234 "$PROGS/touch_pages" 1
	shim PFSHIM_EVENTS=page-faults PBS_JOBID=1234[5].server "$PROGS/touch_pages" 1
	shim PFSHIM_EVENTS=page-faults "$PROGS/touch_pages" 1
	[ "$(jq -c '[.rank, .job]' "$REPORTS")" = '[2,{"scheduler":"slurm","id":"1234","step":"0"}]
[null,{"scheduler":"lsf","id":"4321[12]","step":null}]
[null,{"scheduler":"flux","id":"ƒ2KnEi3Kqs","step":null}]
[null,{"scheduler":"pbs","id":"1234[5].server","step":null}]
[null,null]' ]
	# the other formats: the text footer's line, CSV's columns, OpenMetrics' labels
	run -0 --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=page-faults SLURM_JOB_ID=7 \
		SLURM_STEP_ID=0 "$PROGS/touch_pages" 1
	[ "$(grep -A 1 '^ pfshim: reported' <<<"$stderr")" = " pfshim: reported at exit by pfshim $(cat "$ROOT/VERSION")
 pfshim: in slurm job 7, step 0" ]
	run -0 --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=page-faults PFSHIM_FORMAT=csv \
		LSB_JOBID=4321 LSB_JOBINDEX=12 "$PROGS/touch_pages" 1
	[ "$(sed -n 2p <<<"$stderr" | awk -F, '{ print $(NF - 3), $(NF - 2), "[" $(NF - 1) "]" }')" = "lsf 4321[12] []" ]
	run -0 --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=page-faults \
		PFSHIM_FORMAT=openmetrics PBS_JOBID=1234.server "$PROGS/touch_pages" 1
	grep -q '^pfshim_report_info{.*,job_scheduler="pbs",job_id="1234.server",job_step="",pfshim_version=' <<<"$stderr"
}
