#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# job-discovery.bats: a new process learns its job from its parent's open
# descriptor of the job directory (preload/output/jobfd.c), never from a name
# in a directory others may write in; the crumbs in the private runtime
# directory are the fallback, for a parent that closed every descriptor or
# whose descriptors may not be read, made by a process only when it starts a
# child or an image (docs/security.md, "Class 2c").

load helpers

setup() {
	need_perf
	job_setup
}

SCRIPT='for i in 1 2 3; do x=$(/bin/true 2>&1); echo "[$x]"; done'

need_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (a second user, mounts)"
}

# strace_pids_of TRACE PATH: the pids (strace -f -o) that exec PATH (its result may be on a
# line of its own: "<... execve resumed>").
strace_pids_of() {
	grep -E "^[0-9]+ +execve\(\"$2\"" "$1" | cut -d' ' -f1 | sort -u | tr '\n' ' '
}

# strace_squeeze TRACE: one space after each line's pid (strace pads a pid to 5 columns:
# "6723  execve(", where pids are short, as on a machine just booted).
strace_squeeze() {
	sed -i -E 's/^([0-9]+) +/\1 /' "$1"
}

# programs DIR...: the programs of the reports in DIR, sorted, on one line, the shell
# as "sh" and python as "python3".
programs() {
	local dir

	for dir; do cat "$dir"*.json; done | jq -r .program | sed -e "s/^$(sh_name)\$/sh/" -e 's/^python3.*/python3/' |
		sort | tr '\n' ' '
}

