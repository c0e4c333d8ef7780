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

# pfshim report --metrics over the JSON Lines in $REPORTS, as JSON into metrics.json.
metrics_json() {
	[ -x "$BUILD/pfshim" ] || skip "build/pfshim is not built (make tool)"
	run -0 --separate-stderr timeout 60 "$BUILD/pfshim" report --metrics --json "$@"
	[ -z "$stderr" ]
	echo "$output" >"$BATS_TEST_TMPDIR/metrics.json"
}

@test "pfshim report --metrics: a job's metric is its formula over the summed counts, not a mean of ratios" {
	group=$(own_group)
	for pages in 500 2000 8000; do
		run -0 shim PFSHIM_EVENTS=page-faults,task-clock PFSHIM_GROUP="$group" "$PROGS/touch_pages" $pages
	done
	[ "$(reports)" -eq 3 ]
	metrics_json "$REPORTS"
	metrics_json --by process "$REPORTS"
	# Independently: each input summed over the three reports, then the formula, in Python.
	run -0 python3 - "$REPORTS" "$BATS_TEST_TMPDIR/metrics.json" <<-'PY'
	import json, sys
	reports = [json.loads(l) for l in open(sys.argv[1])]
	out = json.load(open(sys.argv[2]))
	assert (out["schema"], out["version"], out["by"], out["images"]) == ("pfshim.metrics", 1, "process", 3), out
	ev = lambda r, n: [e["value"] for e in r["events"] if e["name"] == n][-1]
	pf = sum(ev(r, "page-faults") for r in reports)
	tc = sum(ev(r, "task-clock") for r in reports)
	secs = sum(r["wall_ns"] for r in reports) / 1e9
	row = {(m["group"], m["name"]): m for m in out["metrics"] if m["region"] is None}
	job = lambda name: row[(None, name)]
	assert job("Runtime (RDTSC)")["value"] == secs
	assert job("Fault rate")["value"] == pf / secs, (job("Fault rate"), pf, secs)
	assert job("Faults per ms of CPU")["value"] == pf / (tc * 1.0E-06), job("Faults per ms of CPU")
	assert job("Faults per ms of CPU")["inputs"][0] == {"name": "PMC0", "source": "event",
	    "event": "page-faults", "sum": pf, "value": None}, job("Faults per ms of CPU")
	assert (job("Faults per ms of CPU")["images"], job("Faults per ms of CPU")["images_counted"]) == (3, 3)
	# the mean of the processes' own ratios is another number: the rule is not followed by averaging
	own = [[m for m in r["metrics"] if m["name"] == "Faults per ms of CPU"][0]["value"] for r in reports]
	mean = sum(own) / len(own)
	assert mean != job("Faults per ms of CPU")["value"], (mean, own)
	rates = [[m for m in r["metrics"] if m["name"] == "Fault rate"][0]["value"] for r in reports]
	assert sum(rates) / 3 != job("Fault rate")["value"], rates
	# one process's row is its own report's value, to the bit
	for r in reports:
	    key = "%s:%d" % (r["hostname"], r["pid"])
	    for m in r["metrics"]:
	        mine = row[(key, m["name"])]
	        assert (mine["status"], mine["value"]) == (m["status"], m["value"]), (mine, m)
	# not counted anywhere: said with the counter it lacks, as the reports said it
	b = job("Branches per fault")
	assert (b["status"], b["value"], b["missing"], b["images_counted"]) == ("not-counted", None, "PMC3", 0), b
	print("job %r, mean of the processes' %r" % (job("Faults per ms of CPU")["value"], mean))
	PY
	echo "$output"

	# The same numbers in text and CSV.
	run -0 --separate-stderr "$BUILD/pfshim" report --metrics "$REPORTS"
	[[ "$output" == *$'\n FAULTS, all:\n'* ]]
	[[ "$output" =~ [0-9.,]+\ +Faults\ per\ ms\ of\ CPU\ \[1/ms\] ]]
	[[ "$output" == *"<not counted>      Branches per fault  (PMC3: counted by no event of the group in 3 of 3 images)"* ]]
	run -0 --separate-stderr "$BUILD/pfshim" report --metrics --csv "$REPORTS"
	[ "${lines[0]}" = "metric_group,region,program,metric,value,unit,status,scaled,images,images_counted,time_ns,missing,why,formula" ]
	want=$(jq -r '.metrics[] | select(.group == null and .name == "Fault rate") | .value' "$BATS_TEST_TMPDIR/metrics.json")
	# the same double: as text the two may differ in a 17th digit (pfshim prints one more digit
	# where the shortest reading lies within 1 % of an ulp of half-way: export/buf.c)
	got=$(grep "^FAULTS,,,Fault rate," <<<"$output" | cut -d, -f5)
	[ "$(jq -n "$got == $want")" = true ]
	grep -q "^FAULTS,,,Fault rate,[^,]*,1/s,computed,false,3,3," <<<"$output"
}

