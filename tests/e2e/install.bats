#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# make install: the library, the header and a pkg-config file a build can find.

load helpers

@test "make install DESTDIR=... PREFIX=... installs what a user builds against" {
	dest="$BATS_TEST_TMPDIR/dest"
	make -s -C "$ROOT" install DESTDIR="$dest" PREFIX=/opt/pfshim >/dev/null
	# the shim under its SONAME, libpfshim.so the link a build finds
	[ "$(readlink "$dest/opt/pfshim/lib/libpfshim.so")" = libpfshim.so.1 ]
	readelf -d "$dest/opt/pfshim/lib/libpfshim.so.1" | grep -q 'Library soname: \[libpfshim.so.1\]'
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

@test "make install: fastread alone, built against the installed header and archive with pkg-config" {
	skip_under_sanitizer "the installed libfastread.a is the instrumented build: a plain cc cannot link it"
	dest="$BATS_TEST_TMPDIR/dest"
	make -s -C "$ROOT" install DESTDIR="$dest" PREFIX=/opt/fr >/dev/null
	[ -f "$dest/opt/fr/include/fastread/fastread.h" ]
	pc="$dest/opt/fr/lib/pkgconfig/fastread.pc"
	grep -qx 'prefix=/opt/fr' "$pc"
	# The .pc names /opt/fr; the staged copy is under $dest, which pkg-config's sysroot adds.
	export PKG_CONFIG_PATH="$(dirname "$pc")" PKG_CONFIG_SYSROOT_DIR="$dest"
	[ "$(pkg-config --cflags fastread | tr -d ' ')" = "-I$dest/opt/fr/include" ]
	# A thread's page-faults around 64 fresh pages, through the installed copy only:
	# the library call before, the inlined read (fastread/inline.h) after.
	cat >"$BATS_TEST_TMPDIR/fr.c" <<'C'
#include <fastread/fastread.h>
#include <fastread/inline.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

int main(void)
{
	struct perf_event_attr a;
	struct fastread_group g;
	struct fastread_count before[1];
	uint64_t after[3];
	char *p = mmap(NULL, 64 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.exclude_kernel = a.exclude_hv = 1;
	if (p == MAP_FAILED || fastread_group_open(&g, &a, 1) != 0 ||
	    fastread_group_read(&g, before) != 0)
		return 1;
	for (int i = 0; i < 64; i++)
		((volatile char *)p)[i * 4096] = 1;
	if (fastread_group_read_inline(&g, after) != 0)
		return 1;
	printf("%llu\n", (unsigned long long)(after[0] - before[0].value));
	fastread_group_close(&g);
	return 0;
}
C
	cc $(pkg-config --cflags fastread) -o "$BATS_TEST_TMPDIR/fr" "$BATS_TEST_TMPDIR/fr.c" \
		$(pkg-config --libs fastread)
	# Nothing of the build tree: no path into it, no libpfshim.
	! grep -q "$ROOT" <(pkg-config --cflags --libs fastread) || false
	! ldd "$BATS_TEST_TMPDIR/fr" | grep -q pfshim || false
	run "$BATS_TEST_TMPDIR/fr"
	[ "$status" -eq 0 ]
	[ "$output" -ge 64 ]
	[ "$output" -lt 128 ]
}

@test "make uninstall removes what make install wrote" {
	dest="$BATS_TEST_TMPDIR/dest"
	make -s -C "$ROOT" install DESTDIR="$dest" PREFIX=/opt/x >/dev/null
	make -s -C "$ROOT" uninstall DESTDIR="$dest" PREFIX=/opt/x >/dev/null
	[ -z "$(find "$dest" -type f)" ]
}

@test "make help lists every target a person types, the fragments' included" {
	run make -s -C "$ROOT" help
	[ "$status" -eq 0 ]
	targets=$(sed -n 's/^\.PHONY: *//p' "$ROOT/Makefile" "$ROOT"/tests/*/*.mk "$ROOT"/compat/*.mk | tr ' ' '\n' |
		grep -v '\$\|^[A-Z_0-9]*$')
	[ -n "$targets" ]
	for t in $targets; do
		grep -q "make $t\b" <<<"$output" || { echo "make help does not name $t"; false; }
	done
}

@test "make install installs the pfshim command, and it finds the installed shim" {
	dest="$BATS_TEST_TMPDIR/dest"
	make -s -C "$ROOT" install DESTDIR="$dest" PREFIX=/opt/pfshim >/dev/null
	[ -x "$dest/opt/pfshim/bin/pfshim" ]
	# its manual, which man renders without a warning
	man_page="$dest/opt/pfshim/share/man/man1/pfshim.1"
	[ -f "$man_page" ]
	if command -v man >/dev/null; then
		run -0 --separate-stderr env MANWIDTH=80 man --warnings -l "$man_page"
		[ -z "$stderr" ]
		[[ "$output" == *"only its last report counts"* ]]
	fi
	run -0 "$dest/opt/pfshim/bin/pfshim" run -o "$BATS_TEST_TMPDIR/r" -- /bin/true
	[[ "$output" == *"(1 process counted by the kernel; 1 process, 1 image, 1 report, 1 program)"* ]]
	jq -e '.program == "true"' "$BATS_TEST_TMPDIR"/r/*.json
}

# fastread/inline.h copies the read into the program: its headers must compile
# wherever a user's compiler is strict. Both compilers of Debian 12, C11 with
# -Wpedantic -Werror (clang 14 refused a label followed by a declaration, which
# GCC takes), optimized and not (GCC at -O0 ignores an unroll pragma on a loop
# whose condition is not a plain bound, and says so); the arm64 code of the
# same headers is GCC's in the arm64 harness.
@test "make install: the installed fastread/inline.h compiles under gcc and clang, -O0 and -O2, -Wpedantic -Werror" {
	dest="$BATS_TEST_TMPDIR/dest"
	make -s -C "$ROOT" install DESTDIR="$dest" PREFIX=/usr >/dev/null
	printf '%s\n' '#include <fastread/inline.h>' \
		'int f(struct fastread_group *g, uint64_t *s) { return fastread_group_read_inline(g, s); }' \
		>"$BATS_TEST_TMPDIR/i.c"
	flags="-std=c11 -D_GNU_SOURCE -Wall -Wextra -Wpedantic -Werror -I$dest/usr/include"
	for compiler in gcc clang; do
		for opt in -O0 -O2; do
			"$compiler" $flags $opt -c -o "$BATS_TEST_TMPDIR/i-$compiler.o" "$BATS_TEST_TMPDIR/i.c"
			# The read is really in the caller's object: its counter instruction.
			objdump -d "$BATS_TEST_TMPDIR/i-$compiler.o" | grep -q rdpmc
		done
	done
}

# A Debian package's layout: the libraries in the multiarch directory. The
# staged copy's pfshim finds the shim staged with it (LIBDIR as seen from
# bin/), never the build tree's.
@test "make install LIBDIR=multiarch: pfshim run of the staged copy preloads the shim staged with it" {
	dest="$BATS_TEST_TMPDIR/dest"
	make -s -C "$ROOT" install DESTDIR="$dest" PREFIX=/usr LIBDIR=/usr/lib/x86_64-linux-gnu >/dev/null
	lib="$dest/usr/lib/x86_64-linux-gnu"
	[ "$(readlink "$lib/libpfshim.so")" = libpfshim.so.1 ]
	[ "$(readlink "$lib/libpfshim-compat.so")" = libpfshim-compat.so.1 ]
	readelf -d "$lib/libpfshim-compat.so.1" | grep -q 'Library soname: \[libpfshim-compat.so.1\]'
	[ ! -e "$dest/usr/lib/libpfshim.so" ]
	run -0 --separate-stderr "$dest/usr/bin/pfshim" run -o "$BATS_TEST_TMPDIR/r" -- \
		sh -c 'echo "LD_PRELOAD=$LD_PRELOAD"'
	[ "$output" = "LD_PRELOAD=$lib/libpfshim.so.1" ]
	[ "$(jq -r .program "$BATS_TEST_TMPDIR"/r/*.json)" = "$(sh_name)" ]
}

# LIBDIR outside PREFIX, really installed (no DESTDIR): nothing relative to
# bin/ finds it, the LIBDIR compiled into pfshim does.
@test "make install: pfshim run finds the shim at the LIBDIR it was built for" {
	prefix="$BATS_TEST_TMPDIR/prefix" libdir="$BATS_TEST_TMPDIR/elsewhere/lib64"
	make -s -C "$ROOT" install PREFIX="$prefix" LIBDIR="$libdir" >/dev/null
	# no library under PREFIX/lib (only the Python module, under PREFIX/lib/python3.X)
	[ -z "$(find "$prefix/lib" -name '*.so*' -o -name '*.a' -o -name '*.pc' 2>/dev/null)" ]
	run -0 --separate-stderr "$prefix/bin/pfshim" run -o "$BATS_TEST_TMPDIR/r" -- \
		sh -c 'echo "LD_PRELOAD=$LD_PRELOAD"'
	[ "$output" = "LD_PRELOAD=$libdir/libpfshim.so.1" ]
	# and the library it was built for once moved away: said, exit status 2
	mv "$libdir" "$libdir.gone"
	run -2 --separate-stderr "$prefix/bin/pfshim" run -o "$BATS_TEST_TMPDIR/r2" -- /bin/true
	[ "$stderr" = "pfshim run: libpfshim.so.1 is neither beside this program, nor in ../lib from it, nor in $libdir" ]
	mv "$libdir.gone" "$libdir"
	make -s -C "$ROOT" uninstall PREFIX="$prefix" LIBDIR="$libdir" >/dev/null
	[ -z "$(find "$prefix" "$libdir" -type f -o -type l)" ]
}

@test "pfshim --version prints VERSION, the version every report names" {
	run -0 "$BUILD/pfshim" --version
	[ "$output" = "pfshim $(cat "$ROOT/VERSION")" ]
	run -0 "$BUILD/pfshim" -V
	[ "$output" = "pfshim $(cat "$ROOT/VERSION")" ]
	for c in run report list; do
		run -0 "$BUILD/pfshim" "$c" --version
		[ "$output" = "pfshim $(cat "$ROOT/VERSION")" ]
	done
}

@test "make install: the .pc files' variables, the docs, the licence and both manuals" {
	dest="$BATS_TEST_TMPDIR/dest"
	make -s -C "$ROOT" install DESTDIR="$dest" PREFIX=/usr LIBDIR=/usr/lib/x86_64-linux-gnu >/dev/null
	export PKG_CONFIG_PATH="$dest/usr/lib/x86_64-linux-gnu/pkgconfig" PKG_CONFIG_SYSROOT_DIR=
	[ "$(pkg-config --variable=preload pfshim)" = /usr/lib/x86_64-linux-gnu/libpfshim.so.1 ]
	[ "$(pkg-config --variable=fmoddir pfshim)" = /usr/include/pfshim ]
	[ "$(pkg-config --modversion pfshim)" = "$(cat "$ROOT/VERSION")" ]
	[ "$(pkg-config --variable=preload pfshim-compat)" = /usr/lib/x86_64-linux-gnu/libpfshim-compat.so.1 ]
	[ "$(pkg-config --libs pfshim-compat | tr -s ' ' | sed 's/ $//')" = \
		"-l:libpfshim-compat.a -lpthread" ]	# pkg-config drops the system -L
	if command -v gfortran >/dev/null; then
		[ "$(pkg-config --cflags --libs pfshim-fortran | tr -s ' ' | sed 's/ $//')" = \
			"-I/usr/include/pfshim -lpfshim_fortran" ]
		[ -f "$dest/usr/include/pfshim/pfshim.mod" ]
	fi
	doc="$dest/usr/share/doc/pfshim"
	cmp "$ROOT/LICENSE" "$doc/LICENSE"
	for f in "$ROOT"/docs/*.md README.md; do cmp "$ROOT/${f#"$ROOT"/}" "$doc/$(basename "$f")"; done
	command -v man >/dev/null || skip "man (man-db) is not installed"
	run -0 --separate-stderr env MANWIDTH=80 man --warnings -l "$dest/usr/share/man/man7/libpfshim.7"
	[ -z "$stderr" ]
	# every variable the shim reads (config.h's list, the test harness's apart) is in
	# libpfshim(7), with its default
	vars=$(sed -n '/^#define CONFIG_VARIABLES/,/^$/p' "$ROOT/preload/config.h" |
		grep -oE '"PFSHIM_[A-Z_]+"' | tr -d '"' | sort -u)
	[ "$(wc -l <<<"$vars")" -ge 12 ]
	for v in $vars; do
		awk -v v="$v" '$0 ~ "^       "v"$" { on = 1; next } on && /^       [A-Z]/ { exit } on && /Default/ { found = 1 } END { exit !found }' \
			<<<"$output" || { echo "libpfshim(7) lacks $v or its default"; false; }
	done
	run -0 --separate-stderr env MANWIDTH=80 man --warnings -l "$dest/usr/share/man/man1/pfshim.1"
	[ -z "$stderr" ]
	[[ "$output" == *"pfshim --version"* ]]
	[[ "$output" == *"libpfshim(7)"* ]]
}
