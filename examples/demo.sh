#!/bin/sh
# SPDX-License-Identifier: MIT
# demo.sh BUILD: pfshim on a real program, as a new user would run it.
set -eu
build=${1:-build}
lib="$build/libpfshim.so"

show() {
	printf '\n$ %s\n' "$*"
	sh -c "$*"
}

echo "pfshim demo: counting a program's own events with LD_PRELOAD (no code changes)."
echo "This machine's PMUs: $(ls /sys/bus/event_source/devices | tr '\n' ' ')"
show "LD_PRELOAD=$lib $build/examples/sieve 50000000"
# JSON Lines: one object per report (shown whole where jq is not installed).
pick=cat
command -v jq >/dev/null && pick="jq -c '{program, pid, reason, events: [.events[] | {name, value, status}]}'"
show "LD_PRELOAD=$lib PFSHIM_EVENTS='{task-clock,page-faults},cycles:u' PFSHIM_FORMAT=json $build/examples/sieve 1000000 2>&1 >/dev/null | $pick"
show "LD_PRELOAD=$lib PFSHIM_EVENTS=page-faults PFSHIM_FORMAT=csv sh -c 'ls / >/dev/null; $build/examples/sieve 100000'"
# A whole job: one summary over every process (build/pfshim is built when libjansson-dev is there).
if [ -x "$build/pfshim" ]; then
	show "$build/pfshim run -e task-clock,page-faults -- sh -c 'ls / >/dev/null; $build/examples/sieve 100000 >/dev/null'"
else
	printf '\n(pfshim run, a whole job in one summary, is not built here: make tool installs libjansson-dev and builds it)\n'
fi
for example in matmul threads; do
	[ -x "$build/examples/$example" ] || continue
	show "LD_PRELOAD=$lib PFSHIM_EVENTS=task-clock,page-faults $build/examples/$example"
done
# The lines to use on one's own program (absolute paths: a child that changes directory still finds the shim).
abs=$(cd "$build" && pwd)
printf '\nOn your own program:\n  LD_PRELOAD=%s/libpfshim.so ./your-program\n' "$abs"
[ ! -x "$build/pfshim" ] || printf '  %s/pfshim run -- ./your-job   # a build, a script: every process in one summary\n' "$abs"
