# SPDX-License-Identifier: MIT
# helpers.bash: what every end-to-end suite shares: where the shim and the
# test programs are, running a command under the shim with JSON reports sent
# to a file, and jq queries of those reports.

bats_require_minimum_version 1.5.0

ROOT="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
BUILD="${BUILD:-$ROOT/build}"
case $BUILD in /*) ;; *) BUILD="$ROOT/$BUILD" ;; esac
# SHIM_LIB is the library file; SHIM is what LD_PRELOAD takes. Under a
# sanitizer (tests/sanitize.mk) PFSHIM_PRELOAD names its runtime, which must
# be loaded before the instrumented shim.
SHIM_LIB="$BUILD/libpfshim.so"
SHIM="${PFSHIM_PRELOAD:+$PFSHIM_PRELOAD }$SHIM_LIB"
PROGS="$BUILD/progs"

setup() {
	REPORTS="$BATS_TEST_TMPDIR/reports.jsonl"
	: >"$REPORTS"
}

# shim [VAR=VALUE...] COMMAND...: COMMAND under the shim, JSON Lines reports to $REPORTS.
shim() {
	env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" "$@"
}

# reports [JQ-FILTER]: how many reports (matching the filter) were written.
reports() {
	jq -s "map(select(${1:-true})) | length" "$REPORTS"
}

# value EVENT [JQ-FILTER]: EVENT's scaled value in the report(s) matching the filter.
value() {
	jq -r --arg e "$1" "select(${2:-true}) | .events[] | select(.name == \$e) | .value" "$REPORTS"
}

# field EVENT KEY [JQ-FILTER]: any per-event field.
field() {
	jq -r --arg e "$1" --arg k "$2" \
		"select(${3:-true}) | .events[] | select(.name == \$e) | .[\$k]" "$REPORTS"
}

# sh_name: the program name a report gives /bin/sh (the basename of what it links to).
sh_name() {
	basename "$(readlink -f "$(command -v sh)")"
}

# between LOW N HIGH: LOW <= N <= HIGH, saying what was seen when not.
between() {
	if [ "$2" -lt "$1" ] || [ "$2" -gt "$3" ]; then
		echo "expected $1 <= $2 <= $3" >&2
		return 1
	fi
}

# wait_caught PID SIGNAL: wait (bounded) until PID catches SIGNAL (its SigCgt
# bit), i.e. the shim's constructor installed the report handler: a report
# signal sent before that kills the program, however long the start-up takes.
wait_caught() {
	local bit=$((1 << ($(kill -l "$2") - 1))) cgt
	for _ in $(seq 1000); do
		cgt=$(awk '/^SigCgt:/ {print $2}' "/proc/$1/status" 2>/dev/null) || return 0
		[ -n "$cgt" ] || return 0
		(( 0x$cgt & bit )) && return 0
		sleep 0.01
	done
}

# skip_under_sanitizer REASON [asan|tsan...]: skip this test in the
# `make check-sanitize` runs of those sanitizers (of any, when none is named).
skip_under_sanitizer() {
	local reason=$1
	shift
	[ -n "${PFSHIM_SANITIZER:-}" ] || return 0
	[ $# -eq 0 ] || [[ " $* " == *" $PFSHIM_SANITIZER "* ]] || return 0
	skip "under $PFSHIM_SANITIZER: $reason"
}
