#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# prometheus.bats: PFSHIM_FORMAT=prometheus with the real tools, end to end:
# Debian's node_exporter (its textfile collector only) serving the files,
# promtool check metrics on them and on the scrape, and Prometheus scraping
# node_exporter every second, whose rate() of a program's page faults must be
# the rate the program faults at. Also the files of ended processes (removed,
# or kept with PFSHIM_PROMETHEUS_KEEP=1). Each daemon listens on 127.0.0.1 on
# a port free at run time and is stopped by teardown.

load helpers

setup() {
	need_perf
	cd "$BATS_TEST_TMPDIR"
	TEXTFILE="$BATS_TEST_TMPDIR/textfile"
	mkdir "$TEXTFILE"
	DAEMONS=()
}

teardown() {
	for pid in "${DAEMONS[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
}

need_node_exporter() {
	NE=${NODE_EXPORTER:-$(command -v prometheus-node-exporter || command -v node_exporter || true)}
	[ -n "$NE" ] || skip "no node_exporter (Debian: prometheus-node-exporter, which make e2e installs as root; or NODE_EXPORTER=/path)"
	command -v curl >/dev/null || skip "no curl to scrape with"
}

need_prometheus() {
	command -v prometheus >/dev/null || skip "no prometheus (Debian: prometheus, which make e2e installs as root)"
	command -v promtool >/dev/null || skip "no promtool (Debian: prometheus, which make e2e installs as root)"
}

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# wait_http URL: until URL answers (10 s at most).
wait_http() {
	for _ in $(seq 100); do
		curl -sf "$1" >/dev/null && return 0
		sleep 0.1
	done
	echo "no answer from $1" >&2
	return 1
}

# start_node_exporter: only the textfile collector, reading $TEXTFILE; sets NE_PORT.
start_node_exporter() {
	NE_PORT=$(free_port)
	timeout 60 "$NE" --collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$TEXTFILE" \
		--web.listen-address="127.0.0.1:$NE_PORT" 2>ne.log 3>&- &
	DAEMONS+=($!)
	wait_http "http://127.0.0.1:$NE_PORT/metrics"
}

# start_prometheus: scraping node_exporter every second; sets PROM.
start_prometheus() {
	local port
	port=$(free_port)
	cat >prometheus.yml <<-EOF
	global:
	  scrape_interval: 1s
	  evaluation_interval: 1s
	scrape_configs:
	  - job_name: node
	    static_configs:
	      - targets: ['127.0.0.1:$NE_PORT']
	EOF
	timeout 60 prometheus --config.file=prometheus.yml --storage.tsdb.path=data \
		--web.listen-address="127.0.0.1:$port" 2>prometheus.log 3>&- &
	DAEMONS+=($!)
	PROM="http://127.0.0.1:$port"
	wait_http "$PROM/-/ready"
}

# query PROMQL [TIME]: the instant query's result, as JSON.
query() {
	curl -sf "$PROM/api/v1/query" --data-urlencode "query=$1" ${2:+--data-urlencode "time=$2"} |
		jq -c '.data.result'
}

scrape() {
	curl -sf "http://127.0.0.1:$NE_PORT/metrics" >"${1:-metrics}"
}

# write_files: two touch_pages reports kept in $TEXTFILE, and a marker program's in a template file.
write_files() {
	for n in 1000 2000; do
		env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=prometheus PFSHIM_PROMETHEUS_KEEP=1 \
			PFSHIM_EVENTS=task-clock,page-faults,cycles PFSHIM_OUTPUT="$TEXTFILE/" \
			"$PROGS/touch_pages" $n
	done
	env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=prometheus PFSHIM_EVENTS=task-clock,page-faults \
		PFSHIM_OUTPUT="$TEXTFILE/markers.prom" "$PROGS/markers_calls" 100 >/dev/null
	[ "$(ls "$TEXTFILE" | grep -c '\.prom$')" -eq 3 ]
}

