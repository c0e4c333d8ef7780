#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# docs.bats: the command blocks of README.md and docs/ run as a user would
# copy them. Each block is marked (tests/doc_blocks.py says how): doc-test
# NAME, run here by the test "doc block NAME", which checks its exit status
# and the lines and numbers the doc shows; or doc-skip with the reason. A
# block with neither fails the first test. A block runs with bash -e in a
# directory made to look like the source tree (every top-level entry a link
# to the real one, build/ to the build), with the build's pfshim first on
# PATH and installed paths (/usr/local/lib, /usr/local/include) made the
# build's and the source's; the doc's ./app is the program the test links
# there.

load helpers

DOCS=("$ROOT/README.md" "$ROOT"/docs/*.md)

setup() {
	TREE="$BATS_TEST_TMPDIR/tree"
	mkdir "$TREE"
	for f in "$ROOT"/*; do
		[ "$(basename "$f")" = build ] || ln -s "$f" "$TREE/"
	done
	ln -s "$BUILD" "$TREE/build"
}

# block NAME: the block's script, as doc_blocks.py extracts it.
block() {
	python3 "$ROOT/tests/doc_blocks.py" script "$1" "${DOCS[@]}"
}

# doc NAME: run block NAME in the tree; stdout and stderr together (use with run).
# As a user's shell runs it: not as a child of make check (a make inside would
# print its "Entering directory" lines).
# A block that shows a command failing on purpose runs with DOC_ERREXIT=+e.
doc() {
	block "$1" >"$BATS_TEST_TMPDIR/$1.sh" || return 99
	(cd "$TREE" && env -u LD_PRELOAD -u PFSHIM_EVENTS -u PFSHIM_OUTPUT -u PFSHIM_FORMAT \
		-u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		DOC_BUILD="$BUILD" DOC_SRC="$ROOT" PATH="$BUILD:$PATH" \
		timeout 120 bash "${DOC_ERREXIT:--e}" "$BATS_TEST_TMPDIR/$1.sh" 2>&1)
}

# app PROGRAM: the doc's ./app
app() {
	ln -sf "$1" "$TREE/app"
}

# count LINE: the number in a text report's line for event LINE ("12,215      page-faults" -> 12215)
count() {
	grep -E "^ +[0-9,.]+ +(msec )?$1( |$)" | head -1 | awk '{gsub(",", "", $1); print $1}'
}

@test "every command block of README.md and docs/ is run here or says why not" {
	run -0 python3 "$ROOT/tests/doc_blocks.py" check "${DOCS[@]}"
	run -0 python3 "$ROOT/tests/doc_blocks.py" list "${DOCS[@]}"
	printf '%s\n' "$output" | grep '^skip ' >&3 || true
	# each doc-test block has its test in this file, and each test here its block
	names=$(printf '%s\n' "$output" | awk '$1 == "test" {print $2}' | sort)
	tests=$(sed -n 's/.*run -0 \(--separate-stderr \)\{0,1\}doc \([a-z0-9-]*\).*/\2/p' "$BATS_TEST_FILENAME" | sort -u)
	[ "$names" = "$tests" ]
	[ "$(wc -l <<<"$names")" -ge 16 ]
}

@test "doc block readme-demo: the shim on real programs, pfshim run, and the lines for one's own program" {
	run -0 doc readme-demo
	# the demo names the pfshim it built: build/pfshim, or the sanitizers' build's
	[[ "$output" == *$'\n'"$ "*"pfshim run -e task-clock,page-faults -- sh -c "* ]] ||
		[ ! -x "$BUILD/pfshim" ]
	[[ "$output" == *" pfshim: Performance counter stats for 'sieve' (pid "* ]]
	# the last lines: what to type on one's own program, with absolute paths
	[ "${lines[-3]}" = "On your own program:" ]
	[[ "${lines[-2]}" =~ ^"  LD_PRELOAD=/"[^\ ]+"/libpfshim.so ./your-program"$ ]]
	[[ "${lines[-1]}" =~ ^"  /"[^\ ]+"/pfshim run -- ./your-job   # a build, a script: every process in one summary"$ ]]
}

