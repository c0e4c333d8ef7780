#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Report files and streams that no host or other user can turn against the
# program or its users (docs/security.md, classes 1, 2, 3, 5, 6). Each test
# compares the run with the shim against the same run without it.

load helpers

NOBODY=65534

need_root() {
	[ "$(id -u)" -eq 0 ] || skip "needs root (setuid files, chown, mounts)"
}

# A directory every user may write in, sticky, like /tmp.
shared_dir() {
	d="$BATS_TEST_TMPDIR/shared"
	mkdir -m 1777 "$d"
	chmod 1777 "$BATS_TEST_TMPDIR" "$d"
	echo "$d"
}

# ---- class 1: secure-execution mode

teardown() {
	[ -z "${SUID_DIR:-}" ] || rm -rf "$SUID_DIR"
	[ -z "${SHARED_TMP:-}" ] || rm -rf "$SHARED_TMP"
}

# suid_dir: a directory directly under /tmp (every user must reach it) holding
# "suid", a setuid-root copy of first_fd, and an overlay's upper layer that
# puts the shim in /etc/ld.so.preload (mounted only inside `unshare -m`).
suid_dir() {
	SUID_DIR=$(mktemp -d /tmp/pfshim-suid.XXXXXX)
	chmod 755 "$SUID_DIR"
	cp "$PROGS/first_fd" "$SUID_DIR/suid"
	chown root:root "$SUID_DIR/suid"
	chmod 4755 "$SUID_DIR/suid"
	mkdir "$SUID_DIR/up" "$SUID_DIR/work"
	echo "$SHIM" >"$SUID_DIR/up/ld.so.preload"
}

