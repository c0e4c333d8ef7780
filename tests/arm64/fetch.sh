#!/bin/sh
# SPDX-License-Identifier: MIT
# fetch.sh CACHE kernel|cmocka|busybox|libpfm|papi: fetch, once, what the arm64 guest needs from
# Debian's arm64 archive into CACHE (outside the source tree, so `make clean`
# keeps it) and print the path to use. A second run downloads nothing.
#   kernel -> CACHE/vmlinuz (the Image of linux-image-<ABI>-arm64[-unsigned])
#   cmocka -> CACHE/cmocka (usr/include + usr/lib/aarch64-linux-gnu)
#   busybox -> CACHE/busybox (static: the guest's /bin/sh, for tests that
#              call system())
#   libpfm -> CACHE/libpfm (libpfm4's usr/lib/aarch64-linux-gnu/libpfm.so.4, with
#             its Arm tables, which Debian's x86_64 build lacks)
#   papi -> CACHE/papi (PAPI 7: libpapi7.0's libpapi.so.7.0 and libpapi-dev's
#           headers and libpapi.so link, for `make bench-arm64` only; at run time
#           it needs libpfm4 (above) and libc, nothing else. papi.source names
#           the two .deb files, i.e. the versions measured)
set -eu
cache=$1 what=$2
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

say() { echo "arm64-fetch: $*" >&2; }
die() { say "$*"; exit 1; }

# apt can only name :arm64 packages once dpkg knows the architecture. Adding it
# changes this machine's package configuration (it only widens what apt-get
# update fetches; nothing arm64 gets installed), so it is done as root only.
arch_enable() {
	dpkg --print-foreign-architectures | grep -qx arm64 && return 0
	[ "$(id -u)" -eq 0 ] || die "dpkg does not know arm64; as root run:
  dpkg --add-architecture arm64 && apt-get update"
	say "dpkg --add-architecture arm64 (needed to download arm64 packages)"
	dpkg --add-architecture arm64
	apt_update
}

apt_update() {
	[ "$(id -u)" -eq 0 ] || die "apt lists lack arm64 packages; run apt-get update as root"
	say "apt-get update"
	apt-get update -q >/dev/null
}

# What the linux-image-arm64 metapackage depends on today, e.g.
# linux-image-6.1.0-56-arm64: ABIs leave the archive, so never hard-code one.
kernel_package() {
	apt-cache depends linux-image-arm64:arm64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^:]*-arm64\)\(-unsigned\)\{0,1\}\(:arm64\)\{0,1\}$/\1/p' |
		head -n 1
}

# apt-get download writes into the current directory; as root it warns that
# the download runs unsandboxed, which is harmless here.
download() {
	(cd "$tmp" && apt-get download -q "$@" >/dev/null 2>"$tmp/apt.err") ||
		{ cat "$tmp/apt.err" >&2; return 1; }
}

