/* SPDX-License-Identifier: MIT */
/*
 * jobdir.c: the storage of one job: a file per descendant image's report
 * (dir.c), in a directory that lives in memory (a tmpfs, where each file
 * costs a 4 KiB page however small), so it is bounded and cleaned:
 *
 * - the ledger, ".ledger": one byte appended (O_APPEND) by each image as
 *   it sets out to write its first report. Its size is how many tried; the
 *   reports present are how many made it; the root says the difference
 *   (a full tmpfs, no inode left) instead of any descendant saying it on
 *   streams a script may be reading. Its first page is reserved when it is
 *   made (fallocate), so the first 4,096 counts need no new memory even on
 *   a full tmpfs.
 * - the cap: an image whose byte lands past PFSHIM_JOB_MAX writes nothing.
 * - expiry: a root that ends removes the job directories nobody wrote in
 *   for PFSHIM_JOB_EXPIRE, from the runtime directory it judged.
 *
 * Async-signal-safe: system calls only.
 */
#include "preload/output/jobdir.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/output/dir.h"
#include "preload/output/trusted.h"

#define LEDGER ".ledger"

/* Append this image's byte: its place among the job's images, in *@ordinal. */
static int ledger_add(int dirfd, uint64_t *ordinal)
{
	const char *why;
	struct stat st;
	off_t end;
	int fd = openat(dirfd, LEDGER,
			O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
	int err;

	if (fd < 0)
		return -errno;
	err = trusted_file_ours(fd, &st, &why);
	if (err == 0 && st.st_size == 0)
		(void)fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 4096);
	if (err == 0 && write(fd, ".", 1) != 1)
		err = -errno;
	/* O_APPEND left the offset just past our byte, whoever wrote since. */
	if (err == 0 && (end = lseek(fd, 0, SEEK_CUR)) > 0)
		*ordinal = (uint64_t)end;
	close(fd);
	return err;
}

int jobdir_write(int job_fd, const char *dir, const struct output_names *names, bool first,
		 uint64_t cap, bool *over, const char *buf, size_t len)
{
	int saved_errno = errno;
	const char *why;
	uint64_t ordinal = 0;
	struct stat st;
	int dirfd, err = 0;

	if (*over)
		return -EDQUOT;
	dirfd = job_fd >= 0 ? job_fd : trusted_dir_open(dir, true, 0700, &st, &why);
	if (dirfd < 0) {
		errno = saved_errno;
		return dirfd;
	}
	if (first && ledger_add(dirfd, &ordinal) == 0 && cap && ordinal > cap) {
		*over = true;
		err = -EDQUOT;
	}
	if (err == 0)
		err = output_dir_write_at(dirfd, dir, names, buf, len, &why);
	if (dirfd != job_fd)
		close(dirfd);
	errno = saved_errno;
	return err;
}

int jobdir_reserve(int job_fd, const char *dir)
{
	return job_fd >= 0 ? output_dir_reserve_at(job_fd) : output_dir_reserve(dir, 0700);
}

/* A report's name: not hidden (the ledger, a text not yet linked), ending in ".json". */
static bool is_report(const char *name)
{
	size_t len = strlen(name);

	return name[0] != '.' && len > 5 && strcmp(name + len - 5, ".json") == 0;
}

int jobdir_tally(int job_fd, const char *dir, struct jobdir_tally *tally)
{
	char entries[4096];
	const char *why;
	struct stat st;
	long n, others = 0;
	int fd = job_fd >= 0 ? job_fd : trusted_dir_open(dir, false, 0, &st, &why), rfd;

	tally->reports = tally->counted = 0;
	if (fd < 0)
		return fd;
	if (fstatat(fd, LEDGER, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
		tally->counted = (uint64_t)st.st_size;
	rfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd != job_fd)
		close(fd);
	if (rfd < 0)
		return -errno;
	while ((n = syscall(SYS_getdents64, rfd, entries, sizeof(entries))) > 0) {
		for (long at = 0; at < n; at += *(unsigned short *)(entries + at + 16)) {
			const char *name = entries + at + 19;	/* d_reclen, d_name */

			tally->reports += is_report(name);
			others += !is_report(name) && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
		}
	}
	close(rfd);
	/* made by its root at start, and never written in: a lone program's */
	return tally->reports || others ? 0 : -ENOENT;
}

/*
 * The getdents buffers of expiry, small: it runs at the root's exit, maybe
 * on a thread's small stack, and two are live at once.
 */
#define EXPIRE_DENTS 1024

/* Every entry of the job directory @name in @base_fd, then the directory. */
static void job_remove(int base_fd, const char *name)
{
	int fd = openat(base_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	char entries[EXPIRE_DENTS];
	long n;

	if (fd < 0)
		return;
	while ((n = syscall(SYS_getdents64, fd, entries, sizeof(entries))) > 0) {
		for (long at = 0; at < n; at += *(unsigned short *)(entries + at + 16)) {
			const char *entry = entries + at + 19;

			if (strcmp(entry, ".") != 0 && strcmp(entry, "..") != 0)
				unlinkat(fd, entry, 0);
		}
	}
	close(fd);
	unlinkat(base_fd, name, AT_REMOVEDIR);
}

/* The root pid at the end of "job-TIME-PID" is alive (or is someone else's now). */
static bool job_root_alive(const char *name)
{
	const char *dash = strrchr(name, '-');
	uint64_t pid = 0;

	if (!dash)
		return false;
	for (const char *p = dash + 1; *p >= '0' && *p <= '9'; p++)
		pid = pid * 10 + (uint64_t)(*p - '0');
	return pid > 0 && pid <= INT_MAX && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

void jobdir_expire(int base_fd, uint64_t max_age, uint64_t now)
{
	int saved_errno = errno;
	int fd = openat(base_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char entries[EXPIRE_DENTS];
	long n;

	if (fd < 0 || max_age == 0) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((n = syscall(SYS_getdents64, fd, entries, sizeof(entries))) > 0) {
		for (long at = 0; at < n; at += *(unsigned short *)(entries + at + 16)) {
			const char *name = entries + at + 19;
			struct stat st;

			if (strncmp(name, "job-", 4) != 0 ||
			    fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
			    !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
			    (uint64_t)st.st_mtime + max_age > now || job_root_alive(name))
				continue;
			job_remove(fd, name);
		}
	}
	close(fd);
	errno = saved_errno;
}
