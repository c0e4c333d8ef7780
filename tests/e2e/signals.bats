#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# PFSHIM_SIGNAL: a report mid-run, and the program carries on.

load helpers

@test "PFSHIM_SIGNAL=USR1 writes a report mid-run and the program carries on" {
	run --separate-stderr shim PFSHIM_SIGNAL=USR1 PFSHIM_EVENTS=page-faults \
		"$PROGS/signal_self" 10 4000
	[ "$status" -eq 0 ]
	[ "$output" = after ]
	[ "$(reports)" -eq 2 ]
	[ "$(reports '.reason == "signal" and .signal == 10')" -eq 1 ]
	mid=$(value page-faults '.reason == "signal"')
	end=$(value page-faults '.reason == "exit"')
	echo "mid $mid, end $end"
	# Each of the 4000 fresh pages touched before the signal faults once, and so
	# does each of the 4000 after it: the report came between the two halves
	# exactly when it holds the first 4000 and the exit report 4000 more. (How
	# many other faults start-up, the report and exit take varies from run to
	# run, by one or two, and by more under a sanitizer's runtime: no bound.)
	[ "$mid" -ge 4000 ]
	[ $((end - mid)) -ge 4000 ]
}

@test "a report signal given by number, and a real-time one" {
	shim PFSHIM_SIGNAL=12 PFSHIM_EVENTS=task-clock "$PROGS/signal_self" 12 10
	[ "$(reports '.reason == "signal" and .signal == 12')" -eq 1 ]
	: >"$REPORTS"
	rt=$(( $(kill -l RTMIN) + 1 ))
	shim PFSHIM_SIGNAL=RTMIN+1 PFSHIM_EVENTS=task-clock "$PROGS/signal_self" "$rt" 10
	[ "$(reports ".reason == \"signal\" and .signal == $rt")" -eq 1 ]
}

@test "reports on signals sent from outside, many times, while threads run" {
	env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" PFSHIM_SIGNAL=USR2 \
		PFSHIM_EVENTS=task-clock "$PROGS/burn_threads" 2 600 &
	pid=$!
	# env's shim catches USR2 too: the program's, after env's exec (a signal
	# in between kills, as without the shim; seen on a loaded machine).
	for _ in $(seq 1000); do
		[ "$(cat "/proc/$pid/comm" 2>/dev/null)" != burn_threads ] || break
		sleep 0.01
	done
	wait_caught "$pid" USR2
	for i in 1 2 3 4 5; do kill -USR2 "$pid"; sleep 0.05; done
	wait "$pid"
	[ "$(reports '.reason == "signal"')" -eq 5 ]
	[ "$(reports '.reason == "exit"')" -eq 1 ]
	# Totals only grow.
	jq -s -e '[.[] | .events[0].value] | . == sort' "$REPORTS"
}

@test "without PFSHIM_SIGNAL the signal keeps its default action" {
	run shim PFSHIM_EVENTS=task-clock "$PROGS/signal_self" 10 10
	[ "$status" -eq 138 ]
}

@test "a program with a small alternate signal stack survives the report signal" {
	run --separate-stderr shim PFSHIM_SIGNAL=USR1 PFSHIM_EVENTS=page-faults \
		"$PROGS/small_altstack" 10
	[ "$status" -eq 0 ]
	[ "$output" = after ]
	[ "$(reports '.reason == "signal"')" -eq 1 ]
	# The default set by the program with SA_ONSTACK: the report (on the
	# thread's own stack, SA_ONSTACK dropped for it), then the default, death.
	: >"$REPORTS"
	run --separate-stderr shim PFSHIM_SIGNAL=USR1 PFSHIM_EVENTS=page-faults \
		"$PROGS/small_altstack" 10 dfl-onstack
	[ "$status $output" = "138 " ]
	[ "$(reports '.reason == "signal" and .signal == 10')" -eq 1 ]
}

@test "the report signal landing on a thread with the smallest stack allowed" {
	skip_under_sanitizer "instrumented code needs more stack than PTHREAD_STACK_MIN leaves" asan
	run --separate-stderr shim PFSHIM_SIGNAL=USR1 PFSHIM_EVENTS=page-faults \
		"$PROGS/small_stack_thread" 10
	[ "$status" -eq 0 ]
	[ "$output" = after ]
	[ "$(reports '.reason == "signal"')" -eq 1 ]
}

# ---- issue 18, point 3: the report signal keeps its action