fetch_kernel() {
	[ -s "$cache/vmlinuz" ] && { echo "$cache/vmlinuz"; return 0; }
	arch_enable
	pkg=$(kernel_package)
	[ -n "$pkg" ] || { apt_update; pkg=$(kernel_package); }
	[ -n "$pkg" ] || die "apt-cache depends linux-image-arm64:arm64 names no kernel"
	say "downloading $pkg-unsigned:arm64 (about 60 MB, once)"
	# The unsigned package carries the same Image without the EFI signature.
	download "$pkg-unsigned:arm64" || download "$pkg:arm64" ||
		die "could not download $pkg"
	deb=$(ls "$tmp"/*.deb | head -n 1)
	(cd "$tmp" && dpkg-deb --fsys-tarfile "$deb" | tar -x ./boot)
	img=$(ls "$tmp"/boot/vmlinuz-* | head -n 1)
	[ -s "$img" ] || die "no boot/vmlinuz-* in $deb"
	basename "$deb" > "$cache/vmlinuz.source"
	mv "$img" "$cache/vmlinuz"
	echo "$cache/vmlinuz"
}

# Debian ships cmocka as a shared library only; the guest gets libcmocka.so.0
# next to libc.
fetch_cmocka() {
	[ -s "$cache/cmocka/usr/include/cmocka.h" ] && { echo "$cache/cmocka"; return 0; }
	arch_enable
	say "downloading libcmocka0:arm64 libcmocka-dev:arm64 (once)"
	download libcmocka0:arm64 libcmocka-dev:arm64 ||
		{ apt_update; download libcmocka0:arm64 libcmocka-dev:arm64; } ||
		die "could not download cmocka for arm64"
	rm -rf "$cache/cmocka.new" && mkdir -p "$cache/cmocka.new"
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$cache/cmocka.new"
	done
	rm -rf "$cache/cmocka" && mv "$cache/cmocka.new" "$cache/cmocka"
	echo "$cache/cmocka"
}

# Unit tests build fixture trees with system("mkdir -p ..."): the guest needs
# a shell and the usual commands. busybox-static is one static binary.
fetch_busybox() {
	[ -s "$cache/busybox" ] && { echo "$cache/busybox"; return 0; }
	arch_enable
	say "downloading busybox-static:arm64 (once)"
	download busybox-static:arm64 || { apt_update; download busybox-static:arm64; } ||
		die "could not download busybox-static:arm64"
	dpkg-deb -x "$tmp"/busybox-static_*.deb "$tmp/x"
	mv "$tmp/x/bin/busybox" "$cache/busybox"
	echo "$cache/busybox"
}

# libpfm4 for vendor event names (preload/events/pfm.c): the arm64 build holds
# the Arm cores' tables, so the guest can force and count them.
fetch_libpfm() {
	lib=$cache/libpfm/usr/lib/aarch64-linux-gnu/libpfm.so.4
	[ -s "$lib" ] && { echo "$lib"; return 0; }
	arch_enable
	say "downloading libpfm4:arm64 (once)"
	download libpfm4:arm64 || { apt_update; download libpfm4:arm64; } ||
		die "could not download libpfm4:arm64"
	rm -rf "$cache/libpfm.new" && mkdir -p "$cache/libpfm.new"
	dpkg-deb -x "$tmp"/libpfm4_*.deb "$cache/libpfm.new"
	rm -rf "$cache/libpfm" && mv "$cache/libpfm.new" "$cache/libpfm"
	echo "$lib"
}

# PAPI 7 for the bench's comparison (tests/arm64/bench_papi_arm64.c). The
# headers are the same bytes in the amd64 and arm64 libpapi-dev (checked with
# cmp on 7.0.0-2), but the arm64 one also brings the libpapi.so link to link
# against, so both packages come from the arm64 archive. libpapi-dev's
# dependency libsde1 is not needed: the bench calls no SDE function.
fetch_papi() {
	lib=$cache/papi/usr/lib/aarch64-linux-gnu/libpapi.so.7.0
	[ -s "$lib" ] && [ -s "$cache/papi/usr/include/papi.h" ] && { echo "$cache/papi"; return 0; }
	arch_enable
	say "downloading libpapi7.0:arm64 libpapi-dev:arm64 (once, under 1 MB)"
	download libpapi7.0:arm64 libpapi-dev:arm64 ||
		{ apt_update; download libpapi7.0:arm64 libpapi-dev:arm64; } ||
		die "could not download libpapi7.0:arm64 libpapi-dev:arm64"
	rm -rf "$cache/papi.new" && mkdir -p "$cache/papi.new"
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$cache/papi.new"
		basename "$deb" >> "$cache/papi.new/papi.source"
	done
	rm -rf "$cache/papi" && mv "$cache/papi.new" "$cache/papi"
	echo "$cache/papi"
}

tmp=$(mktemp -d "$cache/fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
case $what in
kernel) fetch_kernel ;;
cmocka) fetch_cmocka ;;
busybox) fetch_busybox ;;
libpfm) fetch_libpfm ;;
papi) fetch_papi ;;
*) die "usage: fetch.sh CACHE kernel|cmocka|busybox|libpfm|papi" ;;
esac
