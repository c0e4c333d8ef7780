#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# handover.bats: counting from the exec. `pfshim run` opens the command's
# counters before exec (enable_on_exec) and the shim adopts them, so the
# count is perf stat's for the same image, the dynamic loader's work
# included; PFSHIM_HANDOVER=1 does the same at each exec of a chain. A
# PFSHIM_ADOPT that proves nothing harms nothing; no descriptor is left over.

load helpers

PFSHIM="$BUILD/pfshim"

setup() {
	need_perf
	cd "$BATS_TEST_TMPDIR"
	REPORTS="$BATS_TEST_TMPDIR/reports.jsonl"
	: >"$REPORTS"
	command -v perf >/dev/null || skip "perf (linux-perf) is not installed"
	perf stat -x, -e page-faults true 2>/dev/null >/dev/null || skip "perf stat cannot count here"
}

# median N...: the middle of N numbers (counts vary by a fault or two).
median() {
	printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# perf_faults COMMAND...: perf stat's page-faults for COMMAND as pfshim run
# starts it (the shim loaded, the job's environment), perf stat itself under
# pfshim run: the same image, the same work, counted by perf.
perf_faults() {
	"$PFSHIM" run -e page-faults -o "perf.$RANDOM$RANDOM" -- \
		perf stat -x, -e page-faults "$@" 2>&1 >/dev/null |
		awk -F, '$3 ~ /^page-faults(:u)?$/ { print $1 }'
}

# run_faults DIR COMMAND...: COMMAND under pfshim run, reports in DIR.
run_faults() {
	local dir=$1
	shift
	"$PFSHIM" run -e page-faults -o "$dir" -- "$@" 2>/dev/null
}

# true_faults DIR: page-faults of the image named true among DIR's reports.
true_faults() {
	jq -s 'map(select(.program == "true")) | .[0].events[0].value' "$1"/*.json
}

# counted_from_exec WITHOUT WITH: true counts more in WITH's reports (handed
# its counters at its exec, the loader's work included) than in WITHOUT's.
counted_from_exec() {
	local without with
	without=$(true_faults "$1")
	with=$(true_faults "$2")
	echo "true: $without without, $with with the hand-over"
	[ "$with" -gt $((without + 20)) ]
}

# within_2pct A B: |A - B| <= 2% of B.
within_2pct() {
	local diff=$(($1 - $2))
	[ $((diff < 0 ? -diff : diff)) -le $(($2 / 50)) ] || { echo "$1 vs $2: over 2%" >&2; return 1; }
}

@test "pfshim run: /bin/true's page-faults are perf stat's for the same image, the loader's included" {
	# The instrumented report faulted 6-7 pages after its read (ASan, before
	# report_prepare existed; not measured since): the plain run checks it.
	skip_under_sanitizer "the instrumented report faults more pages after it reads its counters"
	local perf ours bare=() plain=()
	for i in 1 2 3 4 5; do
		# perf stat counts the very image that adopts: perf runs under pfshim
		# run, and its child hands /bin/true its counters at the exec.
		perf=$(PFSHIM_HANDOVER=1 "$PFSHIM" run -e page-faults -o "p$i" -- \
			perf stat -x, -e page-faults /bin/true 2>&1 >/dev/null |
			awk -F, '$3 ~ /^page-faults(:u)?$/ { print $1 }')
		ours=$(jq -s 'map(select(.program == "true")) | .[0].events[0].value' p$i/*.json)
		echo "perf stat: $perf, the report: $ours"
		# The report touches before its read all it writes after it
		# (process.c, report_prepare): perf stat's count, within 2%.
		[ "$ours" -le "$perf" ] && within_2pct "$ours" "$perf"
		bare+=("$(perf stat -x, -e page-faults /bin/true 2>&1 | awk -F, '$3 ~ /^page-faults(:u)?$/ { print $1 }')")
		: >"$REPORTS"
		shim PFSHIM_EVENTS=page-faults /bin/true
		plain+=("$(value page-faults)")
	done
	run_faults r /bin/true
	ours=$(jq '.events[0].value' r/*.json)
	echo "pfshim run: $ours; bare /bin/true under perf stat: ${bare[*]}; LD_PRELOAD alone: ${plain[*]}"
	# All of /bin/true's own faults, the loader's included, and the shim's on top.
	[ "$ours" -gt "$(median "${bare[@]}")" ]
	[ "$(median "${plain[@]}")" -lt $(($(median "${bare[@]}") / 2)) ]
}

@test "PFSHIM_HANDOVER=1: a chain of 3 images, each adopting its counters, sums to perf stat's count" {
	local sums=() perfs=()
	for i in 1 2 3; do
		PFSHIM_HANDOVER=1 run_faults "c$i" "$PROGS/exec_chain" execv "$PROGS/exec_chain" \
			execvp true
		[ "$(jq -s 'length' c$i/*.json)" -eq 3 ]
		# One process, three images, each counted (exec_chain touches 500 pages).
		[ "$(jq -s 'map(.pid) | unique | length' c$i/*.json)" -eq 1 ]
		[ "$(jq -s '[.[] | select(.program == "exec_chain" and .events[0].value > 500)] | length' \
			c$i/*.json)" -eq 2 ]
		sums+=("$(jq -s 'map(.events[0].value) | add' c$i/*.json)")
		perfs+=("$(perf_faults "$PROGS/exec_chain" execv "$PROGS/exec_chain" execvp true)")
	done
	echo "chain: ${sums[*]}; perf stat: ${perfs[*]}"
	within_2pct "$(median "${sums[@]}")" "$(median "${perfs[@]}")"
	# The last image, true, counted from its exec: as much as pfshim run's true.
	run_faults t /bin/true
	local true_alone last
	true_alone=$(jq '.events[0].value' t/*.json)
	last=$(true_faults c1)
	[ "$last" -gt $((true_alone - 10)) ]
}

@test "without PFSHIM_HANDOVER the chain's later images count from the shim's start" {
	run_faults c "$PROGS/exec_chain" execv "$PROGS/exec_chain" execvp true
	run_faults h env PFSHIM_HANDOVER=1 "$PROGS/exec_chain" execv "$PROGS/exec_chain" execvp true
	counted_from_exec c h
}

@test "PFSHIM_ADOPT is gone from the program's environment" {
	run -0 --separate-stderr "$PFSHIM" run -o e -- sh -c 'echo "${PFSHIM_ADOPT-unset}"'
	[ "${lines[0]}" = unset ]
}

@test "the program's descriptors are those it has under LD_PRELOAD alone" {
	# ls is a child of sh: what sh leaves open for it, and its own shim's.
	# What each descriptor is, the shim's perf events by kind only (their
	# numbers depend on what the image that opened them held).
	local list='ls -l /proc/self/fd | awk '"'"'NR > 1 { t = $NF; sub(/:\[.*/, "", t); sub(/[0-9]+/, "N", t); sub(/separate-stderr-.*/, "stderr", t); print (t ~ /anon_inode/ ? "" : $9) " " t }'"'"' | sort'
	printf '%s\n' "$list" >fds.sh
	run -0 --separate-stderr shim sh fds.sh
	local plain=${lines[*]}
	run -0 --separate-stderr "$PFSHIM" run -o a -- sh fds.sh
	[ "$plain" = "${lines[*]}" ]
	# And under PFSHIM_HANDOVER=1, after an exec: the same.
	run -0 --separate-stderr "$PFSHIM" run -o b -- env PFSHIM_HANDOVER=1 sh -c 'exec sh fds.sh'
	[ "$plain" = "${lines[*]}" ]
}