@test "node_exporter serves every counter typed, with pfshim's help" {
	need_node_exporter
	write_files
	start_node_exporter
	scrape
	grep -q '^node_textfile_scrape_error 0$' metrics
	# the types and the help pfshim wrote, not node_exporter's untyped "Metric read from FILE"
	! grep -q '^# TYPE pfshim_.* untyped$' metrics || false
	! grep -q '^# HELP pfshim_.*Metric read from' metrics || false
	grep -qx '# TYPE pfshim_page_faults_total counter' metrics
	grep -qx '# HELP pfshim_page_faults_total A perf event counted by pfshim over the process, named in the event label' metrics
	grep -qx '# TYPE pfshim_task_clock_seconds_total counter' metrics
	grep -qx '# TYPE pfshim_event_enabled_seconds_total counter' metrics
	grep -qx '# TYPE pfshim_region_calls_total counter' metrics
	grep -qx '# TYPE pfshim_region_page_faults_total counter' metrics
	grep -qx '# TYPE pfshim_report_info gauge' metrics
	grep -qx '# TYPE pfshim_event_status gauge' metrics
	grep -qx '# TYPE pfshim_wall_seconds gauge' metrics
	# the counts: one series per process, region calls exact
	[ "$(grep -c '^pfshim_page_faults_total{.*program="touch_pages"' metrics)" -eq 2 ]
	for v in $(sed -n 's/^pfshim_page_faults_total{.*program="touch_pages".*} //p' metrics); do
		[ "$v" -ge 1000 ]
	done
	grep -q '^pfshim_region_calls_total{.*region="pairs"} 100$' metrics
}

