# SPDX-License-Identifier: MIT
# helpers.bash: what every end-to-end suite shares: where the shim and the
# test programs are, running a command under the shim with JSON reports sent
# to a file, and jq queries of those reports.

bats_require_minimum_version 1.5.0

ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
BUILD="${BUILD:-$ROOT/build}"
case $BUILD in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
# SHIM_LIB is the library file; SHIM is what LD_PRELOAD takes. Under a
# sanitizer (tests/sanitize.mk) PFSHIM_PRELOAD names its runtime, which must
# be loaded before the instrumented shim.
SHIM_LIB="$BUILD/libpfshim.so"
# The suite's reports are in no batch job, even where the suite runs inside
# one (make check in a Slurm allocation): their job fields are empty, and
# slurm.bats starts its own Slurm. preload/scheduler.c's variables.
unset FLUX_JOB_ID SLURM_JOB_ID SLURM_STEP_ID LSB_JOBID LSB_JOBINDEX PBS_JOBID
SHIM="${PFSHIM_PRELOAD:+$PFSHIM_PRELOAD }$SHIM_LIB"
PROGS="$BUILD/progs"

setup() {
	need_perf
	REPORTS="$BATS_TEST_TMPDIR/reports.jsonl"
	: >"$REPORTS"
}

# shim [VAR=VALUE...] COMMAND...: COMMAND under the shim, JSON Lines reports to $REPORTS.
shim() {
	env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" "$@"
}

# reports [JQ-FILTER]: how many reports (matching the filter) were written.
reports() {
	jq -s "map(select(${1:-true})) | length" "$REPORTS"
}

# value EVENT [JQ-FILTER]: EVENT's scaled value in the report(s) matching the filter.
value() {
	jq -r --arg e "$1" "select(${2:-true}) | .events[] | select(.name == \$e) | .value" "$REPORTS"
}

# field EVENT KEY [JQ-FILTER]: any per-event field.
field() {
	jq -r --arg e "$1" --arg k "$2" \
		"select(${3:-true}) | .events[] | select(.name == \$e) | .[\$k]" "$REPORTS"
}

# sh_name: the program name a report gives /bin/sh (the basename of what it links to).
sh_name() {
	basename "$(readlink -f "$(command -v sh)")"
}

# The regions named "NAME:CALLS ..." of the exit report in $1 (JSON Lines), sorted.
exit_regions() {
	jq -r 'select(.reason == "exit") | .regions.totals[] | "\(.name):\(.calls)"' "$1" | sort | tr '\n' ' '
}

# between LOW N HIGH: LOW <= N <= HIGH, saying what was seen when not.
between() {
	if [ "$2" -lt "$1" ] || [ "$2" -gt "$3" ]; then
		echo "expected $1 <= $2 <= $3" >&2
		return 1
	fi
}

# wait_caught PID SIGNAL: wait (bounded) until PID catches SIGNAL (its SigCgt
# bit), i.e. the shim's constructor installed the report handler: a report
# signal sent before that kills the program, however long the start-up takes.
wait_caught() {
	local bit=$((1 << ($(kill -l "$2") - 1))) cgt
	for _ in $(seq 1000); do
		cgt=$(awk '/^SigCgt:/ {print $2}' "/proc/$1/status" 2>/dev/null) || return 0
		[ -n "$cgt" ] || return 0
		(( 0x$cgt & bit )) && return 0
		sleep 0.01
	done
}

# summary_json ARGS...: pfshim report --json ARGS into summary.json, and nothing on stderr.
summary_json() {
	[ -x "$BUILD/pfshim" ] || skip "build/pfshim is not built (make tool)"
	run -0 --separate-stderr "$BUILD/pfshim" report --json "$@"
	[ -z "$stderr" ]
	echo "$output" >summary.json
}

