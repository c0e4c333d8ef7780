#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# make deb: Debian packages that lintian passes without an error, and that
# work once unpacked: pfshim run of the unpacked copy preloads the shim
# unpacked with it (from the multiarch directory), pfshim --version says VERSION;
# and installed into this system with dpkg -i (root only, when no pfshim
# package is there): used from a fresh environment as a new user would, then
# purged, every file gone.

load helpers
. "$ROOT/tests/dpkg-wait.sh"

PKGS=(libpfshim1 pfshim libpfshim-dev python3-pfshim)

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

@test "make deb: four packages, each with what Debian puts in it, and lintian finds no error" {
	need_debs
	for p in libpfshim1 pfshim libpfshim-dev; do
		[ -f "$DEB_DIR/${p}_${VERSION_WANT}_$arch.deb" ]
	done
	py_deb="$DEB_DIR/python3-pfshim_${VERSION_WANT}_all.deb"
	run -0 dpkg-deb -c "$py_deb"
	for f in __init__.py markers.py reports.py hatchet.py; do
		[[ "$output" == *" ./usr/lib/python3/dist-packages/pfshim/$f"* ]] || { echo "python3-pfshim lacks $f"; false; }
	done
	[ "$(dpkg-deb -f "$py_deb" Architecture Depends | tr '\n' ' ')" = "Architecture: all Depends: python3:any " ]
	# the project's contact, from packaging/deb.mk, in every package
	want_maintainer=$(sed -n 's/^DEB_MAINTAINER *?= //p' "$ROOT/packaging/deb.mk")
	[[ "$want_maintainer" == *" <"*@*">" ]]
	for d in "$DEB_DIR"/*.deb; do
		[ "$(dpkg-deb -f "$d" Maintainer)" = "$want_maintainer" ]
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
	# A shim linked with packed relocations needs glibc 2.36's loader (install.md).
	dpkg-deb -x "$DEB_DIR/libpfshim1_${VERSION_WANT}_$arch.deb" "$BATS_TEST_TMPDIR/lib1"
	if readelf -V "$BATS_TEST_TMPDIR/lib1/usr/lib/$ma/libpfshim.so.1" | grep -q GLIBC_ABI_DT_RELR; then
		run -0 dpkg-deb -f "$DEB_DIR/libpfshim1_${VERSION_WANT}_$arch.deb" Depends
		echo "$output"
		[[ "$output" == *"libc6 (>= 2.36)"* ]]
	fi
	[ "$(dpkg-deb --ctrl-tarfile "$DEB_DIR/libpfshim1_${VERSION_WANT}_$arch.deb" | tar -xOf - ./shlibs | head -1)" = \
		"libpfshim 1 libpfshim1 (>= $VERSION_WANT)" ]
	run --separate-stderr timeout 300 lintian --fail-on error "$DEB_DIR"/*.deb
	echo "$output"
	[ "$status" -eq 0 ]
	! grep -q '^E: ' <<<"$output" || false
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

@test "packaging/deb.sh: the maintainer and home page as written (' & | \\ UTF-8), a second line or a bare address refused" {
	need_debs
	stage="$BATS_FILE_TMPDIR/build/deb/stage" out="$BATS_TEST_TMPDIR/out"
	m="O'Brien & Söhne | x\\1 <dev@lists.example.net>" h='https://pfshim.example.net/?a=1&b=\2'
	DEB_MAINTAINER=$m DEB_HOMEPAGE=$h run -0 "$ROOT/packaging/deb.sh" "$stage" "$out" "$VERSION_WANT" "$ma"
	for d in "$out"/*.deb; do
		[ "$(dpkg-deb -f "$d" Maintainer)" = "$m" ]
		[ "$(dpkg-deb -f "$d" Homepage)" = "$h" ]
	done
	[ "$(zcat "$out/pkg/pfshim/usr/share/doc/pfshim/changelog.gz" | tail -1 | cut -c5- | sed 's/  [A-Z][a-z][a-z], .*//')" = "$m" ]
	[ "$(grep '^Upstream-Contact: ' "$out/pkg/python3-pfshim/usr/share/doc/python3-pfshim/copyright")" = "Upstream-Contact: $m" ]
	# a field of its own smuggled in, a name without an address, a control character, a home page with a space
	rm -rf "$out"
	for bad in "$(printf 'x <a@b.org>\nEssential: yes')" "maintainers@pfshim.org" "$(printf 'x\t <a@b.org>')"; do
		DEB_MAINTAINER=$bad DEB_HOMEPAGE=$h run -2 --separate-stderr "$ROOT/packaging/deb.sh" "$stage" "$out" "$VERSION_WANT" "$ma"
		[ "$stderr" = "pfshim: DEB_MAINTAINER must be one line, 'Name <user@host.domain>'" ]
	done
	DEB_MAINTAINER=$m DEB_HOMEPAGE="https://a b/" run -2 --separate-stderr "$ROOT/packaging/deb.sh" "$stage" "$out" "$VERSION_WANT" "$ma"
	[ "$stderr" = "pfshim: DEB_HOMEPAGE must be one http:// or https:// address, without spaces" ]
	[ ! -e "$out" ]
}

