#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# pfshim-list.bats: `pfshim list [PATTERN]` on this machine (software events
# count, hardware ones do not: no PMU here), on the fake sysfs trees of
# tests/fixtures/sysfs, on a fake and a real tracefs, and with libpfm4
# assuming a CPU model or missing. The built-in names and the tracepoints it
# lists are fed back to the shim, which must accept them.

load helpers

PFSHIM="$BUILD/pfshim"
FIXTURES="$ROOT/tests/fixtures/sysfs"

# section HEADING-PREFIX: the lines of one section of the last output.
section() {
	awk -v h="$1" 'index($0, h) == 1 { on = 1; next } !/^  / { on = 0 } on' <<<"$output"
}

no_cpu_pmu() {
	[ ! -e /sys/bus/event_source/devices/cpu ] && [ ! -e /sys/bus/event_source/devices/armv8_pmuv3 ]
}

@test "on this machine: every built-in name, software events available, hardware ones not" {
	run "$PFSHIM" list
	[ "$status" -eq 0 ]
	builtin=$(section "Built-in events")
	# 10 hardware events, 9 software ones, 32 cache ones (docs/events.md's tables),
	# an alias on its name's line
	[ "$(wc -l <<<"$builtin")" -eq 51 ]
	[[ "$builtin" =~ "  task-clock "\ +"yes  time on CPU, the task's clock (msec)" ]]
	[[ "$builtin" =~ "  page-faults, faults "\ +"yes  page faults" ]]
	[[ "$builtin" =~ "  context-switches, cs "\ +"yes  context switches" ]]
	[ "$(grep -c ' yes  ' <<<"$builtin")" -eq 9 ]
	if no_cpu_pmu; then
		[[ "$builtin" =~ "  cycles, cpu-cycles "\ +"no   CPU cycles [ENOENT]" ]]
		[ "$(grep -c ' no   .*\[ENOENT\]$' <<<"$builtin")" -eq 42 ]
	fi
	# the sysfs section lists what this machine's sysfs has
	want=$(cd /sys/bus/event_source/devices && for p in *; do
		[ -d "$p/events" ] || continue
		for e in "$p"/events/*; do
			case $e in *.scale|*.unit|*.per-pkg|*.snapshot) ;; *) echo "$p/${e##*/}/" ;; esac
		done
	done | LC_ALL=C sort)
	got=$(section "sysfs PMU events" | awk '{print $1}')
	[ "$got" = "$want" ]
}

@test "the shim accepts every built-in name pfshim list prints" {
	run "$PFSHIM" list
	names=$(section "Built-in events" | awk '{print $1}' | tr -d , | paste -sd,)
	[ "$(tr , '\n' <<<"$names" | wc -l)" -eq 51 ]
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" \
		PFSHIM_EVENTS="$names" "$PROGS/touch_pages" 1
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(jq '.events | length' "$REPORTS")" -eq 51 ]
	# and what it marked available is what the shim counted
	for e in task-clock page-faults minor-faults context-switches; do
		[ "$(field "$e" status)" = counted ]
	done
}

@test "PATTERN: a case-blind substring, or a glob; nothing matched is status 1" {
	run "$PFSHIM" list FAULT
	[ "$status" -eq 0 ]
	[ "$(section "Built-in events" | awk -F'  +' '{print $2}' | paste -sd'|')" = \
		"page-faults, faults|minor-faults|major-faults|alignment-faults|emulation-faults" ]
	run "$PFSHIM" list 'L1-?cache-load*'
	[ "$status" -eq 0 ]
	[ "$(awk '/^  /{print $1}' <<<"$output" | paste -sd' ')" = \
		"L1-dcache-loads L1-dcache-load-misses L1-icache-loads L1-icache-load-misses" ]
	run --separate-stderr "$PFSHIM" list no-such-event-anywhere
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	# said on stderr, one line, rather than an empty screen
	[ "$stderr" = "pfshim list: no event matches 'no-such-event-anywhere' on this machine (perf's built-in events, this machine's PMUs and tracepoints, and libpfm4's names where it is installed and knows the CPU)" ]
	run "$PFSHIM" list a b
	[ "$status" -eq 2 ]
}

