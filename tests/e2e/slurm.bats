#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# slurm.bats: a real single-node Slurm (Debian's slurm-wlm and munge, both
# daemons started here with their own key, socket, ports and state in a
# temporary directory): srun -n 4 and sbatch with the shim in the tasks'
# environment only. One report per task, named by its rank, carrying the job
# and step ids Slurm gave; pfshim report --by rank shows the imbalance built
# into the tasks, exactly.

load helpers

# Rank r runs markers_threads 2 20 10(r+1): 2 threads each fault in 10(r+1)
# fresh pages in region "work": 20, 40, 60, 80 page faults, mean 50, max 80.
WORK_FAULTS=(20 40 60 80)
IMBALANCE=1.6

# The first line of FILE matching error/fatal, else its last line: why a daemon stopped.
daemon_reason() {
	{ grep -Eim1 'error|fatal' "$1" || tail -n 1 "$1"; } 2>/dev/null
}

# A TCP port free now on 127.0.0.1 (the kernel's choice, never a fixed one).
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start NAME COMMAND...: COMMAND in the background (bounded), its output in
# $SL/log/NAME.out, its pid in $SL/NAME.pid; nothing holds bats' descriptors.
start() {
	local name=$1
	shift
	timeout 300 "$@" >"$SL/log/$name.out" 2>&1 3>&- </dev/null &
	echo $! >"$SL/$name.pid"
}

# unavailable REASON: every test skips, saying REASON (bats 1.8's setup_file cannot skip).
unavailable() {
	export SLURM_UNAVAILABLE="$*"
}

setup_file() {
	slurm_start || true
}

# slurm_start: munged, slurmctld and slurmd, the node idle; or why not (unavailable).
slurm_start() {
	[ "$(id -u)" -eq 0 ] || { unavailable "slurmd and munged run as root here"; return 1; }
	for c in munged slurmctld slurmd srun sbatch sinfo squeue; do
		command -v "$c" >/dev/null ||
			{ unavailable "$c is not installed (apt-get install slurm-wlm munge)"; return 1; }
	done
	# Whatever Slurm job make check itself runs in, this one is ours.
	for v in $(compgen -e | grep '^SLURM_'); do unset "$v"; done
	# /tmp, not BATS_FILE_TMPDIR: a socket's path must fit in sun_path's 108 bytes.
	SL=$(mktemp -d /tmp/pfshim-slurm.XXXXXX)
	export SL
	mkdir -p "$SL/munge" "$SL/state" "$SL/spool" "$SL/log"
	chmod 700 "$SL/munge"
	head -c 1024 /dev/urandom >"$SL/munge/munge.key"
	chmod 400 "$SL/munge/munge.key"
	start munged munged --foreground --force --socket="$SL/munge/socket" \
		--key-file="$SL/munge/munge.key" --pid-file="$SL/munge/munged.pid" \
		--seed-file="$SL/munge/seed" --log-file="$SL/log/munged.log"
	for _ in $(seq 100); do
		[ -S "$SL/munge/socket" ] && break
		sleep 0.1
	done
	[ -S "$SL/munge/socket" ] ||
		{ unavailable "munged did not start: $(daemon_reason "$SL/log/munged.out")"; return 1; }

	local host
	host=$(hostname -s)
	# FirstJobId at random: two runs at once (two worktrees' make check) have jobs of
	# other numbers, and the pmix plugin's files (named by job and step) do not collide.
	cat >"$SL/slurm.conf" <<-EOF
	ClusterName=pfshim
	FirstJobId=$((RANDOM * 1000 + 1000))
	SlurmctldHost=$host(127.0.0.1)
	SlurmctldPort=$(free_port)
	SlurmdPort=$(free_port)
	SlurmUser=root
	AuthType=auth/munge
	AuthInfo=socket=$SL/munge/socket
	CredType=cred/munge
	ProctrackType=proctrack/linuxproc
	TaskPlugin=task/none
	SelectType=select/cons_tres
	SelectTypeParameters=CR_CPU
	SchedulerType=sched/builtin
	MpiDefault=none
	JobAcctGatherType=jobacct_gather/none
	AccountingStorageType=accounting_storage/none
	StateSaveLocation=$SL/state
	SlurmdSpoolDir=$SL/spool
	SlurmctldPidFile=$SL/slurmctld.pidfile
	SlurmdPidFile=$SL/slurmd.pidfile
	SlurmctldLogFile=$SL/log/slurmctld.log
	SlurmdLogFile=$SL/log/slurmd.log
	ReturnToService=2
	NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
	PartitionName=pfshim Nodes=$host Default=YES MaxTime=INFINITE State=UP
	EOF
	export SLURM_CONF="$SL/slurm.conf"
	start slurmctld slurmctld -D -i -f "$SLURM_CONF"
	start slurmd slurmd -D -f "$SLURM_CONF"
	local state=
	for _ in $(seq 200); do
		state=$(timeout 5 sinfo --noheader --format=%t 2>/dev/null) || state=
		[ "$state" = idle ] && break
		kill -0 "$(cat "$SL/slurmctld.pid")" 2>/dev/null ||
			{ unavailable "slurmctld stopped: $(daemon_reason "$SL/log/slurmctld.out")"; return 1; }
		kill -0 "$(cat "$SL/slurmd.pid")" 2>/dev/null ||
			{ unavailable "slurmd stopped: $(daemon_reason "$SL/log/slurmd.out")"; return 1; }
		sleep 0.1
	done
	[ "$state" = idle ] || { unavailable "the node is not idle after 20 s (sinfo: '$state'):" \
		"$(daemon_reason "$SL/log/slurmd.out")"; return 1; }
}

