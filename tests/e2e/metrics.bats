#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# metrics.bats: derived metrics' formulas, read from the group files of
# Debian's likwid package as pfshim reads them, against an independent
# reading in Python (tests/tools/likwid_groups.py).

load helpers

GROUPS_DIR=/usr/share/likwid/perfgroups

@test "every LIKWID group file parses, each metric equal to an independent evaluation to the last bit" {
	[ -d "$GROUPS_DIR" ] || skip "no LIKWID group files ($GROUPS_DIR): Debian's likwid package is not installed"
	run timeout 60 python3 "$BATS_TEST_DIRNAME/../tools/likwid_groups.py" \
		"$BUILD/tests/likwid_group_eval" "$GROUPS_DIR"
	echo "$output"
	[ "$status" -eq 0 ]
	# Debian 12's likwid 5.2: 717 groups with metrics; a newer one may ship more.
	[[ "$output" =~ ^([0-9]+)\ group\ files,\ ([0-9]+)\ metrics ]]
	[ "${BASH_REMATCH[1]}" -ge 700 ]
	[[ "$output" == *": 0 files differ" ]]
}

@test "the independent reading notices a wrong value" {
	[ -d "$GROUPS_DIR" ] || skip "no LIKWID group files ($GROUPS_DIR): Debian's likwid package is not installed"
	# An evaluator that prints every value one ulp off must fail the check.
	fake="$BATS_TEST_TMPDIR/eval"
	cat >"$fake" <<-SH
	#!/bin/sh
	"$BUILD/tests/likwid_group_eval" "\$@" | awk -F'\t' -v OFS='\t' '\$4 ~ /^[0-9]/ { \$4 = \$4 * 1.0000001 } 1'
	SH
	chmod +x "$fake"
	run timeout 60 python3 "$BATS_TEST_DIRNAME/../tools/likwid_groups.py" "$fake" "$GROUPS_DIR"
	[ "$status" -eq 1 ]
	[[ "$output" == *"differs:"* ]]
}