# The installed system's test purges its packages whatever happened to it.
teardown() {
	if [ -n "${PURGE_IN_TEARDOWN:-}" ]; then
		DPKG_WAIT_TRIES=60 dpkg_wait timeout 300 dpkg --purge "${PKGS[@]}" ||
			echo "package.bats: dpkg --purge ${PKGS[*]} failed: purge them by hand" >&2
	fi
}

# need_install: root, dpkg, no pfshim package and none of the packages' files
# on this system already (make install PREFIX=/usr), and no other run of
# this test at the same time (flock on dpkg's directory, which dpkg itself
# never flocks: its locks are fcntl ones on files inside).
need_install() {
	[ "$(id -u)" -eq 0 ] || skip "dpkg -i needs root"
	command -v dpkg >/dev/null || skip "no dpkg here"
	need_debs
	exec {dpkg_dir_fd}</var/lib/dpkg
	flock -w 600 "$dpkg_dir_fd" || skip "another package.bats held /var/lib/dpkg for 10 minutes"
	others=$(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' '*pfshim*' 2>/dev/null | awk 'substr($2, 2, 1) != "n"')
	[ -z "$others" ] || skip "a pfshim package is on this system already ($others): this test installs and purges its own"
	for d in "$DEB_DIR"/*.deb; do
		dpkg-deb --fsys-tarfile "$d" | tar -t | sed -n 's|^\./\(.*[^/]\)$|/\1|p'
	done >"$BATS_TEST_TMPDIR/files"
	while read -r f; do
		[ ! -e "$f" ] && [ ! -L "$f" ] || skip "$f is on this system already, of no pfshim package (make install PREFIX=/usr?)"
	done <"$BATS_TEST_TMPDIR/files"
}

@test "dpkg -i: the packages installed, used from a fresh environment as a new user, then purged with nothing left" {
	need_install
	lib="/usr/lib/$ma"
	# what each directory of the packages was before: the ones dpkg makes, it must remove
	for d in "$DEB_DIR"/*.deb; do
		dpkg-deb --fsys-tarfile "$d" | tar -t | sed -n 's|^\./\(.*\)/$|/\1|p'
	done | sort -u | while read -r dir; do
		[ -d "$dir" ] || echo "$dir"
	done >"$BATS_TEST_TMPDIR/new-dirs"
	PURGE_IN_TEARDOWN=1
	DPKG_WAIT_TRIES=60 dpkg_wait timeout 300 dpkg -i "$DEB_DIR"/*.deb || {
		rc=$?
		[ "$rc" -ne 75 ] || skip "another apt-get or dpkg held the lock for 5 minutes"
		false
	}
	for p in "${PKGS[@]}"; do
		[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$p")" = "ii " ]
		dpkg -L "$p" >>"$BATS_TEST_TMPDIR/listed"
	done
	# every file the packages hold is there, and dpkg lists each (no path-exclude dropped one)
	sort -u "$BATS_TEST_TMPDIR/listed" | while read -r f; do [ -d "$f" ] || echo "$f"; done >"$BATS_TEST_TMPDIR/listed-files"
	diff <(sort "$BATS_TEST_TMPDIR/files") "$BATS_TEST_TMPDIR/listed-files"
	while read -r f; do
		[ -e "$f" ] || [ -L "$f" ] || { echo "dpkg lists $f, not installed"; false; }
	done <"$BATS_TEST_TMPDIR/listed-files"
	# libpfshim1's ldconfig trigger ran (on a merged /usr the cache may name /lib/$ma)
	[ "$(ldconfig -p | grep -cE "libpfshim\.so\.1 \(.*=> (/usr)?/lib/$ma/libpfshim\.so\.1$")" -eq 1 ]

	# A new user's environment: nothing of the source tree or the build
	mkdir -p "$BATS_TEST_TMPDIR/home" "$BATS_TEST_TMPDIR/work"
	cd "$BATS_TEST_TMPDIR/work"
	# (timeout outside: the shim preloaded into timeout would write a report of its own)
	user=(env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$BATS_TEST_TMPDIR/home" LANG=C.UTF-8)
	[ "$("${user[@]}" sh -c 'command -v pfshim')" = /usr/bin/pfshim ]
	run -0 "${user[@]}" pfshim --version
	[ "$output" = "pfshim $VERSION_WANT" ]
	run -0 --separate-stderr "${user[@]}" pfshim run -o run -- /bin/true
	[[ "$stderr" == *"(1 process counted by the kernel; 1 process, 1 image, 1 report, 1 program)"* ]]
	[ "$(jq -r '"\(.program) \(.pfshim_version) \(.reason)"' run/*.json)" = "true $VERSION_WANT exit" ]
	run -0 --separate-stderr "${user[@]}" pfshim run -o run2 -- sh -c 'echo "LD_PRELOAD=$LD_PRELOAD"'
	[ "$output" = "LD_PRELOAD=$lib/libpfshim.so.1" ]
	# the shim by its installed path, as the man page says
	"${user[@]}" LD_PRELOAD="$lib/libpfshim.so.1" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$PWD/true.json" \
		PFSHIM_EVENTS=page-faults,task-clock /bin/true
	[ "$(jq -s -r 'map("\(.program) \(.reason) \([.events[].name] | join(","))") | join(";")' true.json)" = \
		"true exit page-faults,task-clock" ]

	# the manuals, where man finds them
	if command -v man >/dev/null; then
		[ "$("${user[@]}" man -w pfshim)" = /usr/share/man/man1/pfshim.1.gz ]
		[ "$("${user[@]}" man -w libpfshim)" = /usr/share/man/man7/libpfshim.7.gz ]
		run -0 "${user[@]}" MANWIDTH=80 man -P cat libpfshim
		[[ "$output" == *"PFSHIM_EVENTS"* ]]
	fi

	# pkg-config and a program of the marker API, under the preload it names
	[ "$("${user[@]}" pkg-config --modversion pfshim)" = "$VERSION_WANT" ]
	[ "$("${user[@]}" pkg-config --variable=preload pfshim)" = "$lib/libpfshim.so.1" ]
	printf '#include <pfshim.h>\nint main(void) { return pfshim_active() != 1; }\n' >p.c
	"${user[@]}" sh -c 'cc $(pkg-config --cflags pfshim) -o p p.c'
	"${user[@]}" LD_PRELOAD="$lib/libpfshim.so.1" PFSHIM_OUTPUT=/dev/null ./p
	run -1 "${user[@]}" ./p	# without the shim the markers are inactive

	# CMake's find_package with no hint: the multiarch cmake/pfshim directory
	if command -v cmake >/dev/null; then
		mkdir src && cp "$ROOT"/tests/fixtures/cmake-app/* src/
		"${user[@]}" cmake -S src -B b >/dev/null
		"${user[@]}" cmake --build b >/dev/null
		[ "$(cat b/preload)" = "$lib/libpfshim.so.1" ]
		[ "$(cat b/version)" = "$VERSION_WANT" ]
		run -0 "${user[@]}" LD_PRELOAD="$(cat b/preload)" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$PWD/app.jsonl" \
			PFSHIM_EVENTS=task-clock b/app
		[ "$output" = "active 1" ]
		[ "$(exit_regions app.jsonl)" = "solve:3 " ]
	fi

	# Debian's python3 finds the module; with the shim preloaded its markers count
	run -0 "${user[@]}" /usr/bin/python3 -c 'import pfshim; print(pfshim.__file__, pfshim.__version__, pfshim.active())'
	[ "$output" = "/usr/lib/python3/dist-packages/pfshim/__init__.py $VERSION_WANT False" ]
	run -0 "${user[@]}" LD_PRELOAD="$lib/libpfshim.so.1" PFSHIM_OUTPUT=/dev/null /usr/bin/python3 -c \
		'import pfshim; print(pfshim.active())'
	[ "$output" = True ]
	# and reads a job directory into pandas: 3 processes, jq's sum of their page faults
	if /usr/bin/python3 -c 'import pandas' 2>/dev/null; then
		for i in 1 2 3; do
			"${user[@]}" LD_PRELOAD="$lib/libpfshim.so.1" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$PWD/job/" \
				PFSHIM_EVENTS=page-faults,task-clock /bin/true
		done
		want_pf=$(cat job/*.json | jq -s '[.[] | .events[] | select(.name == "page-faults") | .value] | add')
		run -0 "${user[@]}" /usr/bin/python3 -c \
			'import sys, pfshim; p = pfshim.read(sys.argv[1]).processes; print(len(p), int(p["page-faults"].sum()))' job
		[ "$output" = "3 $want_pf" ]
	fi

	# dpkg --purge: every file gone, and every directory the packages made
	cd "$BATS_TEST_TMPDIR"
	DPKG_WAIT_TRIES=60 dpkg_wait timeout 300 dpkg --purge "${PKGS[@]}" || {
		rc=$?
		[ "$rc" -ne 75 ] || skip "another apt-get or dpkg held the lock for 5 minutes (teardown purges)"
		false
	}
	PURGE_IN_TEARDOWN=
	for p in "${PKGS[@]}"; do	# not installed, no configuration kept: un, pn or unknown to dpkg
		status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || echo "un ")
		[ "${status:1:1}" = n ] || { echo "$p: $status"; false; }
	done
	while read -r f; do
		[ ! -e "$f" ] && [ ! -L "$f" ] || { echo "left after purge: $f"; false; }
	done < <(cat "$BATS_TEST_TMPDIR/listed-files" "$BATS_TEST_TMPDIR/new-dirs")
	[ "$(ldconfig -p | grep -c 'libpfshim\.so\.1 ')" -eq 0 ]
}