@test "doc block readme-sieve: the report of sieve, after its answer" {
	run -0 doc readme-sieve
	# the program's line and the report: stdout and stderr, in either order through pipes
	[ "$(grep -c '^3001134 primes below 50000000$' <<<"$output")" -eq 1 ]
	[[ "$output" == *" pfshim: Performance counter stats for 'sieve' (pid "*", exit):"* ]]
	[[ "$output" == *" pfshim: reported at exit by pfshim $(cat "$ROOT/VERSION")"* ]]
	# the doc's 12,215 page-faults: the sieve's 50 MB, within 1 %
	n=$(count 'page-faults(:u)?' <<<"$output")
	[ "$n" -ge 12093 ] && [ "$n" -le 12337 ]
}

@test "doc block readme-pipeline: the root's report, then the line naming its 6 descendants' reports" {
	run -0 doc readme-pipeline
	[ "${lines[0]}" = 1000 ] || [ "${lines[-2]}" = 1000 ]
	[[ "$output" == *" pfshim: Performance counter stats for '$(basename "$(readlink -f /bin/sh)")' (pid "* ]]
	[[ "${lines[-1]}" =~ ^"pfshim: 6 reports of descendant processes in "(/.*/job-[0-9]{8}T[0-9]{6}Z-[0-9]+/)" (see: pfshim report "(/.*/)"; a job keeps at most 10000)"$ ]]
	[ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]
	rm -rf "${BASH_REMATCH[1]}"
}

@test "doc block usage-start: make, then ./app's report on stderr" {
	app "$BUILD/examples/sieve"
	run -0 doc usage-start
	[ "$(grep -c '^3001134 primes below 50000000$' <<<"$output")" -eq 1 ]
	[ "$(grep -c "^ pfshim: Performance counter stats for 'sieve' (pid [0-9]*, exit):$" <<<"$output")" -eq 1 ]
}

