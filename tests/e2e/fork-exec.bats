#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# fork() children count for themselves; exec writes the report of the image it replaces.

load helpers

@test "fork children report for themselves, and the parent's totals leave them out" {
	run shim PFSHIM_EVENTS=page-faults "$PROGS/fork_children" 3 5000 0
	[ "$status" -eq 0 ]
	children=("${lines[@]}")
	[ "${#children[@]}" -eq 3 ]
	[ "$(reports)" -eq 4 ]
	for pid in "${children[@]}"; do
		[ "$(reports ".pid == $pid and .reason == \"exit\"")" -eq 1 ]
		between 5000 "$(value page-faults ".pid == $pid")" 5600
	done
	parent=$(jq -r "select(.pid != ${children[0]} and .pid != ${children[1]} and .pid != ${children[2]}) | .pid" "$REPORTS")
	# The parent touched nothing itself: far below any child's 5000.
	[ "$(value page-faults ".pid == $parent")" -lt 2000 ]
}

@test "a report is written before exec, and the new image reports too" {
	shim PFSHIM_EVENTS=page-faults "$PROGS/exec_chain" execve "$PROGS/touch_pages" 3000
	[ "$(reports)" -eq 2 ]
	[ "$(reports '.reason == "exec" and .program == "exec_chain"')" -eq 1 ]
	[ "$(reports '.reason == "exit" and .program == "touch_pages"')" -eq 1 ]
	# Same process, two images, each with its own counts.
	[ "$(jq -s 'map(.pid) | unique | length' "$REPORTS")" -eq 1 ]
	between 500 "$(value page-faults '.reason == "exec"')" 2900
	[ "$(value page-faults '.program == "touch_pages"')" -ge 3000 ]
}

@test "every exec variant writes the exec report" {
	for how in execve execv execvp execvpe execl execlp execle fexecve execveat; do
		: >"$REPORTS"
		prog="$PROGS/touch_pages"
		[ "$how" = execvp ] || [ "$how" = execlp ] && prog=touch_pages
		PATH="$PROGS:$PATH" shim PFSHIM_EVENTS=page-faults "$PROGS/exec_chain" "$how" "$prog" 1
		echo "$how: $(jq -c '[.program, .reason]' "$REPORTS" | tr '\n' ' ')"
		[ "$(reports '.reason == "exec" and .program == "exec_chain"')" -eq 1 ]
		[ "$(reports '.reason == "exit" and .program == "touch_pages"')" -eq 1 ]
	done
}

@test "a vfork()ed child that execs writes nothing for the parent" {
	shim PFSHIM_EVENTS=page-faults "$PROGS/exec_chain" vfork "$PROGS/touch_pages" 1
	[ "$(reports '.program == "exec_chain"')" -eq 1 ]
	[ "$(reports '.program == "exec_chain" and .reason == "exit"')" -eq 1 ]
	[ "$(reports '.program == "touch_pages"')" -eq 1 ]
}

@test "an exec of a missing file reports nothing for it; the program runs on and reports at exit" {
	run shim PFSHIM_EVENTS=page-faults "$PROGS/exec_chain" fail
	[ "$status" -eq 3 ]
	[ "$(jq -s -c 'map(.reason)' "$REPORTS")" = '["exit"]' ]
}

# The failed-exec path proper: the file exists, so the shim writes the exec
# report before the exec; the kernel refuses the file (ENOEXEC: no ELF, no
# #!; EACCES: no execute bit), and the program carries on: the shim takes
# its report back, the program's errno is the exec's, and its exit reports
# the final totals, every fault of the exec report's and more.
@test "a failed exec (ENOEXEC, EACCES) leaves the program running; its exit reports the final totals" {
	printf '\001\002 no program\n' >"$BATS_TEST_TMPDIR/garbage"
	chmod 755 "$BATS_TEST_TMPDIR/garbage"
	printf 'x' >"$BATS_TEST_TMPDIR/noexec"
	chmod 644 "$BATS_TEST_TMPDIR/noexec"
	for f in garbage:ENOEXEC noexec:EACCES; do
		: >"$REPORTS"
		run timeout 60 env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" \
			PFSHIM_EVENTS=page-faults "$PROGS/exec_chain" fail-exists "$BATS_TEST_TMPDIR/${f%:*}"
		echo "$f: $status $output"
		[ "$status $output" = "3 ${f#*:}" ]
		[ "$(jq -s -c 'map(.reason)' "$REPORTS")" = '["exec","exit"]' ]
		[ "$(jq -s '.[0].pid == .[1].pid' "$REPORTS")" = true ]
		before=$(jq -s '.[0].events[0].value' "$REPORTS")
		after=$(jq -s '.[1].events[0].value' "$REPORTS")
		echo "page-faults at the exec: $before, at exit: $after"
		[ "$before" -ge 500 ]
		[ "$after" -ge "$before" ]
	done
}

