/* SPDX-License-Identifier: MIT */
/*
 * jobfd.c: every process of a job holds the job directory open (O_PATH,
 * close-on-exec, above the soft RLIMIT_NOFILE where the program's open()
 * never reaches, else in the shim's band: fd.c), and a new image finds its
 * job in its parent's descriptors: /proc/PPID/fd/N is a link the kernel
 * resolves to the open directory itself, so no name is looked up in any
 * directory, shared or not, and only the parent (a process of the same
 * user, whose descriptors the kernel lets us read) can have given it.
 * Nothing is inherited across exec: the program sees no descriptor of ours
 * it did not see before, and its budget is not touched below its limit.
 *
 * Where N is: a process places its job descriptor first, at the lowest free
 * number from its soft limit (or from the band's first: fd_away_first()),
 * so a child, which inherited the limits, tries that one number and no
 * other: the parent's descriptor table is never listed (a server's may be
 * long, and a parent outside any job is no business of ours). A parent that
 * moved its limit, or whose first number was taken, leaves its children to
 * the crumbs.
 *
 * Async-signal-safe apart from jobfd_keep(): system calls only.
 */
#include "preload/output/jobfd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/buf.h"
#include "preload/fd.h"
#include "preload/output/runtime.h"

int jobfd_keep(struct jobfd *j, int fd)
{
	struct stat st;

	j->fd = -1;
	if (fd < 0)
		return fd;
	if (fd_stat(fd, &st) < 0 || runtime_judge(&st)) {
		close(fd);
		return -EPERM;
	}
	j->dev = st.st_dev;
	j->ino = st.st_ino;
	j->fd = fd_move_away(fd);
	return j->fd < 0 ? -EMFILE : 0;
}

int jobfd_get(const struct jobfd *j)
{
	struct stat st;

	if (j->fd < 0 || fd_stat(j->fd, &st) < 0 || st.st_dev != j->dev || st.st_ino != j->ino ||
	    st.st_nlink == 0)
		return -1;
	return j->fd;
}

void jobfd_close(struct jobfd *j)
{
	if (jobfd_get(j) >= 0)
		close(j->fd);
	j->fd = -1;
}

int jobfd_base(const struct jobfd *j)
{
	int fd = jobfd_get(j), base;
	struct stat st;

	if (fd < 0)
		return -ENOENT;
	base = openat(fd, "..", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (base < 0)
		return -errno;
	if (fd_stat(base, &st) < 0 || runtime_judge(&st)) {
		close(base);
		return -EPERM;
	}
	return base;
}

/* "@proc/N" in @path: @proc is "/proc/PID/fd" or "/proc/self/fd". */
static void fd_path(char *path, size_t size, const char *proc, int n)
{
	struct buf b;

	buf_init(&b, path, size);
	buf_puts(&b, proc);
	buf_putc(&b, '/');
	buf_put_u64(&b, (uint64_t)n);
	buf_finish(&b);
}

/*
 * The parent's descriptor @n (in @parent_fds, its /proc/PID/fd), when it is
 * a job directory of ours: kept in @j, its path in @dir. The path is the
 * kernel's name for it (d_path), used only where the descriptor cannot be
 * (the program closed it).
 */
static int parent_try(struct jobfd *j, const char *parent_fds, int n, char *dir, size_t size)
{
	char path[48];
	const char *last;
	ssize_t len;
	int fd;

	fd_path(path, sizeof(path), parent_fds, n);
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	fd_path(path, sizeof(path), "/proc/self/fd", fd);
	len = readlink(path, dir, size - 2);
	if (len <= 0) {
		close(fd);
		return -ENOENT;
	}
	dir[len] = '\0';
	last = strrchr(dir, '/');
	if (!last || strncmp(last + 1, "job-", 4) != 0 || strchr(last, ' ')) {
		close(fd);		/* not a job's, or " (deleted)" */
		return -ENOENT;
	}
	dir[len] = '/';
	dir[len + 1] = '\0';
	/* a directory of another user's, or open to others: not a job's of ours */
	return jobfd_keep(j, fd) == -EPERM ? -ENOENT : j->fd < 0 ? -EMFILE : 0;
}

int jobfd_from_parent(struct jobfd *j, int ppid, char *dir, size_t size)
{
	int first = fd_away_first(), err;
	char parent_fds[32];
	struct buf b;

	j->fd = -1;
	if (ppid <= 1 || first < 3 || size < 8)
		return -ENOENT;
	buf_init(&b, parent_fds, sizeof(parent_fds));
	buf_puts(&b, "/proc/");
	buf_put_u64(&b, (uint64_t)ppid);
	buf_puts(&b, "/fd");
	buf_finish(&b);
	/* EACCES: not ours to read (another user's, not dumpable) */
	err = parent_try(j, parent_fds, first, dir, size);
	/* Still our parent: it had not exited, so the pid was its own all along. */
	if (err == 0 && getppid() != ppid) {
		jobfd_close(j);
		err = -ESRCH;
	}
	return err;
}