@test "pfshim report --metrics: each region's metric from the region's sums over processes" {
	group=$(own_group)
	run -0 shim PFSHIM_EVENTS=page-faults,task-clock PFSHIM_GROUP="$group" "$PROGS/markers_nested" 300 100
	run -0 shim PFSHIM_EVENTS=page-faults,task-clock PFSHIM_GROUP="$group" "$PROGS/markers_nested" 1200 700
	metrics_json "$REPORTS"
	run -0 python3 - "$REPORTS" "$BATS_TEST_TMPDIR/metrics.json" <<-'PY'
	import json, sys
	reports = [json.loads(l) for l in open(sys.argv[1])]
	out = json.load(open(sys.argv[2]))
	for region in ("outer", "inner"):
	    tots = [[t for t in r["regions"]["totals"] if t["name"] == region][0] for r in reports]
	    s = lambda n: sum([e["sum"] for e in t["events"] if e["name"] == n][0] for t in tots)
	    secs = sum(t["wall_ns"]["sum"] for t in tots) / 1e9
	    row = {m["name"]: m for m in out["metrics"] if m["region"] == region and m["group"] is None}
	    assert row["Fault rate"]["value"] == s("page-faults") / secs, (region, row["Fault rate"])
	    assert row["Faults per ms of CPU"]["value"] == s("page-faults") / (s("task-clock") * 1.0E-06)
	    assert row["Runtime (RDTSC)"]["time_ns"] == sum(t["wall_ns"]["sum"] for t in tots)
	    own = [[m for m in t["metrics"] if m["name"] == "Fault rate"][0]["value"] for t in tots]
	    assert sum(own) / 2 != row["Fault rate"]["value"], own
	    # a division by a zero sum has no value, never a made-up one
	    fm, mig = row["Faults per migration"], s("cpu-migrations")
	    assert (fm["status"], fm["value"]) == ("undefined", None) if mig == 0 else \
	        fm["value"] == s("page-faults") / mig, fm
	print("ok")
	PY
}

@test "pfshim report --metrics: an image that did not count an event is named, the value is the others'" {
	group=$(own_group)
	for pages in 500 2000 8000; do
		run -0 shim PFSHIM_EVENTS=page-faults,task-clock PFSHIM_GROUP="$group" "$PROGS/touch_pages" $pages
	done
	# The last report as a process that could not count page-faults writes it.
	jq -c 'if .pid == ($p | tonumber) then
		(.events[] | select(.name == "page-faults")) |= (.status = "not-counted" | .value = null)
		| (.metrics[] | select(.inputs | map(.event) | index("page-faults"))) |=
			(.status = "not-counted" | .value = null | .missing = "page-faults" | .why = "not counted")
		else . end' --arg p "$(jq -s '.[2].pid' "$REPORTS")" "$REPORTS" >"$BATS_TEST_TMPDIR/some.jsonl"
	metrics_json "$BATS_TEST_TMPDIR/some.jsonl"
	run -0 python3 - "$BATS_TEST_TMPDIR/some.jsonl" "$BATS_TEST_TMPDIR/metrics.json" <<-'PY'
	import json, sys
	reports = [json.loads(l) for l in open(sys.argv[1])][:2]	# the two that counted
	out = json.load(open(sys.argv[2]))
	job = {m["name"]: m for m in out["metrics"] if m["group"] is None}
	pf = sum([e["value"] for e in r["events"] if e["name"] == "page-faults"][0] for r in reports)
	secs = sum(r["wall_ns"] for r in reports) / 1e9
	f = job["Fault rate"]
	assert (f["images"], f["images_counted"], f["missing"], f["why"]) == (3, 2, "page-faults", "not counted"), f
	assert f["value"] == pf / secs, f
	assert job["Runtime (RDTSC)"]["images_counted"] == 3
	print("ok")
	PY
	run -0 "$BUILD/pfshim" report --metrics "$BATS_TEST_TMPDIR/some.jsonl"
	[[ "$output" == *"Fault rate [1/s]  (page-faults: not counted in 1 of 3 images; the value is the others')"* ]]
}

