#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Building against an installed pfshim as users do: CMake's find_package(pfshim)
# and its imported targets, Meson's dependency('pfshim'), a plain Makefile with
# pkg-config; C, C++ and Fortran. Each program runs under the installed shim
# (the path the build system gave), and its report has the regions it marked.

load helpers

setup_file() {
	# A real install (no DESTDIR) into a multiarch LIBDIR: the paths the
	# CMake and pkg-config files compute are the ones that exist.
	export PREFIX_DIR="$BATS_FILE_TMPDIR/prefix"
	export LIB_DIR="$PREFIX_DIR/lib/x86_64-linux-gnu"
	make -s -C "$ROOT" install PREFIX="$PREFIX_DIR" LIBDIR="$LIB_DIR" >/dev/null
}

need() {
	for c in "$@"; do
		command -v "$c" >/dev/null || skip "$c is not installed (tests/deps.sh cmake meson ninja-build gfortran g++)"
	done
}

@test "CMake: find_package(pfshim) gives pfshim::markers, pfshim::fastread and PFSHIM_PRELOAD_LIBRARY" {
	skip_under_sanitizer "the installed libfastread.a is the instrumented build: a plain cc cannot link it"
	need cmake cc
	src="$BATS_TEST_TMPDIR/src"
	mkdir -p "$src"
	cp "$ROOT"/tests/fixtures/cmake-app/* "$src"/
	timeout 120 cmake -S "$src" -B "$BATS_TEST_TMPDIR/b" -DCMAKE_PREFIX_PATH="$PREFIX_DIR" >/dev/null
	timeout 120 cmake --build "$BATS_TEST_TMPDIR/b" >/dev/null
	[ "$(cat "$BATS_TEST_TMPDIR/b/preload")" = "$LIB_DIR/libpfshim.so.1" ]
	[ "$(cat "$BATS_TEST_TMPDIR/b/version")" = "$(cat "$ROOT/VERSION")" ]
	run -0 "$BATS_TEST_TMPDIR/b/app"
	[ "$output" = "active 0" ]
	run -0 --separate-stderr env LD_PRELOAD="$(cat "$BATS_TEST_TMPDIR/b/preload")" PFSHIM_FORMAT=json \
		PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/r.jsonl" PFSHIM_EVENTS=task-clock "$BATS_TEST_TMPDIR/b/app"
	[ "$output" = "active 1" ]
	[ "$(exit_regions "$BATS_TEST_TMPDIR/r.jsonl")" = "solve:3 " ]
	# a version newer than the installed one is refused
	sed -i 's/find_package(pfshim 0.1 REQUIRED)/find_package(pfshim 9.0 REQUIRED)/' "$src/CMakeLists.txt"
	run ! timeout 120 cmake -S "$src" -B "$BATS_TEST_TMPDIR/b9" -DCMAKE_PREFIX_PATH="$PREFIX_DIR"
}

@test "CMake: pfshim::fortran (the module and libpfshim_fortran.a) and pfshim::compat" {
	need cmake gfortran cc
	src="$BATS_TEST_TMPDIR/src"
	mkdir -p "$src"
	cat >"$src/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.13)
project(app C Fortran)
find_package(pfshim REQUIRED COMPONENTS fortran compat)
add_executable(fapp fapp.f90)
target_link_libraries(fapp PRIVATE pfshim::fortran)
add_executable(lapp lapp.c)
target_compile_definitions(lapp PRIVATE LIKWID_PERFMON)
target_link_libraries(lapp PRIVATE pfshim::compat)
CMAKE
	cat >"$src/fapp.f90" <<'F'
program fapp
  use pfshim
  implicit none
  integer :: i, rc
  do i = 1, 4
    rc = pfshim_region_begin('fsolve')
    rc = pfshim_region_end('fsolve')
  end do
end program fapp
F
	cat >"$src/lapp.c" <<'C'
#include <likwid-marker.h>

int main(void)
{
	LIKWID_MARKER_INIT;
	for (int i = 0; i < 2; i++) {
		LIKWID_MARKER_START("lsolve");
		LIKWID_MARKER_STOP("lsolve");
	}
	LIKWID_MARKER_CLOSE;
	return 0;
}
C
	timeout 120 cmake -S "$src" -B "$BATS_TEST_TMPDIR/b" -DCMAKE_PREFIX_PATH="$PREFIX_DIR" >/dev/null
	timeout 120 cmake --build "$BATS_TEST_TMPDIR/b" >/dev/null
	for p in fapp lapp; do
		run -0 env LD_PRELOAD="$LIB_DIR/libpfshim.so.1" PFSHIM_FORMAT=json \
			PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/$p.jsonl" PFSHIM_EVENTS=task-clock "$BATS_TEST_TMPDIR/b/$p"
	done
	[ "$(exit_regions "$BATS_TEST_TMPDIR/fapp.jsonl")" = "fsolve:4 " ]
	[ "$(exit_regions "$BATS_TEST_TMPDIR/lapp.jsonl")" = "lsolve:2 " ]
	# without the shim: no dependency on it, and the markers are no-ops
	! ldd "$BATS_TEST_TMPDIR/b/fapp" | grep -q pfshim || false
	run -0 "$BATS_TEST_TMPDIR/b/lapp"
}

@test "Meson: a C++ program with dependency('pfshim') and its preload variable" {
	need meson ninja c++
	src="$BATS_TEST_TMPDIR/src"
	mkdir -p "$src"
	cat >"$src/meson.build" <<'MESON'
project('app', 'cpp', default_options: ['cpp_std=c++11'])
pfshim = dependency('pfshim', version: '>=0.1')
executable('app', 'app.cpp', dependencies: pfshim)
run_command('sh', '-c', 'printf %s "$1" >preload', '--', pfshim.get_variable(pkgconfig: 'preload'), check: true)
MESON
	cat >"$src/app.cpp" <<'CXX'
#include <pfshim.hpp>

int main()
{
	static const pfshim::handle step("step");
	for (int i = 0; i < 5; i++) {
		pfshim::region r(step);
	}
	return 0;
}
CXX
	export PKG_CONFIG_PATH="$LIB_DIR/pkgconfig"
	(cd "$src" && timeout 120 meson setup "$BATS_TEST_TMPDIR/b" >/dev/null)
	timeout 120 ninja -C "$BATS_TEST_TMPDIR/b" >/dev/null
	[ "$(cat "$src/preload")" = "$LIB_DIR/libpfshim.so.1" ]
	run -0 env LD_PRELOAD="$(cat "$src/preload")" PFSHIM_FORMAT=json \
		PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/r.jsonl" PFSHIM_EVENTS=task-clock "$BATS_TEST_TMPDIR/b/app"
	[ "$(exit_regions "$BATS_TEST_TMPDIR/r.jsonl")" = "step:5 " ]
}

@test "Meson: a Fortran program with dependency('pfshim-fortran') finds pfshim.mod" {
	need meson ninja gfortran
	src="$BATS_TEST_TMPDIR/src"
	mkdir -p "$src"
	cat >"$src/meson.build" <<'MESON'
project('fapp', 'fortran')
executable('fapp', 'fapp.f90', dependencies: dependency('pfshim-fortran'))
MESON
	printf '%s\n' 'program fapp' '  use pfshim' '  integer :: rc' "  rc = pfshim_region_begin('mfort')" \
		"  rc = pfshim_region_end('mfort')" 'end program fapp' >"$src/fapp.f90"
	export PKG_CONFIG_PATH="$LIB_DIR/pkgconfig"
	(cd "$src" && timeout 120 meson setup "$BATS_TEST_TMPDIR/b" >/dev/null)
	timeout 120 ninja -C "$BATS_TEST_TMPDIR/b" >/dev/null
	run -0 env LD_PRELOAD="$LIB_DIR/libpfshim.so.1" PFSHIM_FORMAT=json \
		PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/r.jsonl" PFSHIM_EVENTS=task-clock "$BATS_TEST_TMPDIR/b/fapp"
	[ "$(exit_regions "$BATS_TEST_TMPDIR/r.jsonl")" = "mfort:1 " ]
}

@test "a plain Makefile: Fortran with pkg-config's fmoddir, C with its cflags, both run under its preload" {
	need make gfortran cc pkg-config
	src="$BATS_TEST_TMPDIR/src"
	mkdir -p "$src"
	printf '%s\n' 'program fapp' '  use pfshim' '  integer :: i, rc' '  do i = 1, 3' \
		"    rc = pfshim_region_begin('plain')" "    rc = pfshim_region_end('plain')" '  end do' \
		'end program fapp' >"$src/fapp.f90"
	printf '%s\n' '#include <pfshim.h>' \
		'int main(void) { pfshim_region_begin("cplain"); return pfshim_region_end("cplain") == PFSHIM_MISUSE; }' \
		>"$src/capp.c"
	printf '%s\n' \
		'FMOD := $(shell pkg-config --variable=fmoddir pfshim)' \
		'all: fapp capp' \
		'fapp: fapp.f90' \
		'	gfortran -I$(FMOD) -o $@ $< $(shell pkg-config --libs pfshim-fortran)' \
		'capp: capp.c' \
		'	cc $(shell pkg-config --cflags pfshim) -o $@ $<' \
		'run: all' \
		'	LD_PRELOAD=$(shell pkg-config --variable=preload pfshim) ./fapp' \
		'	LD_PRELOAD=$(shell pkg-config --variable=preload pfshim) ./capp' >"$src/Makefile"
	export PKG_CONFIG_PATH="$LIB_DIR/pkgconfig"
	[ "$(pkg-config --variable=fmoddir pfshim)" = "$PREFIX_DIR/include/pfshim" ]
	run -0 env PFSHIM_FORMAT=json PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/r.jsonl" PFSHIM_EVENTS=task-clock \
		timeout 120 make -s -C "$src" run
	[ "$(jq -r 'select(.reason == "exit") | .regions.totals[] | "\(.name):\(.calls)"' \
		"$BATS_TEST_TMPDIR/r.jsonl" | sort | tr '\n' ' ')" = "cplain:1 plain:3 " ]
}