@test "doc block readme-usage: the shim, a JSON file per process, pfshim run, and README's MPI recipe as written" {
	mpi
	[ -x "$BUILD/pfshim" ] || skip "build/pfshim is not built (make tool)"
	app /bin/true
	ln -s "$BUILD/examples/mpi_halo" "$TREE/solver"
	run -0 doc readme-usage
	[ "$(grep -c "^ pfshim: Performance counter stats for 'true' (pid [0-9]*, exit):$" <<<"$output")" -eq 1 ]
	# the second ./app: its JSON report in app.PID.json
	[ "$(jq -c '[.program, [.events[].name]]' "$TREE"/app.*.json)" = '["true",["task-clock","page-faults","cycles:u"]]' ]
	# pfshim run's one summary of make
	[ "$(grep -c "^ pfshim: Performance counter stats for 'make -j2' ([0-9]* processes counted by the kernel; " <<<"$output")" -eq 1 ]
	# without PFSHIM_FORMAT the ranks' files are JSON, and pfshim report reads them: 4 ranks, a page
	[[ "$output" == *"mpi_halo: 4 ranks, 100 iterations, 64..256 pages per rank, sum 6.553480e+05"* ]]
	[ "$(ls "$TREE/rep" | grep -c '\.json$')" -eq 4 ]
	[[ "$output" == *" pfshim: Performance counter stats for the job (4 processes, 4 images, 4 reports, 4 ranks):"* ]]
	grep -q '<svg' "$TREE/job.html"
}

@test "doc block compat-preload: a LIKWID-instrumented program linked with liblikwid gets pfshim's regions" {
	[ -x "$BUILD/compat/tests/likwid_example.real" ] || skip "not built (make compat-tests: needs likwid)"
	app "$BUILD/compat/tests/likwid_example.real"
	run -0 doc compat-preload
	[[ "$output" == *" pfshim: Performance counter stats for 'likwid_example.real' (pid "* ]]
	for r in setup work inner; do
		[[ "$output" == *"region '$r': "* ]]
	done
}

@test "doc block compat-unmapped: one line for each variable naming what does not map" {
	[ -x "$BUILD/libpfshim-compat.so" ] || skip "not built (make compat)"
	app /bin/true
	run -0 doc compat-unmapped
	want=$(sed -n '/^<!-- doc-test: compat-unmapped -->/,+8p' "$ROOT/docs/compat.md" | grep '^pfshim: ')
	[ "$(grep '^pfshim: ' <<<"$output")" = "$want" ]
	[ "$(grep -c "Performance counter stats for 'true'" <<<"$output")" -eq 2 ]
}

@test "doc block papi-writer: PAPI's papi_hl_output_writer summarises pfshim's file" {
	# compat.bats runs the same script on the same file with the runtime preloaded first
	skip_under_sanitizer "the doc's LD_PRELOAD of two libraries has no sanitizer runtime before them (the program dies of SIGSEGV)"
	command -v papi_hl_output_writer >/dev/null || skip "papi_hl_output_writer is not installed (papi-tools)"
	[ -x "$BUILD/compat/tests/papi_hl_example.pfshim" ] || skip "not built (make compat-tests)"
	app "$BUILD/compat/tests/papi_hl_example.pfshim"
	run -0 doc papi-writer
	# two threads, 5 calls each of work and inner; setup once
	[ "$(jq -c 'map_values(."Region count")' "$TREE/papi_sum.json")" = '{"work":10,"inner":10,"setup":1}' ]
	n=$(jq '.inner."perf::PAGE-FAULTS".total' "$TREE/papi_sum.json")
	[ "$n" -ge 640 ] && [ "$n" -le 656 ]
}

# mpirun as root needs both of Open MPI's variables (mpi.bats says so too),
mpi() {
	command -v mpicc >/dev/null && command -v mpirun >/dev/null || skip "Open MPI is not installed (make mpi-deps)"
	# and this 2-core machine 4 slots (a cluster node has them): as mpi.bats' mpirun options
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader \
		OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_hwloc_base_binding_policy=none \
		OMPI_MCA_rmaps_base_oversubscribe=1
}

@test "doc block jobs-mpi, jobs-mpi-table and jobs-mpi-report: 4 ranks' files, their regions, pfshim report's sums" {
	command -v column >/dev/null || skip "column is not installed (bsdextrautils)"
	mpi
	run -0 doc jobs-mpi
	[[ "$output" == *"mpi_halo: 4 ranks, 100 iterations, 64..256 pages per rank, sum 6.553480e+05"* ]]
	for r in 0 1 2 3; do
		[[ "$output" =~ $'\n'[^.]+\.r00000$r\.p[0-9]{7}\.[0-9]{8}T[0-9]{6}Z\.0\.json ]]
	done
	[ "$(ls "$TREE/rep" | wc -l)" -eq 4 ]
	run -0 doc jobs-mpi-table
	[ "${lines[0]}" = "rank  region    calls  wall_ms  task_clock_ms  page_faults" ]
	# each rank: compute and exchange 100 calls, reduce 10; compute faults (r+1)*64 pages a call
	for r in 0 1 2 3; do
		[[ "$output" =~ $'\n'"$r     compute   100 " ]]
		[[ "$output" =~ $'\n'"$r     exchange  100 " ]]
		[[ "$output" =~ $'\n'"$r     reduce    10 " ]]
		n=$(awk -v r=$r '$1 == r && $2 == "compute" {print $6}' <<<"$output")
		[ "$n" -ge $(((r + 1) * 6400)) ] && [ "$n" -le $(((r + 1) * 6400 + 16)) ]
	done
	run -0 doc jobs-mpi-report
	[ "${lines[0]}" = " pfshim: Performance counter stats for the job (4 processes, 4 images, 4 reports, 1 program):" ]
	[ "${lines[3]}" = " per program            images task-clock msec    page-faults" ]
	[[ "${lines[4]}" =~ ^" mpi_halo                    4 "+[0-9.]+" "+[0-9,]+$ ]]
	# the job's page-faults: the 4 ranks' compute, 64,000 (100 calls x 64..256 pages), and more
	n=$(count page-faults <<<"$output")
	[ "$n" -ge 64000 ]
}

@test "doc block jobs-ranks: the rank variables in the order launchers are believed" {
	run -0 doc jobs-ranks
	[ "$(printf '%s\n' "${lines[@]}" | grep -c '\.json$')" -eq 3 ]
	[[ "$output" =~ \.r-\.p[0-9]{7}\. ]] && [[ "$output" =~ \.r000002\.p ]] && [[ "$output" =~ \.r000007\.p ]]
	[ "$(jq -s 'map(.rank) | sort' "$TREE"/x/*.json | jq -c .)" = '[null,2,7]' ]
}

@test "doc block output-text: touch_pages' report, one page fault per page" {
	run -0 doc output-text
	[[ "$output" == *" pfshim: Performance counter stats for 'touch_pages' (pid "*", exit):"* ]]
	n=$(count 'page-faults(:u)?' <<<"$output")
	[ "$n" -ge 1000 ] && [ "$n" -le 1016 ]
	[[ "$output" =~ "<not supported>      cycles" ]] || [ -n "$(count 'cycles(:u)?' <<<"$output")" ]
}

@test "doc block usage-interval: numbered interval reports, and the changes add up to the last total" {
	run -0 doc usage-interval
	[[ "$output" == *" pfshim: interval report 1 of 'touch_rate' (pid "*", every 100 ms), change since the previous one:"* ]]
	[ "$(grep -c "^ pfshim: Performance counter stats for 'touch_rate' (pid [0-9]*, exit):$" <<<"$output")" -eq 1 ]
	[[ "$output" =~ " pfshim: report "[0-9]+" of 'touch_rate' (pid "[0-9]+", every 100 ms), change since the previous one:" ]]
	# each page-faults line: its change, then the total so far; the changes sum to the last total
	awk '$3 ~ /^page-faults(:u)?$/ && $4 == "total" {gsub(",", "", $2); gsub(",", "", $5); sum += $2; last = $5; n++}
		END {exit !(n >= 2 && sum == last && last >= 1000)}' <<<"$output"
}

@test "doc block jobs-signal: a report on USR2, the service lives on, and one more at its TERM" {
	# wait reports the TERM (143): on purpose
	DOC_ERREXIT=+e run -0 doc jobs-signal
	[ "$(grep -c "^ pfshim: Performance counter stats for 'sleep' (pid [0-9]*, signal SIGUSR2):$" <<<"$output")" -eq 1 ]
	grep -Eq '^[^.]+\.r-\.p[0-9]{7}\.[0-9]{8}T[0-9]{6}Z\.0\.txt$' <<<"$output"
	[[ "$output" == *" pfshim: reported on signal 12 (SIGUSR2) by pfshim $(cat "$ROOT/VERSION")"* ]]
	[[ "$output" == *$'\n'"status 143"$'\n'" pfshim: reported on signal 15 (SIGTERM) by pfshim $(cat "$ROOT/VERSION")"* ]]
}

# reports: JSON Lines reports of a fork tree (fork_children: the parent and 2 children)
reports() {
	env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$TREE/reports.jsonl" \
		PFSHIM_EVENTS=task-clock,page-faults,cycles "$@" >/dev/null
}

@test "doc block output-jq: every report's program and page-faults, the tree's task-clock, the events not opened" {
	reports "$PROGS/fork_children" 2 10 0
	run -0 doc output-jq
	[ "$(grep -c $'^fork_children\texit\t[0-9]*$' <<<"$output")" -eq 3 ]
	total=$(jq -s 'map(.events[] | select(.name == "task-clock") | .value * .scale) | add' "$TREE/reports.jsonl")
	[[ "$output" == *$'\n'"$total"$'\n'* ]]
	if jq -e 'select(.events[] | .name == "cycles" and .status == "not-supported")' "$TREE/reports.jsonl" >/dev/null; then
		[ "$(grep -c '^cycles: ' <<<"$output")" -eq 3 ]
	fi
}

@test "doc block output-job: the batch job each scheduler's variables name, Flux before Slurm" {
	run -0 doc output-job
	[ "$output" = '[2,{"scheduler":"slurm","id":"1234","step":"0"}]
[null,{"scheduler":"lsf","id":"4321[12]","step":null}]
[null,{"scheduler":"flux","id":"ƒ2KnEi3Kqs","step":null}]' ]
}

@test "doc block output-jq-regions: calls and page-faults of region work, per thread" {
	reports "$PROGS/markers_threads" 2 20 10
	run -0 doc output-jq-regions
	[ "${#lines[@]}" -eq 2 ]
	for l in "${lines[@]}"; do
		[[ "$l" =~ ^[0-9]+$'\t'worker-[01]$'\t'20$'\t'(1[0-9])$ ]]
	done
}

@test "doc block pfshim-report-ranks and pfshim-report-events: regions over 4 ranks, and a name no report has" {
	run -0 doc pfshim-report-ranks
	[[ "$output" == *" pfshim: Performance counter stats for the job (4 processes, 4 images, 4 reports, 4 ranks):"* ]]
	[[ "$output" == *"region 'work': 160 calls, 8 threads, 4 ranks"* ]]
	# page-faults of work: 20, 40, 60, 80 per rank, mean 50, max 80
	re=$'\n'' +200 +20 +80 +50 +1\.60 +10\.\.40 +page-faults'$'\n'
	[[ "$output" =~ $re ]]
	run -0 doc pfshim-report-events
	[ "$(grep -c "^pfshim report: --events: no report has 'cylces'; left out$" <<<"$output")" -eq 1 ]
}

@test "doc block pfshim-report-tree: two ranks' region tree, each path's page faults exact" {
	skip_under_sanitizer "the instrumented program faults shadow pages inside its regions" asan tsan
	run -0 doc pfshim-report-tree
	[[ "$output" == *" pfshim: region tree, each path summed over every thread and image; inclusive"* ]]
	grep -E '^   setup +12 +1,800 +600 ' <<<"$output"
	grep -E '^     kernel +12 +1,200 +1,200 ' <<<"$output"
	grep -E '^   solve +12 +3,960 +360 ' <<<"$output"
	grep -E '^     kernel +12 +3,600 +3,600 ' <<<"$output"
}

@test "doc block pfshim-report-html: the page of a 6-process job: its totals, a timeline bar per process, the children costliest in faults" {
	run -0 doc pfshim-report-html
	[ -s "$TREE/job.html" ]
	"$BUILD/pfshim" report --json "$TREE/job/" >"$BATS_TEST_TMPDIR/s.json" 2>/dev/null
	faults=$(jq '.job.events[] | select(.name == "page-faults") | .value' "$BATS_TEST_TMPDIR/s.json")
	grep -q "data-event=\"page-faults\"><td>page-faults</td><td class=\"num\" data-value=\"$faults\">" "$TREE/job.html"
	# a bar per process: 6 (5 where a shell execs its last command)
	[ "$(grep -o '<rect class="span"' "$TREE/job.html" | wc -l)" -eq "$(jq .processes "$BATS_TEST_TMPDIR/s.json")" ]
	# the 3 children touched 500 pages each: at least that in their rows
	[ "$(grep '<tr class="top"' "$TREE/job.html" | grep -o '<td class="num">[0-9],[0-9]*</td></tr>\|<td class="num">[5-9][0-9][0-9]</td></tr>' | wc -l)" -ge 3 ]
}

@test "doc block pfshim-diff-runs and pfshim-check: region calls exact across runs, a broken bound exits 1" {
	run -0 doc pfshim-diff-runs
	grep -qx ' pfshim diff: A = a1 a2 a3 (3 runs), B = b1 b2 b3 (3 runs)' <<<"$output"
	# 2 threads x 20 calls against 2 x 30 in every run; work's 2 x 10 pages whatever the calls
	work=$(sed -n "/^ region 'work'\$/,/^ region 'setup'\$/p" <<<"$output")
	[ "$(grep '^   calls ' <<<"$work" | xargs)" = "calls 40 +-0.00% 60 +-0.00% 1.500 +50.00% beyond noise" ]
	[ "$(grep '^   page-faults ' <<<"$work" | xargs)" = "page-faults 20 +-0.00% 20 +-0.00% 1.000 +0.00% within noise" ]
	[ "$(grep -c "^ program 'markers_threads'\$" <<<"$output")" -eq 1 ]
	run -0 doc pfshim-check
	[[ "${lines[0]}" =~ ^"ok      total page-faults = "[0-9]+" (max 5000)"$ ]]
	[ "${lines[1]}" = "BROKEN  region:work calls = 40 (max 30)" ]
	[ "${lines[2]}" = "ok      region:work page-faults/call = 0.5 (max 1)" ]
	[[ "${lines[3]}" =~ ^"ok      program:markers_threads task-clock = "[0-9]+" ns (min 1000 ns)"$ ]]
	[ "${lines[4]}" = "exit 1" ]
}

@test "doc block pfshim-run-repeat: five runs, each total's mean and noise, the runs' directories" {
	run -0 doc pfshim-run-repeat
	[ "${lines[0]}" = " pfshim: Performance counter stats for 'build/progs/markers_threads 2 20 10' (5 runs):" ]
	re='^ +[0-9.]+ msec  task-clock +\( \+- +[0-9]+\.[0-9][0-9]% \)$'
	[[ "${lines[1]}" =~ $re ]] || false
	re='^ +[0-9.]+       page-faults +\( \+- +[0-9]+\.[0-9][0-9]% \)$'
	[[ "${lines[2]}" =~ $re ]] || false
	re='^ pfshim: the reports are in /.*/before/run-1 \.\.\. run-5 \(pfshim report, pfshim diff\)$'
	[[ "${lines[3]}" =~ $re ]] || false
	[ "$(ls "$TREE/before" | tr '\n' ' ')" = "run-1 run-2 run-3 run-4 run-5 " ]
}

@test "doc block pfshim-list-fault: the fault events, built in and tracepoints" {
	run -0 doc pfshim-list-fault
	[ "${lines[0]}" = "Built-in events (docs/events.md):" ]
	[[ "$output" == *$'\n'"  page-faults, faults                           yes  page faults"$'\n'* ]]
	[[ "$output" == *$'\n'"  minor-faults                                  yes  minor page faults (no I/O)"$'\n'* ]]
}

@test "make builds build/pfshim, or says in one line how to get it" {
	run -0 make -C "$ROOT" --no-print-directory BUILD="$BUILD" all
	[ -x "$BUILD/pfshim" ] || [ "${lines[-1]}" = "pfshim: $BUILD/pfshim (pfshim run, report, list) needs libjansson-dev: make tool installs it and builds it" ]
	# where libjansson-dev is missing (as make sees it)
	run -0 make -C "$ROOT" --no-print-directory BUILD="$BUILD" HAVE_JANSSON= all
	[ "${lines[-1]}" = "pfshim: $BUILD/pfshim (pfshim run, report, list) needs libjansson-dev: make tool installs it and builds it" ]
}

@test "doc_blocks.py check: a command block with neither mark is named, and fails" {
	printf '# t\n\n<!-- doc-skip: why -->\n```sh\nfalse\n```\n\n```\n$ true\n```\n\n```c\nint x;\n```\n' >"$BATS_TEST_TMPDIR/t.md"
	cd "$BATS_TEST_TMPDIR"
	run -1 python3 "$ROOT/tests/doc_blocks.py" check t.md
	[ "$output" = "t.md:8: a command block with no doc-test or doc-skip mark" ]
}

@test "doc block metrics-by-name: CPUs-utilized and page-faults-per-second under ls's counts, as perf stat's formulas" {
	run -0 doc metrics-by-name
	[[ "$output" == *" pfshim: metrics of group PFSHIM_METRICS:"* ]]
	cpus=$(awk '$2 == "CPUs-utilized" { print $1 }' <<<"$output")
	rate=$(awk '$2 == "page-faults-per-second" && $3 == "[1/s]" { gsub(",", "", $1); print $1 }' <<<"$output")
	# perf stat's own line beside task-clock says the same CPUs utilized, to its 3 decimals:
	# each print rounds (half a unit of its last place), so they may differ by 0.0005 + 0.00005
	said=$(awk '$3 ~ /^task-clock(:u)?$/ { print $5 }' <<<"$output")
	echo "CPUs-utilized $cpus (beside task-clock: $said), page-faults-per-second $rate"
	python3 -c "import sys; c, s, r = map(float, sys.argv[1:]); assert abs(c - s) <= 0.00055 + 1e-9 and r > 0" \
		"$cpus" "$said" "$rate"
}

@test "doc block metrics-own-group: a group file of one's own, its metrics beside the counts" {
	app "$PROGS/touch_pages"
	run -0 doc metrics-own-group
	[[ "$output" == *" pfshim: metrics of group faults:"* ]]
	[ "$(count 'page-faults(:u)?' <<<"$output")" -ge 1 ]	# touch_pages with no pages: its start only
	# the doc's three metrics, each with a value
	[ "$(grep -cE '^ +[0-9][0-9,.]* +(Runtime \(RDTSC\) \[s\]|Fault rate \[1/s\]|Faults per ms of CPU \[1/ms\])$' <<<"$output")" -eq 3 ]
}

@test "doc block topdown-list-fixture: the TopdownL1 a fake Neoverse PMU gives, the lines the doc shows" {
	[ ! -e /sys/devices/system/cpu/cpu0/regs/identification/midr_el1 ] ||
		skip "an arm64 host: its own MIDR picks the formulas, not the fixture's"
	run -0 --separate-stderr doc topdown-list-fixture
	want=$(awk '/^<!-- doc-test: topdown-list-fixture -->/ { on = 1; next }
		on && /^```$/ && n++ { exit } on && !/^```/ && !/^\$ / { print }' "$ROOT/docs/metrics.md")
	[ "$(wc -l <<<"$want")" -eq 6 ]
	# on a CPU LIKWID has no groups for, list says so on stderr first
	[ "$(grep -v "^pfshim list: LIKWID's groups have none for this CPU" <<<"$output")" = "$want" ]
}

@test "doc block metrics-report: three processes' metric from their summed counts, and each process's own" {
	run -0 doc metrics-report
	text=$output
	[[ "$text" == *$'\n'" pfshim: metrics of the job (3 images): each metric's events summed over the images, then its formula computed"$'\n'* ]]
	[ "$(grep -c '^ faults, process .*:[0-9]* touch_pages:$' <<<"$text")" -eq 3 ]
	# the job's line is the sums' ratio, recomputed from the reports, and not the mean of the three
	run -0 python3 - "$TREE/m" <<-'PY'
	import glob, json, sys
	rs = [json.load(open(f)) for f in glob.glob(sys.argv[1] + "/*.json")]
	ev = lambda r, n: [e["value"] for e in r["events"] if e["name"] == n][0]
	pf, tc = sum(ev(r, "page-faults") for r in rs), sum(ev(r, "task-clock") for r in rs)
	job, mean = pf / (tc * 1.0E-06), sum(r["metrics"][0]["value"] for r in rs) / 3
	assert len(rs) == 3 and job != mean, (rs, job, mean)
	print("{:,.2f}".format(job))
	PY
	[ "$(grep -A1 '^ faults, all:$' <<<"$text" | tail -1)" = "$(printf ' %18s      Faults per ms of CPU [1/ms]' "$output")" ]
}

@test "doc block python-markers: regions from Python, a decorator's and a block's" {
	[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
	# Debian's python3 itself, not a wrapper script that would make it a descendant
	PATH="/usr/bin:$PATH" run -0 doc python-markers
	[[ "$output" == *$'4096000 True\n'* ]]
	[[ "$output" == *"  region 'setup': 1 call, "* ]]
	[[ "$output" == *"  region 'compute': 1 call, "* ]]
}
