#!/bin/sh
# SPDX-License-Identifier: MIT
# report.sh: how fast `pfshim report` combines a big job, and in how much
# memory: N report files of 8 events and 2 regions each, 50 programs, 64
# ranks, generated here with awk (no other tool needed), at each N of
# BENCH_SIZES, and the same reports as one JSON Lines file. Prints wall time,
# CPU time (user + system: what a loaded machine does not inflate) and max
# RSS (/usr/bin/time) of the default per-program summary, beside `cat` of
# the same files (the I/O floor) and tests/bench/report_sum.py (the obvious
# Python script, python3's json), with the ratios to both; then the
# exponent of the time in N between the sizes (1: linear), from CPU time.
# At the first size, the other views too (--json, --by rank, --tree, --html).
# Memory must not grow with N beyond a small key per image.
#
# Environment: BUILD (build dir), BENCH_SIZES ("10000 100000"; 1000000 takes
# about 6 GB of disk and a few minutes), BENCH_REPORTS (one size instead).
set -eu

BUILD=${BUILD:-build}
PFSHIM=$BUILD/pfshim
SIZES=${BENCH_SIZES:-${BENCH_REPORTS:-10000 100000}}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT

[ -x "$PFSHIM" ] || { echo "report bench: $PFSHIM is not built (make tool)" >&2; exit 1; }

# gen COUNT DIR: COUNT files, one exit report each, like a job directory's.
gen() {
	mkdir -p "$2"
	awk -v n="$1" -v dir="$2" 'BEGIN {
		split("task-clock context-switches cpu-migrations page-faults cycles instructions branches branch-misses", ev, " ")
		for (i = 0; i < n; i++) {
			f = sprintf("%s/host%d.r%06d.p%07d.20261125T000000Z.0.json", dir, i % 4, i % 64, 1000 + i)
			s = sprintf("{\"schema\":\"pfshim.report\",\"version\":2,\"program\":\"prog%02d\",\"argv0\":\"./prog%02d\",\"pid\":%d,\"ppid\":%d,\"pid_ns\":null,\"hostname\":\"host%d\",\"rank\":%d,\"start_ns\":%d,\"start_time\":\"2026-11-25T00:00:00.000000000Z\",\"wall_ns\":%d,\"reason\":\"exit\",\"signal\":null,\"signal_name\":null,\"events\":[", i % 50, i % 50, 1000 + i, i ? 1000 + int((i - 1) / 4) : 1, i % 4, i % 64, 1795000000000000000 + i * 1000, 5000000 + i)
			for (e = 1; e <= 8; e++) {
				v = (e == 5 || e == 6) ? "null" : sprintf("%d", 1000 * e + i)
				st = (e == 5 || e == 6) ? "not-supported" : "counted"
				s = s sprintf("%s{\"name\":\"%s\",\"status\":\"%s\",\"value\":%s,\"raw\":0,\"enabled_ns\":1,\"running_ns\":1,\"scaled\":false,\"user_only\":false,\"zero_when_user_only\":false,\"unit\":\"%s\",\"scale\":%s,\"errno\":0,\"error\":null}", e > 1 ? "," : "", ev[e], st, v, e == 1 ? "msec" : "", e == 1 ? "1e-06" : "1")
			}
			s = s "],\"regions\":{\"events\":[\"task-clock\",\"page-faults\"],\"capacity\":23,\"threads_unlisted\":0,\"names_refused\":0,\"threads_failed\":0,\"note\":null,\"user_read_problem\":null,\"threads\":[],\"totals\":["
			for (r = 1; r <= 2; r++)
				s = s sprintf("%s{\"name\":\"phase%d\",\"threads\":2,\"calls\":10,\"reentries\":0,\"unclosed\":0,\"first_min\":1,\"first_max\":9,\"wall_ns\":{\"status\":\"counted\",\"scaled\":false,\"threads\":2,\"sum\":%d,\"min\":%d,\"max\":%d,\"mean\":%d},\"events\":[{\"name\":\"task-clock\",\"status\":\"counted\",\"scaled\":false,\"threads\":2,\"sum\":%d,\"min\":1,\"max\":%d,\"mean\":1},{\"name\":\"page-faults\",\"status\":\"counted\",\"scaled\":false,\"threads\":2,\"sum\":%d,\"min\":1,\"max\":%d,\"mean\":1}]}", r > 1 ? "," : "", r, 2000 + i, 1000, 1000 + i, 1000 + i / 2, 900 + i, 899 + i, 10 + r, 9 + r)
			print s "]}}" > f
			close(f)
		}
	}'
}