@test "a fake sysfs tree: its aliases, their terms and units, tried on this kernel" {
	for tree in intel arm64; do
		run "$PFSHIM" list --sysfs "$FIXTURES/$tree"
		[ "$status" -eq 0 ]
		got=$(section "sysfs PMU events ($FIXTURES/$tree)")
		# the names and terms, computed here from the files themselves
		want=$(cd "$FIXTURES/$tree" && for p in */; do
			p=${p%/}
			[ -d "$p/events" ] || continue
			for e in "$p"/events/*; do
				case $e in *.scale|*.unit) continue ;; esac
				echo "$p/${e##*/}/ $(cat "$e")"
			done
		done | LC_ALL=C sort)
		[ "$(awk '{print $1, $3}' <<<"$got")" = "$want" ]
	done
	run "$PFSHIM" list --sysfs "$FIXTURES/intel" energy
	[[ "$output" =~ "  power/energy-pkg/ "\ +("yes  "|"no   ")"event=0x02 (Joules)" ]]
	if no_cpu_pmu; then
		# type 4 is PERF_TYPE_RAW, which no PMU here serves
		[[ "$(section "sysfs PMU events")" != *"cpu/"*" yes "* ]]
		run "$PFSHIM" list --sysfs "$FIXTURES/intel" mem-loads
		[[ "$output" =~ "  cpu/mem-loads/ "\ +"no   event=0xcd,umask=0x1,ldlat=3 [ENOENT]" ]]
	fi
	# PFSHIM_SYSFS_ROOT, as the shim reads it, does the same
	run env PFSHIM_SYSFS_ROOT="$FIXTURES/arm64" "$PFSHIM" list armv8
	[ "$(awk '/^  /{print $1}' <<<"$output" | paste -sd' ')" = \
		"armv8_pmuv3/br_mis_pred/ armv8_pmuv3/cpu_cycles/ armv8_pmuv3/inst_retired/" ]
}

# Opening a tracepoint costs the kernel tens of ms: the list tries the first 8 and, when they
# agree, gives the others their answer; when they disagree, every one is tried.
@test "tracepoints: 40 listed, 8 tried when the first 8 agree, all 40 when they do not" {
	command -v strace >/dev/null || skip "strace not installed"
	t="$BATS_TEST_TMPDIR/tracefs"
	for i in $(seq 10 49); do
		mkdir -p "$t/events/sub/tp$i"
		echo $((999900 + i)) >"$t/events/sub/tp$i/id"
	done
	run -0 strace -f -o "$BATS_TEST_TMPDIR/trace" -e trace=perf_event_open "$PFSHIM" list --tracefs "$t" sub:
	[ "$(section "Tracepoints ($t/events)" | awk '$2 == "no"' | wc -l)" -eq 40 ]
	# as root one try each; as a user an EACCES is retried without the kernel
	tries=$(grep -c 'PERF_TYPE_TRACEPOINT' "$BATS_TEST_TMPDIR/trace")
	echo "tries $tries"
	[ "$tries" -eq 8 ] || [ "$tries" -eq 16 ]
	real=/sys/kernel/tracing/events/sched/sched_switch/id
	[ -r "$real" ] || skip "no readable tracefs here for a tracepoint that opens"
	"$PFSHIM" list sched:sched_switch | grep -q '^  sched:sched_switch  *yes' ||
		skip "sched:sched_switch does not open for this user here (perf_event_paranoid, a container)"
	cp "$real" "$t/events/sub/tp13/id"	# the 4th tried opens: they disagree
	run -0 strace -f -o "$BATS_TEST_TMPDIR/trace2" -e trace=perf_event_open "$PFSHIM" list --tracefs "$t" sub:
	section "Tracepoints ($t/events)"
	[ "$(section "Tracepoints ($t/events)" | awk '$2 == "yes"' | awk '{print $1}')" = sub:tp13 ]
	[ "$(grep -c 'PERF_TYPE_TRACEPOINT' "$BATS_TEST_TMPDIR/trace2")" -ge 40 ]
}

