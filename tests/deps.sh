#!/bin/sh
# SPDX-License-Identifier: MIT
# deps.sh PACKAGE...: make sure these Debian packages are installed.
# As root, missing ones are installed with apt-get (the lists are refreshed
# once if the first attempt fails), after any other apt-get holding the
# locks; otherwise this names what to install.
# With no arguments: what `make check` needs on the build machine.
set -eu
[ $# -gt 0 ] || set -- libcmocka-dev bats jq pkg-config libjansson-dev g++ gfortran likwid \
	libpapi-dev papi-tools openmpi-bin libopenmpi-dev strace python3-prometheus-client libpfm4 libpfm4-dev python3 linux-perf \
	slurm-wlm munge

missing=
for p in "$@"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "pfshim: missing test dependencies; install them with:" >&2
	echo "  sudo apt-get install --no-install-recommends$missing" >&2
	exit 1
fi
# apt_get ARGS...: apt-get ARGS, quiet, after any other apt-get or dpkg
# (tests/dpkg-wait.sh: 10 minutes at most each).
. "$(dirname "$0")/dpkg-wait.sh"
apt_get() {
	dpkg_wait apt-get -q -o DPkg::Lock::Timeout=600 "$@"
}

echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt_get install -y --no-install-recommends $missing 2>/dev/null || {
	apt_get update
	apt_get install -y --no-install-recommends $missing
}
