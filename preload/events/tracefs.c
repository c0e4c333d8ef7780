/* SPDX-License-Identifier: MIT */
/*
 * tracefs.c: the tracepoint resolver (see tracefs.h). A tracepoint's id is
 * one small file; a glob lists one or two directories, sorted as perf sorts
 * them, so the events come out in the same order on every run.
 */
#include "preload/events/tracefs.h"
#include "preload/events/syntax.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ID_TEXT_MAX 32	/* a decimal u64 and a newline */

void tracefs_names_start(struct tracefs_names *t, const char *root, struct diag *d)
{
	memset(t, 0, sizeof(*t));
	t->given = root;
	t->diag = d;
}

void tracefs_names_end(struct tracefs_names *t)
{
	t->root = NULL;
	t->error = 0;
}

/*
 * Find a readable events/ once per parse: the given root alone, else
 * TRACEFS_ROOT, then TRACEFS_ROOT_DEBUGFS. When none is, EACCES wins over
 * ENOENT: a tracefs that is there but root's only is the one to tell of.
 */
static int root_find(struct tracefs_names *t)
{
	static const char *const roots[] = { TRACEFS_ROOT, TRACEFS_ROOT_DEBUGFS };
	const char *const *try = t->given ? &t->given : roots;
	int n = t->given ? 1 : 2;
	char path[PATH_MAX];

	if (t->root || t->error)
		return t->error;
	t->error = -ENOENT;
	for (int i = 0; i < n; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/events", try[i]);
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			close(fd);
			t->root = try[i];
			t->error = 0;
			return 0;
		}
		if (errno != ENOENT && t->error == -ENOENT)
			t->error = -errno;
	}
	return t->error;
}

static void root_refuse(struct tracefs_names *t, const char *item, int err)
{
	const char *where = t->given ? t->given : TRACEFS_ROOT;

	if (err == -ENOENT && t->given)
		diag_warn(t->diag, "'%s': no tracefs events directory in %s; the event is skipped",
			  item, where);
	else if (err == -ENOENT)
		diag_warn(t->diag, "'%s': tracefs is not mounted (as root: mount -t tracefs nodev "
			  "%s); the event is skipped", item, TRACEFS_ROOT);
	else if (err == -EACCES || err == -EPERM)
		diag_warn(t->diag, "'%s': tracefs (%s) is not readable by this user (its files "
			  "are root's only by default: run as root, or mount it with gid= of one of "
			  "your groups); the event is skipped", item, where);
	else
		diag_warn(t->diag, "'%s': tracefs (%s) cannot be read (%s); the event is skipped",
			  item, where, strerror(-err));
}

/* A part of "subsys:name" that stays one entry of its directory. */
static int part_valid(const char *s)
{
	return *s && !strchr(s, '/') && !strstr(s, "..") && strcmp(s, ".") != 0;
}

static int is_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* <root>/events/@subsys/@name/id as a number. 0 or a negative errno. */
static int id_read(const struct tracefs_names *t, const char *subsys, const char *name,
		   uint64_t *id)
{
	char path[PATH_MAX], text[ID_TEXT_MAX];
	ssize_t len;
	int fd, err;

	if (snprintf(path, sizeof(path), "%s/events/%s/%s/id", t->root, subsys, name) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do
		len = read(fd, text, sizeof(text) - 1);
	while (len < 0 && errno == EINTR);
	err = len < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == ' '))
		len--;
	text[len] = '\0';
	return syntax_number(text, id) ? -EINVAL : 0;
}

