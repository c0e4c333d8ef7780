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

/* Room for the shim's own descriptors below the soft limit (at most 1024, for select()). */
#define FD_HIGH_ROOM 128

static int fd_floor(void)
{
	struct rlimit rl;
	rlim_t limit = 1024;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < limit)
		limit = rl.rlim_cur;
	return limit > 2 * FD_HIGH_ROOM ? (int)(limit - FD_HIGH_ROOM) : -1;
}

int fd_dup_high(int fd)
{
	int floor = fd_floor();

	return floor < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, floor);
}

int fd_move_up(int fd, int floor)
{
	int high = floor < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, floor);

	if (high < 0)
		return fd;
	close(fd);
	return high;
}

int fd_move_high(int fd)
{
	return fd_move_up(fd, fd_floor());
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
