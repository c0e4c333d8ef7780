/* SPDX-License-Identifier: MIT */
/*
 * pipe_turn.c: writers of one pipe take turns, so that reports arrive
 * whole. The kernel keeps a pipe write whole only up to PIPE_BUF (4 KiB);
 * a larger one is copied page by page and, whenever the pipe is full, waits
 * with the pipe unlocked, so several processes' reports interleave there
 * (20 processes writing ~14 KiB JSON reports into one `| cat`: lines
 * spliced into each other). A report is often above 4 KiB (60 events: 14).
 *
 * The turn is a POSIX record lock (fcntl F_SETLK) on one byte of the pipe,
 * at an offset no program uses (a pipe has no offsets: the range is only a
 * name): POSIX locks belong to a process and an inode, so every process
 * writing to the pipe contends, whether it opened the FIFO itself or
 * inherited the pipe from a shell. flock(2) would not do: it locks an open
 * file description, and processes that inherited one pipe share one, so
 * each gets the lock at once (measured on Linux 6.18: a forked child's
 * flock(LOCK_EX | LOCK_NB) of its parent's locked pipe succeeds, F_SETLK
 * says EAGAIN; on a FIFO opened by each, both exclude).
 *
 * Never a hang: F_SETLK does not block. It is tried every millisecond while
 * the pipe moves (FIONREAD, its unread bytes, changes: a holder writing to
 * a reader that reads), and given up after @wait_ms in which nothing moved
 * (a holder stopped, or a reader that stopped reading): the report is then
 * written without its turn, and the caller says so. A holder that dies
 * loses its lock with it.
 *
 * Async-signal-safe: fstat, fcntl, ioctl, clock_gettime, nanosleep.
 */
#include "preload/output/pipe_turn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "preload/fd.h"
#include "preload/sandbox.h"

/* The byte every shim process locks: far past any range a program would lock. */
#define TURN_OFFSET ((off_t)1 << 62)

static int turn_set(int fd, short type)
{
	struct flock l = { .l_type = type, .l_whence = SEEK_SET, .l_start = TURN_OFFSET,
			   .l_len = 1 };

	return fcntl(fd, F_SETLK, &l) < 0 ? -errno : 0;
}

static long ms_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

int pipe_turn_take(int fd, int wait_ms)
{
	static const struct timespec tick = { 0, 1000000 };
	struct timespec since;
	int unread = -1, now, err;

	clock_gettime(CLOCK_MONOTONIC, &since);
	while ((err = turn_set(fd, F_WRLCK)) == -EAGAIN || err == -EACCES || err == -EINTR) {
		if (ioctl(fd, FIONREAD, &now) == 0 && now != unread) {
			unread = now;	/* it moved: the wait starts again */
			clock_gettime(CLOCK_MONOTONIC, &since);
		} else if (ms_since(&since) >= wait_ms) {
			return -EAGAIN;
		}
		nanosleep(&tick, NULL);
	}
	return err;
}

void pipe_turn_give(int fd)
{
	turn_set(fd, F_UNLCK);
}

size_t pipe_turn_write(int fd, const char *buf, size_t len, int wait_ms, int *error,
		       bool *missed)
{
	int saved_errno = errno, turn;
	struct stat st;
	size_t done;

	*missed = false;
	/* Under the program's seccomp filter no turn is taken: fcntl() may kill it. */
	if (len <= PIPE_BUF || sandbox_filtered() || fd_stat(fd, &st) < 0 || !S_ISFIFO(st.st_mode)) {
		errno = saved_errno;
		return fd_write_bounded(fd, buf, len, wait_ms, error);
	}
	turn = pipe_turn_take(fd, wait_ms);
	*missed = turn == -EAGAIN;
	done = fd_write_bounded(fd, buf, len, wait_ms, error);
	if (turn == 0)
		pipe_turn_give(fd);
	errno = saved_errno;
	return done;
}