static int name_cmp(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* The entries of <root>/events, or of its @subsys, sorted by strcmp. Their number, or -errno. */
static int dir_list(const struct tracefs_names *t, const char *subsys, struct dirent ***list)
{
	char path[PATH_MAX];
	int n;

	snprintf(path, sizeof(path), "%s/events%s%s", t->root, subsys ? "/" : "",
		 subsys ? subsys : "");
	n = scandir(path, list, NULL, name_cmp);
	return n < 0 ? -errno : n;
}

static void dir_free(struct dirent **list, int n)
{
	for (int i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

/* "did you mean" among the entries of <root>/events[/@subsys]. */
static void suggest_in(const struct tracefs_names *t, struct suggest *s, const char *subsys)
{
	struct dirent **list;
	int n = dir_list(t, subsys, &list);

	for (int i = 0; i < n; i++) {
		if (list[i]->d_name[0] != '.')
			suggest_consider(s, list[i]->d_name);
	}
	if (n >= 0)
		dir_free(list, n);
}

bool tracefs_has_subsys(struct tracefs_names *t, const char *subsys)
{
	char path[PATH_MAX];
	struct stat st;

	if (!part_valid(subsys) || is_glob(subsys) || root_find(t))
		return false;
	if (snprintf(path, sizeof(path), "%s/events/%s", t->root, subsys) >= (int)sizeof(path))
		return false;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);	/* not events/enable */
}

/* One tracepoint, no glob: its id, or why not. */
static int resolve_one(struct tracefs_names *t, const char *item, const char *subsys,
		       const char *name, tracefs_add_fn *add, void *ctx)
{
	struct suggest s;
	uint64_t id;
	int err = id_read(t, subsys, name, &id);
	char path[PATH_MAX];

	if (!err) {
		add(ctx, subsys, name, id);
		return 0;
	}
	if (err == -EACCES || err == -EPERM) {
		root_refuse(t, item, err);
		return err;
	}
	if (err != -ENOENT && err != -ENOTDIR) {
		diag_warn(t->diag, "'%s': the tracepoint's id in %s/events cannot be read (%s); "
			  "the event is skipped", item, t->root, strerror(-err));
		return err;
	}
	snprintf(path, sizeof(path), "%s/events/%s", t->root, subsys);
	if (access(path, F_OK) == 0) {
		suggest_init(&s, name);
		if (!diag_quiet(t->diag))
			suggest_in(t, &s, subsys);
		diag_unknown(t->diag, &s, "unknown tracepoint '%s' in subsystem '%s' of '%s'",
			     name, subsys, item);
	} else {
		suggest_init(&s, subsys);
		if (!diag_quiet(t->diag))
			suggest_in(t, &s, NULL);
		diag_unknown(t->diag, &s, "unknown tracepoint subsystem '%s' in '%s'", subsys,
			     item);
	}
	return -ENOENT;
}

/* Every tracepoint of @subsys whose name matches @pattern; how many. */
static int glob_subsys(struct tracefs_names *t, const char *subsys, const char *pattern,
		       tracefs_add_fn *add, void *ctx)
{
	struct dirent **list;
	int n = dir_list(t, subsys, &list), found = 0;

	for (int i = 0; i < n; i++) {
		const char *name = list[i]->d_name;
		uint64_t id;

		/* "enable" and "filter" match '*' too: files, with no id under them. */
		if (name[0] != '.' && fnmatch(pattern, name, 0) == 0 &&
		    id_read(t, subsys, name, &id) == 0) {
			add(ctx, subsys, name, id);
			found++;
		}
	}
	if (n >= 0)
		dir_free(list, n);
	return found;
}

static int resolve_glob(struct tracefs_names *t, const char *item, const char *subsys,
			const char *name, tracefs_add_fn *add, void *ctx)
{
	int found = 0;

	if (!is_glob(subsys)) {
		found = glob_subsys(t, subsys, name, add, ctx);
	} else {
		struct dirent **list;
		int n = dir_list(t, NULL, &list);

		for (int i = 0; i < n; i++) {
			const char *sub = list[i]->d_name;

			if (sub[0] != '.' && fnmatch(subsys, sub, 0) == 0)
				found += glob_subsys(t, sub, name, add, ctx);
		}
		if (n >= 0)
			dir_free(list, n);
	}
	if (found)
		return 0;
	diag_warn(t->diag, "no tracepoint matches '%s:%s' in '%s' (%s/events lists them); the "
		  "event is skipped", subsys, name, item, t->root);
	return -ENOENT;
}

int tracefs_resolve(struct tracefs_names *t, const char *item, const char *subsys,
		    const char *name, tracefs_add_fn *add, void *ctx)
{
	int err;

	if (!part_valid(subsys) || !part_valid(name)) {
		diag_warn(t->diag, "bad tracepoint name '%s' (write subsystem:name, e.g. "
			  "'sched:sched_switch'); the event is skipped", item);
		return -EINVAL;
	}
	err = root_find(t);
	if (err) {
		root_refuse(t, item, err);
		return err;
	}
	if (is_glob(subsys) || is_glob(name))
		return resolve_glob(t, item, subsys, name, add, ctx);
	return resolve_one(t, item, subsys, name, add, ctx);
}
