#!/bin/sh
# SPDX-License-Identifier: MIT
# run.sh KERNEL INITRD CPU LOG [WORD...]: boot the arm64 guest once under
# QEMU's emulated PMU, save its console to LOG, and pass or fail on /init's
# summary line. WORDs are added to the kernel command line (they reach /init's
# environment, e.g. pfshim_only=probe). V=1 prints the whole console.
set -eu
kernel=$1 initrd=$2 cpu=$3 log=$4
shift 4
limit=${ARM64_TIMEOUT:-300}

# -icount shift=0: the instructions event exists only with a fixed icount,
# and it makes every run retire the same instructions (exact counts).
# pauth-impdef=on: the default pointer-authentication emulation makes boot
# ~3.5x and syscalls ~7x slower. -nic none: otherwise QEMU wants
# efi-virtio.rom from a package we do not install.
case $cpu in
max) cpu_opt=max,pauth-impdef=on ;;
*) cpu_opt=$cpu ;;
esac

raw=$(mktemp "$log.XXXXXX")
echo "arm64: booting -cpu $cpu_opt (console in $log)"
start=$(date +%s)
rc=0
timeout "$limit" qemu-system-aarch64 -M virt -cpu "$cpu_opt" -m 512 -smp 1 \
	-nographic -no-reboot -nic none -icount shift=0 \
	-kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyAMA0 panic=-1 quiet pfshim_cpu=$cpu $*" \
	</dev/null >"$raw" 2>&1 || rc=$?
# Written whole and renamed: someone else running the harness in the same
# checkout must never see half a log.
tr -d '\r' <"$raw" >"$raw.txt" && mv "$raw.txt" "$log" && rm -f "$raw"
secs=$(($(date +%s) - start))

log_tail() {
	echo "---- last 40 lines of $log" >&2
	tail -n 40 "$log" >&2
	echo "----" >&2
}

if [ "${V:-0}" = 1 ]; then
	cat "$log"
else
	grep -E '^(ARM64-(TEST|BENCH|WARN|BOOT|KNOWN)|  FAIL)' "$log" || true
fi
# A failed test's own lines, so that the reason is on the terminal.
for name in $(sed -n 's/^ARM64-TEST \([^ ]*\) FAIL.*/\1/p' "$log"); do
	echo "---- output of $name ($cpu)"
	sed -n "/^ARM64-START $name\$/,/^ARM64-TEST $name /p" "$log"
done

if [ "$rc" -eq 124 ]; then
	echo "arm64: FAIL: the guest did not power off within ${limit}s (-cpu $cpu)" >&2
	log_tail
	exit 1
fi
summary=$(grep '^ARM64-SUMMARY' "$log" | tail -n 1)
if [ -z "$summary" ]; then
	echo "arm64: FAIL: no ARM64-SUMMARY line (QEMU exit $rc): the guest crashed or /init died" >&2
	log_tail
	exit 1
fi
failed=$(echo "$summary" | sed -n 's/.* failed=\([0-9]*\).*/\1/p')
passed=$(echo "$summary" | sed -n 's/.* passed=\([0-9]*\).*/\1/p')
echo "arm64: $summary (${secs}s)"
if [ "$failed" != 0 ] || [ "$passed" = 0 ]; then
	echo "arm64: FAIL on -cpu $cpu: $failed failed, $passed passed; console in $log" >&2
	exit 1
fi