# skip_under_sanitizer REASON [asan|tsan...]: skip this test in the
# `make check-sanitize` runs of those sanitizers (of any, when none is named).
skip_under_sanitizer() {
	local reason=$1
	shift
	[ -n "${PFSHIM_SANITIZER:-}" ] || return 0
	[ $# -eq 0 ] || [[ " $* " == *" $PFSHIM_SANITIZER "* ]] || return 0
	skip "under $PFSHIM_SANITIZER: $reason"
}

# job_setup: for the suites of jobs (no PFSHIM_OUTPUT): a private runtime
# directory $RUN as XDG_RUNTIME_DIR, and the test's directory as the cwd.
job_setup() {
	RUN="$BATS_TEST_TMPDIR/run"
	mkdir -m 0700 "$RUN"
	export XDG_RUNTIME_DIR="$RUN"
	cd "$BATS_TEST_TMPDIR"
}

# under COMMAND...: COMMAND with the shim and nothing else set.
under() {
	env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock,page-faults "$@"
}

# job_of TEXT: the job directory a root's closing line names.
job_of() {
	sed -n 's/.*descendant processes* in \([^ ]*\) (see.*/\1/p' <<<"$1"
}

# ---- host conditions: each probe skips the test, saying why, where the host
# cannot run it (docs/testing.md lists them)

# cpu_name: this CPU as PAPI's and libpfm4's tables know it
# ("family 6 model 207" on x86, "implementer 0x41 part 0xd07" on arm64).
cpu_name() {
	awk -F': *' '!f && /^cpu family/ {f = $2} !m && /^model\t/ {m = $2}
		!i && /^CPU implementer/ {i = $2} !p && /^CPU part/ {p = $2}
		END {if (f != "") print "family " f " model " m; else print "implementer " i " part " p}' \
		/proc/cpuinfo
}

# need_papi: skip unless Debian's PAPI counts perf::PAGE-FAULTS here with no
# shim at all. PAPI 7.0's perf_event component knows only the CPUs its libpfm4
# knows: on another (measured: family 26 model 2; reported: family 6 model 207)
# even the perf:: software events do not exist, with pfshim or without.
# PFSHIM_TEST_FORCE_NO_PAPI=1 takes the skip on any CPU, to test that path.
need_papi() {
	local prog="$BUILD/compat/tests/papi_lowlevel" out
	[ -x "$prog" ] || { echo "$prog is not built (make compat-tests)" >&2; return 1; }
	if [ -n "${PFSHIM_TEST_FORCE_NO_PAPI:-}" ]; then
		out="forced by PFSHIM_TEST_FORCE_NO_PAPI"
	elif out=$(timeout 20 env -u LD_PRELOAD "$prog" 16 2>&1) && [[ "$out" == *$'\nok' ]]; then
		return 0
	fi
	skip "Debian's PAPI fails on this CPU ($(cpu_name)) with no shim at all: ${out//$'\n'/; }"
}

# need_unshare OPTION...: skip unless `unshare OPTION... true` works here. In
# a chroot (as Debian builds packages) `unshare -m` cannot make / private
# ("cannot change root filesystem propagation": / is no mount point there)
# and the kernel refuses a chrooted process a user namespace (EPERM);
# user.max_user_namespaces=0 refuses those too (ENOSPC), a container without
# CAP_SYS_ADMIN all of them.
need_unshare() {
	local out
	out=$(timeout 20 unshare "$@" true 2>&1) || skip "unshare $* fails here: ${out//$'\n'/; }"
}

# need_perf: skip where perf_event_open is refused EPERM (a seccomp filter, as
# Docker's default profile): nothing can count there, and the shim stands
# aside (seccomp.bats makes that host itself and tests it). The shim's own
# verdict, asked once per run; every suite's setup() calls it.
need_perf() {
	local said="$BATS_RUN_TMPDIR/perf-refused"
	[ -e "$said" ] || timeout 20 env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock \
		PFSHIM_OUTPUT=/dev/null /bin/true 2>"$said" || true
	if grep -q '^pfshim: perf_event_open is refused' "$said"; then
		skip "perf_event_open is refused here (EPERM: a seccomp filter, as a container's default profile): nothing can count"
	fi
}
