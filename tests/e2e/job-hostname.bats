#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# job-hostname.bats: a job whose processes change their host name (a new
# UTS namespace: unshare -u, a container the job starts). Such a process
# writes a file of its own (the spool is the runner's host's), named and
# labelled with the host name it has; `pfshim run` still matches each
# process of the job to its rows, counts it once, and names none as having
# left no report. A process knows its machine by its boot (boot_id): an
# image under the runner's host name takes the runner's, said by pfshim run
# in PFSHIM_RUN_MACHINE; an image of another name reads its own.

load helpers

setup() {
	need_perf
	OUT="$BATS_TEST_TMPDIR/out"
	# root makes a UTS namespace itself; another user would need a user namespace of its own,
	# where / and /tmp belong to the overflow user: reports there are refused (docs/usage.md)
	[ "$(id -u)" -eq 0 ] || skip "needs root: a user's own user namespace has its reports refused (/ belongs to nobody there)"
	UNSHARE="unshare -u"
}

# job SCRIPT: pfshim run of sh -c SCRIPT in a new UTS namespace, into $OUT; its summary in $stderr.
job() {
	need_unshare ${UNSHARE#unshare }
	run -0 --separate-stderr timeout 60 "$BUILD/pfshim" run -e page-faults -o "$OUT" -- \
		$UNSHARE sh -c "$1"
	echo "$stderr"
	[[ "$stderr" != *"no report"* ]]
}

# counts: pfshim report on $OUT as "processes images job.processes unreported".
counts() {
	"$BUILD/pfshim" report --json "$OUT" |
		jq -r '"\(.processes) \(.images) \(.job.processes) \(.job.unreported | length)"'
}

@test "a job in a new UTS namespace, its host name changed: every process matched to its rows, none said to have no report" {
	skip_under_sanitizer "pfshim run preloads the shim beside it without the sanitizer runtime before it"
	job 'hostname pfshim-other; /bin/true; /bin/true'
	# unshare then sh in one process (its exec report under this host, its exit under the new
	# name), hostname, true twice: 4 processes, each in a row
	[[ "$stderr" == *"(4 processes counted by the kernel; 4 processes, 5 images, 5 reports, 4 programs)"* ]]
	# the spool's rule kept: the renamed processes wrote files of their own, under their name
	[ "$(find "$OUT" -maxdepth 1 -name 'pfshim-other.*.json' | wc -l)" -eq 4 ]
	[ "$(counts)" = "4 5 4 0" ]
	run -0 --separate-stderr "$BUILD/pfshim" report --json "$OUT"
	[ "$(jq -r '[.groups[] | "\(.group):\(.images)"] | sort | join(" ")' <<<"$output")" = \
		"$(sh_name):1 hostname:1 true:2 unshare:1" ]
	# one process in the tree: unshare's image, then sh's under the new name, its children below
	run -0 --separate-stderr "$BUILD/pfshim" report --tree "$OUT"
	[ "$(sed -n '/process tree/,$p' <<<"$output" | awk 'NF' | tail -n +2 |
		sed -E 's/:[0-9]+ / /; s/ \[.*//' | tr '\n' '|')" = \
		" $(uname -n) unshare| > pfshim-other $(sh_name)|   pfshim-other hostname|   pfshim-other true|   pfshim-other true|" ]
}

@test "a job in a new UTS namespace, its host name kept: the same, from the spool" {
	skip_under_sanitizer "pfshim run preloads the shim beside it without the sanitizer runtime before it"
	job '/bin/true; /bin/true'
	[[ "$stderr" == *"(3 processes counted by the kernel; 3 processes, 4 images, 4 reports, 3 programs)"* ]]
	[ "$(counts)" = "3 4 3 0" ]
}

@test "the job's images under the runner's host name take its boot_id from pfshim run: none reads it, each report says the runner's" {
	skip_under_sanitizer "pfshim run preloads the shim beside it without the sanitizer runtime before it"
	command -v strace >/dev/null || skip "no strace"
	local boot
	boot=$(cat /proc/sys/kernel/random/boot_id)
	run -0 --separate-stderr strace -f -qq -e trace=openat -o "$BATS_TEST_TMPDIR/st" \
		"$BUILD/pfshim" run -e page-faults -o "$OUT" -- sh -c '/bin/true; /bin/true'
	# the runner reads it (its ledger's, what it says its job, its calibration's cache key, once
	# or twice as the cache held one); no image of the job does
	[ "$(grep -c 'boot_id"' "$BATS_TEST_TMPDIR/st")" -ge 2 ]
	[ "$(awk '/boot_id"/ { print $1 }' "$BATS_TEST_TMPDIR/st" | sort -u | wc -l)" -eq 1 ]
	[ "$(jq -r .boot_id "$OUT"/*.json | sort | uniq -c | awk '{ print $1, $2 }')" = "3 $boot" ]
}

# machine_image VALUE: /bin/true of a job under PFSHIM_RUN_MACHINE=VALUE, its report into
# $OUT; prints how many times it opened boot_id, then its report's boot_id.
machine_image() {
	rm -rf "$OUT"
	mkdir "$OUT"
	strace -qq -e trace=openat -o "$BATS_TEST_TMPDIR/st" env PFSHIM_RUN=1 \
		PFSHIM_RUN_MACHINE="$1" LD_PRELOAD="$SHIM" PFSHIM_EVENTS=page-faults \
		PFSHIM_OUTPUT="$OUT/" /bin/true
	echo "$(grep -c 'boot_id"' "$BATS_TEST_TMPDIR/st") $(jq -r .boot_id "$OUT"/*.json)"
}

@test "PFSHIM_RUN_MACHINE of another host, or not a boot id: the image reads its own boot_id" {
	command -v strace >/dev/null || skip "no strace"
	local boot value
	boot=$(cat /proc/sys/kernel/random/boot_id)
	for value in "$boot not-$(uname -n)" "not-a-boot-id-at-all-not-a-boot-id-x $(uname -n)" \
		"${boot:0:35} $(uname -n)" "$boot"; do
		[ "$(machine_image "$value")" = "1 $boot" ]
	done
	# the runner's own value under this host name: taken, not read
	[ "$(machine_image "$boot $(uname -n)")" = "0 $boot" ]
}
