/*
 * fd.c: keep the shim's descriptors high, out of the host program's way: a
 * shell's `exec 3>f` dup2()s over fd 3 without asking, and a program may
 * expect open() to return the lowest number it would get without us. Our
 * writes must not signal the host either (fd_write_all).
 */
#include "preload/fd.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <time.h>
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

int fd_band(int *lo, int *hi)
{
	struct rlimit rl;
	rlim_t top = FD_TABLE_TOP;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < top)
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
	return getrlimit(RLIMIT_NOFILE, rl) == 0 && rl->rlim_cur <= FD_TABLE_TOP &&
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

int fd_move_away(int fd)
{
	int high = fd_dup_above_limit(fd);

	if (high < 0)
		return fd_move_high(fd);
	close(fd);
	return high;
}

bool fd_room_away(void)
{
	struct rlimit rl;
	int lo, hi;

	return fd_room_above(&rl) || fd_band(&lo, &hi) > 0;
}

static bool write_whole(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf += n;
		len -= (size_t)n;
	}
	return true;
}

/*
 * The kernel sends the SIGPIPE of an EPIPE write to the writing thread
 * itself: blocked here, it stays pending on this thread, and a zero-timeout
 * sigtimedwait() takes it back before the mask is restored. One that was
 * pending before our write is the host's and is left alone. (sigtimedwait
 * is not on POSIX's async-signal-safe list, but glibc's is the bare
 * rt_sigtimedwait system call: no lock, no allocation.)
 */
void fd_write_all(int fd, const char *buf, size_t len)
{
	static const struct timespec no_wait = { 0, 0 };
	int saved_errno = errno;
	sigset_t pipe_only, old_mask, pending;
	bool host_pending;

	sigemptyset(&pipe_only);
	sigaddset(&pipe_only, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_only, &old_mask);
	host_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
	if (!write_whole(fd, buf, len) && errno == EPIPE && !host_pending)
		while (sigtimedwait(&pipe_only, NULL, &no_wait) < 0 && errno == EINTR)
			;
	pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
	errno = saved_errno;
}
