#!/bin/sh
# SPDX-License-Identifier: MIT
# bench.sh: the body of `make bench`. Runs every section in one go, side by
# side, and prints one table per section with the machine in the header.
# A benchmark, not a test: it exits non-zero only when something cannot run.
#
# Environment: BUILD (build dir), MAKE, ARM64_KERNEL (from tests/arm64/arm64.mk),
# BENCH_RUNS (warm start-up runs, 200), BENCH_COLD (cold runs, 5),
# BENCH_INTERVAL_SECONDS (each interval-report run, 10), BENCH_JOB_RUNS (each job variant, 11),
# BENCH_PERCHILD_ROUNDS (the per-child section's rounds, 11),
# BENCH_ARM64 (auto: run bench-arm64 when its kernel is cached; 1: always; 0: never).
set -eu

BUILD=${BUILD:-build}
# The variants set what they need; nothing from the caller's shell may leak in.
unset LD_PRELOAD PFSHIM_DISABLE PFSHIM_EVENTS PFSHIM_FORMAT PFSHIM_OUTPUT PFSHIM_SIGNAL \
	PFSHIM_SYSFS_ROOT PFSHIM_INTERVAL PAPI_EVENTS PAPI_OUTPUT_DIRECTORY
MAKE=${MAKE:-make}
RUNS=${BENCH_RUNS:-200}
COLD=${BENCH_COLD:-5}
IDLE_MS=1500
LIB=$(cd "$BUILD" && pwd)/libpfshim.so
B=$BUILD/bench
DEFAULT_EVENTS=task-clock,context-switches,cpu-migrations,page-faults,cycles,instructions,branches,branch-misses
SW4=task-clock,page-faults,context-switches,cpu-migrations
PAPI_SW4=perf::TASK-CLOCK,perf::PAGE-FAULTS,perf::CONTEXT-SWITCHES,perf::CPU-MIGRATIONS

# Debian's /usr/bin/perf may be a wrapper that refuses to run on a kernel it
# has no perf_X.Y for; the versioned binaries next to it work on any kernel.
perf_find() {
	if perf --version >/dev/null 2>&1; then
		command -v perf
		return
	fi
	for p in $(ls -1 /usr/bin/perf_* /usr/lib/linux-tools*/perf 2>/dev/null | sort -V -r); do
		if "$p" --version >/dev/null 2>&1; then
			echo "$p"
			return
		fi
	done
	return 1
}

section() {
	echo
	echo "== $*"
	echo
}