@test "pfshim report --metrics: reports without PFSHIM_GROUP say so, in every view, and exit 0" {
	run -0 shim PFSHIM_EVENTS=page-faults "$PROGS/touch_pages" 10
	metrics_json "$REPORTS"
	[ "$(jq -c '[.images, .metrics]' "$BATS_TEST_TMPDIR/metrics.json")" = '[1,[]]' ]
	run -0 --separate-stderr "$BUILD/pfshim" report --metrics "$REPORTS"
	[ "${lines[-1]}" = " pfshim: no report has metrics (PFSHIM_GROUP was not set)" ]
	[[ "${lines[0]}" == " pfshim: metrics of the job (1 image): "* ]]
	run -0 --separate-stderr "$BUILD/pfshim" report --metrics --csv "$REPORTS"
	[ "${#lines[@]}" -eq 1 ]	# the header only
}

@test "pfshim report --metrics: reports that do not say how to compute a metric get none, never a guess" {
	group=$(own_group)
	run -0 shim PFSHIM_EVENTS=page-faults,task-clock PFSHIM_GROUP="$group" "$PROGS/touch_pages" 100
	# an older report without inputs; a formula that does not compile; one
	# naming what no input is; control bytes in names; a 1 MB formula
	jq -c '.metrics |= map(
		if .name == "Fault rate" then del(.inputs)
		elif .name == "Faults per ms of CPU" then .formula = "PMC0/("
		elif .name == "Runtime (RDTSC)" then .formula = "time*PMC9"
		elif .name == "Faults per migration" then .name = "\u001b[31mred" | .formula = ("PMC0+" * 200000 + "PMC0")
		else . end)' "$REPORTS" >"$BATS_TEST_TMPDIR/odd.jsonl"
	run -0 --separate-stderr timeout 60 "$BUILD/pfshim" report --metrics "$BATS_TEST_TMPDIR/odd.jsonl"
	echo "$output"
	[[ "$output" == *"<not computable>      Fault rate [1/s]  (the reports do not say what its formula's names stand for"* ]]
	[[ "$output" == *"<not computable>      Faults per ms of CPU [1/ms]  (its formula does not compile)"* ]]
	[[ "$output" == *"<not computable>      Runtime (RDTSC) [s]  (a name of its formula is not among the report's inputs)"* ]]
	[[ "$output" == *'<not computable>      \x1b[31mred  (its formula does not compile)'* ]]
	[[ "$output" != *$'\e'* ]]
}

# libpfm4's tables, forced to a CPU model (LIBPFM_FORCE_PMU): the share of
# each group's events that resolve, printed, against docs/metrics.md's table.
need_pfm() {
	[ -d "$GROUPS_DIR" ] || skip "no LIKWID group files ($GROUPS_DIR): Debian's likwid package is not installed"
	/sbin/ldconfig -p | grep -q 'libpfm\.so\.4 ' || skip "libpfm4 is not installed (tests/deps.sh installs it)"
	[ -x "$BUILD/tests/likwid_group_resolve" ] || skip "build/tests/likwid_group_resolve is not built (make e2e)"
}

