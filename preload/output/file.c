/* SPDX-License-Identifier: MIT */
/*
 * file.c: write a report into a file the way careful tools write
 * into directories other users share: no planted symlink followed, no open
 * that blocks, nothing but a regular file, a character device or a FIFO
 * with a reader, never another user's file in a directory others may
 * write in, and no empty or partial file left behind when a write fails.
 * A report is appended, or (OpenMetrics, whose text cannot be appended to)
 * replaces the file whole after the same checks.
 *
 * The directory is reached by trusted.c's walk, judged component by
 * component. Everything after its open is relative to its descriptor
 * (openat, renameat2, unlinkat): the checks and the writes see the same
 * directory, and no PATH_MAX copy sits on the stack, which may be a 16 KiB
 * thread stack under a signal handler.
 *
 * Async-signal-safe: open, fstat, write, rename, unlink; no allocation.
 */
#include "preload/output/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/buf.h"
#include "preload/fd.h"
#include "preload/output/dir.h"
#include "preload/output/pipe_turn.h"
#include "preload/output/trusted.h"

/* O_NONBLOCK: a FIFO must not block the open (ENXIO without a reader). */
#define OPEN_FLAGS (O_WRONLY | O_APPEND | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)

/* Give up after this many rounds of "it appeared / it vanished" races. */
#define ROUNDS 3

/* Where the report goes: the directory (open, and its stat) and the name in it. */
struct place {
	int dir_fd;
	struct stat dir;
	const char *name;
};

/*
 * Open the directory holding @path's last component, walked and judged by
 * trusted_dir_open() (no directory on the way another user controls). The
 * '/' before it is turned into a NUL for the walk and put back: no copy of
 * the path.
 */
static int place_open(char *path, struct place *pl, const char **why)
{
	char *slash = strrchr(path, '/');
	char saved;

	if (!slash) {
		pl->dir_fd = trusted_dir_open(".", false, 0, &pl->dir, why);
		pl->name = path;
	} else {
		slash += slash == path;	/* "/name": the directory is "/" */
		saved = *slash;
		*slash = '\0';
		pl->dir_fd = trusted_dir_open(path, false, 0, &pl->dir, why);
		*slash = saved;
		pl->name = strrchr(path, '/') + 1;
	}
	if (pl->dir_fd < 0)
		return pl->dir_fd;
	if (!*pl->name) {
		close(pl->dir_fd);
		return -EISDIR;
	}
	return 0;
}

/*
 * What the kernel's protected_* sysctls check, done here because they are
 * 0 on many machines: in a shared directory (sticky, others may add
 * entries: trusted_dir_shared(); the walk refused one without the sticky
 * bit) an entry is trusted only when it is ours or the directory owner's.
 */
static bool owner_trusted(const struct stat *dir, uid_t owner)
{
	return !trusted_dir_shared(dir) || owner == geteuid() || owner == dir->st_uid;
}

/*
 * The last component is a symbolic link (O_NOFOLLOW said ELOOP): follow
 * it only where protected_symlinks would, so PFSHIM_OUTPUT=/dev/stderr and
 * a user's own links still work while a link planted in /tmp does not.
 */