teardown_file() {
	local pid
	[ -n "${SL:-}" ] || return 0
	# Only the processes started here, by their pids (timeout passes SIGTERM on).
	for name in slurmd slurmctld munged; do
		pid=$(cat "$SL/$name.pid" 2>/dev/null) || continue
		kill "$pid" 2>/dev/null || continue
		for _ in $(seq 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	done
	rm -rf "$SL"
}

setup() {
	[ -z "${SLURM_UNAVAILABLE:-}" ] || skip "$SLURM_UNAVAILABLE"
	need_perf
	[ -x "$PROGS/markers_threads" ] || skip "$PROGS/markers_threads is not built (make e2e)"
	cd "$BATS_TEST_TMPDIR"
	# srun --multi-prog: task r's own command line
	for r in 0 1 2 3; do
		echo "$r $PROGS/markers_threads 2 20 $((10 * (r + 1)))"
	done >tasks.conf
	export PFSHIM_FORMAT=json PFSHIM_EVENTS=task-clock,page-faults
}

# tasks DIR SRUN-ARGS...: srun -n 4 of tasks.conf, the shim and PFSHIM_OUTPUT=DIR/
# in the tasks' environment only (--export, as docs/jobs.md says); 4 tasks on
# any number of CPUs (--overcommit).
tasks() {
	local dir=$1
	shift
	timeout 60 srun --ntasks=4 --overcommit "$@" \
		--export="ALL,LD_PRELOAD=$SHIM,PFSHIM_OUTPUT=$dir/" --multi-prog tasks.conf
}

# check_ranks DIR JOB STEP: DIR holds exactly the 4 tasks' reports, named by
# rank, each of job JOB step STEP, its region work's page faults rank r's.
check_ranks() {
	python3 - "$@" "${WORK_FAULTS[@]}" <<-'EOF'
	import json, os, re, sys

	d, job, step, faults = sys.argv[1], sys.argv[2], sys.argv[3], [int(x) for x in sys.argv[4:]]
	files = sorted(os.listdir(d))
	assert len(files) == 4, files
	for rank, f in enumerate(files):
	    assert re.search(r"\.r%06d\.p\d{7}\.\d{8}T\d{6}Z\.\d+\.json$" % rank, f), f
	    r = json.load(open(os.path.join(d, f)))
	    assert (r["program"], r["rank"], r["reason"]) == ("markers_threads", rank, "exit"), (f, r["rank"])
	    assert r["job"] == {"scheduler": "slurm", "id": job, "step": step}, (f, r["job"])
	    work = next(t for t in r["regions"]["totals"] if t["name"] == "work")
	    pf = next(e for e in work["events"] if e["name"] == "page-faults")
	    assert (work["calls"], pf["sum"]) == (40, faults[rank]), (rank, work["calls"], pf)
	EOF
}

@test "srun -n 4: a report per task, named by its rank, with the job and step ids Slurm gave" {
	run -0 tasks rep --job-name=pfshim-srun
	# the tasks print nothing, and neither does the shim (srun may: "job 3 queued and waiting")
	! grep -q pfshim <<<"$output" || false
	job=$(timeout 10 squeue --noheader --states=all --name=pfshim-srun --format=%i)
	[[ "$job" =~ ^[0-9]+$ ]]
	# the first (and only) step of a job srun created is step 0
	check_ranks rep "$job" 0
}

@test "pfshim report --by rank: the 4 ranks, and the imbalance built into them" {
	[ -x "$BUILD/pfshim" ] || skip "build/pfshim is not built (make tool)"
	run -0 tasks rep
	summary_json --by rank rep
	python3 - summary.json "$IMBALANCE" "${WORK_FAULTS[@]}" <<-'EOF'
	import json, sys

	s, imbalance = json.load(open(sys.argv[1])), float(sys.argv[2])
	faults = [int(x) for x in sys.argv[3:]]
	assert s["by"] == "rank" and [g["group"] for g in s["groups"]] == ["0", "1", "2", "3"], s["groups"]
	work = next(r for r in s["regions"] if r["name"] == "work")
	m = next(m for m in work["metrics"] if m["name"] == "page-faults")
	assert {v["group"]: v["value"] for v in m["values"]} == {str(r): f for r, f in enumerate(faults)}, m
	assert (m["max"], m["mean"]) == (80, 50) and m["imbalance"] == imbalance, m
	EOF
	# the table a person reads says it too
	run -0 "$BUILD/pfshim" report --by rank rep
	grep -Eq '^ +200 +20 +80 +50 +1\.60 +10\.\.40 +page-faults$' <<<"$output"
}

# The batch script's own processes are in the job's batch step: Slurm gives
# them SLURM_JOB_ID but no SLURM_STEP_ID. Its sruns are steps 0, 1, ...
@test "sbatch --wait: the script's sruns are steps 0 and 1 of the job sbatch printed; the script itself has no step" {
	# --overlap: step 1 need not wait for step 0's CPUs to be given back (on a loaded
	# machine srun said "step creation temporarily disabled, retrying")
	cat >job.sh <<-EOF
	#!/bin/sh
	srun --ntasks=4 --overcommit --overlap --export="ALL,LD_PRELOAD=$SHIM,PFSHIM_OUTPUT=$PWD/step0/" --multi-prog tasks.conf
	srun --ntasks=4 --overcommit --overlap --export="ALL,LD_PRELOAD=$SHIM,PFSHIM_OUTPUT=$PWD/step1/" --multi-prog tasks.conf
	LD_PRELOAD="$SHIM" PFSHIM_OUTPUT="$PWD/batch/" $PROGS/touch_pages 10
	EOF
	run -0 timeout 60 sbatch --wait --parsable --ntasks=4 --overcommit --output="$PWD/job.out" job.sh
	job=${output%%;*}
	[[ "$job" =~ ^[0-9]+$ ]]
	[ ! -s job.out ] || { cat job.out; false; }	# the tasks print nothing, and neither does the shim
	check_ranks step0 "$job" 0
	check_ranks step1 "$job" 1
	[ "$(ls batch | wc -l)" -eq 1 ]
	# the batch step is task 0 of the job: SLURM_PROCID=0
	[ "$(jq -c '[.program, .rank, .job]' batch/*.json)" = "[\"touch_pages\",0,{\"scheduler\":\"slurm\",\"id\":\"$job\",\"step\":null}]" ]
}

@test "the job and step ids in every format: CSV columns, the text footer, OpenMetrics labels" {
	cat >one.conf <<-EOF
	0 $PROGS/touch_pages 1
	EOF
	for f in csv text openmetrics; do
		PFSHIM_FORMAT=$f timeout 60 srun --ntasks=1 --job-name="pfshim-$f" \
			--export="ALL,LD_PRELOAD=$SHIM,PFSHIM_OUTPUT=$PWD/$f.%r" \
			--multi-prog one.conf
		jobs[${#jobs[@]}]=$(timeout 10 squeue --noheader --states=all --name="pfshim-$f" --format=%i)
	done
	v=$(cat "$ROOT/VERSION")
	[ "$(head -n 1 csv.0 | awk -F, '{ print $(NF - 3), $(NF - 2), $(NF - 1) }')" = "job_scheduler job_id job_step" ]
	[ "$(sed -n 2p csv.0 | awk -F, '{ print $(NF - 3), $(NF - 2), $(NF - 1), $NF }')" = "slurm ${jobs[0]} 0 $v" ]
	grep -qx " pfshim: in slurm job ${jobs[1]}, step 0" text.0
	grep -q "^pfshim_report_info{.*,rank=\"0\",.*,job_scheduler=\"slurm\",job_id=\"${jobs[2]}\",job_step=\"0\",pfshim_version=\"$v\"} 1$" openmetrics.0
}

# docs/jobs.md's batch script, as it is there, but for where things are:
# /opt/pfshim is the build tree, /scratch/$USER the test's directory.
@test "docs/jobs.md's sbatch script: Open MPI's mpi_halo under srun --mpi=pmix, a report per rank, imbalance 1.60" {
	[ -x "$BUILD/examples/mpi_halo" ] || skip "$BUILD/examples/mpi_halo is not built (make mpi)"
	[ -x "$BUILD/pfshim" ] || skip "build/pfshim is not built (make tool)"
	timeout 10 srun --mpi=list 2>&1 | grep -qx '[[:space:]]*pmix' || skip "this Slurm has no mpi/pmix plugin"
	python3 - "$ROOT/docs/jobs.md" >job.sh <<-'EOF'
	import re, sys
	blocks = re.findall(r"```sh\n(.*?)```", open(sys.argv[1]).read(), re.S)
	print(next(b for b in blocks if "#SBATCH" in b), end="")
	EOF
	sed -i -e "s|/opt/pfshim/lib/libpfshim.so.1|$SHIM_LIB|" -e "s|/opt/pfshim/bin/pfshim|$BUILD/pfshim|" \
		-e "s|/scratch/\$USER/|$PWD/|g" -e "s|\./mpi_halo|$BUILD/examples/mpi_halo|" job.sh
	! grep -q '/opt/\|/scratch/' job.sh || false
	# 4 tasks on any number of CPUs
	run timeout 60 sbatch --wait --parsable --overcommit --output="$PWD/job.out" job.sh
	[ "$status" -eq 0 ] || { cat job.out; false; }
	job=${output%%;*}
	[[ "$job" =~ ^[0-9]+$ ]]
	grep -qx 'mpi_halo: 4 ranks, 100 iterations, 64..256 pages per rank, sum 6.553480e+05' job.out
	grep -q "^ pfshim: Performance counter stats for the job (4 processes, 4 images, 4 reports, 4 ranks):$" job.out
	# region compute's page-faults: (r+1) x 64 pages x 100 calls (+ at most 16 of the shim's
	# own first touches a rank): 1.60
	line=$(sed -n "/region 'compute'/,/^\$/p" job.out | grep ' page-faults$')
	[ "$(awk '{ print $5 }' <<<"$line")" = 1.60 ]
	python3 - "pfshim-$job" "$job" <<-'EOF'
	import json, os, re, sys
	d, job = sys.argv[1], sys.argv[2]
	files = sorted(os.listdir(d))
	assert len(files) == 4, files
	for rank, f in enumerate(files):
	    assert re.search(r"\.r%06d\.p\d{7}\." % rank, f), f
	    r = json.load(open(os.path.join(d, f)))
	    assert (r["program"], r["rank"]) == ("mpi_halo", rank), f
	    assert r["job"] == {"scheduler": "slurm", "id": job, "step": "0"}, r["job"]
	    compute = next(t for t in r["regions"]["totals"] if t["name"] == "compute")
	    pf = next(e["sum"] for e in compute["events"] if e["name"] == "page-faults")
	    work = (rank + 1) * 64 * 100
	    assert compute["calls"] == 100 and work <= pf <= work + 16, (rank, pf)
	EOF
}