# timed LABEL CMD...: one run of CMD, stdout to $DIR/out; sets secs, cpu, kib and prints a line.
timed() {
	label=$1
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%e %U %S %M' -o "$DIR/time" "$@" >"$DIR/out" 2>"$DIR/err" || true
		read -r secs user sys kib <"$DIR/time"
		cpu=$(echo "$user + $sys" | bc)
		printf '  %-40s %6.2f s wall %6.2f s CPU  max RSS %7d KiB\n' "$label" "$secs" "$cpu" "$kib"
	else
		start=$(date +%s.%N)
		"$@" >"$DIR/out" 2>"$DIR/err" || true
		secs=$(echo "$(date +%s.%N) - $start" | bc)
		cpu=$secs
		kib=0
		printf '  %-40s %6.2f s wall  (no /usr/bin/time: CPU and RSS not measured)\n' "$label" "$secs"
	fi
	[ ! -s "$DIR/err" ] || { echo "  stderr:"; head -n 3 "$DIR/err"; }
}

# ratio A B: A / B with 2 decimals ("-" when B is 0).
ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else printf "-" }'
}

PY=$(command -v python3 || true)
prev_n=
for n in $SIZES; do
	gen "$n" "$DIR/r$n"
	sync
	echo "$n files ($(du -sh "$DIR/r$n" | cut -f1)), 8 events, 2 regions, 50 programs, 64 ranks, 4 hosts:"
	timed "cat of every file (the I/O floor)" sh -c 'find "$1" -type f -exec cat {} +' sh "$DIR/r$n"
	cat_s=$secs
	py_s=
	if [ -n "$PY" ]; then
		timed "report_sum.py (the obvious Python)" "$PY" "$(dirname "$0")/report_sum.py" "$DIR/r$n"
		py_s=$secs
	fi
	timed "pfshim report DIR (text, per program)" "$PFSHIM" report "$DIR/r$n"
	echo "  pfshim report: $(ratio "$secs" "$cat_s") x cat's wall time${py_s:+, $(ratio "$py_s" "$secs") x faster than the Python script}"
	eval "cpu_$n=$cpu"
	if [ -z "$prev_n" ]; then
		timed "report --json DIR" "$PFSHIM" report --json "$DIR/r$n"
		timed "report --by rank DIR" "$PFSHIM" report --by rank "$DIR/r$n"
		timed "report --by process --tree DIR" "$PFSHIM" report --by process --tree "$DIR/r$n"
		timed "report --html F --by rank DIR" "$PFSHIM" report --by rank --html "$DIR/page.html" "$DIR/r$n"
	fi
	find "$DIR/r$n" -type f -exec cat {} + >"$DIR/all.jsonl"
	timed "the same as one JSON Lines file ($(du -sh "$DIR/all.jsonl" | cut -f1))" "$PFSHIM" report "$DIR/all.jsonl"
	eval "jcpu_$n=$cpu"
	rm -rf "$DIR/all.jsonl"
	if [ -n "$prev_n" ]; then
		eval "a=\$cpu_$prev_n b=\$cpu_$n ja=\$jcpu_$prev_n jb=\$jcpu_$n"
		awk -v a="$a" -v b="$b" -v ja="$ja" -v jb="$jb" -v m="$prev_n" -v n="$n" 'BEGIN {
			if (a > 0 && b > 0 && ja > 0 && jb > 0)
				printf "  exponent of CPU time in N from %d to %d: %.2f for files, %.2f for JSON Lines (1: linear)\n", m, n, log(b / a) / log(n / m), log(jb / ja) / log(n / m)
			else
				printf "  exponent of CPU time in N: not measured (a time of 0)\n" }'
	fi
	rm -rf "$DIR/r$n"
	prev_n=$n
done
