#!/bin/sh
# SPDX-License-Identifier: MIT
# initramfs.sh OUT.cpio.gz GUEST=HOST...: pack the guest's root file system.
# Each GUEST=HOST copies a host file to that guest path (a trailing / on HOST
# copies a directory). Dynamically linked programs get their ELF interpreter
# and every library they need (aarch64-linux-gnu-readelf -d, recursively),
# found in $ARM64_LIBDIRS (colon-separated), at Debian's paths: the loader at
# /lib, the libraries at /lib/aarch64-linux-gnu, where glibc looks by default.
set -eu
out=$1; shift
readelf=${ARM64_READELF:-aarch64-linux-gnu-readelf}
libdirs=${ARM64_LIBDIRS:-/usr/aarch64-linux-gnu/lib}

root=$(mktemp -d "${out%/*}/root.XXXXXX")
trap 'rm -rf "$root" "$root.gz"' EXIT
# mktemp made it 0700: as the guest's / it must let tests that drop to nobody in.
chmod 755 "$root"

lib_find() {
	IFS=:
	for d in $libdirs; do
		[ -e "$d/$1" ] && { echo "$d/$1"; unset IFS; return 0; }
	done
	unset IFS
	echo "initramfs: $1 not found in $libdirs" >&2
	return 1
}

# elf_deps FILE: copy FILE's interpreter and needed libraries, recursively.
elf_deps() {
	interp=$($readelf -l "$1" 2>/dev/null | sed -n 's/.*Requesting program interpreter: \(.*\)]/\1/p')
	if [ -n "$interp" ] && [ ! -e "$root$interp" ]; then
		mkdir -p "$root${interp%/*}"
		cp -L "$(lib_find "${interp##*/}")" "$root$interp"
	fi
	for lib in $($readelf -d "$1" 2>/dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		dest=$root/lib/aarch64-linux-gnu/$lib
		[ -e "$dest" ] && continue
		mkdir -p "${dest%/*}"
		cp -L "$(lib_find "$lib")" "$dest"
		elf_deps "$dest"
	done
}

for spec in "$@"; do
	guest=${spec%%=*} host=${spec#*=}
	mkdir -p "$root$(dirname "$guest")"
	case $host in
	*/) mkdir -p "$root$guest" && cp -R "$host." "$root$guest/" ;;
	*) cp -L "$host" "$root$guest"; elf_deps "$root$guest" ;;
	esac
done
mkdir -p "$root/dev" "$root/proc" "$root/sys" "$root/tmp" "$root/src"

# Sorted names and root ownership: the same inputs give the same archive.
# Renamed into place: a QEMU already booting keeps the archive it opened.
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) | gzip -n -1 > "$root.gz"
mv "$root.gz" "$out"
