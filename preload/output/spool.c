/* SPDX-License-Identifier: MIT */
/*
 * spool.c: a report appended to `pfshim run`'s spool (spool.h): one
 * writev(2) on an O_APPEND descriptor, which the kernel never interleaves
 * with another's on a local file system. Async-signal-safe: system calls
 * and export/buf.h only.
 */
#include "preload/output/spool.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "export/buf.h"
#include "preload/fd.h"
#include "preload/output/dir.h"
#include "preload/output/trusted.h"

/* The record's head: RS, key, name, length, '\n'. Return: its length, or 0 when too long. */
static size_t head_put(char *head, size_t size, const struct output_names *names, size_t len)
{
	struct output_names first = *names;
	char name[NAME_MAX + 1];
	struct buf b;
	size_t n;

	first.seq = 0;
	if (output_dir_name(&first, name, sizeof(name)) < 0)
		return 0;
	buf_init(&b, head, size);
	buf_putc(&b, SPOOL_RS);
	buf_put_u64(&b, (uint64_t)names->pid);
	buf_putc(&b, '.');
	buf_put_u64(&b, names->start_ns);
	buf_putc(&b, ' ');
	buf_puts(&b, name);
	buf_putc(&b, ' ');
	buf_put_u64(&b, (uint64_t)len);
	buf_putc(&b, '\n');
	n = buf_finish(&b);
	return n < size ? n : 0;
}

/* The spool at @name in @dirfd, ours and still the runner's: its descriptor, or -ENOENT. */
static int spool_open(int dirfd, const char *name)
{
	const char *why;
	struct stat st;
	int fd = openat(dirfd, name, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -ENOENT;
	if (trusted_file_ours(fd, &st, &why) < 0)
		goto refused;
	/*
	 * The runner takes it exclusively only to drain the writes begun before
	 * its unlink, a moment; held longer (by anyone), a file of our own.
	 */
	for (int ms = 0; flock(fd, LOCK_SH | LOCK_NB) < 0; ms++) {
		if ((errno != EWOULDBLOCK && errno != EINTR) || ms == SPOOL_WAIT_MS)
			goto refused;
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	if (fstat(fd, &st) < 0 || st.st_nlink != 1)
		goto refused;
	return fd;
refused:
	close(fd);
	return -ENOENT;
}

int spool_append(int dirfd, const struct output_names *names, const char *buf, size_t len)
{
	int saved_errno = errno, fd, err = 0;
	char head[NAME_MAX + 64], name[NAME_MAX + 1];
	size_t head_len = head_put(head, sizeof(head), names, len);
	struct iovec iov[2] = { { head, head_len }, { (void *)buf, len } };
	ssize_t done;

	if (!head_len || spool_name(name, sizeof(name), names->host) < 0)
		return -ENAMETOOLONG;
	fd = spool_open(dirfd, name);
	if (fd < 0) {
		errno = saved_errno;
		return fd;
	}
	/* Past RLIMIT_FSIZE: cut short or EFBIG, and no SIGXFSZ to kill the host (fd.c). */
	done = fd_writev_once(fd, iov, 2, &err);
	/* Cut short, the record fails its length and is dropped: the caller writes a file. */
	if (done != (ssize_t)(head_len + len))
		err = err ? -err : -EIO;
	close(fd);
	errno = saved_errno;
	return err;
}