# as_without SIG COMMAND...: COMMAND without the shim, then under it with
# PFSHIM_SIGNAL=SIG (the reports emptied first): the same exit status and
# stdout ($want holds them, "status stdout").
as_without() {
	local sig=$1
	shift
	run "$@"
	want="$status $output"
	: >"$REPORTS"
	run --separate-stderr shim PFSHIM_SIGNAL="$sig" PFSHIM_EVENTS=task-clock "$@"
	echo "$sig $*: without '$want', with '$status $output'"
	[ "$status $output" = "$want" ]
}

# elapsed_ns COMMAND...: runs COMMAND (its status in $status), its duration in $elapsed.
elapsed_ns() {
	local start
	start=$(date +%s%N)
	status=0
	"$@" || status=$?
	elapsed=$(( $(date +%s%N) - start ))
}

@test "PFSHIM_SIGNAL=TERM or INT: the report, then the signal ends the program as without the shim" {
	command -v timeout >/dev/null || skip "no timeout(1)"
	for sig in TERM INT; do
		n=$(kill -l "$sig")
		elapsed_ns bash -c 'timeout -s "$0" -k 3 1 yes >/dev/null 2>"$1"' "$sig" \
			"$BATS_TEST_TMPDIR/err0"
		[ "$status" -eq 124 ]
		: >"$REPORTS"
		elapsed_ns bash -c 'exec env LD_PRELOAD="$1" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$2" \
			PFSHIM_SIGNAL="$0" PFSHIM_EVENTS=task-clock \
			timeout -s "$0" -k 3 1 yes >/dev/null 2>"$3"' "$sig" "$SHIM" "$REPORTS" \
			"$BATS_TEST_TMPDIR/err1"
		echo "$sig: status $status, $elapsed ns"
		# 124: yes died of the signal; 137 would be the -k 3 SIGKILL. The
		# duration says the same (a bound on correctness, not a speed).
		[ "$status" -eq 124 ]
		[ "$elapsed" -lt 3000000000 ]
		cmp "$BATS_TEST_TMPDIR/err0" "$BATS_TEST_TMPDIR/err1"
		[ "$(reports ".program == \"yes\"")" -eq 1 ]
		[ "$(reports ".program == \"yes\" and .reason == \"signal\" and .signal == $n")" -eq 1 ]
	done
}

@test "PFSHIM_SIGNAL=PIPE: yes | head -1 still dies of SIGPIPE (141), no 'Broken pipe' line" {
	run --separate-stderr bash -c 'yes | head -1; echo "${PIPESTATUS[*]}"'
	want_out=$output want_err=$stderr
	[ "$want_out" = "$(printf 'y\n141 0')" ]
	run --separate-stderr bash -c 'env LD_PRELOAD="$0" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$1" \
		PFSHIM_SIGNAL=PIPE PFSHIM_EVENTS=task-clock yes | head -1; echo "${PIPESTATUS[*]}"' \
		"$SHIM" "$REPORTS"
	echo "stdout: $output; stderr: $stderr"
	[ "$output" = "$want_out" ]
	[ "$stderr" = "$want_err" ]
	[ "$(reports)" -eq 1 ]
	[ "$(reports '.reason == "signal" and .signal == 13')" -eq 1 ]
}

@test "a handler the program sets for the report signal still runs, after the report" {
	for style in sigaction signal; do
		for sig in 10 15; do
			as_without "$sig" "$PROGS/late_handler" "$style" return "$sig" 2
			[ "$want" = "0 $(printf 'handler\nsurvived 1\nhandler\nsurvived 2')" ]
			[ "$(reports ".reason == \"signal\" and .signal == $sig")" -eq 2 ]
			[ "$(reports '.reason == "exit"')" -eq 1 ]
		done
	done
}

@test "the report signal's handler restoring the default and re-raising dies as without the shim" {
	for sig in 10 15; do
		as_without "$sig" "$PROGS/late_handler" sigaction reraise "$sig"
		[ "$want" = "$((128 + sig)) handler" ]
		# One report as the signal comes to the handler, the last as it kills:
		# USR1's default, set by the program itself, is its word.
		[ "$(reports ".reason == \"signal\" and .signal == $sig")" -eq 2 ]
		[ "$(reports)" -eq 2 ]
	done
}

@test "the report signal set to SIG_IGN by the program stays ignored, in it and its exec'd child" {
	for sig in 10 13 15; do
		as_without "$sig" "$PROGS/late_handler" sigaction ignore "$sig"
		[ "$want" = "0 survived" ]
		[ "$(reports '.reason == "signal"')" -eq 0 ]
		run --separate-stderr shim PFSHIM_SIGNAL="$sig" PFSHIM_EVENTS=task-clock \
			"$PROGS/late_handler" ignore-exec "$sig" "$PROGS/fatal" kill "$sig"
		[ "$status $output" = "0 survived" ]
		[ "$(reports '.reason == "signal"')" -eq 0 ]
	done
}

