/* SPDX-License-Identifier: MIT */
/*
 * runtime.c: the private runtime directory of a user's jobs. Every process
 * of a job finds it at start (crumbs, job directories, job.c), so it must
 * be the same directory for all of them, and one nobody else can steer:
 * $XDG_RUNTIME_DIR/pfshim when $XDG_RUNTIME_DIR is the effective user's own
 * (never the invoking user's under `sudo -E`), else pfshim-UID in /dev/shm
 * (a tmpfs: a symlink(2) per process costs ~5x more on ext4, measured in
 * docs/performance.md), else in /tmp. The directory itself is ours, 0700,
 * and not a link; its parents are walked by trusted.c.
 *
 * Async-signal-safe apart from runtime_find() (getdents, getrandom at start).
 */
#include "preload/output/runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "export/buf.h"
#include "preload/fd.h"
#include "preload/output/trusted.h"

const char *runtime_judge(const struct stat *st)
{
	if (!S_ISDIR(st->st_mode))
		return "it is not a directory";
	if (st->st_uid != geteuid())
		return "it belongs to another user";
	if (st->st_mode & 077)
		return "others may write or read it (mode is not 0700)";
	return NULL;
}

/*
 * The runtime directory @name in @parent_fd, made 0700 when missing and
 * never followed if a link. Return: its descriptor, -EEXIST (with *@why)
 * for one that exists and fails the checks, or the errno of a failed mkdir.
 */
static int private_at(int parent_fd, const char *name, const char **why)
{
	struct stat st;
	int fd = openat(parent_fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 && errno == ENOENT) {
		if (mkdirat(parent_fd, name, 0700) < 0 && errno != EEXIST)
			return -errno;
		fd = openat(parent_fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	if (fd_stat(fd, &st) < 0 || (*why = runtime_judge(&st))) {
		close(fd);
		return -EEXIST;
	}
	return fd;
}

/*
 * The least name "@prefix" + 6 characters in @parent_fd that is a private
 * directory of ours, in @best (empty when none): every process of the user
 * finds the same one.
 */
static void private_least(int parent_fd, const char *prefix, char *best, size_t size)
{
	int fd = openat(parent_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	size_t plen = strlen(prefix);
	char entries[4096];
	long n;

	best[0] = '\0';
	if (fd < 0)
		return;
	while ((n = syscall(SYS_getdents64, fd, entries, sizeof(entries))) > 0) {
		for (long at = 0; at < n; at += *(unsigned short *)(entries + at + 16)) {
			const char *name = entries + at + 19;	/* struct linux_dirent64 */
			struct stat st;

			if (strncmp(name, prefix, plen) != 0 || strlen(name) != plen + 6 ||
			    strlen(name) >= size || (best[0] && strcmp(name, best) >= 0) ||
			    fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || runtime_judge(&st))
				continue;
			memcpy(best, name, strlen(name) + 1);
		}
	}
	close(fd);
}

/*
 * pfshim-UID is taken by someone else: use the least pfshim-UID.XXXXXX of
 * ours, made with a random name when there is none. Two roots that make
 * one at once both keep the least.
 */
static int private_fresh(int parent_fd, const char *prefix, char *name, size_t size)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	const char *why = NULL;

	private_least(parent_fd, prefix, name, size);
	for (int tries = 0; !name[0] && tries < 8; tries++) {
		unsigned char r[6];
		struct buf b;

		if (getrandom(r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			return -EAGAIN;
		buf_init(&b, name, size);
		buf_puts(&b, prefix);
		for (size_t i = 0; i < sizeof(r); i++)
			buf_putc(&b, digits[r[i] % (sizeof(digits) - 1)]);
		if (buf_finish(&b) >= size)
			return -ENAMETOOLONG;
		if (mkdirat(parent_fd, name, 0700) < 0 && errno != EEXIST)
			return -errno;
		private_least(parent_fd, prefix, name, size);
	}
	return name[0] ? private_at(parent_fd, name, &why) : -EEXIST;
}

/* "DIR/NAME" in @base: 0, or -ENAMETOOLONG. */
static int base_name(char *base, size_t size, const char *dir, const char *name)
{
	struct buf b;

	buf_init(&b, base, size);
	buf_puts(&b, dir);
	buf_putc(&b, '/');
	buf_puts(&b, name);
	return buf_finish(&b) < size ? 0 : -ENAMETOOLONG;
}

/* base_name() for the descriptor @fd: closed when the name does not fit. */
static int base_checked(char *base, size_t size, const char *dir, const char *name, int fd)
{
	if (base_name(base, size, dir, name) == 0 || fd < 0)
		return fd;
	close(fd);
	return -ENAMETOOLONG;
}

/* $XDG_RUNTIME_DIR, when it is ours and closed to other writers; else -ENOENT. */
static int xdg_open(const char *xdg)
{
	const char *why;
	struct stat st;
	int fd;

	if (!xdg || xdg[0] != '/')
		return -ENOENT;
	fd = trusted_dir_open(xdg, false, 0, &st, &why);
	if (fd >= 0 && (st.st_uid != geteuid() || (st.st_mode & (S_IWGRP | S_IWOTH)))) {
		close(fd);
		fd = -ENOENT;
	}
	return fd;
}

int runtime_find(config_getenv_fn get_env, char *base, size_t size, const char **why,
		 const char **note)
{
	const char *xdg = get_env("XDG_RUNTIME_DIR");
	const char *const shared[] = { "/dev/shm", "/tmp" };
	char prefix[32], fresh[NAME_MAX + 1];
	int parent, fd;
	struct buf b;

	*why = NULL;
	*note = NULL;
	parent = xdg_open(xdg);
	if (parent >= 0) {
		fd = private_at(parent, "pfshim", why);
		close(parent);
		if (fd >= 0 || *why)
			return base_checked(base, size, xdg, "pfshim", fd);
	}
	buf_init(&b, prefix, sizeof(prefix));
	buf_puts(&b, "pfshim-");
	buf_put_u64(&b, (uint64_t)geteuid());
	buf_finish(&b);
	for (size_t i = 0; i < sizeof(shared) / sizeof(shared[0]); i++) {
		struct stat st;
		const char *unused;

		parent = trusted_dir_open(shared[i], false, 0, &st, &unused);
		if (parent < 0)
			continue;
		fd = private_at(parent, prefix, why);
		if (fd == -EEXIST) {
			/* another user's, or a link: not ours to use, nor to stop us */
			*note = *why;
			*why = NULL;
			buf_init(&b, prefix + strlen(prefix), sizeof(prefix) - strlen(prefix));
			buf_putc(&b, '.');
			buf_finish(&b);
			fd = private_fresh(parent, prefix, fresh, sizeof(fresh));
			close(parent);
			if (fd < 0)
				*why = *note;
			return base_checked(base, size, shared[i], fresh, fd);
		}
		close(parent);
		if (fd >= 0)
			return base_checked(base, size, shared[i], prefix, fd);
	}
	if (!*why)
		*why = "no place for it";
	return -ENOENT;
}

int runtime_open(const char *base)
{
	const char *why;
	struct stat st;
	int fd = trusted_dir_open(base, false, 0, &st, &why);

	if (fd >= 0 && runtime_judge(&st)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}
