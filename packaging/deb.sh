#!/bin/sh
# SPDX-License-Identifier: MIT
# deb.sh STAGE OUTDIR VERSION MULTIARCH: the Debian packages of pfshim, from
# a tree `make install DESTDIR=STAGE PREFIX=/usr LIBDIR=/usr/lib/MULTIARCH`
# wrote (packaging/deb.mk does both). Debian's own split, so that lintian
# has nothing to say against the layout:
#   libpfshim1      the shim and the compat preload, under their SONAMEs
#   pfshim          the pfshim command, its manuals and the documentation
#   libpfshim-dev   headers, archives, the .so links, pkg-config and CMake files
#   python3-pfshim  the Python module (Architecture: all), as Debian names them
# Built with dpkg-deb --root-owner-group (no fakeroot); stripped, manuals and
# changelogs compressed, md5sums, shlibs, the ldconfig trigger and the
# Python module's byte-compiling scripts written here. DEB_MAINTAINER and
# DEB_HOMEPAGE come from packaging/deb.mk, where they are written once.
set -eu
stage=$1 out=$2 version=$3 multiarch=$4
here=$(cd "$(dirname "$0")" && pwd)
arch=$(dpkg --print-architecture)
lib=usr/lib/$multiarch
maintainer=${DEB_MAINTAINER:?set by packaging/deb.mk}
homepage=${DEB_HOMEPAGE:?set by packaging/deb.mk}
# Each one line without control characters (a newline would write a control
# field of its own), of the form Debian reads.
one_line() {
	[ "$(printf '%s' "$1" | wc -l)" -eq 0 ] && ! printf '%s' "$1" | LC_ALL=C grep -q '[[:cntrl:]]'
}
if ! one_line "$maintainer" ||
	! printf '%s\n' "$maintainer" | LC_ALL=C grep -qxE '[^<>]*[^<> ] <[^<>@ ]+@[^<> ]+\.[^<> ]+>'; then
	echo "pfshim: DEB_MAINTAINER must be one line, 'Name <user@host.domain>'" >&2
	exit 2
fi
if ! one_line "$homepage" || ! printf '%s\n' "$homepage" | LC_ALL=C grep -qxE 'https?://[^ ]+'; then
	echo "pfshim: DEB_HOMEPAGE must be one http:// or https:// address, without spaces" >&2
	exit 2
fi
pkgs="libpfshim1 pfshim libpfshim-dev python3-pfshim"
work=$out/pkg
rm -rf "$work"
mkdir -p "$work"

# with_maintainer FILE: FILE with @MAINTAINER@ replaced by the maintainer as
# written (sed would take its & | \ for its own).
with_maintainer() {
	DEB_M=$maintainer awk '{
		out = ""; rest = $0
		while ((i = index(rest, "@MAINTAINER@")) > 0) {
			out = out substr(rest, 1, i - 1) ENVIRON["DEB_M"]
			rest = substr(rest, i + 12)
		}
		print out rest
	}' "$1"
}

# move PKG PATH...: PATH (relative to the stage) into package PKG's tree.
move() {
	pkg=$1
	shift
	for p in "$@"; do
		mkdir -p "$work/$pkg/$(dirname "$p")"
		cp -a "$stage/$p" "$work/$pkg/$p"
	done
}

move libpfshim1 "$lib/libpfshim.so.1" "$lib/libpfshim-compat.so.1"
move pfshim usr/bin/pfshim usr/share/man usr/share/doc/pfshim
move libpfshim-dev usr/include "$lib/libpfshim.so" "$lib/libpfshim-compat.so" "$lib/libfastread.a" \
	"$lib/libpfshim-compat.a" "$lib/pkgconfig" "$lib/cmake"
move python3-pfshim usr/lib/python3/dist-packages/pfshim
if [ -e "$stage/$lib/libpfshim_fortran.a" ]; then
	move libpfshim-dev "$lib/libpfshim_fortran.a"
fi
# The licence is in each package's copyright file, not a second time in the docs.
rm -f "$work/pfshim/usr/share/doc/pfshim/LICENSE"

# Debian strips what it ships (the debugging symbols would go to a -dbgsym).
strip --strip-unneeded --remove-section=.comment --remove-section=.note \
	"$work/libpfshim1/$lib"/*.so.1 "$work/pfshim/usr/bin/pfshim"
strip --strip-debug --remove-section=.comment --enable-deterministic-archives "$work/libpfshim-dev/$lib"/*.a
gzip -9n "$work/pfshim/usr/share/man"/*/*

for pkg in $pkgs; do
	doc=$work/$pkg/usr/share/doc/$pkg
	mkdir -p "$doc"
	with_maintainer "$here/copyright" >"$doc/copyright"
	with_maintainer "$here/changelog" | gzip -9n >"$doc/changelog.gz"
	find "$work/$pkg" -type d -exec chmod 0755 {} +
	mkdir -p "$work/$pkg/DEBIAN"
done

# What the command links besides libc: its dependencies, as dpkg-shlibdeps
# finds them (it wants a debian/control to read, here a minimal one).
mkdir -p "$out/shlibdeps/debian"
printf 'Source: pfshim\n\nPackage: pfshim\nArchitecture: any\n' >"$out/shlibdeps/debian/control"
tool_deps=$(cd "$out/shlibdeps" && dpkg-shlibdeps -O "$work/pfshim/usr/bin/pfshim" 2>/dev/null |
	sed -n 's/^shlibs:Depends=//p')
