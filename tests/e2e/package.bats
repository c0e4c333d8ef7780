#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# make deb: Debian packages that lintian passes without an error, and that
# work once unpacked: pfshim run of the unpacked copy preloads the shim
# unpacked with it (from the multiarch directory), pfshim --version says VERSION.

load helpers

setup_file() {
	export DEB_DIR="$BATS_FILE_TMPDIR/deb" VERSION_WANT
	VERSION_WANT=$(cat "$ROOT/VERSION")
	command -v dpkg-deb >/dev/null && command -v lintian >/dev/null && command -v dpkg-shlibdeps >/dev/null ||
		{ [ "$(id -u)" -eq 0 ] && "$ROOT/tests/deps.sh" dpkg-dev lintian >/dev/null 2>&1; } || return 0
	# its own build directory: the test's tree stays as the other suites left it
	timeout 600 make -s -C "$ROOT" BUILD="$BATS_FILE_TMPDIR/build" deb >"$BATS_FILE_TMPDIR/make-deb.log" 2>&1 ||
		echo failed >"$BATS_FILE_TMPDIR/make-deb.failed"
	mkdir -p "$DEB_DIR"
	cp "$BATS_FILE_TMPDIR"/build/deb/*.deb "$DEB_DIR"/ 2>/dev/null || true
}

need_debs() {
	skip_under_sanitizer "make deb is a release build of its own: nothing for the sanitizer to see"
	command -v dpkg-deb >/dev/null || skip "dpkg-deb (dpkg-dev) is not installed and cannot be (not root)"
	command -v lintian >/dev/null || skip "lintian is not installed and cannot be (not root)"
	if [ -e "$BATS_FILE_TMPDIR/make-deb.failed" ]; then
		cat "$BATS_FILE_TMPDIR/make-deb.log"
		false
	fi
	arch=$(dpkg --print-architecture) ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
}

@test "make deb: three packages, each with what Debian puts in it, and lintian finds no error" {
	need_debs
	for p in libpfshim1 pfshim libpfshim-dev; do
		[ -f "$DEB_DIR/${p}_${VERSION_WANT}_$arch.deb" ]
	done
	run -0 dpkg-deb -c "$DEB_DIR/libpfshim1_${VERSION_WANT}_$arch.deb"
	[[ "$output" == *" ./usr/lib/$ma/libpfshim.so.1"* ]]
	[[ "$output" == *" ./usr/lib/$ma/libpfshim-compat.so.1"* ]]
	[[ "$output" == *"-rw-r--r-- root/root"*"libpfshim.so.1"* ]]
	run -0 dpkg-deb -c "$DEB_DIR/pfshim_${VERSION_WANT}_$arch.deb"
	for f in usr/bin/pfshim usr/share/man/man1/pfshim.1.gz usr/share/man/man7/libpfshim.7.gz \
		usr/share/doc/pfshim/usage.md usr/share/doc/pfshim/copyright; do
		[[ "$output" == *" ./$f"* ]] || { echo "pfshim lacks $f"; false; }
	done
	run -0 dpkg-deb -c "$DEB_DIR/libpfshim-dev_${VERSION_WANT}_$arch.deb"
	for f in usr/include/pfshim.h "usr/lib/$ma/libpfshim.so -> libpfshim.so.1" \
		"usr/lib/$ma/pkgconfig/pfshim.pc" "usr/lib/$ma/cmake/pfshim/pfshimConfig.cmake"; do
		[[ "$output" == *" ./$f"* ]] || { echo "libpfshim-dev lacks $f"; false; }
	done
	[ "$(dpkg-deb -f "$DEB_DIR/pfshim_${VERSION_WANT}_$arch.deb" Depends | cut -d, -f1)" = \
		"libpfshim1 (= $VERSION_WANT)" ]
	[ "$(dpkg-deb --ctrl-tarfile "$DEB_DIR/libpfshim1_${VERSION_WANT}_$arch.deb" | tar -xOf - ./shlibs | head -1)" = \
		"libpfshim 1 libpfshim1 (>= $VERSION_WANT)" ]
	run --separate-stderr timeout 300 lintian --fail-on error "$DEB_DIR"/*.deb
	echo "$output"
	[ "$status" -eq 0 ]
	! grep -q '^E: ' <<<"$output"
}

@test "make deb: the packages unpacked (dpkg -x): pfshim --version, and pfshim run preloads the unpacked shim" {
	need_debs
	root="$BATS_TEST_TMPDIR/root"
	for d in "$DEB_DIR"/*.deb; do dpkg -x "$d" "$root"; done
	run -0 "$root/usr/bin/pfshim" --version
	[ "$output" = "pfshim $VERSION_WANT" ]
	run -0 --separate-stderr "$root/usr/bin/pfshim" run -o "$BATS_TEST_TMPDIR/r" -- \
		sh -c 'echo "LD_PRELOAD=$LD_PRELOAD"; exec /bin/true'
	[ "$output" = "LD_PRELOAD=$root/usr/lib/$ma/libpfshim.so.1" ]
	[[ "$stderr" == *"1 process, 2 images, 2 reports"* ]]
	[ "$(jq -r .pfshim_version "$BATS_TEST_TMPDIR"/r/*.json | sort -u)" = "$VERSION_WANT" ]
	# and a program built against the unpacked headers, under the unpacked shim (pkg-config's path)
	printf '#include <pfshim.h>\nint main(void) { return pfshim_active() != 1; }\n' >"$BATS_TEST_TMPDIR/p.c"
	export PKG_CONFIG_PATH="$root/usr/lib/$ma/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$root"
	cc $(pkg-config --cflags pfshim) -o "$BATS_TEST_TMPDIR/p" "$BATS_TEST_TMPDIR/p.c"
	[ "$(pkg-config --variable=preload pfshim)" = "$root/usr/lib/$ma/libpfshim.so.1" ]
	env LD_PRELOAD="$(pkg-config --variable=preload pfshim)" PFSHIM_OUTPUT=/dev/null "$BATS_TEST_TMPDIR/p"
}
