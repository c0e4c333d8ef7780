#!/bin/sh
# SPDX-License-Identifier: MIT
# report.sh: how fast `pfshim report` combines a big job, and in how much
# memory: N report files (10,000 and 1,000) of 8 events and 2 regions each,
# 50 programs, 64 ranks, generated here with awk (no other tool needed).
# Prints wall time, CPU time (user + system: what a loaded machine does not
# inflate) and max RSS (/usr/bin/time, else only the wall time) of
# the default per-program summary, of --by rank, and of --by process
# --html (which keeps one record per image). The per-program summary must
# not grow with the number of files beyond a small key per image.
#
# Environment: BUILD (build dir), BENCH_REPORTS (10000).
set -eu

BUILD=${BUILD:-build}
PFSHIM=$BUILD/pfshim
N=${BENCH_REPORTS:-10000}
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

# measure LABEL ARGS...: one run of pfshim report, its wall time and max RSS.
measure() {
	label=$1
	shift
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f '%e %U %S %M' -o "$DIR/time" "$PFSHIM" report "$@" >"$DIR/out" 2>"$DIR/err" || true
		read -r secs user sys kib <"$DIR/time"
		printf '  %-36s %5.2f s wall %5.2f s CPU  max RSS %6d KiB  %8s bytes out\n' "$label" \
			"$secs" "$(echo "$user + $sys" | bc)" "$kib" "$(wc -c <"$DIR/out")"
	else
		start=$(date +%s.%N)
		"$PFSHIM" report "$@" >"$DIR/out" 2>"$DIR/err" || true
		printf '  %-44s %6.2f s  (no /usr/bin/time: RSS not measured)\n' "$label" \
			"$(echo "$(date +%s.%N) - $start" | bc)"
	fi
	[ ! -s "$DIR/err" ] || { echo "  stderr:"; head -n 3 "$DIR/err"; }
}

for n in 1000 "$N"; do
	gen "$n" "$DIR/r$n"
	sync
	echo "$n files ($(du -sh "$DIR/r$n" | cut -f1)), 8 events, 2 regions, 50 programs, 64 ranks, 4 hosts:"
	measure "report DIR (text, per program)" "$DIR/r$n"
	measure "report --json DIR" --json "$DIR/r$n"
	measure "report --by rank DIR" --by rank "$DIR/r$n"
	measure "report --by process --tree DIR" --by process --tree "$DIR/r$n"
	measure "report --html F --by rank DIR" --by rank --html "$DIR/page.html" "$DIR/r$n"
done
