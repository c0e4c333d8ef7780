#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# layout.bats: the dependencies of the code point one way (docs/design.md,
# "How the layout is measured"): the shim's units by its layers, and the
# pfshim command's (the reader and the views apart, the model without JSON).

load helpers

setup() { :; }

@test "the shim's units: no dependency pointing up, no cycle, every unit placed" {
	[ -d "$BUILD/obj/preload" ] || skip "no objects in $BUILD/obj (make builds them)"
	cd "$ROOT"
	run python3 tests/tools/deps.py "$BUILD"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"pointing up 0, cycles 0"* ]]
}

@test "the pfshim command's units: commands, run/, read/ and view/ apart, model/ without jansson" {
	cd "$ROOT"
	run python3 tests/tools/deps.py --tool
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"pointing up 0, cycles 0"* ]]
}

@test "deps.py --tool fails on a model that includes a view and jansson" {
	work="$BATS_TEST_TMPDIR/tree"
	mkdir -p "$work/tools/pfshim"
	cp -r "$ROOT/tools/pfshim/." "$work/tools/pfshim/"
	printf '#include "tools/pfshim/view/view.h"\n#include <jansson.h>\n' >"$work/tools/pfshim/model/bad.h"
	cd "$work"
	run python3 "$ROOT/tests/tools/deps.py" --tool
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"up:    tools/pfshim/model/ -> <jansson.h>"* ]]
	[[ "$output" == *"up:    tools/pfshim/model/ -> tools/pfshim/view/"* ]]
}
