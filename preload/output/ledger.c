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
#include "preload/fd.h"
#include "preload/output/trusted.h"

/*
 * The ledger at its name in @dirfd is pfshim run's: a regular file with one
 * name, made by this user (then appended to: *@ours) or by the directory's
 * owner, who made the directory for the job (a process of the job that
 * dropped privileges: the runner speaks for it, with no line from it).
 * Another user's file planted in a shared directory is neither.
 */
static bool ledger_is_runners(int dirfd, bool *ours)
{
	struct stat st, dir;

	if (fstatat(dirfd, LEDGER_FILE, &st, AT_SYMLINK_NOFOLLOW) < 0 || fd_stat(dirfd, &dir) < 0 ||
	    !S_ISREG(st.st_mode) || st.st_nlink != 1)
		return false;
	*ours = st.st_uid == geteuid();
	return *ours || st.st_uid == dir.st_uid;
}

bool ledger_note(int dirfd, int pid, int err)
{
	int saved_errno = errno, fd;
	const char *why;
	struct stat st;
	bool ours = false;
	char line[32];
	struct buf b;

	if (!ledger_is_runners(dirfd, &ours)) {
		errno = saved_errno;
		return false;
	}
	/* O_NONBLOCK: a FIFO put at the name since must not hang the exit (trusted_file_ours refuses it) */
	fd = ours ? openat(dirfd, LEDGER_FILE, O_WRONLY | O_APPEND | O_NOFOLLOW | O_NONBLOCK |
			   O_CLOEXEC) : -1;
	if (fd >= 0 && trusted_file_ours(fd, &st, &why) == 0) {
		buf_init(&b, line, sizeof(line));
		buf_put_u64(&b, (uint64_t)pid);
		buf_putc(&b, ' ');
		buf_put_u64(&b, (uint64_t)(err < 0 ? -err : err));
		buf_putc(&b, '\n');
		(void)!write(fd, line, buf_finish(&b));
	}
	if (fd >= 0)
		close(fd);
	errno = saved_errno;
	return true;
}
