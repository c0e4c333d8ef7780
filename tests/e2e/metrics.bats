#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# metrics.bats: derived metrics' formulas, read from the group files of
# Debian's likwid package as pfshim reads them, against an independent
# reading in Python (tests/tools/likwid_groups.py).

load helpers

GROUPS_DIR=/usr/share/likwid/perfgroups

@test "every LIKWID group file parses, each metric equal to an independent evaluation to the last bit" {
	[ -d "$GROUPS_DIR" ] || skip "no LIKWID group files ($GROUPS_DIR): Debian's likwid package is not installed"
	run timeout 60 python3 "$BATS_TEST_DIRNAME/../tools/likwid_groups.py" \
		"$BUILD/tests/likwid_group_eval" "$GROUPS_DIR"
	echo "$output"
	[ "$status" -eq 0 ]
	# Debian 12's likwid 5.2: 717 groups with metrics; a newer one may ship more.
	[[ "$output" =~ ^([0-9]+)\ group\ files,\ ([0-9]+)\ metrics ]]
	[ "${BASH_REMATCH[1]}" -ge 700 ]
	[[ "$output" == *": 0 files differ" ]]
}

@test "the independent reading notices a wrong value" {
	[ -d "$GROUPS_DIR" ] || skip "no LIKWID group files ($GROUPS_DIR): Debian's likwid package is not installed"
	# An evaluator that prints every value one ulp off must fail the check.
	fake="$BATS_TEST_TMPDIR/eval"
	cat >"$fake" <<-SH
	#!/bin/sh
	"$BUILD/tests/likwid_group_eval" "\$@" | awk -F'\t' -v OFS='\t' '\$4 ~ /^[0-9]/ { \$4 = \$4 * 1.0000001 } 1'
	SH
	chmod +x "$fake"
	run timeout 60 python3 "$BATS_TEST_DIRNAME/../tools/likwid_groups.py" "$fake" "$GROUPS_DIR"
	[ "$status" -eq 1 ]
	[[ "$output" == *"differs:"* ]]
}

# A group file of the user's own, over software events: every step of
# PFSHIM_GROUP runs on a machine without a hardware PMU.
own_group() {
	cat >"$BATS_TEST_TMPDIR/FAULTS.txt" <<-'TXT'
	SHORT Page faults per second, per ms of CPU and per context switch

	EVENTSET
	PMC0  page-faults
	PMC1  task-clock
	PMC2  cpu-migrations

	METRICS
	Runtime (RDTSC) [s] time
	Fault rate [1/s] PMC0/time
	Faults per ms of CPU [1/ms]  PMC0/(PMC1*1.0E-06)
	Faults per migration PMC0/PMC2
	Clock [MHz] 1.E-06/inverseClock
	Branches per fault PMC3/PMC0
	TXT
	echo "$BATS_TEST_TMPDIR/FAULTS.txt"
}

@test "PFSHIM_GROUP: each metric in JSON equals its formula over the same report's counts" {
	group=$(own_group)
	run -0 shim PFSHIM_EVENTS=task-clock PFSHIM_GROUP="$group" "$PROGS/touch_pages" 3000
	[ "$(reports)" -eq 1 ]
	[ "$(jq -r .metric_group "$REPORTS")" = FAULTS ]
	# The group's task-clock is PFSHIM_EVENTS' own, counted once.
	[ "$(jq '[.events[] | select(.name == "task-clock")] | length' "$REPORTS")" -eq 1 ]
	[ "$(value page-faults)" -ge 3000 ]
	# An independent evaluation of each formula, in Python, over the report's numbers.
	run -0 python3 - "$REPORTS" <<-'PY'
	import json, sys
	r = json.loads(open(sys.argv[1]).readline())
	ev = {e["name"]: e["value"] for e in r["events"]}
	t = r["wall_ns"] / 1e9
	m = {x["name"]: x for x in r["metrics"]}
	assert [x["name"] for x in r["metrics"]] == ["Runtime (RDTSC)", "Fault rate",
	    "Faults per ms of CPU", "Faults per migration", "Clock", "Branches per fault"], r["metrics"]
	assert m["Runtime (RDTSC)"]["value"] == t and m["Runtime (RDTSC)"]["unit"] == "s"
	assert m["Fault rate"]["value"] == ev["page-faults"] / t, (m["Fault rate"], ev, t)
	assert m["Faults per ms of CPU"]["value"] == ev["page-faults"] / (ev["task-clock"] * 1.0E-06)
	assert m["Faults per ms of CPU"]["formula"] == "PMC0/(PMC1*1.0E-06)"
	# touch_pages does not migrate (0 here), or its value is the quotient
	fm = m["Faults per migration"]
	assert (fm["status"], fm["value"]) == ("undefined", None) if ev["cpu-migrations"] == 0 \
	    else fm["value"] == ev["page-faults"] / ev["cpu-migrations"], fm
	clock = m["Clock"]
	assert clock["status"] in ("computed", "not-counted"), clock
	if clock["status"] == "not-counted":
	    assert clock["missing"] == "inverseClock" and "no cpufreq" in clock["why"], clock
	bpf = m["Branches per fault"]
	assert (bpf["status"], bpf["missing"], bpf["why"]) == \
	    ("not-counted", "PMC3", "counted by no event of the group"), bpf
	print("ok")
	PY
}