# The exec report's memory stays mapped for the exec to free (docs/performance.md,
# "CPU per child process"); a failed exec's image lives on and gets it back. (A build
# that kept every such report's memory grew by 9,600 KiB here.)
@test "300 failed execs: the image's address space does not grow with their reports" {
	[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
	printf 'x' >"$BATS_TEST_TMPDIR/noexec"
	chmod 644 "$BATS_TEST_TMPDIR/noexec"
	py='import os, sys
def vm(): return int([l for l in open("/proc/self/status") if l.startswith("VmSize:")][0].split()[1])
def tries(n):
    for i in range(n):
        try: os.execv(sys.argv[1], ["x"])
        except PermissionError: pass
tries(20)
before = vm()
tries(300)
print(vm() - before)'
	run -0 timeout 60 env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$REPORTS" \
		PFSHIM_EVENTS=page-faults /usr/bin/python3 -c "$py" "$BATS_TEST_TMPDIR/noexec"
	echo "VmSize grew by $output KiB"
	[ "$(jq -s -c 'map(.reason) | group_by(.) | map([.[0], length])' "$REPORTS")" = '[["exec",320],["exit",1]]' ]
	# each report maps 16 KiB of text and its events: 300 left mapped would be 5 MiB and more
	[ "$output" -lt 512 ]
}

@test "a shell pipeline: every process reports once" {
	shim PFSHIM_EVENTS=task-clock sh -c "$PROGS/touch_pages 1 | cat >/dev/null; true"
	[ "$(reports '.program == "touch_pages"')" -eq 1 ]
	[ "$(reports '.program == "cat"')" -eq 1 ]
	# The forked shells report their exec; no image reports twice.
	[ "$(jq -s 'map([.pid, .program]) | (unique | length) == length' "$REPORTS")" = true ]
	[ "$(reports ".program == \"$(sh_name)\" and .reason == \"exit\"")" -eq 1 ]
}

# A fork() in one thread while another's report holds its directory and file (both
# close-on-exec) copies them into the child, which cannot tell them from its program's: they
# stay until it execs or exits (docs/usage.md, "What the shim does to the host process").
# Bounded: at most the two a report holds at once, none after an exec.
@test "a fork during another thread's report: the child holds at most its two descriptors, none after exec" {
	local out
	for how in fork exec; do
		out="$BATS_TEST_TMPDIR/$how"
		mkdir "$out"
		run --separate-stderr timeout 120 env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock \
			PFSHIM_FORMAT=json PFSHIM_OUTPUT="$out/" "$PROGS/fork_during_report" "$out" 300 \
			"$how"
		echo "$how: $output"
		[ "$status" -eq 0 ]
		[ -z "$stderr" ]
		read -r _ forks _ holding _ descriptors _ most <<<"$output"
		[ "$forks" -eq 300 ]
		if [ "$how" = fork ]; then
			[ "$most" -le 2 ] && [ "$descriptors" -le $((2 * holding)) ]
			# every child's own report written: one file per image
			[ "$(find "$out" -name '*.json' | wc -l)" -eq 301 ]
		else
			[ "$holding" -eq 0 ] && [ "$descriptors" -eq 0 ]
			# a child's forked image (its exec report) and its exec'd one: two files
			[ "$(find "$out" -name '*.json' | wc -l)" -eq 601 ]
		fi
	done
}