@test "promtool check metrics passes on every file and on node_exporter's scrape of them" {
	need_node_exporter
	need_prometheus
	write_files
	for f in "$TEXTFILE"/*.prom; do
		promtool check metrics <"$f"
	done
	start_node_exporter
	scrape
	promtool check metrics <metrics
	# and on an OpenMetrics file it does not pass: that format is not for node_exporter
	env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=openmetrics PFSHIM_EVENTS=page-faults \
		PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/x.om" "$PROGS/touch_pages" 10
	run -3 promtool check metrics <x.om
}

# touch_rate faults 10 fresh pages every 10 ms on a fixed clock grid: 1000
# page faults a second, exactly, over whole seconds. Each file is rewritten
# every PFSHIM_INTERVAL (50 ms); node_exporter reads it at each scrape (1 s).
# The rate is evaluated at the last scrape's time over 5.5 s: the six
# scrapes 1 s apart, extrapolated to the window (less than 1.1 scrape
# interval away at each end), so rate() is (last - first) / 5 s. A scraped
# value lags the program by 0 to one interval report and one round of
# touches (50 + 10 ms: 0 to 60 faults), so first and last differ from the
# true 5000 by at most 60, 1.2 %. Tolerance 5 % (250 faults): the rest for an
# interval thread woken up to 190 ms late on a loaded machine.
@test "Prometheus: rate() of page-faults scraped through node_exporter is the program's rate" {
	need_node_exporter
	need_prometheus
	start_node_exporter
	start_prometheus
	env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=prometheus PFSHIM_INTERVAL=50ms PFSHIM_ON_FATAL=1 \
		PFSHIM_EVENTS=page-faults PFSHIM_OUTPUT="$TEXTFILE/" \
		"$PROGS/touch_rate" 10 10 40000 3>&- &
	pid=$!
	DAEMONS+=($pid)
	series="pfshim_page_faults_total{pid=\"$pid\",event=\"page-faults\"}"
	# Prometheus's first scrape comes up to 5 s after its start (its discovery's pace)
	for _ in $(seq 300); do
		n=$(query "count_over_time($series[30s])" | jq -r '.[0].value[1] // 0')
		[ "$n" -lt 7 ] || break
		sleep 0.1
	done
	[ "$n" -ge 7 ]
	samples=$(query "$series[30s]" | jq -c '.[0].values')
	echo "samples: $samples"
	last=$(jq -r '.[-1][0]' <<<"$samples")
	rate=$(query "rate($series[5500ms])" "$last" | jq -r '.[0].value[1]')
	echo "rate(): $rate /s, expected 1000 /s (5 %)"
	python3 -c 'import sys; r = float(sys.argv[1]); assert 950 <= r <= 1050, r' "$rate"
	# Prometheus has the type and help pfshim wrote
	[ "$(curl -sf "$PROM/api/v1/metadata?metric=pfshim_page_faults_total" |
		jq -r '.data.pfshim_page_faults_total[0] | .type + ": " + .help')" = \
		"counter: A perf event counted by pfshim over the process, named in the event label" ]

	# every scrape so far read every file whole
	[ "$(query 'max_over_time(node_textfile_scrape_error[1m])' | jq -r '.[0].value[1]')" = 0 ]

	# The program ends (SIGTERM, reported under PFSHIM_ON_FATAL=1): its file goes, and
	# Prometheus marks its series stale at the next scrape.
	kill -TERM "$pid"
	wait "$pid" || [ $? -eq 143 ]
	[ "$(ls -A "$TEXTFILE")" = "" ]
	for _ in $(seq 50); do
		[ "$(query "$series")" = "[]" ] && break
		sleep 0.1
	done
	[ "$(query "$series")" = "[]" ]
}

@test "a process's file in a directory lives as long as it does; PFSHIM_PROMETHEUS_KEEP=1 keeps the last" {
	env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=prometheus PFSHIM_INTERVAL=20ms \
		PFSHIM_EVENTS=page-faults PFSHIM_OUTPUT="$TEXTFILE/" "$PROGS/touch_rate" 10 10 1000 3>&- &
	pid=$!
	for _ in $(seq 100); do
		f=("$TEXTFILE"/*.prom)
		[ -e "${f[0]}" ] && break
		sleep 0.01
	done
	[[ "${f[0]}" == *".p$(printf %07d "$pid")."*".0.prom" ]]
	grep -q 'reason="interval"' "${f[0]}"
	wait "$pid"
	[ "$(ls -A "$TEXTFILE")" = "" ]		# no file, no temporary
	# an exec ends an image: the shell's file goes before the exec, the new image's at its exit
	env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=prometheus PFSHIM_INTERVAL=20ms PFSHIM_EVENTS=page-faults \
		PFSHIM_OUTPUT="$TEXTFILE/" sh -c 'sleep 0.2; exec "$0" 10 10 1000' "$PROGS/touch_rate" 3>&- &
	pid=$!
	for _ in $(seq 300); do
		grep -qs 'program="touch_rate"' "$TEXTFILE"/*.prom && break
		sleep 0.01
	done
	grep -qs 'program="touch_rate"' "$TEXTFILE"/*.prom
	[ "$(ls -A "$TEXTFILE" | wc -l)" -eq 1 ]
	wait "$pid"
	[ "$(ls -A "$TEXTFILE")" = "" ]
	# one of many short processes without an interval: nothing is left either
	env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=prometheus PFSHIM_EVENTS=page-faults \
		PFSHIM_OUTPUT="$TEXTFILE/" sh -c 'for i in 1 2 3; do /bin/true; done'
	[ "$(ls -A "$TEXTFILE")" = "" ]
	# kept: the exit report, whole
	env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=prometheus PFSHIM_PROMETHEUS_KEEP=1 PFSHIM_INTERVAL=20ms \
		PFSHIM_EVENTS=page-faults PFSHIM_OUTPUT="$TEXTFILE/" "$PROGS/touch_rate" 10 10 100
	[ "$(ls -A "$TEXTFILE" | wc -l)" -eq 1 ]
	grep -q 'reason="exit"' "$TEXTFILE"/*.prom
	# a template names a file of the user's: written and kept, replaced by the next run
	for n in 100 200; do
		env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=prometheus PFSHIM_EVENTS=page-faults \
			PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/app.prom" "$PROGS/touch_pages" $n
	done
	[ "$(grep -c '^pfshim_page_faults_total' app.prom)" -eq 1 ]
	[ "$(sed -n 's/^pfshim_page_faults_total{.*} //p' app.prom)" -ge 200 ]
}

@test "PFSHIM_PROMETHEUS_KEEP takes 0 or 1" {
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=prometheus PFSHIM_PROMETHEUS_KEEP=yes \
		PFSHIM_EVENTS=page-faults PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/x.prom" "$PROGS/touch_pages" 1
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"PFSHIM_PROMETHEUS_KEEP"*"expected 0 or 1; off"* ]]
}