@test "PFSHIM_GROUP: the text report prints the metrics beside the counts, CSV a table of them" {
	group=$(own_group)
	run -0 env LD_PRELOAD="$SHIM" PFSHIM_GROUP="$group" "$PROGS/touch_pages" 1000
	[[ "$output" == *" pfshim: metrics of group FAULTS:"* ]]
	[[ "$output" =~ [0-9.,]+\ +Fault\ rate\ \[1/s\] ]]
	[[ "$output" == *"<not counted>      Branches per fault  (PMC3: counted by no event of the group)"* ]]

	run -0 env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=csv PFSHIM_GROUP="$group" "$PROGS/touch_pages" 1000
	[[ "$output" == *$'\npid,program,reason,metric_group,region,metric,value,unit,status,scaled,missing,formula,job_scheduler,job_id,job_step,pfshim_version\n'* ]]
	[ "$(grep -c ',touch_pages,exit,FAULTS,' <<<"$output")" -eq 6 ]
	grep -q ',FAULTS,,Branches per fault,,,not-counted,0,PMC3,PMC3/PMC0,' <<<"$output"
}

@test "PFSHIM_GROUP: a group that cannot be had is one line, and the program runs as without it" {
	printf 'SHORT x\nEVENTSET\nPMC0 page-faults\nMETRICS\nbroken PMC0/(time\n' >"$BATS_TEST_TMPDIR/BAD.txt"
	mkfifo "$BATS_TEST_TMPDIR/fifo.txt"
	for group in "$BATS_TEST_TMPDIR/BAD.txt" "$BATS_TEST_TMPDIR/fifo.txt" /nonexistent/G.txt NO_SUCH_GROUP; do
		run -0 timeout 10 env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=/dev/null PFSHIM_GROUP="$group" \
			sh -c 'echo out; exit 0'
		[ "${#lines[@]}" -eq 2 ]
		[[ "${lines[0]}" == "pfshim: PFSHIM_GROUP: "* ]]	# said at start-up
		[ "${lines[1]}" = out ]
	done
	run -0 env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=/dev/null PFSHIM_GROUP="$BATS_TEST_TMPDIR/BAD.txt" true
	[ "$output" = "pfshim: PFSHIM_GROUP: $BATS_TEST_TMPDIR/BAD.txt, line 5: not a group file's line" ]
}

@test "PFSHIM_GROUP by name: LIKWID's group for this CPU, or one line saying there is none" {
	[ -d "$GROUPS_DIR" ] || skip "no LIKWID group files ($GROUPS_DIR): Debian's likwid package is not installed"
	run -0 env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" PFSHIM_GROUP=BRANCH true
	if [[ "$output" == *"LIKWID's groups have none for this CPU"* ]]; then
		[ "$(reports '.metric_group')" -eq 0 ]
		skip "this CPU has no LIKWID group directory: $output"
	fi
	# The CPU has LIKWID groups: every BRANCH metric is in the report,
	# computed or saying which count it lacks (no hardware PMU in most VMs).
	[ "$(jq -r .metric_group "$REPORTS")" = BRANCH ]
	[ "$(jq '[.metrics[] | select(.status == "computed" or .missing != null)] | length' "$REPORTS")" \
		-eq "$(jq '.metrics | length' "$REPORTS")" ]
}

