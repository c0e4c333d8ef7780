/* SPDX-License-Identifier: MIT */
/*
 * fd.c: keep the shim's descriptors high, out of the host program's way: a
 * shell's `exec 3>f` dup2()s over fd 3 without asking, and a program may
 * expect open() to return the lowest number it would get without us. Our
 * writes must not signal the host (fd_write_bounded), nor land in a file the
 * host opened at a number that used to be a standard stream (fd_stream_*).
 */
#include "preload/fd.h"

#include "preload/prefault.h"
#include "preload/sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/uio.h>
#include <unistd.h>

/*
 * The descriptor budget. The shim's descriptors take numbers only in a band
 * at the top of the host's table, [top - top/4, top) with top =
 * min(RLIMIT_NOFILE soft limit, 1024): at most a quarter of the numbers, so
 * the program keeps the three quarters below whole, its first open() still
 * returns 3, and no shim descriptor ever sits where a program expects its own.
 * 1024, not the limit: a number past FD_SETSIZE would be a program's trouble
 * with select(), and a table grown to a million entries costs it memory.
 * Under FD_BAND_MIN_LIMIT there is no band: taking even a few numbers of a
 * table that small would cost the program files it can open (issue 8,
 * class 4: at limit 16 the program could hold 8 files instead of 12), so the
 * shim takes none there and counts nothing (process.c says so), unless the
 * hard limit lets the totals live above the soft one (fd_move_away).
 */
#define FD_TABLE_TOP		1024
#define FD_BAND_MIN_LIMIT	256

/*
 * RLIMIT_NOFILE as read once while held (fd_limits_hold()): each move asked
 * the kernel twice, 14 of a small process's system calls at start. Only
 * the program changes the limits, and none of its code runs meanwhile; the
 * shim's own raise (fd_dup_above_limit) puts the value it read back. The
 * holding thread's own: the interval thread, started inside the hold,
 * reads the kernel's as before and shares nothing with it.
 */
static __thread struct {
	bool held, read;
	int ret, err;
	struct rlimit rl;
} nofile __attribute__((tls_model("initial-exec")));

void fd_limits_hold(void)
{
	nofile.held = true;
	nofile.read = false;
}

void fd_limits_release(void)
{
	nofile.held = false;
}

static int nofile_get(struct rlimit *rl)
{
	if (!nofile.held)
		return getrlimit(RLIMIT_NOFILE, rl);
	if (!nofile.read) {
		nofile.ret = getrlimit(RLIMIT_NOFILE, &nofile.rl);
		nofile.err = errno;
		nofile.read = true;
	}
	*rl = nofile.rl;
	if (nofile.ret < 0)
		errno = nofile.err;
	return nofile.ret;
}

int fd_band(int *lo, int *hi)
{
	struct rlimit rl;
	rlim_t top = FD_TABLE_TOP;

	if (nofile_get(&rl) == 0 && rl.rlim_cur < top)
		top = rl.rlim_cur;
	if (top < FD_BAND_MIN_LIMIT)
		return 0;
	*hi = (int)top;
	*lo = (int)(top - top / 4);
	return *hi - *lo;
}

static int fd_floor(void)
{
	int lo, hi;

	return fd_band(&lo, &hi) ? lo : -1;
}

int fd_dup_high(int fd)
{
	int floor = fd_floor();

	return floor < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, floor);
}

int fd_move_high(int fd)
{
	int floor = fd_floor();
	int high = floor < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, floor);

	close(fd);
	return high;
}

/*
 * Above the soft limit, where the program's open() never reaches and its
 * dup2() cannot (EBADF past the limit), a descriptor costs the program
 * nothing. The kernel checks the limit only when it hands out a number: it
 * is raised for the one F_DUPFD and put back at once. So only from a
 * single-threaded moment (the constructor, a fork child), only while the
 * soft limit is at most FD_TABLE_TOP (a table grown far up costs memory),
 * and only where the hard limit leaves room.
 */
#define FD_ABOVE_ROOM 128

static bool fd_room_above(struct rlimit *rl)
{
	return nofile_get(rl) == 0 && rl->rlim_cur <= FD_TABLE_TOP &&
	       rl->rlim_cur < rl->rlim_max;
}

static int fd_dup_above_limit(int fd)
{
	struct rlimit rl, raised;
	int high;

	if (!fd_room_above(&rl))
		return -1;
	raised = rl;
	raised.rlim_cur = rl.rlim_max - rl.rlim_cur < FD_ABOVE_ROOM ? rl.rlim_max :
								       rl.rlim_cur + FD_ABOVE_ROOM;
	if (setrlimit(RLIMIT_NOFILE, &raised) < 0)
		return -1;
	high = fcntl(fd, F_DUPFD_CLOEXEC, (int)rl.rlim_cur);
	setrlimit(RLIMIT_NOFILE, &rl);
	return high;
}

