/* SPDX-License-Identifier: MIT */
/*
 * claim.c: a runner's claim on its output directory (claim.h). flock(2),
 * not a lock by pid: it belongs to the open file description, so it is
 * held however long the runner lives and released by the kernel when the
 * runner's last descriptor goes, killed or not (the job's processes never
 * hold it: the descriptor is close-on-exec, and a forked child's copy goes
 * at its exec).
 */
#include "tools/pfshim/run/claim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* The pid a holder wrote into @fd ("PID\n"), or 0: none yet, or not a pid. */
static int holder_read(int fd)
{
	char text[16];
	ssize_t n = pread(fd, text, sizeof(text) - 1, 0);
	int pid = 0;

	if (n <= 1 || text[n - 1] != '\n')
		return 0;
	for (ssize_t i = 0; i < n - 1; i++) {
		if (text[i] < '0' || text[i] > '9' || pid > 100000000)
			return 0;
		pid = pid * 10 + (text[i] - '0');
	}
	return pid;
}

int run_claim(int dirfd, bool create, int *holder, const char **why)
{
	/* O_NONBLOCK: a FIFO planted at the name opens at once, and is refused below */
	int fd = openat(dirfd, CLAIM_FILE, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
			(create ? O_CREAT : 0), 0644);
	char text[16];
	struct stat st;
	int len;

	*holder = 0;
	*why = NULL;
	if (fd < 0 && errno == ELOOP)
		*why = "a symbolic link";
	if (fd < 0)	/* EPERM of the open itself (an immutable file): not a refusal said with a why */
		return *why ? -EPERM : errno == EPERM ? -EACCES : -errno;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return -EIO;
	}
	if (!S_ISREG(st.st_mode))
		*why = "not a regular file";
	else if (st.st_uid != geteuid())
		*why = "another user's file";
	else if (st.st_nlink != 1)
		*why = "a file with other names (hard links)";
	if (*why) {
		close(fd);
		return -EPERM;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int err = errno == EWOULDBLOCK ? -EWOULDBLOCK : -errno;

		if (err == -EWOULDBLOCK)
			*holder = holder_read(fd);
		close(fd);
		return err;
	}
	/* Ours now: the pid a second runner names (an earlier runner's, killed, is replaced) */
	len = snprintf(text, sizeof(text), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, text, (size_t)len, 0) != len)
		(void)!ftruncate(fd, 0);	/* no pid said, the claim still held */
	return fd;
}