@test "tracepoints: a fake tracefs, and the real one where root can mount it" {
	t="$BATS_TEST_TMPDIR/tracefs"
	mkdir -p "$t/events/sched/sched_switch" "$t/events/sched/sched_wakeup" "$t/events/irq/irq_handler_entry"
	echo 999999 >"$t/events/sched/sched_switch/id"
	echo 999998 >"$t/events/sched/sched_wakeup/id"
	echo 999997 >"$t/events/irq/irq_handler_entry/id"
	: >"$t/events/enable"	# tracefs has files beside the subsystems
	run "$PFSHIM" list --tracefs "$t"
	[ "$status" -eq 0 ]
	# no tracepoint has such an id: none opens
	[ "$(section "Tracepoints ($t/events)" | awk '{print $1, $2}')" = \
		"irq:irq_handler_entry no
sched:sched_switch no
sched:sched_wakeup no" ]
	# PFSHIM_TRACEFS_ROOT, as the shim reads it, does the same
	run env PFSHIM_TRACEFS_ROOT="$t" "$PFSHIM" list sched_
	[ "$(awk '/^  /{print $1}' <<<"$output" | paste -sd,)" = sched:sched_switch,sched:sched_wakeup ]
	# the shim takes every tracepoint listed, by the ids of that tracefs (none opens)
	run env PFSHIM_TRACEFS_ROOT="$t" "$PFSHIM" list
	names=$(section "Tracepoints ($t/events)" | awk '{print $1}' | paste -sd,)
	[ "$names" = irq:irq_handler_entry,sched:sched_switch,sched:sched_wakeup ]
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_TRACEFS_ROOT="$t" PFSHIM_FORMAT=json \
		PFSHIM_OUTPUT="$REPORTS" PFSHIM_EVENTS="$names" "$PROGS/touch_pages" 1
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[ "$(jq -r '[.events[].name] | join(",")' "$REPORTS")" = "$names" ]
	[ "$(id -u)" -eq 0 ] || skip "needs root to mount tracefs"
	need_unshare -m
	# the real tracefs: listed available, and counted by the shim (3 forks)
	: >"$REPORTS"
	# (tracefs mounted already, as systemd mounts it on many hosts: that mount serves)
	run timeout 120 unshare -m sh -c 'mount --make-rprivate / &&
		{ [ -e /sys/kernel/tracing/events ] || mount -t tracefs nodev /sys/kernel/tracing; } &&
		"$1" list sched:sched_process_fork &&
		env LD_PRELOAD="$2" PFSHIM_EVENTS=sched:sched_process_fork PFSHIM_FORMAT=json \
			PFSHIM_OUTPUT="$3" "$4" 0 3' sh "$PFSHIM" "$SHIM" "$REPORTS" "$PROGS/write_fork"
	[ "$status" -eq 0 ]
	[[ "$output" =~ "  sched:sched_process_fork "\ +"yes" ]]
	[ "$(jq -s '[.[] | .events[] | select(.name == "sched:sched_process_fork") | .value] | max' \
		"$REPORTS")" -eq 3 ]
}

@test "libpfm4's names of a forced CPU model, and their absence without libpfm4" {
	run env LIBPFM_FORCE_PMU=skl "$PFSHIM" list INST_RETIRED:ANY_P
	[ "$status" -eq 0 ]
	[ "$(section "libpfm4 events of skl" | awk '{print $1, $2}')" = "INST_RETIRED:ANY_P no" ]
	[[ "$output" =~ "  INST_RETIRED:ANY_P "\ +"no   Number of instructions retired [ENOENT]" ]]
	# libpfm4's perf:: and perf_raw:: names are pfshim's built-in ones: not listed twice
	run --separate-stderr "$PFSHIM" list PERF_COUNT_HW_CPU_CYCLES
	[ "$status" -eq 1 ]
	[ -z "$output" ]
	# an event that needs a unit mask says so
	run env LIBPFM_FORCE_PMU=skl "$PFSHIM" list FP_ARITH_INST_RETIRED
	[[ "$output" =~ "  FP_ARITH_INST_RETIRED "\ +"no   Floating-point instructions retired [invalid or missing unit mask]" ]]
	[ "$(id -u)" -eq 0 ] || skip "needs root (a mount namespace hiding libpfm.so.4)"
	need_unshare -m
	lib=$(readlink -f "$(ldconfig -p | awk '/libpfm\.so\.4 /{print $NF; exit}')")
	run timeout 120 unshare -m sh -c 'mount --make-rprivate / && mount --bind /dev/null "$1" && "$2" list' \
		sh "$lib" "$PFSHIM"
	[ "$status" -eq 0 ]
	[[ "$output" == *"libpfm4 events: none (vendor names need libpfm4: apt-get install libpfm4)" ]]
	[ "$(section "Built-in events" | wc -l)" -eq 51 ]
}

# --metrics: the group files of a CPU as the shim reads them (preload/metrics/group.h).
@test "list --metrics: a CPU's groups, each with what it measures, its events as pfshim names them, its metrics" {
	local dir="$BATS_TEST_TMPDIR/groups/fakearch"
	mkdir -p "$dir"
	printf '%s\n' 'SHORT Faults and CPU' '' 'EVENTSET' 'PMC0  page-faults' 'PMC1  task-clock' '' \
		'METRICS' 'Fault rate [1/s] PMC0/time' 'Faults per ms of CPU [1/ms]  PMC0/(PMC1*1.0E-06)' \
		>"$dir/ALPHA.txt"
	printf '%s\n' 'SHORT Just time' '' 'EVENTSET' 'PMC0  task-clock' '' 'METRICS' \
		'Runtime (RDTSC) [s] time' >"$dir/BETA.txt"
	echo 'not a group' >"$dir/README.md"
	run -0 "$PFSHIM" list --metrics --groups "$BATS_TEST_TMPDIR/groups" --arch fakearch
	# First the metrics PFSHIM_METRICS takes by name, each with its formula and events.
	[ "${lines[0]}" = "Metrics by name (PFSHIM_METRICS=NAME,..., pfshim run -M NAME,...):" ]
	[ "${lines[1]}" = "  IPC = instructions/cycles  (instructions: instructions, cycles: cycles)" ]
	[[ "$output" == *$'\n  CPUs-utilized = task_clock/(time*1000000000)  (task_clock: task-clock)\n'* ]]
	# TopdownL1: what this machine would use (its own level 1, LIKWID's TMA group), or why none
	[[ "$output" == *$'\n  TopdownL1 = here: '* || "$output" == *$'\n  TopdownL1 = none here: '* ]]
	output="Performance groups${output#*$'\n\nPerformance groups'}"
	[ "$output" = "Performance groups of fakearch (PFSHIM_GROUP=NAME, pfshim run -M NAME), from $dir:

ALPHA: Faults and CPU
  events: page-faults, task-clock
  Fault rate [1/s]
  Faults per ms of CPU [1/ms]

BETA: Just time
  events: task-clock
  Runtime (RDTSC) [s]" ]
	# PATTERN keeps the groups whose name holds it; none: said, exit 1
	run -0 "$PFSHIM" list --metrics --groups "$BATS_TEST_TMPDIR/groups" --arch fakearch bet
	[ "$(grep -c '^[A-Z]*:' <<<"$output")" -eq 1 ]
	[[ "$output" != *"Metrics by name"* ]]
	# ... and the metrics by name whose name holds it
	run -0 "$PFSHIM" list --metrics --groups "$BATS_TEST_TMPDIR/groups" --arch fakearch per-second
	[ "$(grep -c '^  .*-per-second \[1/s\] = ' <<<"$output")" -eq 2 ]
	run -1 --separate-stderr "$PFSHIM" list --metrics --groups "$BATS_TEST_TMPDIR/groups" --arch fakearch zz
	[ "$stderr" = "pfshim list: no group of fakearch matches 'zz'" ]
	# this CPU: its groups, or one line saying LIKWID has none for it (then --arch)
	run --separate-stderr "$PFSHIM" list --metrics
	[ "$status" -eq 0 ] || [[ "$stderr" == "pfshim list: LIKWID's groups have none for this CPU ("* ]]
	# Debian's likwid package: every group file of a model listed, each metric of FLOPS_DP named
	local real=/usr/share/likwid/perfgroups/skylakeX
	[ -d "$real" ] || skip "no $real (Debian's likwid package)"
	run -0 "$PFSHIM" list --metrics --arch skylakeX
	[ "$(grep -c '^[A-Za-z0-9_]*: ' <<<"$output")" -eq "$(ls "$real"/*.txt | wc -l)" ]
	# as many metric lines as the file's METRICS section holds, the first its first
	want=$(sed -n '/^METRICS/,/^LONG/p' "$real/FLOPS_DP.txt" | sed '1d;$d' | grep -c .)
	got=$("$PFSHIM" list --metrics --arch skylakeX FLOPS_DP | sed -n '/^FLOPS_DP:/,/^$/p' | sed -n '3,$p')
	echo "$want metrics in the file; listed:"
	echo "$got"
	[ "$(grep -c . <<<"$got")" -eq "$want" ]
	[ "$(sed -n 1p <<<"$got")" = "  Runtime (RDTSC) [s]" ]
}

@test "list --metrics: the TopdownL1 a fake sysfs tree's PMU gives, with its formulas, as the shim takes it" {
	[ ! -e /sys/devices/system/cpu/cpu0/regs/identification/midr_el1 ] ||
		skip "an arm64 host: its own MIDR picks the formulas, not the fixture's"
	run -0 --separate-stderr env PFSHIM_SYSFS_ROOT="$FIXTURES/arm64-neoverse-n2" "$PFSHIM" list --metrics TopdownL1
	[ "${lines[1]}" = "  TopdownL1 = here: an Arm core with STALL_SLOT events: the armv8_pmuv3_0 events, 5 slots, Arm's architectural formulas, one group" ]
	[ "${lines[2]}" = "    Front End [%] 100*stall_slot_frontend/(5*cpu_cycles)" ]
	[ "${lines[5]}" = "    Back End [%] 100*stall_slot_backend/(5*cpu_cycles)" ]
	listed=$(printf '%s\n' "${lines[@]:2:4}" | sed 's/^    //')
	# The shim takes the same: the group's events in its report, the metrics named as listed.
	run -0 --separate-stderr env PFSHIM_SYSFS_ROOT="$FIXTURES/arm64-neoverse-n2" LD_PRELOAD="$SHIM" \
		PFSHIM_FORMAT=json PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/r.json" PFSHIM_METRICS=TopdownL1 true
	[ "$(jq -r '[.events[].name | select(startswith("armv8"))] | join(",")' "$BATS_TEST_TMPDIR/r.json")" = "$(printf 'armv8_pmuv3_0/%s/,' \
		cpu_cycles stall_slot_frontend stall_slot_backend stall_slot op_spec op_retired | sed 's/,$//')" ]
	[ "$(jq -r '[.metrics[] | .name + " [" + .unit + "] " + .formula] | join("\n")' "$BATS_TEST_TMPDIR/r.json")" = \
		"$listed" ]
}
