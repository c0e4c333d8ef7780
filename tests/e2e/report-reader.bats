#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# report-reader.bats: pfshim report's reader and the numbers it combines.
# A JSON Lines file is read in pieces, in memory that does not grow with its
# reports; an image's series (its directory's NAME.series.jsonl) adds up to
# its total exactly, though its final report is also in the image's file;
# means and imbalance are one rule in every view.

load helpers

PFSHIM="$BUILD/pfshim"

setup() {
	[ -x "$PFSHIM" ] || skip "build/pfshim is not built (libjansson-dev)"
	cd "$BATS_TEST_TMPDIR"
}

# lines N PAD: N exit reports of distinct images, page-faults = pid, each with PAD bytes of padding.
lines() {
	awk -v n="$1" -v pad="$2" 'BEGIN {
		p = sprintf("%*s", pad, ""); gsub(/ /, "x", p)
		for (i = 1; i <= n; i++)
			printf "{\"schema\":\"pfshim.report\",\"version\":4,\"program\":\"p%d\",\"pid\":%d,\"hostname\":\"h\",\"start_ns\":%d,\"wall_ns\":1,\"reason\":\"exit\",\"pad\":\"%s\",\"events\":[{\"name\":\"page-faults\",\"status\":\"counted\",\"value\":%d,\"unit\":\"\",\"scale\":1}]}\n", i % 10, i, i, p, i
	}'
}

@test "a JSON Lines file of 25,000 reports (100 MB) is read in memory that does not hold it" {
	[ -x /usr/bin/time ] || skip "no /usr/bin/time (Debian time) to read the max RSS with"
	lines 25000 4000 >big.jsonl
	[ "$(wc -l <big.jsonl)" -eq 25000 ]
	timeout 120 /usr/bin/time -f '%M' -o rss "$PFSHIM" report --json big.jsonl >out
	[ "$(jq .images out)" -eq 25000 ]
	[ "$(jq '.events[0].value' out)" -eq $((25000 * 25001 / 2)) ]
	echo "max RSS $(cat rss) KiB for a $(du -m big.jsonl | cut -f1) MB file"
	# ASan keeps freed memory in quarantine (256 MiB) and shadows every byte: 1.3 GB seen
	skip_under_sanitizer "freed memory is held in quarantine: the RSS is the sanitizer's (counts checked above)"
	# the file is 100 MB; its parsed objects would be more: 64 MiB holds neither
	[ "$(cat rss)" -lt $((64 * 1024)) ]
}

# iv PID REASON SEQ WALL_NS VALUE DELTA: one version-4 report of page-faults, every 100 ms.
iv() {
	printf '{"schema":"pfshim.report","version":4,"program":"p","pid":%d,"ppid":1,"hostname":"h","start_ns":1000000000000,"wall_ns":%d,"reason":"%s","seq":%s,"interval_ns":100000000,"events":[{"name":"page-faults","status":"counted","value":%d,"delta":%d,"unit":"","scale":1}]}\n' \
		"$1" "$4" "$2" "$3" "$5" "$6"
}

@test "a directory's series add up to its totals: the final report in the image's file and the series counts once" {
	mkdir d
	# as the shim writes a directory: the image's file holds its final report, the series every report
	iv 10 exit 4 400000000 65 5 >d/h.r000000.p0000010.20261125T000000Z.0.json
	{ iv 10 interval 1 100000000 10 10; iv 10 interval 2 200000000 30 20
	  iv 10 interval 3 300000000 60 30; iv 10 exit 4 400000000 65 5; } >d/h.r000000.p0000010.20261125T000000Z.0.series.jsonl
	iv 11 exit 1 100000000 7 7 >d/h.r000000.p0000011.20261125T000000Z.0.json
	iv 11 exit 1 100000000 7 7 >d/h.r000000.p0000011.20261125T000000Z.0.series.jsonl
	run -0 "$PFSHIM" report --json d
	[ "$(jq '.events[0].value' <<<"$output")" -eq 72 ]
	[ "$(jq -c '.series.events[0].groups[0].points | map([.t_ns, .delta])' <<<"$output")" = \
	  '[[100000000,17],[200000000,20],[300000000,30],[400000000,5]]' ]
	[ "$(jq '[.series.events[0].groups[].points[].delta] | add' <<<"$output")" -eq 72 ]
	# a file read twice adds nothing either
	run -0 "$PFSHIM" report --json d d/h.r000000.p0000010.20261125T000000Z.0.series.jsonl
	[ "$(jq '[.series.events[0].groups[].points[].delta] | add' <<<"$output")" -eq 72 ]
}

# rk RANK PAGES: an exit report of rank RANK whose region "solve" counted PAGES page-faults on 1 thread.
rk() {
	printf '{"schema":"pfshim.report","version":4,"program":"p","pid":%d,"hostname":"h","rank":%d,"start_ns":1,"wall_ns":1,"reason":"exit","events":[{"name":"page-faults","status":"counted","value":%d,"unit":"","scale":1}],"regions":{"totals":[{"name":"solve","threads":1,"calls":1,"wall_ns":{"status":"counted","threads":1,"sum":1000000,"min":1000000,"max":1000000},"events":[{"name":"page-faults","status":"counted","threads":1,"sum":%d,"min":%d,"max":%d}]}]}}\n' \
		$((100 + $1)) "$1" "$2" "$2" "$2" "$2"
}

@test "a region's mean and imbalance: one rule in text, HTML, JSON and CSV, the printed max / mean giving the printed imbalance" {
	{ rk 0 1; rk 1 2; rk 2 2; } >r.jsonl	# sum 5 over 3 ranks: mean 1.67, max 2, imbalance 1.20
	run -0 "$PFSHIM" report --by rank r.jsonl
	grep -E '^ +5 +1 +2 +1\.67 +1\.20 +1\.\.2 +page-faults$' <<<"$output"
	run -0 "$PFSHIM" report --by rank --html - r.jsonl
	grep -qF '<td class="num">2</td><td class="num">1.67</td><td class="num imbalance">1.20</td>' <<<"$output"
	run -0 "$PFSHIM" report --by rank --json r.jsonl
	[ "$(jq -c '.regions[0].metrics[] | select(.name == "page-faults") | [.mean, .imbalance]' <<<"$output")" = \
	  '[1.66666666666667,1.2]' ]
	run -0 "$PFSHIM" report --by rank --csv r.jsonl
	grep -qx 'region-total,,solve,page-faults,,1,3,0,3,3,5,1,2,1.66666666666667,1.2,1,2' <<<"$output"
	# a whole mean is shown whole
	{ rk 0 2; rk 1 2; rk 2 2; } >even.jsonl
	run -0 "$PFSHIM" report --by rank even.jsonl
	grep -E '^ +6 +2 +2 +2 +1\.00 +2\.\.2 +page-faults$' <<<"$output"
}