@test "PFSHIM_GROUP: each marker region's metrics from its own sums, in JSON, text and CSV" {
	group=$(own_group)
	run -0 shim PFSHIM_EVENTS=page-faults,task-clock PFSHIM_GROUP="$group" "$PROGS/markers_nested" 300 100
	run -0 python3 - "$REPORTS" <<-'PY'
	import json, sys
	r = json.loads(open(sys.argv[1]).readline())
	for t in r["regions"]["totals"]:
	    ev = {e["name"]: e["sum"] for e in t["events"]}
	    m = {x["name"]: x for x in t["metrics"]}
	    secs = t["wall_ns"]["sum"] / 1e9
	    assert m["Runtime (RDTSC)"]["value"] == secs, (t["name"], m)
	    assert m["Fault rate"]["value"] == ev["page-faults"] / secs, (t["name"], m, ev)
	    assert m["Faults per ms of CPU"]["value"] == ev["page-faults"] / (ev["task-clock"] * 1.0E-06)
	    # cpu-migrations is counted for the process, not in the regions (not a region event here)
	    fm = m["Faults per migration"]
	    assert fm["status"] in ("not-counted", "undefined", "computed"), fm
	faults = {t["name"]: {e["name"]: e["sum"] for e in t["events"]}["page-faults"] for t in r["regions"]["totals"]}
	assert faults["inner"] >= 100 and faults["outer"] >= 400, faults
	print("ok")
	PY
	run -0 env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=page-faults,task-clock PFSHIM_GROUP="$group" \
		"$PROGS/markers_nested" 300 100
	[ "$(grep -c '      Fault rate \[1/s\]$' <<<"$output")" -eq 3 ]	# the process, outer, inner
	run -0 env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=csv PFSHIM_EVENTS=page-faults,task-clock \
		PFSHIM_GROUP="$group" "$PROGS/markers_nested" 300 100
	[ "$(grep -c ',markers_nested,exit,FAULTS,inner,' <<<"$output")" -eq 6 ]
	[ "$(grep -c ',markers_nested,exit,FAULTS,,' <<<"$output")" -eq 6 ]
}

@test "PFSHIM_GROUP in OpenMetrics and the Prometheus text format: a gauge per computed metric, parsed by both real parsers" {
	group=$(own_group)
	for format in openmetrics prometheus; do
		run -0 env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=$format PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/out.$format" \
			PFSHIM_EVENTS=page-faults,task-clock PFSHIM_GROUP="$group" "$PROGS/markers_nested" 300 100
	done
	out="$BATS_TEST_TMPDIR/out"
	# each computed metric once (undefined and not-counted have none), in both formats
	[ "$(grep -c '^pfshim_metric{.*group="FAULTS",metric="Fault rate",unit="1/s"}' "$out.openmetrics")" -eq 1 ]
	[ "$(grep -c '^pfshim_region_metric{.*region="inner",group="FAULTS",metric="Fault rate"' "$out.openmetrics")" -eq 1 ]
	# (Faults per migration is computed only in a run whose process migrated: the two runs may differ)
	[ "$(grep '^pfshim_metric{' "$out.prometheus" | grep -vc 'metric="Faults per migration"')" -eq \
		"$(grep '^pfshim_metric{' "$out.openmetrics" | grep -vc 'metric="Faults per migration"')" ]
	[ "$(grep -c 'metric="Branches per fault"' "$out.openmetrics")" -eq 0 ]	# not counted: no sample
	# Fault rate is page-faults / wall seconds, both in the file: to the bit.
	run -0 python3 - "$out.openmetrics" <<-'PY'
	import re, sys
	text = open(sys.argv[1]).read()
	num = lambda pat: float(re.search(pat + r"\S*\} (\S+)$", text, re.M).group(1))
	rate = num(r'^pfshim_metric\{.*metric="Fault rate"')
	assert rate == num(r"^pfshim_page_faults_total\{") / num(r"^pfshim_wall_seconds\{"), rate
	PY
	/usr/bin/python3 -c 'import prometheus_client' 2>/dev/null ||
		skip "python3-prometheus-client is not installed: the OpenMetrics parser not run"
	run -0 /usr/bin/python3 "$BATS_TEST_DIRNAME/../tools/openmetrics_check.py" <"$out.openmetrics"
	command -v promtool >/dev/null || skip "promtool is not installed (Debian's prometheus)"
	run -0 promtool check metrics <"$out.prometheus"
}