@test "a report interrupts no read(2): SA_RESTART" {
	run --separate-stderr shim PFSHIM_SIGNAL=USR1 PFSHIM_EVENTS=task-clock \
		"$PROGS/late_handler" default read 10
	echo "$status $output"
	[ "$status" -eq 0 ]
	[ "$output" = "read 1" ]
	[ "$(reports '.reason == "signal" and .signal == 10')" -eq 1 ]
	# A default the program sets itself is its word: the report, then death.
	as_without USR1 "$PROGS/late_handler" sigaction read 10
	[ "$want" = "138 " ]
	[ "$(reports '.reason == "signal" and .signal == 10')" -eq 1 ]
}

@test "kill -USR2 as soon as SigCgt shows the handler (docs/jobs.md): 100 of 100 report and live" {
	pids=()
	for i in $(seq 100); do
		env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" PFSHIM_SIGNAL=USR2 \
			PFSHIM_EVENTS=task-clock sleep 60 &
		pids+=($!)
	done
	for pid in "${pids[@]}"; do
		wait_caught "$pid" USR2
		kill -USR2 "$pid"
	done
	# Each report written (one write(2) per report), or a process gone, then TERM:
	# a sleep that lived through its USR2 dies of that (143), one the USR2 killed
	# died of it (140).
	for _ in $(seq 3000); do
		[ "$(grep -c '"reason":"signal"' "$REPORTS")" -ge 100 ] && break
		sleep 0.01
	done
	for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
	lived=0
	for pid in "${pids[@]}"; do
		status=0
		wait "$pid" || status=$?
		[ "$status" -eq 143 ] && lived=$((lived + 1))
	done
	echo "lived: $lived"
	[ "$lived" -eq 100 ]
	[ "$(reports '.reason == "signal" and .signal == 12 and .program == "sleep"')" -eq 100 ]
	[ "$(reports)" -eq 100 ]
}

@test "signals that cannot carry a report say why in one line, and change nothing" {
	run --separate-stderr "$PROGS/exit_how" exit 5
	want="$status $output"
	check() {
		run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=/dev/null \
			PFSHIM_SIGNAL="$1" "$PROGS/exit_how" exit 5
		echo "$1: $stderr"
		[ "$status $output" = "$want" ]
		[ "$stderr" = "pfshim: PFSHIM_SIGNAL: $2; ignored" ]
	}
	check KILL "SIGKILL cannot be caught"
	check STOP "SIGSTOP cannot be caught"
	check SEGV "SIGSEGV comes from a fault or abort(), which a handler that returns only repeats (PFSHIM_ON_FATAL=1 reports such deaths)"
	check CHLD "SIGCHLD is ignored by default, and a handler would make sleep(), poll() and the like return EINTR on it, as nothing does without the shim"
	check WINCH "SIGWINCH is ignored by default, and a handler would make sleep(), poll() and the like return EINTR on it, as nothing does without the shim"
	check TSTP "SIGTSTP stops the process by default, and a handler would make sleep(), poll() and the like return EINTR when it continues, as nothing does without the shim"
	check NOSUCH "not a signal (use a name like USR1, a number, or RTMIN+n)"
}

# ---- issue 18, point 6: deaths the shim sees, and the ones it cannot

@test "_exit() from a signal handler reports at exit, the report signal's or another's" {
	run "$PROGS/fatal" own-term
	want="$status $output"
	[ "$want" = "3 own handler" ]
	run --separate-stderr shim PFSHIM_EVENTS=task-clock "$PROGS/fatal" own-term
	[ "$status $output" = "$want" ]
	[ "$(reports '.reason == "exit"')" -eq 1 ]
	[ "$(reports)" -eq 1 ]
	: >"$REPORTS"
	run --separate-stderr shim PFSHIM_SIGNAL=TERM PFSHIM_EVENTS=task-clock "$PROGS/fatal" own-term
	[ "$status $output" = "$want" ]
	[ "$(reports '.reason == "signal" and .signal == 15')" -eq 1 ]
	[ "$(reports '.reason == "exit"')" -eq 1 ]
}

@test "a raw exit_group system call passes the shim by: no report (docs/usage.md)" {
	run "$PROGS/fatal" exit-group
	[ "$status" -eq 4 ]
	run --separate-stderr shim PFSHIM_EVENTS=task-clock "$PROGS/fatal" exit-group
	[ "$status" -eq 4 ]
	[ -z "$output$stderr" ]
	[ "$(reports)" -eq 0 ]
}