lib_deps=$(cd "$out/shlibdeps" && dpkg-shlibdeps -O "$work/libpfshim1/$lib/libpfshim.so.1" 2>/dev/null |
	sed -n 's/^shlibs:Depends=//p')
# Packed relocations (the Makefile's RELR_LDFLAGS) need glibc 2.36's loader: a version
# the library names without a symbol, which dpkg-shlibdeps does not count.
if readelf -V "$work/libpfshim1/$lib/libpfshim.so.1" | grep -q 'GLIBC_ABI_DT_RELR'; then
	lib_deps=$(printf '%s\n' "$lib_deps" | sed 's/libc6 (>= [0-9.]*)/libc6 (>= 2.36)/')
	case $lib_deps in *'libc6 (>= 2.36)'*) ;; *) lib_deps="${lib_deps:+$lib_deps, }libc6 (>= 2.36)" ;; esac
fi

echo "libpfshim 1 libpfshim1 (>= $version)" >"$work/libpfshim1/DEBIAN/shlibs"
echo "libpfshim-compat 1 libpfshim1 (>= $version)" >>"$work/libpfshim1/DEBIAN/shlibs"
echo "activate-noawait ldconfig" >"$work/libpfshim1/DEBIAN/triggers"

# The byte code python3 writes beside the module (__pycache__) belongs to
# the package: compiled at install and removed before the files are, or
# dpkg -r would leave the directory behind. What dh_python3 writes.
cat >"$work/python3-pfshim/DEBIAN/postinst" <<'SH'
#!/bin/sh
set -e
if command -v py3compile >/dev/null 2>&1; then
	py3compile -p python3-pfshim
fi
SH
cat >"$work/python3-pfshim/DEBIAN/prerm" <<'SH'
#!/bin/sh
set -e
if command -v py3clean >/dev/null 2>&1; then
	py3clean -p python3-pfshim
else
	rm -rf /usr/lib/python3/dist-packages/pfshim/__pycache__
fi
SH
chmod 0755 "$work/python3-pfshim/DEBIAN/postinst" "$work/python3-pfshim/DEBIAN/prerm"

# control PKG ARCH FIELDS...: the package's control file, the common fields first.
control() {
	pkg=$1 pkg_arch=$2
	shift 2
	{
		echo "Package: $pkg"
		echo "Version: $version"
		echo "Architecture: $pkg_arch"
		printf 'Maintainer: %s\n' "$maintainer"
		echo "Installed-Size: $(du -sk --exclude=DEBIAN "$work/$pkg" | cut -f1)"
		echo "Priority: optional"
		printf 'Homepage: %s\n' "$homepage"
		printf '%s\n' "$@"
	} >"$work/$pkg/DEBIAN/control"
	(cd "$work/$pkg" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' |
		LC_ALL=C sort -z | xargs -0 md5sum >DEBIAN/md5sums)
}

control libpfshim1 "$arch" "Section: libs" "Multi-Arch: same" "Depends: $lib_deps" \
	"Description: performance counters inside any program (LD_PRELOAD shim)" \
	" libpfshim.so.1 is preloaded into a program (LD_PRELOAD) and counts its" \
	" Linux perf events, per process and per region of the marker API, and" \
	" writes a report (text, CSV, JSON, OpenMetrics) at exit, exec, a signal" \
	" or intervals. libpfshim-compat.so.1 takes LIKWID's and PAPI's marker" \
	" calls onto pfshim's regions."
control pfshim "$arch" "Section: devel" "Depends: libpfshim1 (= $version), $tool_deps" \
	"Suggests: python3-pfshim" \
	"Description: count the performance events of a whole job" \
	" pfshim run runs a command (a build, a script, an MPI job) with" \
	" libpfshim.so.1 preloaded and prints one summary of all its processes;" \
	" pfshim report combines reports written earlier (totals, groups, regions," \
	" series, an HTML page); pfshim list lists the events this machine has." \
	" The manuals pfshim(1) and libpfshim(7), and the documentation."
control libpfshim-dev "$arch" "Section: libdevel" "Depends: libpfshim1 (= $version)" \
	"Description: performance counters inside any program (development files)" \
	" The marker API (pfshim.h, pfshim.hpp, the Fortran module pfshim), the" \
	" LIKWID and PAPI_hl compatible headers and archive, libfastread.a (read" \
	" a perf event group from user space), and the pkg-config and CMake" \
	" (find_package(pfshim)) files that find them."
control python3-pfshim all "Section: python" "Depends: python3:any" \
	"Recommends: python3-pandas" "Suggests: pfshim" \
	"Description: performance counters inside any program (Python module)" \
	" The module pfshim: marker regions around Python code (a decorator and a" \
	" context manager), counted when libpfshim.so.1 is preloaded, and a job's" \
	" reports read into pandas DataFrames (processes, events, regions, series)" \
	" or Hatchet's literal format."

for pkg in $pkgs; do
	pkg_arch=$(sed -n 's/^Architecture: //p' "$work/$pkg/DEBIAN/control")
	dpkg-deb --root-owner-group -Zxz --build "$work/$pkg" "$out/${pkg}_${version}_$pkg_arch.deb" >/dev/null
done
ls "$out"/*.deb