@test "a PFSHIM_ADOPT that proves nothing is ignored: descriptors, output and status unharmed" {
	for bogus in 'garbage' '1;$$;0;1;7:1:0:0:0' '1;$$;0;1;200:1:0:0:0' '1;$$;0;1;-1:0:0:0:0' \
		"$(printf '1;$$;0;1;7:%s:0:0:0' 18446744073709551615)"; do
		# fd 7 is the program's own file; the shim must leave it alone.
		run -0 --separate-stderr shim sh -c \
			"exec 7</etc/hostname; PFSHIM_ADOPT='$bogus' exec head -n1 /dev/fd/7"
		[ "$output" = "$(head -n1 /etc/hostname)" ]
		[ "$(grep -c PFSHIM_ADOPT <<<"$stderr")" -eq 1 ]
		[ "$(reports)" -ge 1 ]
	done
	run -3 shim env PFSHIM_ADOPT=garbage "$PROGS/exec_chain" fail
}

@test "no hand-over to an image that has no shim to adopt it" {
	# A setuid image (the shim inert) would keep the descriptors: none is
	# opened for it before its exec (strace makes the kernel ignore setuid,
	# so its shim counts on its own after).
	cp /bin/true ./suid-true && chmod u+s ./suid-true
	# (pfshim run's own opens, the job's count on the child's pid, are its: the first pid traced)
	run -0 strace -f -e trace=perf_event_open,execve -o trace "$PFSHIM" run -o s -- ./suid-true
	awk 'NR == 1 { runner = $1 } /execve\(".\/suid-true"/ { exit }
		$1 != runner && /perf_event_open/ { bad = 1 } END { exit bad }' trace
	run -0 strace -f -e trace=perf_event_open,execve -o trace2 "$PFSHIM" run -o t -- /bin/true
	! awk 'NR == 1 { runner = $1 } /execve\("\/bin\/true"/ { exit }
		$1 != runner && /perf_event_open/ { bad = 1 } END { exit bad }' trace2 || false
	# A static image loads no preload: nothing for it either.
	if command -v cc >/dev/null && echo 'int main(void) { return 0; }' >st.c &&
	   cc -static -o static-true st.c 2>/dev/null; then
		run -0 strace -f -e trace=perf_event_open,execve -o trace3 "$PFSHIM" run -o u -- ./static-true
		awk 'NR == 1 { runner = $1 } /execve\(".\/static-true"/ { exit }
			$1 != runner && /perf_event_open/ { bad = 1 } END { exit bad }' trace3
	fi
	# PFSHIM_HANDOVER=1 into an environment without the shim: no descriptor crosses.
	run -0 --separate-stderr "$PFSHIM" run -o v -- env PFSHIM_HANDOVER=1 sh -c \
		'exec env -u LD_PRELOAD ls -l /proc/self/fd'
	[[ "$output" != *perf_event* ]]
}

