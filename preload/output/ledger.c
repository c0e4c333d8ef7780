/* SPDX-License-Identifier: MIT */
/*
 * ledger.c: one line per report written into `pfshim run`'s output
 * directory (ledger.h). O_APPEND: the job's processes never overwrite each
 * other's lines, each written whole in one write(2) into room the runner
 * reserved. Async-signal-safe: system calls and export/buf.h only.
 */
#include "preload/output/ledger.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/buf.h"
#include "preload/output/trusted.h"

bool ledger_note(int dirfd, int pid, int err)
{
	int saved_errno = errno;
	/* O_NONBLOCK: a FIFO put at the name must not hang the exit (trusted_file_ours refuses it) */
	int fd = openat(dirfd, LEDGER_FILE, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	const char *why;
	struct stat st;
	char line[32];
	struct buf b;

	if (fd < 0) {
		errno = saved_errno;
		return false;
	}
	if (trusted_file_ours(fd, &st, &why) < 0) {
		close(fd);
		errno = saved_errno;
		return false;
	}
	buf_init(&b, line, sizeof(line));
	buf_put_u64(&b, (uint64_t)pid);
	buf_putc(&b, ' ');
	buf_put_u64(&b, (uint64_t)(err < 0 ? -err : err));
	buf_putc(&b, '\n');
	(void)!write(fd, line, buf_finish(&b));
	close(fd);
	errno = saved_errno;
	return true;
}
