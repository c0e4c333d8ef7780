# SPDX-License-Identifier: MIT
# dpkg-wait.sh, sourced (sh or bash): dpkg_wait COMMAND..., an apt-get or
# dpkg command run after any other apt-get or dpkg (unattended-upgrades, a
# second make) holding the locks, rather than failing at once. apt-get
# waits for the dpkg lock itself when given -o DPkg::Lock::Timeout, but
# takes the package lists' and the archives' locks without waiting (apt
# 2.6, measured), and dpkg waits for none: a "Could not get lock" or "was
# locked by another process" is tried again every 5 s, DPKG_WAIT_TRIES
# times (120: 10 minutes). Its output is dropped; its error printed when it
# fails. Returns 0, 75 (EX_TEMPFAIL) when the lock was still held at the
# end, or 1.
dpkg_wait() {
	dpkg_wait_tries=0
	until dpkg_wait_err=$("$@" 2>&1 >/dev/null); do
		case $dpkg_wait_err in
		*"Could not get lock"* | *"was locked by another process"*) ;;
		*)
			printf '%s\n' "$dpkg_wait_err" >&2
			return 1
			;;
		esac
		if [ "$dpkg_wait_tries" -ge "${DPKG_WAIT_TRIES:-120}" ]; then
			printf '%s\n' "$dpkg_wait_err" >&2
			return 75
		fi
		[ "$dpkg_wait_tries" -gt 0 ] || echo "waiting for another apt-get or dpkg to finish"
		dpkg_wait_tries=$((dpkg_wait_tries + 1))
		sleep 5
	done
}