int fd_dup_away(int fd)
{
	int high = fd_dup_above_limit(fd);

	return high >= 0 ? high : fd_dup_high(fd);
}

int fd_move_away(int fd)
{
	int high = fd_dup_above_limit(fd);

	if (high < 0)
		return fd_move_high(fd);
	close(fd);
	return high;
}

int fd_away_first(void)
{
	struct rlimit rl;
	int lo, hi;

	if (fd_room_above(&rl))
		return (int)rl.rlim_cur;
	return fd_band(&lo, &hi) ? lo : -1;
}

bool fd_room_away(void)
{
	struct rlimit rl;
	int lo, hi;

	return fd_room_above(&rl) || fd_band(&lo, &hi) > 0;
}

/* Milliseconds left of @wait_ms since @start, never negative. */
static int wait_left(const struct timespec *start, int wait_ms)
{
	struct timespec now;
	long spent;

	clock_gettime(CLOCK_MONOTONIC, &now);
	spent = (now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
	return spent >= wait_ms ? 0 : wait_ms - (int)spent;
}

/*
 * A full non-blocking pipe says EAGAIN at once: the reader may be slow, not
 * gone, so poll() for room, but only for @wait_ms in all: the host's exit
 * must not hang on a reader that never reads. The host set O_NONBLOCK on a
 * file description we share, so it is never changed here.
 */
static size_t write_whole(int fd, const char *buf, size_t len, int wait_ms, int *error)
{
	struct timespec start = { 0, 0 };
	size_t done = 0;

	*error = 0;
	while (done < len) {
		ssize_t n = write(fd, buf + done, len - done);
		struct pollfd pfd = { .fd = fd, .events = POLLOUT };
		int left;

		if (n > 0) {
			done += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			if (wait_ms > 0 && start.tv_sec == 0 && start.tv_nsec == 0)
				clock_gettime(CLOCK_MONOTONIC, &start);
			left = wait_ms > 0 ? wait_left(&start, wait_ms) : 0;
			if (left > 0 && (poll(&pfd, 1, left) >= 0 || errno == EINTR))
				continue;
			errno = EAGAIN;
		}
		*error = n == 0 ? EIO : errno;
		break;
	}
	return done;
}

/* Take back the signal our failed write raised, if the host had none of its own pending. */
static void take_back(int signo, const sigset_t *pending_before)
{
	static const struct timespec no_wait = { 0, 0 };
	sigset_t one;

	if (sigismember(pending_before, signo))
		return;
	sigemptyset(&one);
	sigaddset(&one, signo);
	while (sigtimedwait(&one, NULL, &no_wait) < 0 && errno == EINTR)
		;
}

/* SIGPIPE and SIGXFSZ blocked around a write of ours; the old mask, and what was pending. */
static void write_signals_hold(sigset_t *old_mask, sigset_t *pending)
{
	sigset_t ours;

	sigemptyset(&ours);
	sigaddset(&ours, SIGPIPE);
	sigaddset(&ours, SIGXFSZ);
	pthread_sigmask(SIG_BLOCK, &ours, old_mask);
	if (sigpending(pending) < 0)
		sigemptyset(pending);
}

/* The signal the write's error @err raised taken back, then the mask as it was. */
static void write_signals_release(int err, const sigset_t *old_mask, const sigset_t *pending)
{
	if (err == EPIPE)
		take_back(SIGPIPE, pending);
	if (err == EFBIG)
		take_back(SIGXFSZ, pending);
	pthread_sigmask(SIG_SETMASK, old_mask, NULL);
}

/*
 * The kernel sends the SIGPIPE of an EPIPE write, and the SIGXFSZ of an
 * EFBIG one, to the writing thread itself: blocked here, it stays pending
 * on this thread, and a zero-timeout sigtimedwait() takes it back before the
 * mask is restored. One that was pending before our write is the host's and
 * is left alone. (sigtimedwait is not on POSIX's async-signal-safe list, but
 * glibc's is the bare rt_sigtimedwait system call: no lock, no allocation.)
 */
size_t fd_write_bounded(int fd, const char *buf, size_t len, int wait_ms, int *error)
{
	int saved_errno = errno, err;
	sigset_t old_mask, pending;
	size_t done;

	/*
	 * Under the program's seccomp filter: write(2) alone, no poll() for a
	 * full pipe (fd_stream_target() only gives a descriptor whose failed
	 * write cannot kill: sandbox_write_may_kill()).
	 */
	if (sandbox_filtered()) {
		done = write_whole(fd, buf, len, 0, &err);
		if (error)
			*error = err;
		errno = saved_errno;
		return done;
	}
	write_signals_hold(&old_mask, &pending);
	done = write_whole(fd, buf, len, wait_ms, &err);
	write_signals_release(err, &old_mask, &pending);
	if (error)
		*error = err;
	errno = saved_errno;
	return done;
}

ssize_t fd_writev_once(int fd, const struct iovec *iov, int n, int *error)
{
	int saved_errno = errno;
	sigset_t old_mask, pending;
	ssize_t done;

	write_signals_hold(&old_mask, &pending);
	do
		done = writev(fd, iov, n);
	while (done < 0 && errno == EINTR);
	*error = done < 0 ? errno : 0;
	write_signals_release(*error, &old_mask, &pending);
	errno = saved_errno;
	return done;
}

void fd_write_all(int fd, const char *buf, size_t len)
{
	fd_write_bounded(fd, buf, len, FD_WRITE_WAIT_MS, NULL);
}

/* ---- the standard streams as they were at start */

static struct fd_stream streams[3] PREFAULT_DATA;

int fd_stat(int fd, struct stat *st)
{
	return fstatat(fd, "", st, AT_EMPTY_PATH);
}

/*
 * The same file, opened the same way: a host that closed the number and
 * opened a data file of its own there has another inode (or device). What
 * this cannot tell apart is the very same file reopened by the host at our
 * number with the same access mode: docs/security.md, class 3.
 */
bool fd_same_file(const struct fd_stream *s, int fd)
{
	struct stat st;
	int flags;

	if (fd < 0 || fd_stat(fd, &st) < 0 || (flags = fcntl(fd, F_GETFL)) < 0)
		return false;
	return st.st_dev == s->dev && st.st_ino == s->ino && st.st_rdev == s->rdev &&
	       (flags & O_ACCMODE) == s->accmode;
}

int fd_stream_record(int fd, bool dup_it)
{
	struct fd_stream *s = &streams[fd];
	struct stat st;
	int flags;

	s->fd = fd;
	s->dup = -1;
	if ((flags = fcntl(fd, F_GETFL)) < 0 || fd_stat(fd, &st) < 0) {
		s->state = FD_STREAM_CLOSED;
		return FD_STREAM_WAS_CLOSED;
	}
	s->dev = st.st_dev;
	s->ino = st.st_ino;
	s->rdev = st.st_rdev;
	s->accmode = flags & O_ACCMODE;
	s->mode = st.st_mode;
	if (dup_it)
		s->dup = fd_dup_away(fd);
	s->state = FD_STREAM_OPEN;
	return s->dup;
}

/*
 * Under the program's seccomp filter, the duplicate taken before it, with
 * no check: fstat() and fcntl() may kill the program now. The stream at the
 * standard number is never written unchecked: the program may have opened a
 * file of its own there.
 */
static int stream_target_filtered(const struct fd_stream *s)
{
	if (s->state != FD_STREAM_OPEN || s->dup < 0 || sandbox_write_may_kill(s->mode))
		return -1;
	return s->dup;
}

int fd_stream_target(int fd)
{
	const struct fd_stream *s = &streams[fd];

	if (sandbox_filtered())
		return stream_target_filtered(s);
	switch (s->state) {
	case FD_STREAM_UNKNOWN:
		return fd;
	case FD_STREAM_CLOSED:
		return -1;
	case FD_STREAM_OPEN:
	default:
		if (s->dup >= 0 && fd_same_file(s, s->dup))
			return s->dup;
		return fd_same_file(s, fd) ? fd : -1;
	}
}

void fd_stream_keep(int fd)
{
	struct fd_stream *s = &streams[fd];
	int target;

	if (s->state != FD_STREAM_OPEN || s->dup >= 0 || (target = fd_stream_target(fd)) < 0)
		return;
	s->dup = fd_dup_high(target);
}

void fd_stream_release(void)
{
	for (int i = 0; i < 3; i++) {
		if (streams[i].state == FD_STREAM_OPEN && streams[i].dup >= 0)
			close(streams[i].dup);
		streams[i].dup = -1;
	}
}

void fd_stream_forget(void)
{
	for (int i = 0; i < 3; i++)
		streams[i].state = FD_STREAM_UNKNOWN;
}

void *fd_map_zeroed(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}