# A Python pool's workers are sent TERM as they exit: one that lands while the
# exit report is being written must wait for it. The report is held up on a full
# one-page FIFO (PFSHIM_OUTPUT; a file's writes are bounded, a FIFO's wait for room
# too), TERM sent then, the FIFO drained: the report comes whole, then the signal's
# death (17 of 30 pool runs lost a worker's report when the handler found its own
# thread's report in progress). A report to a standard stream holds nothing: a
# blocking pipe whose reader stopped must not make the program deaf to TERM.
@test "a signal that lands while the exit report is written comes after it: the report whole, then its death" {
	cat >"$BATS_TEST_TMPDIR/drive.py" <<'PY'
import fcntl, os, signal, subprocess, sys, time
fifo = os.path.join(sys.argv[3], "fifo")
os.mkfifo(fifo)
r = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
fcntl.fcntl(r, 1031, 4096)  # F_SETPIPE_SZ: one page
env = dict(os.environ, LD_PRELOAD=sys.argv[1], PFSHIM_FORMAT="json", PFSHIM_OUTPUT=fifo,
           PFSHIM_EVENTS="task-clock", PFSHIM_ON_FATAL=sys.argv[2])
# the program fills the FIFO; its exit report then waits for room (2 s at most)
p = subprocess.Popen([sys.executable, "-c",
                      "import os, sys; f = os.open(sys.argv[1], os.O_WRONLY); "
                      "os.write(f, b'x' * 4096); os.close(f)", fifo], env=env)
waiting = False
for _ in range(200):
    try:
        waiting = "poll" in open(f"/proc/{p.pid}/wchan").read()
    except OSError:
        pass
    if waiting:
        break
    time.sleep(0.005)
p.send_signal(signal.SIGTERM)
time.sleep(0.2)
data = b""
deadline = time.time() + 5
while time.time() < deadline:
    try:
        chunk = os.read(r, 65536)
    except BlockingIOError:
        chunk = None
    if chunk:
        data += chunk
    elif p.poll() is not None:
        break
    else:
        time.sleep(0.01)
print(p.wait(), "waiting" if waiting else "not-waiting")
sys.stdout.write(data[4096:].decode(errors="replace"))
PY
	for fatal in 1 0; do
		rm -f "$BATS_TEST_TMPDIR/fifo"
		run python3 "$BATS_TEST_TMPDIR/drive.py" "$SHIM" "$fatal" "$BATS_TEST_TMPDIR"
		echo "PFSHIM_ON_FATAL=$fatal: $output"
		[ "${lines[0]}" != "-15 not-waiting" ] || skip "the program was not seen waiting for the FIFO (/proc/PID/wchan)"
		[ "${lines[0]}" = "-15 waiting" ]
		[ "$(sed 1d <<<"$output" | jq -r 'select(.reason == "exit") | .events[] | select(.name == "task-clock") | .status')" = counted ]
	done
}

# The other side: a report to stderr stuck on a blocking pipe whose reader stopped reading
# holds no signal back: TERM still ends the program at once, as without the shim. With
# PFSHIM_ON_FATAL's handler too, except under TSan, whose runtime runs a handler only at its
# own safe points, which a write blocked in the kernel never reaches (with or without pfshim).
@test "an exit report stuck on a stalled stderr pipe: TERM still ends the program at once" {
	cat >"$BATS_TEST_TMPDIR/stalled.py" <<'PY'
import fcntl, os, signal, subprocess, sys, time
r, w = os.pipe()
fcntl.fcntl(w, 1031, 4096)  # F_SETPIPE_SZ: one page
env = dict(os.environ, LD_PRELOAD=sys.argv[1], PFSHIM_FORMAT="json",
           PFSHIM_EVENTS="task-clock", PFSHIM_ON_FATAL=sys.argv[2])
env.pop("PFSHIM_OUTPUT", None)
p = subprocess.Popen([sys.executable, "-c", "import os; os.write(2, b'x' * 4096)"],
                     stderr=w, env=env)
os.close(w)
for _ in range(200):
    try:
        if "pipe" in open(f"/proc/{p.pid}/wchan").read():
            break
    except OSError:
        pass
    time.sleep(0.025)
p.send_signal(signal.SIGTERM)
try:
    print(p.wait(timeout=10))
except subprocess.TimeoutExpired:
    print("still running")
    os.read(r, 65536)
    p.wait()
PY
	for fatal in 0 1; do
		[ "$fatal" = 0 ] || [ "${PFSHIM_SANITIZER:-}" != tsan ] || continue
		run -0 python3 "$BATS_TEST_TMPDIR/stalled.py" "$SHIM" "$fatal"
		echo "PFSHIM_ON_FATAL=$fatal: $output"
		[ "$output" = -15 ]
	done
}