@test "a setuid program run by another user: the shim stays inert, whatever PFSHIM_* say" {
	need_root
	need_unshare -m
	suid_dir
	dir=$SUID_DIR
	cp "$PROGS/first_fd" "$dir/plain"
	mkdir -m 1777 "$dir/out"
	want=$(setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$dir/suid")
	run timeout 120 unshare -m sh -c '
		mount --make-rprivate / &&
		mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/up,workdir=$1/work" /etc &&
		for prog in plain suid; do
			echo "$prog: $(PFSHIM_OUTPUT="$1/out/$prog.%p" PFSHIM_FORMAT=json \
				setpriv --reuid=65534 --regid=65534 --clear-groups "$1/$prog" 2>&1)"
		done' sh "$dir"
	echo "$output"
	[ "$status" -eq 0 ]
	programs=$(cat "$dir"/out/* | jq -r .program | sort | tr '\n' ' ')
	echo "reports from: $programs"
	# The same program without the setuid bit reports (the shim is there, and
	# setpriv's exec reports too), as the user who ran it...
	[ "$(stat -c %U "$dir"/out/plain.*)" = nobody ]
	[[ " $programs" == *" plain "* ]]
	# ... the setuid one prints what it prints without the shim, and reports nowhere.
	[ "$(printf '%s\n' "$output" | grep '^suid: ')" = "suid: $want" ]
	[[ " $programs" != *" suid "* ]]
	[ -z "$(find "$dir/out" -type f -user root)" ]
}

@test "a setuid program with PFSHIM_OUTPUT unset makes no job directory where the user's XDG_RUNTIME_DIR points" {
	need_root
	need_unshare -m
	suid_dir
	dir=$SUID_DIR
	# The user's runtime directory, and a target root must not touch.
	mkdir -m 0700 "$dir/run"
	chown $NOBODY "$dir/run"
	mkdir -m 0755 "$dir/etc"	# root's: the user may not write here, but may name it
	want=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$dir/suid")
	run timeout 120 unshare -m sh -c '
		mount --make-rprivate / &&
		mount -t overlay overlay -o "lowerdir=/etc,upperdir=$1/up,workdir=$1/work" /etc &&
		PFSHIM_DISABLE=1 XDG_RUNTIME_DIR="$1/run" \
			setpriv --reuid=65534 --regid=65534 --clear-groups env -u PFSHIM_DISABLE \
			sh -c "\"\$0\" ; \"\$0\"" "$1/suid" 2>&1 &&
		PFSHIM_DISABLE=1 XDG_RUNTIME_DIR="$1/etc" \
			setpriv --reuid=65534 --regid=65534 --clear-groups env -u PFSHIM_DISABLE \
			"$1/suid" 2>&1' sh "$dir"
	echo "$output"
	[ "$status" -eq 0 ]
	# The shell (uid 65534, not setuid) is the job's root and made the runtime directory;
	# its setuid children, root, made nothing anywhere.
	[ "$(stat -c %U "$dir/run/pfshim")" = nobody ]
	[ -z "$(find "$dir/run" -mindepth 1 -user root)" ]
	[ "$(printf '%s\n' "$output" | grep -c "^$want\$")" -eq 3 ]
	! grep -q "descendant" <<<"$output" || false
	# Run alone, the setuid program would be a job's root: it makes nothing where it is told.
	[ -z "$(ls -A "$dir/etc")" ]
}

# sgid_dir: SUID_DIR, a directory directly under /tmp holding "plain", a
# copy of first_fd linked with a copy of the shim (DT_NEEDED, absolute RUNPATH: ld.so
# follows it in secure-execution mode too, where it ignores LD_PRELOAD with
# a slash), and "sgid", the same set-group-ID, which the user running the
# suite executes in secure-execution mode (AT_SECURE) with no root and no
# mount: the group is one the runner is not (root: group 0, run as 65534;
# another user: a supplementary group of theirs, chgrp needs membership).
# AS: the command prefix that runs them so. Skips, saying why, where no
# such group is or the file system ignores the bit (nosuid).
sgid_dir() {
	local g
	command -v cc >/dev/null || skip "no C compiler (cc) to link a program with the shim"
	if [ "$(id -u)" -eq 0 ]; then
		g=0
		AS=(setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups)
	else
		g=$(id -G | tr ' ' '\n' | grep -vx "$(id -g)" | head -1)
		[ -n "$g" ] || skip "$(id -un) has no group but the primary one: a setgid program of theirs would run with their own gid, not in secure-execution mode"
		AS=()
	fi
	SUID_DIR=$(mktemp -d /tmp/pfshim-sgid.XXXXXX)
	chmod 755 "$SUID_DIR"
	cp "$SHIM_LIB" "$SUID_DIR/libpfshim.so.1"
	cc -O1 -o "$SUID_DIR/plain" "$ROOT/tests/progs/first_fd.c" -Wl,--no-as-needed "$SUID_DIR/libpfshim.so.1" \
		-Wl,-rpath,"$SUID_DIR"
	cp "$SUID_DIR/plain" "$SUID_DIR/sgid"
	cp "$(command -v id)" "$SUID_DIR/id"
	chgrp "$g" "$SUID_DIR/sgid" "$SUID_DIR/id"
	chmod 2755 "$SUID_DIR/sgid" "$SUID_DIR/id"
	[ "$("${AS[@]}" "$SUID_DIR/id" -g)" = "$g" ] ||
		skip "$SUID_DIR ignores the setgid bit (a nosuid mount): no secure-execution mode to test"
}

@test "a setgid program linked with the shim, run by an ordinary user (no root, no mount): the shim stays inert" {
	skip_under_sanitizer "the program links the shim without the sanitizer's runtime in front"
	sgid_dir
	dir=$SUID_DIR
	mkdir -m 1777 "$dir/out"
	want=$(timeout 60 "${AS[@]}" "$dir/sgid")
	for prog in plain sgid; do
		run timeout 60 env PFSHIM_OUTPUT="$dir/out/$prog.%p" PFSHIM_FORMAT=json \
			PFSHIM_EVENTS=task-clock "${AS[@]}" "$dir/$prog"
		echo "$prog: $status $output"
		[ "$status" -eq 0 ]
		[ "$prog" = plain ] || [ "$output" = "$want" ]
	done
	# The same program without the bit obeys PFSHIM_OUTPUT: the shim is there ...
	[ "$(jq -r .program "$dir"/out/plain.*)" = plain ]
	# ... the setgid one prints what it prints with no PFSHIM_* at all, and reports nowhere.
	[ -z "$(find "$dir/out" -name 'sgid.*')" ]
}

# ---- class 2: report files in shared directories

@test "a symlink another user planted in a sticky directory is not followed" {
	need_root
	d=$(shared_dir)
	secret="$BATS_TEST_TMPDIR/secret"
	echo "root only" >"$secret"
	chmod 600 "$secret"
	ln -s "$secret" "$d/report"
	chown -h $NOBODY:$NOBODY "$d/report"
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock \
		PFSHIM_OUTPUT="$d/report" "$PROGS/exit_how" exit 5
	[ "$status" -eq 5 ]
	[ "$output" = out ]
	[ "$(cat "$secret")" = "root only" ]
	[ "$(printf '%s\n' "$stderr" | grep -c "^pfshim: cannot write '$d/report' (ELOOP: a symbolic link another user made")" -eq 1 ]
	[[ "$stderr" == *"msec task-clock"* ]]
}

@test "another user's file or FIFO in a sticky directory gets no report; our own does" {
	need_root
	d=$(shared_dir)
	: >"$d/theirs"
	chown $NOBODY:$NOBODY "$d/theirs"
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock \
		PFSHIM_OUTPUT="$d/theirs" "$PROGS/exit_how" exit 0
	[ "$status" -eq 0 ]
	[ ! -s "$d/theirs" ]
	[[ "$stderr" == *"(EACCES: another user's file in a shared directory)"* ]]
	# Their FIFO, with them reading it: still nothing for them.
	mkfifo "$d/fifo"
	chown $NOBODY:$NOBODY "$d/fifo"
	timeout 10 cat "$d/fifo" >"$BATS_TEST_TMPDIR/stolen" &
	reader=$!
	sleep 0.2
	env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock PFSHIM_OUTPUT="$d/fifo" /bin/true 2>/dev/null
	kill "$reader" 2>/dev/null || true
	wait "$reader" || true
	[ ! -s "$BATS_TEST_TMPDIR/stolen" ]
	# Ours: appended, in one piece.
	: >"$d/mine"
	shim PFSHIM_OUTPUT="$d/mine" /bin/true
	[ "$(jq -s length "$d/mine")" -eq 1 ]
}

@test "a FIFO nobody reads does not hang the exit: one warning, the report on stderr" {
	mkfifo "$BATS_TEST_TMPDIR/fifo"
	run --separate-stderr timeout 20 env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock \
		PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/fifo" "$PROGS/exit_how" exit 3
	[ "$status" -eq 3 ]
	[ "$output" = out ]
	[ "$(printf '%s\n' "$stderr" | grep -c "(ENXIO: a FIFO nobody reads); report written to stderr")" -eq 1 ]
	[[ "$stderr" == *"msec task-clock"* ]]
}

@test "a new report file is created 0644 under the umask, alone in its directory" {
	d="$BATS_TEST_TMPDIR/out"
	mkdir "$d"
	(umask 027; shim PFSHIM_OUTPUT="$d/r.%p" /bin/true)
	[ "$(ls -A "$d" | wc -l)" -eq 1 ]
	[ "$(stat -c %a "$d"/r.*)" = 640 ]
}

@test "a host name with '/' and '..' cannot climb out of the template's directory" {
	need_root
	need_unshare -u
	d="$BATS_TEST_TMPDIR/a/b"
	mkdir -p "$d"
	command -v python3 >/dev/null || skip "python3 not installed"
	# hostname(1) refuses '/', the kernel does not.
	run timeout 120 unshare -u sh -c 'python3 -c "import socket; socket.sethostname(\"../../evil\")" &&
		env LD_PRELOAD="$0" PFSHIM_EVENTS=task-clock PFSHIM_OUTPUT="$1/%h.txt" /bin/true' \
		"$SHIM" "$d"
	[ "$status" -eq 0 ]
	[ ! -e "$BATS_TEST_TMPDIR/evil.txt" ]
	[ -s "$d/_._.._evil.txt" ]
}

@test "control bytes in names reach no terminal, in any format" {
	name=$(printf 'evil\033]0;owned\007\302\233x')
	cp "$PROGS/exit_how" "$BATS_TEST_TMPDIR/$name"
	for format in text csv json; do
		env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock PFSHIM_FORMAT=$format \
			PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/r.$format" "$BATS_TEST_TMPDIR/$name" exit 0 >/dev/null
		! LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]\|\302[\200-\237]')" \
			"$BATS_TEST_TMPDIR/r.$format" || false
	done
	grep -q "'evil?]0;owned??x'" "$BATS_TEST_TMPDIR/r.text"
	grep -q ',evil?]0;owned??x,' "$BATS_TEST_TMPDIR/r.csv"
	[ "$(jq -r .program "$BATS_TEST_TMPDIR/r.json")" = "$name" ]
}

# ---- class 2: directories another user controls (preload/output/trusted.c)

# as_nobody COMMAND...: COMMAND as uid 65534, without the shim.
as_nobody() {
	setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$@"
}

# reachable_shared: a sticky directory every user may write in and reach (under /tmp).
reachable_shared() {
	SHARED_TMP=$(mktemp -d /tmp/pfshim-shared.XXXXXX)
	chmod 1777 "$SHARED_TMP"
}

@test "root with another user's XDG_RUNTIME_DIR (sudo -E) makes nothing there" {
	need_root
	reachable_shared
	d=$SHARED_TMP
	mkdir -m 0700 "$d/xdg" "$d/chosen"
	chown $NOBODY "$d/xdg" "$d/chosen"
	script='for i in 1 2 3; do x=$(/bin/true 2>&1); echo "[$x]"; done'
	without=$(XDG_RUNTIME_DIR="$d/xdg" sh -c "$script" 2>&1)
	# the user swaps their runtime directory's pfshim for a link of theirs, again and again
	# (for 2 minutes at most: a test that fails before its kill leaves no loop behind)
	timeout 120 setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups \
		sh -c 'while :; do rm -rf "$1/pfshim"; ln -sfn "$2" "$1/pfshim"; done' sh \
		"$d/xdg" "$d/chosen" </dev/null >/dev/null 2>&1 &
	swapper=$!
	run -0 --separate-stderr env XDG_RUNTIME_DIR="$d/xdg" LD_PRELOAD="$SHIM" \
		PFSHIM_EVENTS=task-clock sh -c "$script"
	kill $swapper
	wait $swapper || true
	[ "$output" = "$without" ]
	# nothing of root's in the user's directories: the job went to root's own
	[ -z "$(find "$d/xdg" "$d/chosen" -user root)" ]
	[ -z "$(ls -A "$d/chosen")" ]
	dir=$(job_of "$stderr")
	[[ "$dir" == /dev/shm/pfshim-0/job-* ]]
	[ "$(ls "$dir" | wc -l)" -eq 6 ]	# 3 subshells, 3 /bin/true
	rm -r "$dir"
}

# The series file names of the next four seconds, for the pid that execs the shim, are
# planted by uid 65534 (mkfifo, or touch: a file open to all), counted from one reading of
# the clock: each name from its own reading skipped a second when planting crossed one (a
# busy machine), and the shim started in the second that had no name.
@test "PFSHIM_OUTPUT=DIR/ with PFSHIM_INTERVAL in a sticky directory: another user's FIFO or file at the series name gets nothing" {
	need_root
	reachable_shared
	d=$SHARED_TMP
	host=$(hostname)
	for plant in mkfifo touch; do
		rm -f "$d"/*
		# without the shim, the same command: silent
		run -0 timeout 20 sh -c '[ -z "$(ls -A "$1")" ]' sh "$d"
		run timeout 20 sh -c '
			now=$(date +%s)
			for t in 0 1 2 3; do
				name="$1.r-.p$(printf %07d $$).$(date -u -d "@$((now + t))" +%Y%m%dT%H%M%SZ).0.series.jsonl"
				setpriv --reuid=65534 --regid=65534 --clear-groups sh -c "$4 \"\$0\" && chmod 666 \"\$0\"" "$2/$name"
			done
			exec env LD_PRELOAD="$3" PFSHIM_FORMAT=json PFSHIM_EVENTS=task-clock \
				PFSHIM_INTERVAL=10s PFSHIM_OUTPUT="$2/" /bin/true' sh "$host" "$d" "$SHIM" "$plant"
		# no hang at exit, the exit status the program's
		[ "$status" -eq 0 ]
		# the planted names are as they were: nobody's, empty
		[ -z "$(find "$d" -name '*.series.jsonl' -user $NOBODY -type f ! -empty)" ]
		[ "$(find "$d" -name '*.series.jsonl' -user $NOBODY -type "$([ $plant = touch ] && echo f || echo p)" | wc -l)" -eq 4 ]
		if [ "$plant" = touch ]; then
			[[ "$output" == *"(EPERM: another user's file); report written to stderr"* ]]
		else
			[[ "$output" == *"(ENXIO); report written to stderr"* ]]
		fi
	done
}

@test "PAPI_OUTPUT_DIRECTORY in a sticky directory: another user's link or directory at pfshim_output gets nothing" {
	need_root
	[ -f "$BUILD/libpfshim-compat.so" ] || skip "no libpfshim-compat.so built"
	reachable_shared
	d=$SHARED_TMP
	# a program with regions: PAPI's format writes no file for one without (export/papi.c)
	as_nobody mkdir -m 0777 "$d/theirs"
	as_nobody ln -s "$d/theirs" "$d/pfshim_output"
	run -0 env LD_PRELOAD="$SHIM $BUILD/libpfshim-compat.so" PFSHIM_EVENTS=task-clock \
		PAPI_OUTPUT_DIRECTORY="$d" "$PROGS/markers_threads" 1 2 1
	[[ "$output" == *"cannot write a report into '$d/pfshim_output/' (EPERM: a symbolic link on the way belongs to another user); report written to stderr"* ]]
	[ -z "$(ls -A "$d/theirs")" ]
	# their own directory, open to all, under that name
	rm "$d/pfshim_output"
	as_nobody mkdir -m 0777 "$d/pfshim_output"
	run -0 env LD_PRELOAD="$SHIM $BUILD/libpfshim-compat.so" PFSHIM_EVENTS=task-clock \
		PAPI_OUTPUT_DIRECTORY="$d" "$PROGS/markers_threads" 1 2 1
	[[ "$output" == *"(EPERM: a directory on the way belongs to another user); report written to stderr"* ]]
	[ -z "$(ls -A "$d/pfshim_output")" ]
	# without the other user, root's own directory is made and used
	rm -r "$d/pfshim_output" "$d/theirs"
	run -0 env LD_PRELOAD="$SHIM $BUILD/libpfshim-compat.so" PFSHIM_EVENTS=task-clock \
		PAPI_OUTPUT_DIRECTORY="$d" "$PROGS/markers_threads" 1 2 1
	[ "$(find "$d/pfshim_output" -name '*.json' -user root | wc -l)" -eq 1 ]
}

@test "a template whose directory is another user's link or directory: nothing written there" {
	need_root
	reachable_shared
	d=$SHARED_TMP
	mkdir -m 0777 "$d/theirs"
	chown $NOBODY:$NOBODY "$d/theirs"
	ln -s "$d/theirs" "$d/link"
	chown -h $NOBODY:$NOBODY "$d/link"
	for out in link/r.%p.txt theirs/r.%p.txt link/r.%n.txt theirs/r.%n.txt; do
		run -0 --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock \
			PFSHIM_OUTPUT="$d/$out" "$PROGS/exit_how" exit 0
		[ "$output" = out ]
		[[ "$stderr" == *"(EPERM: a "*" on the way belongs to another user); report written to stderr"* ]]
		[[ "$stderr" == *"Performance counter stats for 'exit_how'"* ]]
		[ -z "$(ls -A "$d/theirs")" ]
	done
}

@test "another user who makes /dev/shm/pfshim-UID first does not switch the job off" {
	need_root
	unshare -m true 2>/dev/null || skip "unshare -m not possible here"
	script='for i in 1 2 3; do x=$(/bin/true 2>&1); echo "[$x]"; done'
	without=$(sh -c "$script" 2>&1)
	run -0 --separate-stderr unshare -m sh -c '
		mount --make-rprivate / && mount -t tmpfs -o mode=1777 tmpfs /dev/shm &&
		setpriv --reuid=65534 --regid=65534 --clear-groups mkdir -m 0777 /dev/shm/pfshim-0 &&
		env -u XDG_RUNTIME_DIR LD_PRELOAD="$1" PFSHIM_EVENTS=task-clock sh -c "$2" &&
		ls -A /dev/shm/pfshim-0 | wc -l >&2 &&
		ls -d /dev/shm/pfshim-0.*/job-*/*.json | wc -l >&2' sh "$SHIM" "$script"
	[ "$output" = "$without" ]
	dir=$(job_of "$stderr")
	[[ "$dir" == /dev/shm/pfshim-0.??????/job-* ]]
	[[ "$stderr" == *"pfshim: /dev/shm/pfshim-0 is not usable (it belongs to another user; another user may have made it): this user's jobs are in /dev/shm/pfshim-0."??????"; set XDG_RUNTIME_DIR to a directory of your own"* ]]
	# nothing in theirs; the job's six reports in ours
	[ "$(tail -2 <<<"$stderr")" = "$(printf '0\n6')" ]
}

# ---- class 3: never into the host's own files

@test "a server that closes our stream and opens 900 files: its files stay its own" {
	[ "$(ulimit -n)" -ge 1024 ] || skip "needs RLIMIT_NOFILE >= 1024"
	mkdir "$BATS_TEST_TMPDIR/without" "$BATS_TEST_TMPDIR/with"
	"$PROGS/fd_reuse" reopen "$BATS_TEST_TMPDIR/without" 900
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock PFSHIM_OUTPUT=stderr \
		"$PROGS/fd_reuse" reopen "$BATS_TEST_TMPDIR/with" 900
	[ "$status" -eq 0 ]
	diff -r "$BATS_TEST_TMPDIR/without" "$BATS_TEST_TMPDIR/with"
	# fd 2 is still the stderr it started with: the report goes there.
	[[ "$stderr" == *"Performance counter stats for 'fd_reuse'"* ]]
}

@test "a host that dup2()s its data file over every descriptor: the file stays its own" {
	"$PROGS/fd_reuse" dup2 "$BATS_TEST_TMPDIR/without"
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock PFSHIM_OUTPUT=stderr \
		"$PROGS/fd_reuse" dup2 "$BATS_TEST_TMPDIR/with"
	[ "$status" -eq 0 ]
	cmp "$BATS_TEST_TMPDIR/without" "$BATS_TEST_TMPDIR/with"
	[[ "$stderr" == *"Performance counter stats for 'fd_reuse'"* ]]
}

@test "at a low RLIMIT_NOFILE, a data file dup2()ed over fd 2 gets no report" {
	"$PROGS/fd_reuse" stderr "$BATS_TEST_TMPDIR/without" 2>/dev/null
	run sh -c 'ulimit -n 64 && LD_PRELOAD="$0" PFSHIM_EVENTS=task-clock exec "$1" stderr "$2"' \
		"$SHIM" "$PROGS/fd_reuse" "$BATS_TEST_TMPDIR/with"
	[ "$status" -eq 0 ]
	cmp "$BATS_TEST_TMPDIR/without" "$BATS_TEST_TMPDIR/with"
	# and with the duplicate (the default limit), the report still reaches the real stderr
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock \
		"$PROGS/fd_reuse" stderr "$BATS_TEST_TMPDIR/with2"
	cmp "$BATS_TEST_TMPDIR/without" "$BATS_TEST_TMPDIR/with2"
	[[ "$stderr" == *"msec task-clock"* ]]
}

@test "started with stderr closed, no warning lands in the program's own fd 2" {
	# The report file cannot be written: its warning and the report have no stderr to go to.
	f="$BATS_TEST_TMPDIR/fd2"
	env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock PFSHIM_OUTPUT=/nonexistent/r \
		sh -c 'exec 2>"$0"; echo data >&2' "$f" 2>&-
	[ "$(cat "$f")" = data ]
}

# ---- class 5: limits

@test "a report past RLIMIT_FSIZE: no SIGXFSZ, the file as it was, the report on stderr" {
	head -c 1900 /dev/zero >"$BATS_TEST_TMPDIR/r.json"
	# ulimit -f counts 1024-byte blocks in bash: the file may grow to 2048 bytes
	# (bats' file for stderr as well: one event keeps the report short).
	run --separate-stderr bash -c 'ulimit -f 2 && LD_PRELOAD="$0" PFSHIM_FORMAT=json \
		PFSHIM_EVENTS=task-clock \
		PFSHIM_OUTPUT="$1" exec "$2" exit 0' "$SHIM" "$BATS_TEST_TMPDIR/r.json" "$PROGS/exit_how"
	[ "$status" -eq 0 ]
	[ "$output" = out ]
	[ "$(stat -c %s "$BATS_TEST_TMPDIR/r.json")" -eq 1900 ]
	[[ "$stderr" == *"cannot write '$BATS_TEST_TMPDIR/r.json' (EFBIG: past the file size limit"* ]]
	[ "$(printf '%s\n' "$stderr" | grep '^{' | jq -r .reason)" = exit ]
	# A new file past the limit (8 events: ~1.5 KB): none is left behind.
	run --separate-stderr bash -c 'ulimit -f 1 && LD_PRELOAD="$0" PFSHIM_FORMAT=json \
		PFSHIM_OUTPUT="$1" exec "$2" exit 0' "$SHIM" "$BATS_TEST_TMPDIR/new.json" "$PROGS/exit_how"
	[ "$status" -eq 0 ]
	[ ! -e "$BATS_TEST_TMPDIR/new.json" ]
	[ "$(ls -A "$BATS_TEST_TMPDIR" | grep -c pfshim-tmp)" -eq 0 ]
}

# ---- class 6: lost reports leave a trace

@test "a full disk leaves no empty or partial file; the report goes to stderr" {
	need_root
	need_unshare -m
	d="$BATS_TEST_TMPDIR/full"
	mkdir "$d"
	run --separate-stderr timeout 120 unshare -m sh -c '
		mount --make-rprivate / && mount -t tmpfs -o size=16k tmpfs "$1" &&
		{ head -c 1048576 /dev/zero >"$1/filler" 2>/dev/null; true; } &&
		LD_PRELOAD="$0" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$1/new.json" "$2" exit 0 &&
		ls -A "$1"' "$SHIM" "$d" "$PROGS/exit_how"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'out\nfiller')" ]
	[[ "$stderr" == *"cannot write '$d/new.json' (ENOSPC)"* ]]
	[ "$(printf '%s\n' "$stderr" | grep '^{' | jq -r .reason)" = exit ]
	# The same on a device that is always full.
	run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_OUTPUT=/dev/full "$PROGS/exit_how" exit 0
	[ "$status" -eq 0 ]
	[[ "$stderr" == *"cannot write '/dev/full' (ENOSPC); report written to stderr"* ]]
}

# coreutils' programs close stdout and stderr at exit (close_stdout), before the report: a
# target that cannot be written at start (a missing directory, another's) keeps a copy of
# stderr for its fallback, else the report and the line why went nowhere; a writable target
# costs no descriptor.
@test "an unwritable output file, a program that closes stderr at exit: the report still on stderr" {
	for target in "$BATS_TEST_TMPDIR/missing/x.txt" "$BATS_TEST_TMPDIR/missing/%p.txt"; do
		run --separate-stderr env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_OUTPUT="$target" \
			/bin/echo ok
		[ "$status" -eq 0 ]
		[ "$output" = ok ]
		[[ "$stderr" == *"cannot write '$BATS_TEST_TMPDIR/missing/"*"' (ENOENT); report written to stderr"* ]]
		[ "$(printf '%s\n' "$stderr" | grep '^{' | jq -r '.program + " " + .reason')" = "echo exit" ]
	done
	# another user's directory: refused to an ordinary user
	if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
		mkdir -m 0755 "$BATS_TEST_TMPDIR/root-only"
		chmod o+x "$BATS_TEST_TMPDIR" "$(dirname "$BATS_TEST_TMPDIR")"
		run --separate-stderr runuser -u nobody -- env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json \
			PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/root-only/x.json" /bin/cat /dev/null
		[ "$status" -eq 0 ]
		[[ "$stderr" == *"(EACCES); report written to stderr"* ]]
		[ "$(printf '%s\n' "$stderr" | grep '^{' | jq -r .program)" = cat ]
	fi
	# a writable one: no descriptor taken for it
	run -0 strace -f -e trace=fcntl,dup,dup2,dup3 -o "$BATS_TEST_TMPDIR/trace" env LD_PRELOAD="$SHIM" \
		PFSHIM_OUTPUT="$BATS_TEST_TMPDIR/x.txt" /bin/echo ok
	! grep -E 'fcntl\(2, F_DUPFD|dup[23]?\(2[,)]' "$BATS_TEST_TMPDIR/trace"
	grep -q 'page-faults' "$BATS_TEST_TMPDIR/x.txt"
}

@test "a full non-blocking stderr pipe: a slow reader still gets the report" {
	# Without the shim: the filler only.
	"$PROGS/full_stderr" 2>&1 >/dev/null | { sleep 0.5; wc -c; } >"$BATS_TEST_TMPDIR/without"
	filled=$(cat "$BATS_TEST_TMPDIR/without")
	env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_EVENTS=task-clock "$PROGS/full_stderr" \
		2>&1 >/dev/null | { sleep 0.5; cat; } >"$BATS_TEST_TMPDIR/with"
	[ "$(tr -d '\n' <"$BATS_TEST_TMPDIR/with" | jq -r .reason)" = exit ]
	[ "$(grep -c . "$BATS_TEST_TMPDIR/with")" -eq 1 ]
	[ "$(($(wc -c <"$BATS_TEST_TMPDIR/with") - $(grep . "$BATS_TEST_TMPDIR/with" | wc -c)))" -eq "$filled" ]
}

@test "a full non-blocking stderr pipe nobody reads: the exit does not hang" {
	# The reader reads only once the program has exited: the report is given up.
	done="$BATS_TEST_TMPDIR/done"
	{ env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_EVENTS=task-clock "$PROGS/full_stderr" \
		2>&1 >/dev/null; echo $? >"$done"; } |
		{ while [ ! -e "$done" ]; do sleep 0.1; done; cat; } >"$BATS_TEST_TMPDIR/with"
	[ "$(cat "$done")" -eq 0 ]
	[ "$(grep -c . "$BATS_TEST_TMPDIR/with")" -eq 0 ]
}

@test "counters the program closed are reported closed-by-program, not not-counted" {
	# Every descriptor is the program's: no report file can be opened, stderr it is.
	# soft = hard: a soft limit under the hard one puts them above it, out of the program's reach
	ulimit -n 1024
	env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_EVENTS=task-clock,page-faults \
		"$PROGS/fd_reuse" dup2 "$BATS_TEST_TMPDIR/data" 2>&1 | grep '^{' >"$REPORTS"
	[ "$(field task-clock status)" = closed-by-program ]
	[ "$(field page-faults status)" = closed-by-program ]
	[ "$(field page-faults value)" = null ]
	run env LD_PRELOAD="$SHIM" PFSHIM_EVENTS=task-clock "$PROGS/fd_reuse" dup2 "$BATS_TEST_TMPDIR/data"
	[[ "$output" == *"<closed by program>     task-clock"* ]]	# the name in its column
	# pfshim report says so too, in its column, not <not counted>
	run -0 "$BUILD/pfshim" report "$REPORTS"
	grep -E "^ fd_reuse +1 <closed by program> <closed by program>$" <<<"$output"
	grep -qxF " pfshim: 1 image's program closed pfshim's counters (fd_reuse): what it counted of task-clock, page-faults is in no row" <<<"$output"
	[ "$("$BUILD/pfshim" report --json "$REPORTS" | jq '[.events[].closed] == [1, 1]')" = true ]
	# beside an image of the same program that counted, the row has a sum: the line says what it lacks
	env LD_PRELOAD="$SHIM" PFSHIM_FORMAT=json PFSHIM_EVENTS=task-clock,page-faults PFSHIM_OUTPUT=stdout \
		/bin/true | jq -c '.program = "fd_reuse" | .pid = 1' >>"$REPORTS"
	run -0 "$BUILD/pfshim" report "$REPORTS"
	grep -E "^ fd_reuse +2 +[0-9.]+ +[0-9,]+$" <<<"$output"
	grep -qxF " pfshim: 1 image's program closed pfshim's counters (fd_reuse): what it counted of task-clock, page-faults is in no row" <<<"$output"
	# untouched counters are counted as ever
	shim PFSHIM_EVENTS=task-clock /bin/true
	[ "$(field task-clock status '.program == "true"')" = counted ]
}