@test "exec failure: pfshim run's child closes the descriptors it opened" {
	command -v cc >/dev/null || skip "no C compiler"
	echo 'int main(void) { return 0; }' >bad.c
	cc -o bad-interp -Wl,--dynamic-linker=/nonexistent/ld.so bad.c
	run -127 strace -f -e trace=close,execve,fcntl -o trace \
		"$PFSHIM" run -e page-faults,task-clock -- ./bad-interp
	[[ "$output" == *"pfshim run: ./bad-interp: No such file or directory"* ]]
	# The descriptors left open for the exec (F_SETFD 0) are closed after it failed.
	local child fds
	child=$(awk '/execve\(".\/bad-interp"/ { print $1; exit }' trace)
	grep -q "^$child  *execve(\"./bad-interp\".*ENOENT" trace
	fds=$(awk -v p="$child" '$1 == p && /F_SETFD, 0\)/ { sub(/.*fcntl\(/, ""); sub(/,.*/, ""); print }' trace)
	echo "child $child handed: $fds"
	[ "$(wc -w <<<"$fds")" -eq 2 ]
	for fd in $fds; do
		awk -v p="$child" -v fd="$fd" '$1 == p && /execve/ { after = 1 }
			after && $1 == p && index($0, "close(" fd ")") { found = 1 } END { exit !found }' trace
	done
}

@test "exec failure under PFSHIM_HANDOVER=1: the image goes on with no descriptor more" {
	command -v cc >/dev/null || skip "no C compiler"
	echo 'int main(void) { return 0; }' >bad.c
	cc -o bad-interp -Wl,--dynamic-linker=/nonexistent/ld.so bad.c
	run -0 --separate-stderr shim bash -c 'ls /proc/$$/fd >fds.txt; wc -l <fds.txt'
	local before=$output
	: >"$REPORTS"
	run -0 --separate-stderr shim env PFSHIM_HANDOVER=1 bash -c 'shopt -s execfail; exec ./bad-interp; ls /proc/$$/fd >fds.txt; wc -l <fds.txt'
	echo "before: $before; after the failed exec: ${lines[-1]}"
	[ "${lines[-1]}" = "$before" ]
}

