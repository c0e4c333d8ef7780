/* SPDX-License-Identifier: MIT */
/*
 * trusted.c: walk a directory path the way a privileged process must, so
 * that root run with another user's XDG_RUNTIME_DIR or PAPI_OUTPUT_DIRECTORY
 * (sudo -E, the shim in /etc/ld.so.preload) never writes where that user
 * chose. A path is resolved one component at a time with openat() from a
 * descriptor, never whole: each directory is opened O_NOFOLLOW and judged
 * with fstat() on its descriptor, so what was judged is what is used, and a
 * directory renamed or replaced meanwhile by its owner is either refused or
 * not reached. The rules are those of a directory nobody else controls:
 * ours or root's, and closed to other writers unless sticky.
 *
 * Async-signal-safe: openat, fstat, mkdirat, close; a NAME_MAX component
 * on the stack, no PATH_MAX copy.
 */
#include "preload/output/trusted.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "preload/fd.h"

#define WALK_FLAGS (O_PATH | O_NOFOLLOW | O_CLOEXEC)

bool trusted_dir_shared(const struct stat *dir)
{
	return dir->st_mode & (S_IWGRP | S_IWOTH);
}

/* NULL when @st is a directory the effective user @me may trust, else why not. */
static const char *dir_judge(const struct stat *st, uid_t me)
{
	if (!S_ISDIR(st->st_mode))
		return "not a directory";
	if (st->st_uid != me && st->st_uid != 0)
		return "a directory on the way belongs to another user";
	if (trusted_dir_shared(st) && !(st->st_mode & S_ISVTX))
		return "others may write in a directory on the way (and it is not sticky)";
	return NULL;
}

/*
 * A symbolic link in @parent, whose own stat is @link: followed as the
 * kernel's protected_symlinks would, and never when someone else could
 * have put it there (a hard link of root's /var/run planted in /tmp).
 */
static const char *link_judge(const struct stat *parent, const struct stat *link, uid_t me)
{
	if (link->st_uid != me && link->st_uid != 0)
		return "a symbolic link on the way belongs to another user";
	if (trusted_dir_shared(parent) && (link->st_uid != me || link->st_nlink != 1))
		return "a symbolic link on the way sits in a directory others may write in";
	return NULL;
}

/* @fd (an open's result) and its stat in *@st; or a negative errno, @fd closed. */
static int stat_opened(int fd, struct stat *st)
{
	int err;

	if (fd < 0)
		return -errno;
	if (fd_stat(fd, st) == 0)
		return fd;
	err = -errno;
	close(fd);
	return err;
}

/* trusted_dir_at() for the effective user @me. */
static int dir_at(int parent_fd, const struct stat *parent, const char *name, bool create,
		  mode_t mode, struct stat *st, const char **why, uid_t me)
{
	int fd = openat(parent_fd, name, WALK_FLAGS);

	if (fd < 0 && errno == ENOENT && create) {
		if (mkdirat(parent_fd, name, mode) < 0 && errno != EEXIST)
			return -errno;
		fd = openat(parent_fd, name, WALK_FLAGS);
	}
	fd = stat_opened(fd, st);
	if (fd >= 0 && S_ISLNK(st->st_mode)) {
		*why = link_judge(parent, st, me);
		close(fd);
		if (*why)
			return -EPERM;
		/* The parent is judged: only its owner or we could swap the link now. */
		fd = stat_opened(openat(parent_fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC), st);
	}
	if (fd < 0)
		return fd;
	*why = dir_judge(st, me);
	if (*why) {
		close(fd);
		if (!S_ISDIR(st->st_mode))
			*why = NULL;	/* a fact, not a refusal */
		return *why ? -EPERM : -ENOTDIR;
	}
	return fd;
}

int trusted_dir_at(int parent_fd, const struct stat *parent, const char *name, bool create,
		   mode_t mode, struct stat *st, const char **why)
{
	return dir_at(parent_fd, parent, name, create, mode, st, why, geteuid());
}

int trusted_dir_open(const char *path, bool create, mode_t mode, struct stat *st,
		     const char **why)
{
	char name[NAME_MAX + 1];
	const char *p = path;
	struct stat parent;
	uid_t me = geteuid();
	int fd;

	*why = NULL;
	fd = open(*p == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fd_stat(fd, st) < 0 || (*why = dir_judge(st, me))) {
		int err = *why ? -EPERM : -errno;

		close(fd);
		return err;
	}
	while (*p) {
		size_t n = 0;
		int next;

		/* (not strcspn(): a libc page a report would fault after its read) */
		while (p[n] && p[n] != '/')
			n++;

		if (n == 0 || (n == 1 && p[0] == '.')) {
			p += n + (p[n] == '/');
			continue;
		}
		if (n > NAME_MAX) {
			close(fd);
			return -ENAMETOOLONG;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		parent = *st;
		next = dir_at(fd, &parent, name, create, mode, st, why, me);
		close(fd);
		if (next < 0)
			return next;
		fd = next;
		p += n + (p[n] == '/');
	}
	return fd;
}

int trusted_file_ours(int fd, struct stat *st, const char **why)
{
	if (fd_stat(fd, st) < 0)
		return -errno;
	if (!S_ISREG(st->st_mode))
		*why = "not a regular file";
	else if (st->st_uid != geteuid())
		*why = "another user's file";
	else if (st->st_nlink != 1)
		*why = "a file with other names (hard links)";
	else
		return 0;
	return -EPERM;
}