@test "another user's pfshim-0 and 2,000 names beside it: only the root looks in /dev/shm" {
	need_root
	need_unshare -m
	command -v strace >/dev/null || skip "no strace"
	without=$(sh -c "$SCRIPT" 2>&1)
	# uid 65534 takes /dev/shm/pfshim-0 and 2,000 names a squatted root must pass over
	# (before, every process of root's job read all of /dev/shm at its start: 200 commands
	# went from 0.3 s to 6.2 s with 20,000 names). strace -y names each dirfd's path.
	run -0 --separate-stderr timeout 120 unshare -m sh -c '
		mount --make-rprivate / && mount -t tmpfs -o mode=1777 tmpfs /dev/shm &&
		setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "mkdir -m 0777 /dev/shm/pfshim-0 &&
			cd /dev/shm && seq -f pfshim-0.%06g 2000 | xargs mkdir" &&
		strace -f -y -o "$3" -e trace=openat,getdents64,readlinkat,symlinkat,mkdirat \
			env -u XDG_RUNTIME_DIR LD_PRELOAD="$1" PFSHIM_EVENTS=task-clock sh -c "$2" &&
		ls -d /dev/shm/pfshim-0.*/job-*/*.json | wc -l >&2' sh "$SHIM" "$SCRIPT" trace
	[ "$output" = "$without" ]
	[[ "$stderr" == *"pfshim: /dev/shm/pfshim-0 is not usable (it belongs to another user; another user may have made it)"* ]]
	[ "$(tail -1 <<<"$stderr")" = 6 ]	# 3 subshells, 3 /bin/true: all in root's job
	# a lookup in /dev/shm itself: its component, or a call on it as the directory
	root=$(head -1 trace | cut -d' ' -f1)
	[ "$(grep -E '"shm"|</dev/shm>,' trace | cut -d' ' -f1 | sort -u)" = "$root" ]
	# the root and 3 subshells, each of which execs /bin/true
	[ "$(cut -d' ' -f1 trace | sort -u | wc -l)" -eq 4 ]
}

@test "a descendant whose XDG_RUNTIME_DIR names another directory still reports into its root's job" {
	mkdir -m 0700 other
	run -0 --separate-stderr under sh -c \
		'XDG_RUNTIME_DIR=$PWD/other /bin/true; XDG_RUNTIME_DIR=$PWD/other sh -c /bin/true'
	[ -z "$output" ]
	dir=$(job_of "$stderr")
	[[ "$dir" == "$RUN"/pfshim/job-* ]]
	[ "$(programs "$dir")" = "sh true true " ]
	[ -z "$(ls -A other)" ]
}

@test "a parent that closed every descriptor: its children find the job by the crumbs" {
	[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
	py='import os; os.closerange(3, 1 << 20); os.system("x=$(/bin/true 2>&1); echo \"[$x]\"")'
	without=$(/usr/bin/python3 -c "$py" 2>&1)
	run -0 --separate-stderr under sh -c '/usr/bin/python3 -c "$0"' "$py"
	[ "$output" = "$without" ]
	[ "$output" = "[]" ]
	dir=$(job_of "$stderr")
	[[ "$dir" == "$RUN"/pfshim/job-* ]]
	# python (its report by the job directory's path), system()'s two shells, /bin/true
	[ "$(programs "$dir")" = "python3 sh sh true " ]
	[ -z "$(find "$RUN/pfshim" -mindepth 1 -maxdepth 1 -name 'p*')" ]
}

@test "a descendant that starts no child touches the runtime directory neither at start nor at exit" {
	command -v strace >/dev/null || skip "no strace"
	# the shell's vfork child leaves the shell's crumb (once); /bin/true starts nothing, so it
	# reads no /proc/PID/stat and makes no crumb: before, every process did both at start and
	# unlinked its crumb at exit
	run -0 --separate-stderr timeout 60 strace -f -o trace -e trace=execve,openat,symlinkat,unlinkat \
		env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock sh -c '/bin/true; /bin/true; :'
	strace_squeeze trace
	dir=$(job_of "$stderr")
	[ "$(programs "$dir")" = "true true " ]
	trues=$(strace_pids_of trace /bin/true)
	[ "$(wc -w <<<"$trues")" -eq 2 ]
	for pid in $trues; do
		# what the image did: its lines from its exec on (before it, the shell's vfork child)
		sed -n "/^$pid execve(\"\/bin\/true\"/,\$p" trace | grep "^$pid " >"image.$pid"
		! grep -E "^$pid (symlinkat|unlinkat|openat\(AT_FDCWD, \"/proc/[a-z0-9]+/stat\")" "image.$pid" || false
	done
	# the shell's crumb, made once for both, gone with it
	[ "$(grep -c '^[0-9]* symlinkat(' trace)" -eq 1 ]
	[ -z "$(find "$RUN/pfshim" -mindepth 1 -maxdepth 1 -name 'p*')" ]
}

@test "a parent that closed every descriptor, then posix_spawn and a vfork child's exec: the job by its crumb" {
	[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
	# os.posix_spawn is posix_spawn(); subprocess's child execs by execve() (a vfork
	# child where Python can: it leaves its parent's crumb, the parent's memory being its own)
	py='import os, subprocess; os.closerange(3, 1 << 20)
os.waitpid(os.posix_spawn("/bin/true", ["true"], os.environ), 0)
subprocess.run(["/bin/true"])'
	run -0 --separate-stderr under sh -c '/usr/bin/python3 -c "$0"' "$py"
	[ -z "$output" ]
	dir=$(job_of "$stderr")
	[[ "$dir" == "$RUN"/pfshim/job-* ]]
	[ "$(programs "$dir")" = "python3 true true " ]
	[ -z "$(find "$RUN/pfshim" -mindepth 1 -maxdepth 1 -name 'p*')" ]
}

@test "a parent that is not dumpable (its descriptors unreadable): its children find the job by the crumbs" {
	need_root
	need_unshare -m
	[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
	# as uid 65534: root may read any process's descriptors, a user not those of a process
	# that made itself not dumpable (PR_SET_DUMPABLE is 4)
	py='import ctypes, os; ctypes.CDLL(None).prctl(4, 0, 0, 0, 0); os.system("x=$(/bin/true 2>&1); echo \"[$x]\"")'
	run -0 --separate-stderr timeout 120 unshare -m sh -c '
		mount --make-rprivate / && mount -t tmpfs -o mode=1777 tmpfs /dev/shm &&
		setpriv --reuid=65534 --regid=65534 --clear-groups env -u XDG_RUNTIME_DIR \
			LD_PRELOAD="$1" PFSHIM_EVENTS=task-clock sh -c "/usr/bin/python3 -c \"\$0\"" "$2" &&
		cp -r /dev/shm/pfshim-65534 "$3"' sh "$SHIM" "$py" "$BATS_TEST_TMPDIR/shm"
	[ "$output" = "[]" ]
	[ "$(programs "$BATS_TEST_TMPDIR"/shm/job-*/)" = "python3 sh sh true " ]
}

@test "no room for the shim's descriptors (a limit of 200): the job by the crumbs, as before" {
	without=$(sh -c "$SCRIPT" 2>&1)
	run -0 --separate-stderr sh -c 'ulimit -n 200 && exec env LD_PRELOAD="$1" \
		PFSHIM_EVENTS=task-clock sh -c "$2"' sh "$SHIM" "$SCRIPT"
	[ "$output" = "$without" ]
	dir=$(job_of "$stderr")
	[[ "$dir" == "$RUN"/pfshim/job-* ]]
	[ "$(programs "$dir")" = "sh sh sh true true true " ]
}