# shares MODEL DIR: "GROUP RESOLVED EVENTS" per group file of DIR, resolved as for MODEL.
shares() {
	LIBPFM_FORCE_PMU=$1 timeout 60 "$BUILD/tests/likwid_group_resolve" "$GROUPS_DIR/$2"/*.txt |
		awk -F'\t' '{n = split($1, p, "/"); sub(/\.txt$/, "", p[n]); print p[n], $2, $3}'
}

@test "LIBPFM_FORCE_PMU skx, icl, zen3: each LIKWID group's share of events that resolve, at least docs/metrics.md's" {
	need_pfm
	table=$(grep -E '^\| (skx|icl|amd64_fam19h_zen3) \| ' "$ROOT/docs/metrics.md")
	[ "$(wc -l <<<"$table")" -ge 12 ]
	checked=0
	for model in skx:skylakeX icl:ICL amd64_fam19h_zen3:zen3; do
		dir=${model#*:} model=${model%%:*}
		run -0 shares "$model" "$dir"
		printf '%s\n' "$output" | awk -v m="$model" '{printf "# %s %-16s %3d of %3d\n", m, $1, $2, $3}' >&3
		got=$output
		# forced: its vendor events are libpfm4's for this model (the host's own would differ)
		[ "$(awk '$1 == "BRANCH" {print $2}' <<<"$got")" -ge 4 ]
		while IFS='|' read -r _ m d group share _; do
			[ "$(echo $m)" = "$model" ] || continue
			group=$(echo $group) want=${share% of*} total=${share#*of }
			line=$(awk -v g="$group" '$1 == g' <<<"$got")
			echo "$model $group: $line (docs: $(echo $share))"
			[ -n "$line" ]
			read -r _ resolved events <<<"$line"
			[ "$events" -eq $total ]
			[ "$resolved" -ge $want ]
			checked=$((checked + 1))
		done <<<"$table"
	done
	[ "$checked" -eq "$(wc -l <<<"$table")" ]	# every row of the docs' table, none passed over
	# Intel's numbers, not libpfm4's word: FP_ARITH_INST_RETIRED is event 0xC7, its unit masks
	# 0x01 scalar, 0x04 128-bit, 0x10 256-bit, 0x40 512-bit double (the SDM's event tables)
	run -0 env LIBPFM_FORCE_PMU=skx "$BUILD/tests/likwid_group_resolve" -v "$GROUPS_DIR/skylakeX/FLOPS_DP.txt"
	for want in SCALAR_DOUBLE:0x1c7 128B_PACKED_DOUBLE:0x4c7 256B_PACKED_DOUBLE:0x10c7 512B_PACKED_DOUBLE:0x40c7; do
		grep -qP "^\tFP_ARITH_INST_RETIRED_${want%:*}\tFP_ARITH_INST_RETIRED:${want%:*}\t4\t${want#*:}$" <<<"$output"
	done
}

@test "LIBPFM_FORCE_PMU arm_n1: a Neoverse N1's groups where libpfm4 holds Arm tables, and why not elsewhere" {
	need_pfm
	run -0 shares arm_n1 arm8_n1
	printf '%s\n' "$output" | awk '{printf "# arm_n1 %-16s %3d of %3d\n", $1, $2, $3}' >&3
	branch=$(awk '$1 == "BRANCH" {print $2 " of " $3}' <<<"$output")
	if [ "$(uname -m)" != aarch64 ]; then
		# the generic names only (instructions, cycles, branch-misses): br_pred and inst_spec need Arm's table
		[ "$branch" = "3 of 5" ]
		skip "libpfm4 on $(uname -m) is built with its own architecture's tables only (Debian's amd64 one has no Arm core), so LIBPFM_FORCE_PMU=arm_n1 activates nothing: BRANCH resolves $branch, its generic names; the arm64 build's libpfm4 is forced to arm_n1 in the QEMU suite (make test-arm64, test groups-n1)"
	fi
	# Arm's table has BR_PRED and INST_SPEC (the Arm ARM's common events 0x12 and 0x1B)
	[ "$branch" = "5 of 5" ]
}

@test "PFSHIM_METRICS by name: each equals perf stat's formula over the same report's counts; an unknown name is one line" {
	run -0 --separate-stderr shim PFSHIM_METRICS=CPUs-utilized,page-faults-per-second,nope,IPC \
		"$PROGS/touch_pages" 3000
	[ "$stderr" = "pfshim: PFSHIM_METRICS: no metric named 'nope' (pfshim's are IPC, CPI, branch-miss-ratio, cache-miss-ratio, L1D-miss-ratio, GHz, CPUs-utilized, page-faults-per-second, context-switches-per-second, TopdownL1; PFSHIM_GROUP takes LIKWID's groups)" ]
	[ "$(reports)" -eq 1 ]
	[ "$(jq -r .metric_group "$REPORTS")" = PFSHIM_METRICS ]
	# The metrics' events are the default ones: none counted twice.
	[ "$(jq '[.events[].name] | length == (unique | length)' "$REPORTS")" = true ]
	run -0 python3 - "$REPORTS" <<-'PY'
	import json, sys
	r = json.loads(open(sys.argv[1]).readline())
	ev = {e["name"]: e for e in r["events"]}
	m = {x["name"]: x for x in r["metrics"]}
	assert list(m) == ["CPUs-utilized", "page-faults-per-second", "IPC"], list(m)
	tc = ev["task-clock"]["value"]
	assert m["CPUs-utilized"]["value"] == tc / (r["wall_ns"] / 1e9 * 1000000000), (m, tc)
	assert m["page-faults-per-second"]["value"] == ev["page-faults"]["value"] / tc * 1000000000
	assert m["page-faults-per-second"]["unit"] == "1/s"
	assert m["IPC"]["formula"] == "instructions/cycles", m["IPC"]
	# no hardware PMU here: IPC says which count it lacks; on one that has it, the quotient
	if ev["instructions"]["status"] == "counted" and ev["cycles"]["status"] == "counted":
	    assert m["IPC"]["value"] == ev["instructions"]["value"] / ev["cycles"]["value"], m["IPC"]
	else:
	    assert m["IPC"]["status"] == "not-counted" and m["IPC"]["missing"] in ("instructions", "cycles"), m["IPC"]
	print("ok")
	PY
}

@test "PFSHIM_METRICS: a job's metric in pfshim report --metrics is the formula over the summed counts" {
	for pages in 500 4000; do
		run -0 shim PFSHIM_METRICS=page-faults-per-second "$PROGS/touch_pages" $pages
	done
	metrics_json "$REPORTS"
	want=$(jq -s '(map(.events[] | select(.name == "page-faults") | .value) | add) /
		(map(.events[] | select(.name == "task-clock") | .value) | add) * 1000000000' "$REPORTS")
	got=$(jq '.metrics[] | select(.group == null and .region == null) | .value' "$BATS_TEST_TMPDIR/metrics.json")
	echo "want $want got $got"
	python3 -c "import sys; w, g = float(sys.argv[1]), float(sys.argv[2]); assert abs(w - g) <= 1e-9 * w, (w, g)" "$want" "$got"
}

@test "PFSHIM_METRICS=TopdownL1: this machine's level 1 or LIKWID's TMA group, else one line saying why, the line pfshim list gives" {
	run -0 "$BUILD/pfshim" list --metrics TopdownL1
	listed=$(grep '^  TopdownL1 = ' <<<"$output")
	run -0 --separate-stderr shim PFSHIM_METRICS=TopdownL1,CPUs-utilized true
	if [[ "$listed" == "  TopdownL1 = none here: "* ]]; then
		[ "$stderr" = "pfshim: PFSHIM_METRICS: TopdownL1: ${listed#  TopdownL1 = none here: }" ] ||
			[[ "$stderr" == "pfshim: PFSHIM_METRICS: TopdownL1 (LIKWID's TMA group): "* ]]
		[ "$(jq -r '.metric_group, (.metrics | map(.name) | join(","))' "$REPORTS")" = $'PFSHIM_METRICS\nCPUs-utilized' ]
		skip "no TopdownL1 here: $stderr"
	fi
	[ -z "$stderr" ]
	case $listed in
	*"LIKWID's TMA group"*) [ "$(jq -r .metric_group "$REPORTS")" = PFSHIM_METRICS+TMA ] ;;
	*) [ "$(jq -r .metric_group "$REPORTS")" = PFSHIM_METRICS ] ;;
	esac
	[ "$(jq '[.metrics[] | select(.name == "Retiring")] | length' "$REPORTS")" -eq 1 ]
}

@test "TopdownL1 on a fake Zen 4 or 5 PMU (an AMD host's family): the six raw events in one group, each format names the level-1 metrics, not counted here" {
	grep -q AuthenticAMD /proc/cpuinfo || skip "not an AMD host: the Zen formulas go by /proc/cpuinfo's family"
	family=$(awk -F: '/^cpu family/ { print $2 + 0; exit }' /proc/cpuinfo)
	model=$(awk -F: '/^model\t/ { print $2 + 0; exit }' /proc/cpuinfo)
	case $family in
	25) { [ "$model" -le 15 ] || { [ "$model" -ge 32 ] && [ "$model" -le 95 ]; }; } &&
		skip "a Zen 3 host: no dispatch-slot events"; slots=6 ;;
	26) slots=8 ;;
	*) skip "AMD family $family: not Zen 4 or 5" ;;
	esac
	fixtures="$ROOT/tests/fixtures/sysfs/amd-zen4"
	run -0 --separate-stderr shim PFSHIM_SYSFS_ROOT="$fixtures" PFSHIM_METRICS=TopdownL1 true
	[ "$(jq -r '[.events[].name | select(startswith("cpu/"))] | join(",")' "$REPORTS")" = \
		"cpu/config=0x76/,cpu/config=0x1000001a0/,cpu/config=0x100001ea0/,cpu/config=0x1000060a0/,cpu/config=0x7aa/,cpu/config=0xc1/" ]
	[ "$(jq -r '.metrics | map(.name + ":" + .unit) | join(",")' "$REPORTS")" = \
		"Front End:%,Speculation:%,Retiring:%,Back End:%,SMT contention:%" ]
	[ "$(jq -r '.metrics[2].formula' "$REPORTS")" = "ex_ret_ops/($slots*ls_not_halted_cyc)*100" ]
	# no PMU behind the fake tree: each metric says which count it misses
	[ "$(jq -r '[.metrics[] | .status + ":" + .missing] | join(",")' "$REPORTS")" = \
		"not-counted:cpu/config=0x1000001a0/,not-counted:cpu/config=0x7aa/,not-counted:cpu/config=0xc1/,not-counted:cpu/config=0x100001ea0/,not-counted:cpu/config=0x1000060a0/" ]
	run -0 --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_SYSFS_ROOT="$fixtures" PFSHIM_METRICS=TopdownL1 \
		PFSHIM_FORMAT=text PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/r.txt" true
	[ "$(grep -cE '^ +<not counted> +(Front End|Speculation|Retiring|Back End|SMT contention) \[%\]  \(' \
		"$BATS_TEST_TMPDIR/r.txt")" -eq 5 ]
}

@test "pfshim run -M with metric names: PFSHIM_METRICS for the job; TopdownL1 where it cannot be had said once, not by each process" {
	dir="$BATS_TEST_TMPDIR/job"
	run -0 "$BUILD/pfshim" list --metrics TopdownL1
	listed=$(grep '^  TopdownL1 = ' <<<"$output")
	run -0 --separate-stderr "$BUILD/pfshim" run -o "$dir" -M CPUs-utilized,TopdownL1 -- \
		sh -c 'true; ls / >/dev/null; /bin/true'
	top=$(grep -c 'TopdownL1' <<<"$stderr" || true)
	if [[ "$listed" != *"none here: "* ]]; then
		[ "$top" -eq 0 ]
		want=PFSHIM_METRICS
		[[ "$listed" != *"LIKWID's TMA group"* ]] || want=PFSHIM_METRICS+TMA
	else	# said once by pfshim run, and the job goes on with the rest
		[ "$top" -eq 1 ]
		[[ "$stderr" == *"pfshim run: -M CPUs-utilized,TopdownL1: TopdownL1"* ]]
		want=PFSHIM_METRICS
	fi
	[ "$(cat "$dir"/*.json | jq -r .metric_group | sort -u)" = "$want" ]
	[ "$(cat "$dir"/*.json | jq -s length)" -eq 3 ]
	metrics_json "$dir"
	run -0 python3 - "$dir" "$BATS_TEST_TMPDIR/metrics.json" <<-'PY'
	import glob, json, sys
	reports = [json.load(open(f)) for f in glob.glob(sys.argv[1] + "/*.json")]
	out = json.load(open(sys.argv[2]))
	tc = sum(e["value"] for r in reports for e in r["events"] if e["name"] == "task-clock")
	secs = sum(r["wall_ns"] for r in reports) / 1e9
	job = [m for m in out["metrics"] if m["group"] is None and m["name"] == "CPUs-utilized"][0]
	assert abs(job["value"] - tc / (secs * 1000000000)) <= 1e-12 * job["value"], (job, tc, secs)
	print("ok", job["value"])
	PY
}

@test "PFSHIM_METRICS with bad input: one line each, no byte a terminal acts on, the program's output and status as without it" {
	run --separate-stderr sh -c 'echo out; exit 3'
	want="$status $output"
	for v in ',,,' "$(printf 'a\033]0;x\007b\302\23331m')" "$(python3 -c 'print("IPC," * 5000 + "x" * 5000)')" \
		TopdownL1,TopdownL1; do
		run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=/dev/null PFSHIM_METRICS="$v" \
			sh -c 'echo out; exit 3'
		[ "$status $output" = "$want" ]
		[ "$(grep -c . <<<"$stderr")" -le 1 ]
		case $stderr in ""|"pfshim: PFSHIM_METRICS: "*) ;; *) false ;; esac
		# no control byte but the line's end (a bats `!` command cannot fail a test)
		[ -z "$(LC_ALL=C tr -d '\n' <<<"$stderr" | LC_ALL=C tr -d '\040-\176\200-\377')" ]
	done
}
