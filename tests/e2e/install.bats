#!/usr/bin/env bats
# make install: the library, the header and a pkg-config file a build can find.

load helpers

@test "make install DESTDIR=... PREFIX=... installs what a user builds against" {
	dest="$BATS_TEST_TMPDIR/dest"
	make -s -C "$ROOT" install DESTDIR="$dest" PREFIX=/opt/pfshim >/dev/null
	[ -x "$dest/opt/pfshim/lib/libpfshim.so" ]
	[ -f "$dest/opt/pfshim/lib/libfastread.a" ]
	[ -f "$dest/opt/pfshim/include/pfshim.h" ]
	pc="$dest/opt/pfshim/lib/pkgconfig/pfshim.pc"
	grep -qx 'prefix=/opt/pfshim' "$pc"
	cflags=$(PKG_CONFIG_PATH="$(dirname "$pc")" pkg-config --cflags pfshim)
	[ "${cflags% }" = "-I/opt/pfshim/include" ]
}

@test "a program built against the installed header runs with and without the shim" {
	dest="$BATS_TEST_TMPDIR/dest"
	make -s -C "$ROOT" install DESTDIR="$dest" PREFIX=/usr >/dev/null
	printf '#include <pfshim.h>\n#include <stdio.h>\nint main(void) { printf("%%d\\n", pfshim_active()); return 0; }\n' \
		>"$BATS_TEST_TMPDIR/p.c"
	cc -I"$dest/usr/include" -o "$BATS_TEST_TMPDIR/p" "$BATS_TEST_TMPDIR/p.c"
	run "$BATS_TEST_TMPDIR/p"
	[ "$output" = 0 ]
	run env LD_PRELOAD="$dest/usr/lib/libpfshim.so" PFSHIM_OUTPUT=/dev/null "$BATS_TEST_TMPDIR/p"
	[ "$output" = 1 ]
}

@test "make install installs the pfshim command, and it finds the installed shim" {
	dest="$BATS_TEST_TMPDIR/dest"
	make -s -C "$ROOT" install DESTDIR="$dest" PREFIX=/opt/pfshim >/dev/null
	[ -x "$dest/opt/pfshim/bin/pfshim" ]
	run -0 "$dest/opt/pfshim/bin/pfshim" run -o "$BATS_TEST_TMPDIR/r" -- /bin/true
	[[ "$output" == *"(1 processes, 1 reports, 1 programs)"* ]]
	jq -e '.program == "true"' "$BATS_TEST_TMPDIR"/r/*.json
}