static int open_symlink(const struct place *pl, const char **why)
{
	struct stat link;
	int fd;

	if (fstatat(pl->dir_fd, pl->name, &link, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(link.st_mode))
		return -ELOOP;
	if (!owner_trusted(&pl->dir, link.st_uid)) {
		*why = "a symbolic link another user made in a shared directory";
		return -ELOOP;
	}
	fd = openat(pl->dir_fd, pl->name, OPEN_FLAGS);
	if (fd < 0 && errno == ENOENT) {
		*why = "a symbolic link to nothing; it is not followed to create a file";
		return -ENOENT;
	}
	return fd < 0 ? -errno : fd;
}

/* Which files a report may go into, judged on the open descriptor (no race). */
static int check_open_file(int fd, const struct place *pl, struct stat *st, const char **why)
{
	if (fd_stat(fd, st) < 0)
		return -errno;
	if (!S_ISREG(st->st_mode) && !S_ISCHR(st->st_mode) && !S_ISFIFO(st->st_mode)) {
		*why = "not a regular file, character device or FIFO";
		return -EINVAL;
	}
	if (!S_ISCHR(st->st_mode) && !owner_trusted(&pl->dir, st->st_uid)) {
		*why = "another user's file in a shared directory";
		return -EACCES;
	}
	/*
	 * A second name of a file that lives elsewhere: with protected_hardlinks
	 * 0, anyone may link root's /etc/shadow into /tmp (same filesystem), and
	 * its owner would pass the test above.
	 */
	if (S_ISREG(st->st_mode) && st->st_nlink > 1 && trusted_dir_shared(&pl->dir)) {
		*why = "a file with other names (hard links) in a shared directory";
		return -EACCES;
	}
	return 0;
}

/*
 * One write at the end (O_APPEND: reports of concurrent processes never
 * interleave in a regular file; a FIFO's writers take turns, pipe_turn.h).
 * A regular file that took only part of it (ENOSPC, EFBIG) is cut back to
 * where the report began, unless someone wrote after it.
 */
static int append(int fd, const struct stat *st, const char *buf, size_t len, const char **why)
{
	int err;
	bool missed;
	size_t done = pipe_turn_write(fd, buf, len, FD_WRITE_WAIT_MS, &err, &missed);
	struct stat now;
	off_t end;

	if (!err)
		return missed ? REPORT_FILE_TURN_MISSED : 0;
	if (S_ISREG(st->st_mode) && done > 0 && (end = lseek(fd, 0, SEEK_CUR)) >= (off_t)done &&
	    fd_stat(fd, &now) == 0 && now.st_size == end)
		(void)!ftruncate(fd, end - (off_t)done);
	if (err == EAGAIN)
		*why = "the reader took nothing for 2 s";
	return -err;
}

/* Write @buf whole into the new file @name; on failure nothing is left there. */
static int write_new(const struct place *pl, const char *name, const char *buf, size_t len)
{
	int fd = openat(pl->dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	int err;

	if (fd < 0)
		return -errno;
	fd_write_bounded(fd, buf, len, 0, &err);
	close(fd);
	if (err)
		unlinkat(pl->dir_fd, name, 0);
	return -err;
}

/*
 * A new file appears whole or not at all: written under a temporary name
 * in the same directory, then renamed without replacing anything
 * (RENAME_NOREPLACE; linkat() where the filesystem lacks it). -EEXIST:
 * another process created it meanwhile, append to it instead. -EAGAIN: no
 * temporary name here (EEXIST, a filesystem without either way): create
 * the file itself exclusively.
 */
static int create_whole(const struct place *pl, const char *buf, size_t len)
{
	char tmp[48];
	struct buf b;
	int err;

	buf_init(&b, tmp, sizeof(tmp));
	buf_puts(&b, ".pfshim-tmp.");
	buf_put_i64(&b, gettid());
	buf_finish(&b);
	err = write_new(pl, tmp, buf, len);
	if (err == -EEXIST)
		return -EAGAIN;
	if (err)
		return err;
	if (renameat2(pl->dir_fd, tmp, pl->dir_fd, pl->name, RENAME_NOREPLACE) == 0)
		return 0;
	err = errno;
	if (err == EINVAL || err == ENOSYS) {
		err = linkat(pl->dir_fd, tmp, pl->dir_fd, pl->name, 0) == 0 ? 0 : errno;
		if (err == EPERM || err == ENOSYS || err == EOPNOTSUPP)
			err = EAGAIN;
	}
	unlinkat(pl->dir_fd, tmp, 0);
	return -err;
}

/* The last resort for a new file: O_EXCL on the name itself; a failed write removes it. */
static int create_direct(const struct place *pl, const char *buf, size_t len)
{
	int fd = openat(pl->dir_fd, pl->name, OPEN_FLAGS | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
	struct stat st;
	int err;

	if (fd < 0)
		return -errno;
	fd_write_bounded(fd, buf, len, 0, &err);
	if (err && fd_stat(fd, &st) == 0 && st.st_size <= (off_t)len)
		unlinkat(pl->dir_fd, pl->name, 0);
	close(fd);
	return -err;
}

static int write_to(const struct place *pl, const char *buf, size_t len, const char **why)
{
	struct stat st;
	int ret = -EAGAIN;

	for (int round = 0; round < ROUNDS; round++) {
		int fd = openat(pl->dir_fd, pl->name, OPEN_FLAGS | O_NOFOLLOW);

		if (fd < 0 && errno == ELOOP)
			fd = open_symlink(pl, why);
		else if (fd < 0)
			fd = -errno;
		if (fd == -ENOENT && !*why) {
			ret = create_whole(pl, buf, len);
			if (ret == -EAGAIN)
				ret = create_direct(pl, buf, len);
			if (ret == -EEXIST)
				continue;	/* created meanwhile: append to it */
			return ret;
		}
		if (fd == -ENXIO)
			*why = "a FIFO nobody reads";
		if (fd < 0)
			return fd;
		ret = check_open_file(fd, pl, &st, why);
		if (ret == 0)
			ret = append(fd, &st, buf, len, why);
		close(fd);
		return ret;
	}
	return ret;
}

/*
 * The file is replaced, not appended to: a regular file (or none yet) gets
 * a new one renamed over it (output_replace_at()), after the checks an
 * append would pass; a character device or a FIFO is written as before.
 * A symbolic link to a regular file is refused: renaming over it would
 * replace the link, and writing through it would append.
 */
static int replace_to(const struct place *pl, const char *buf, size_t len, const char **why)
{
	int fd = openat(pl->dir_fd, pl->name, OPEN_FLAGS | O_NOFOLLOW), ret;
	bool link = false;
	struct stat st;

	if (fd < 0 && errno == ELOOP) {
		link = true;
		fd = open_symlink(pl, why);
	} else if (fd < 0) {
		fd = -errno;
	}
	if (fd == -ENOENT && !*why)
		return output_replace_at(pl->dir_fd, pl->name, buf, len);
	if (fd == -ENXIO)
		*why = "a FIFO nobody reads";
	if (fd < 0)
		return fd;
	ret = check_open_file(fd, pl, &st, why);
	if (ret == 0 && S_ISREG(st.st_mode) && link) {
		*why = "a symbolic link to a file, which is replaced at each report: name the file itself";
		ret = -ELOOP;
	} else if (ret == 0 && S_ISREG(st.st_mode)) {
		ret = output_replace_at(pl->dir_fd, pl->name, buf, len);
	} else if (ret == 0) {
		ret = append(fd, &st, buf, len, why);
	}
	close(fd);
	return ret;
}

static int report_file_put(char *path, const char *buf, size_t len, bool replace,
			   const char **why)
{
	struct place pl;
	int ret;

	*why = NULL;
	ret = place_open(path, &pl, why);
	if (ret)
		return ret;
	ret = replace ? replace_to(&pl, buf, len, why) : write_to(&pl, buf, len, why);
	close(pl.dir_fd);
	if (ret == -EFBIG && !*why)
		*why = "past the file size limit (RLIMIT_FSIZE)";
	return ret;
}

int report_file_replace(char *path, const char *buf, size_t len, const char **why)
{
	return report_file_put(path, buf, len, true, why);
}

int report_file_write(char *path, const char *buf, size_t len, const char **why)
{
	return report_file_put(path, buf, len, false, why);
}