@test "no hand-over to an image whose own settings will not adopt (PFSHIM_DISABLE=yes, an interval, other events)" {
	# exec_forking count prints what it holds of perf events without
	# close-on-exec: a hand-over nothing adopted. The exec's environment is
	# read as its shim will read it: any PFSHIM_DISABLE but 0 is off.
	for setting in PFSHIM_DISABLE=yes PFSHIM_DISABLE=1 PFSHIM_INTERVAL=1s PFSHIM_EVENTS=task-clock \
		PFSHIM_SYSFS_ROOT=/nonexistent; do
		run -0 --separate-stderr shim PFSHIM_HANDOVER=1 PFSHIM_EVENTS=page-faults \
			sh -c "$setting exec '$PROGS/exec_forking' count"
		echo "$setting: '$output'"
		[ "$output" = "" ]
		run -0 --separate-stderr sh -c "$setting exec '$PROGS/exec_forking' count"
		[ "$output" = "" ] && [ "$stderr" = "" ]
	done
	# A setting the next shim cannot parse and so leaves off (an interval
	# of "soon"): it adopts, and counts from its exec.
	run_faults a env PFSHIM_HANDOVER=1 sh -c 'PFSHIM_INTERVAL=soon exec true'
	run_faults b env sh -c 'PFSHIM_INTERVAL=soon exec true'
	counted_from_exec b a
}

@test "a thread that forks or spawns while another execs: no child holds a handed descriptor (200 runs each)" {
	# The window between the opening and the exec: a child made in it
	# copies what the process holds. The hand-over is made only by a
	# process's only thread. Before: 1-3 runs in 200 with fork, 3-6 with
	# posix_spawn left them in a child.
	local out leaks
	for how in fork spawn; do
		leaks=0
		for _ in $(seq 200); do
			out=$(timeout 20 env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=/dev/null PFSHIM_HANDOVER=1 \
				"$PROGS/exec_forking" "$how" "$PROGS/exec_forking" count)
			[ -z "$out" ] || leaks=$((leaks + 1))
		done
		echo "$how: $leaks of 200 runs left perf descriptors in a child or the image"
		[ "$leaks" -eq 0 ]
		# Without the shim: the same, nothing at all.
		out=$(timeout 20 "$PROGS/exec_forking" "$how" "$PROGS/exec_forking" count)
		[ -z "$out" ]
	done
}

# forged HOW: touch_pages 3000 exec'd by `forge_adopt HOW` (a PFSHIM_ADOPT
# naming its forged event as page-faults) under the shim, then without it
# (exit 0, nothing said). The report counts touch_pages' own 3000 pages.
# $stderr is left as the shim's run said it.
forged() {
	local said own
	run --separate-stderr shim PFSHIM_EVENTS=page-faults "$PROGS/forge_adopt" "$1" \
		"$PROGS/touch_pages" 3000
	[ "$status" -ne 77 ] || skip "the kernel opens no $1 event here"
	[ "$status" -eq 0 ]
	said=$stderr
	own=$(value page-faults '.program == "touch_pages"')
	echo "touch_pages 3000 after forge_adopt $1: $own page-faults"
	between 3000 "$own" 3100
	run -0 --separate-stderr "$PROGS/forge_adopt" "$1" "$PROGS/touch_pages" 3000
	[ "$stderr" = "" ]
	stderr=$said
}

# fd50 HOW [shim]: what descriptor 50, the forged event, is in the program
# forge_adopt HOW execs, with the shim or without it.
fd50() {
	local how=$1
	shift
	"$@" "$PROGS/forge_adopt" "$how" sh -c 'readlink /proc/$$/fd/50 || echo closed' 2>/dev/null
}

@test "a forged PFSHIM_ADOPT naming another process's events is refused: one line, the program's own count" {
	# forge_adopt opens page-faults of its child, lets it fault 5000 pages,
	# and execs touch_pages with PFSHIM_ADOPT naming that event, its ID, our
	# pid and the events' hash all right. Before: adopted, touch_pages 5035.
	forged other
	[ "$stderr" = "pfshim: PFSHIM_ADOPT: names no counters handed to this process; its descriptors are left alone, and counting starts with the shim" ]
	# The descriptor is the program's: left open, as without the shim.
	[ "$(fd50 other shim PFSHIM_EVENTS=page-faults)" = "anon_inode:[perf_event]" ]
	[ "$(fd50 other)" = "anon_inode:[perf_event]" ]
}

@test "a forged PFSHIM_ADOPT naming our own breakpoint as page-faults: another type, closed; the program's own count" {
	# Opened for this process as the shim opens its groups, so it proves to
	# be handed to it, but of another type than page-faults. Before:
	# adopted, touch_pages 0.
	forged breakpoint
	[ "$stderr" = "" ]
	[ "$(fd50 breakpoint shim PFSHIM_EVENTS=page-faults)" = closed ]
	[ "$(fd50 breakpoint)" = "anon_inode:[perf_event]" ]
}