PERF=$(perf_find) || { echo "bench: no working perf binary (install linux-perf)" >&2; exit 1; }
TRUE=$(command -v true)
case $TRUE in /*) ;; *) TRUE=/bin/true ;; esac

echo "pfshim bench, $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(uname -m), kernel $(uname -r), $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), nproc $(nproc)"
echo "PMU: $(ls /sys/bus/event_source/devices | tr '\n' ' ')"
echo "tools: $($PERF --version), PAPI $(papi_version 2>/dev/null | sed 's/.*: //' || echo '?')"
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (other work slows every variant alike; ratios hold better than ms)"
echo "ratios are the result; absolute numbers vary between machines"

section "1. Start-up cost, whole process ($TRUE)"
# A shim that silently turned itself off would look very cheap: check that
# both tools really count before timing them.
for tool in shim perf; do
	if [ $tool = shim ]; then
		report=$(LD_PRELOAD=$LIB "$TRUE" 2>&1 >/dev/null)
	else
		report=$("$PERF" stat -e "$DEFAULT_EVENTS" "$TRUE" 2>&1 >/dev/null)
	fi
	echo "$report" | grep -q 'task-clock' ||
		echo "WARNING: $tool printed no task-clock line: its figures below may not include counting"
done
echo "shim and perf stat count the same 8 default events: $DEFAULT_EVENTS"
echo "(the 4 hardware ones are <not supported> without a PMU; both still try to open them)"
echo
"$B/startup" "$RUNS" "$COLD" "$IDLE_MS" 0.5 20 256 \
	:: "$TRUE" "$TRUE" \
	:: "shim (8 default events)" "LD_PRELOAD=$LIB" "$TRUE" \
	:: "perf stat -e (same 8)" "$PERF" stat -e "$DEFAULT_EVENTS" "$TRUE" \
	:: "context: empty LD_PRELOAD" "LD_PRELOAD=$(cd "$B" && pwd)/libempty.so" "$TRUE" \
	:: "context: PFSHIM_DISABLE=1" PFSHIM_DISABLE=1 "LD_PRELOAD=$LIB" "$TRUE" \
	:: "context: PFSHIM_OUTPUT=stderr (no job crumb)" PFSHIM_OUTPUT=stderr "LD_PRELOAD=$LIB" "$TRUE" \
	:: "context: shim, 4 sw events" "PFSHIM_EVENTS=$SW4" "LD_PRELOAD=$LIB" "$TRUE"

echo
# 101 runs: where fault-around windows fall moves with each run's load address, and
# the peak with it (quartiles ~180 and ~320 KiB added): fewer runs give a jumpy median.
"$B/rss" 101 --exit "$TRUE" 256 :: "no preload" :: "shim (8 default events)" "LD_PRELOAD=$LIB" \
	:: "context: empty LD_PRELOAD" "LD_PRELOAD=$(cd "$B" && pwd)/libempty.so"

section "2b. pfshim run -- $TRUE: the hand-over (counting from the exec) against LD_PRELOAD"
# The baseline is the shim as pfshim run's child gets it (JSON into a
# directory); pfshim run adds its own process (exec, fork, the summary read
# back) and the hand-over; PFSHIM_HANDOVER=0 shows the command without it:
# the hand-over's own cost is the difference of the two (docs/performance.md).
run_tmp=$(mktemp -d)
mkdir -p "$run_tmp/r"
"$B/startup" "$RUNS" 0 0 0.3 1 100000 \
	:: "LD_PRELOAD, pfshim run's env" "LD_PRELOAD=$LIB" PFSHIM_FORMAT=json \
		"PFSHIM_OUTPUT=$run_tmp/r/" "$TRUE" \
	:: "pfshim run -- true" "TMPDIR=$run_tmp" "$(cd "$BUILD" && pwd)/pfshim" run -- "$TRUE" \
	:: "perf stat -e (same 8)" "$PERF" stat -e "$DEFAULT_EVENTS" "$TRUE" \
	:: "context: PFSHIM_HANDOVER=0 pfshim run" PFSHIM_HANDOVER=0 "TMPDIR=$run_tmp" \
		"$(cd "$BUILD" && pwd)/pfshim" run -- "$TRUE" \
	:: "context: an exec of a no-op" "$(cd "$B" && pwd)/noop" 2>&1 | sed '/^== 2\. Resident/,$d'
rm -rf "$run_tmp"
echo "(the no-op row, fork + exec + wait of a dynamically linked program that does nothing, is"
echo " the floor under what pfshim run adds: it is a process of its own, exec'd before the command)"

section "2c. A whole job: an autoconf configure under pfshim run, perf stat, and alone"
if [ -x "$BUILD/pfshim" ]; then
	python3 tests/bench/job.py "$BUILD" "$PERF" "${BENCH_JOB_RUNS:-11}" || echo "job bench: failed (exit $?)"
else
	echo "not run: $BUILD/pfshim is not built (make tool)"
fi

section "2d. What a job's child process costs (issue 22 point 1): a fork-heavy job, side by side"
# BENCH_PERCHILD_ROUNDS (11) alternated rounds; PERCHILD_BEFORE=/path/libpfshim.so adds
# another build of the shim as a variant (a before and after in the same minutes).
python3 tests/bench/perchild.py "$BUILD" "$PERF" "$B/libfloor.so" "${BENCH_PERCHILD_ROUNDS:-11}" ||
	echo "per-child bench: failed (exit $?)"

section "3. Read cost of one reading, 4 software events ($SW4)"
# Under the shim, with the marker API's events the same 4: pfshim_read() beside PAPI_read().
PFSHIM_EVENTS=$SW4 PFSHIM_OUTPUT=/dev/null LD_PRELOAD=$LIB "$B/reads" 200 1000 1.05

section "4. Markers: a begin+end pair, 4 software events, under LD_PRELOAD"
if nm -D --defined-only "$LIB" 2>/dev/null | grep -q ' pfshim_v1_begin$'; then
	papi_out=$(mktemp -d)
	# PAPI_hl keeps every region instance in memory and writes them all to
	# PAPI_OUTPUT_DIRECTORY at exit: a temporary directory, removed after.
	PFSHIM_EVENTS=$SW4 PFSHIM_OUTPUT=/dev/null PAPI_EVENTS=$PAPI_SW4 \
		PAPI_OUTPUT_DIRECTORY=$papi_out LD_PRELOAD=$LIB "$B/markers" 200 500 1.1 1.5 ||
		echo "markers: failed (exit $?)"
	rm -rf "$papi_out"
else
	echo "skipped: $LIB exports no pfshim_v1_begin (the marker API is not built in yet)"
fi

section "5. Interval reports: PFSHIM_INTERVAL=100ms, 8 default events, a CPU-bound program"
# The shim's thread is counted nowhere (docs/usage.md): its cost is read from
# its own thread CPU clock, exactly, by the program itself.
secs=${BENCH_INTERVAL_SECONDS:-10}
echo "each run ${secs} s; load average now $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "text to stderr (the default; stderr to /dev/null):"
PFSHIM_INTERVAL=100ms LD_PRELOAD=$LIB "$B/interval" "$secs" 100 2>/dev/null ||
	echo "interval: failed (exit $?)"
series=$(mktemp -d)
echo "JSON into a directory (PFSHIM_OUTPUT=DIR/: the file replaced, the series appended):"
PFSHIM_INTERVAL=100ms PFSHIM_FORMAT=json PFSHIM_OUTPUT=$series/ LD_PRELOAD=$LIB \
	"$B/interval" "$secs" 100 || echo "interval: failed (exit $?)"
rm -rf "$series"

section "6. arm64 under QEMU: instructions per read (make bench-arm64)"
arm64=${BENCH_ARM64:-auto}
if ! grep -q '^bench-arm64:' tests/arm64/arm64.mk 2>/dev/null; then
	echo "not available: tests/arm64 provides no bench-arm64 target"
elif [ "$arm64" = 0 ] || { [ "$arm64" = auto ] && [ ! -f "${ARM64_KERNEL:-/nonexistent}" ]; }; then
	echo "not run: it boots an arm64 kernel under QEMU (the first run downloads ~60 MB)."
	echo "run it with: make bench-arm64   (or make bench BENCH_ARM64=1)"
else
	echo "run now (kernel cached, ~10 s): make bench-arm64; emulated with -icount shift=0,"
	echo "so these are instruction counts, deterministic, not times"
	echo
	rc=0
	out=$($MAKE --no-print-directory bench-arm64 2>&1) || rc=$?
	echo "$out" | sed -n 's/^ARM64-BENCH cpu=\([^ ]*\) /  [\1] /p'
	echo "$out" | grep -q '^ARM64-BENCH' || echo "$out" | tail -n 20
	[ "$rc" -eq 0 ] ||
		echo "make bench-arm64 exited with status $rc; console: $BUILD/arm64/console-bench.log"
fi

section "6. pfshim report: combining a big job's reports (make bench-report)"
if [ -x "$BUILD/pfshim" ]; then
	BUILD=$BUILD tests/bench/report.sh || echo "report bench: failed (exit $?)"
else
	echo "not run: $BUILD/pfshim is not built (make tool, then make bench or make bench-report)"
fi

section "7. What a metric group adds at report time (PFSHIM_GROUP, $SW4, 2 regions)"
# A group over the same four software events, so that only the metrics
# differ: 24 metrics of LIKWID's shape (a LIKWID group has at most 38), each
# computed for the process and for each region at every report. Nothing of
# it runs on the read path or in a marker pair: only in a report.
group=$(mktemp)
{
	printf 'SHORT 24 metrics over software events\n\nEVENTSET\n'
	printf 'PMC0 page-faults\nPMC1 task-clock\nPMC2 context-switches\nPMC3 cpu-migrations\n\nMETRICS\n'
	for i in $(seq 1 24); do
		printf 'Metric %d [1/s] 1.0E-06*(PMC0*%d+PMC2)/(PMC1*1.0E-09+time)-PMC3/(%d.5*time)\n' "$i" "$i" "$i"
	done
} >"$group"
printf '%-6s %16s %16s %8s\n' format "without (us)" "with 24 (us)" ratio
for format in text json csv; do
	without=$(PFSHIM_EVENTS=$SW4 PFSHIM_FORMAT=$format LD_PRELOAD=$LIB "$B/report_cost" 100 20 2>/dev/null) || without=
	with=$(PFSHIM_EVENTS=$SW4 PFSHIM_FORMAT=$format PFSHIM_GROUP=$group LD_PRELOAD=$LIB \
		"$B/report_cost" 100 20 2>/dev/null) || with=
	case "$without$with" in
	*[!0-9]*|'') echo "$format: not measured (report_cost: '$without' '$with')" ;;
	*) awk -v f="$format" -v a="$without" -v b="$with" \
		'BEGIN {printf "%-6s %16.1f %16.1f %8.2f\n", f, a / 1000, b / 1000, b / a}' ;;
	esac
done
echo "(median wall time of one pfshim_report() over 100 batches of 20, to stderr; the ratio is the result)"
rm -f "$group"
