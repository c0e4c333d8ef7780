/*
 * fd.c: keep the shim's descriptors high, out of the host program's way: a
 * shell's `exec 3>f` dup2()s over fd 3 without asking, and a program may
 * expect open() to return the lowest number it would get without us.
 */
#include "preload/fd.h"

#include <fcntl.h>
#include <sys/resource.h>
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

int fd_move_high(int fd)
{
	int high = fd_dup_high(fd);

	if (high < 0)
		return fd;
	close(fd);
	return high;
}
