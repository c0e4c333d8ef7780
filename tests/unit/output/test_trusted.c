/* SPDX-License-Identifier: MIT */
/*
 * test_trusted.c: preload/output/trusted.c's rules, as root (make unit runs
 * as root here; as another user the ownership cases are skipped): a path
 * of our directories is walked and made; a directory another user owns, a
 * non-sticky one others may write in, a link another user made, or a
 * hard-linked link in a shared directory stop the walk with -EPERM and
 * the rule; a file on the way is -ENOTDIR; a series-like file is ours only
 * when regular, our own and with one name.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "preload/output/trusted.h"

#define NOBODY 65534

static char top[64];

static int setup(void **state)
{
	(void)state;
	snprintf(top, sizeof(top), "/tmp/pfshim-test-trusted.XXXXXX");
	return mkdtemp(top) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	return system(cmd);
}

/* trusted_dir_open() of TOP/@rel: the descriptor closed, its result and *why. */
static int walk(const char *rel, bool create, const char **why)
{
	char path[256];
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	fd = trusted_dir_open(path, create, 0755, &st, why);
	if (fd >= 0) {
		assert_true(S_ISDIR(st.st_mode));
		close(fd);
		return 0;
	}
	return fd;
}

static void at(const char *rel, char *path, size_t size)
{
	snprintf(path, size, "%s/%s", top, rel);
}

static void test_ours_walked_and_made(void **state)
{
	const char *why;
	char path[256];

	(void)state;
	assert_int_equal(walk("a/b/c", true, &why), 0);
	at("a/b/c", path, sizeof(path));
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(walk("a/./b//c/", false, &why), 0);
	assert_int_equal(walk("missing", false, &why), -ENOENT);
	/* a link of ours, in a directory of ours: followed */
	at("link", path, sizeof(path));
	assert_int_equal(symlink("a/b", path), 0);
	assert_int_equal(walk("link/c", false, &why), 0);
	/* a file on the way */
	at("a/file", path, sizeof(path));
	close(open(path, O_CREAT | O_WRONLY, 0644));
	assert_int_equal(walk("a/file/x", true, &why), -ENOTDIR);
	assert_null(why);
}

/* A name of NAME_MAX bytes is walked and made; one byte more is -ENAMETOOLONG, never copied. */
static void test_longest_name(void **state)
{
	char path[600], name[NAME_MAX + 2];
	const char *why;
	struct stat st;
	int fd;

	(void)state;
	memset(name, 'n', sizeof(name));
	name[NAME_MAX] = '\0';
	snprintf(path, sizeof(path), "%s/%s/x", top, name);
	fd = trusted_dir_open(path, true, 0755, &st, &why);
	assert_true(fd >= 0);
	close(fd);
	name[NAME_MAX] = 'n';
	name[NAME_MAX + 1] = '\0';
	snprintf(path, sizeof(path), "%s/%s/x", top, name);
	assert_int_equal(trusted_dir_open(path, true, 0755, &st, &why), -ENAMETOOLONG);
}

static void test_others_refused(void **state)
{
	const char *why;
	char path[256], target[256];

	(void)state;
	if (geteuid() != 0)
		skip();
	/* another user's directory */
	at("theirs", path, sizeof(path));
	assert_int_equal(mkdir(path, 0755), 0);
	assert_int_equal(chown(path, NOBODY, NOBODY), 0);
	assert_int_equal(walk("theirs", false, &why), -EPERM);
	assert_string_equal(why, "a directory on the way belongs to another user");
	assert_int_equal(walk("theirs/sub", true, &why), -EPERM);
	at("theirs/sub", path, sizeof(path));
	assert_int_equal(access(path, F_OK), -1);	/* nothing made under it */
	/* ours, but open to other writers without the sticky bit */
	at("open", path, sizeof(path));
	assert_int_equal(mkdir(path, 0777), 0);
	assert_int_equal(chmod(path, 0777), 0);
	assert_int_equal(walk("open/x", true, &why), -EPERM);
	assert_string_equal(why, "others may write in a directory on the way (and it is not sticky)");
	/* sticky: ours made in it, and walked */
	assert_int_equal(chmod(path, 01777), 0);
	assert_int_equal(walk("open/x", true, &why), 0);
	/* another user's link in it */
	at("a", target, sizeof(target));
	assert_int_equal(mkdir(target, 0755), 0);
	at("open/their-link", path, sizeof(path));
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(lchown(path, NOBODY, NOBODY), 0);
	assert_int_equal(walk("open/their-link", false, &why), -EPERM);
	assert_string_equal(why, "a symbolic link on the way belongs to another user");
	/* root's own link in a shared directory, but with a second name: planted */
	at("open/root-link", path, sizeof(path));
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(walk("open/root-link", false, &why), 0);
	at("open/root-link2", target, sizeof(target));
	assert_int_equal(link(path, target), 0);
	assert_int_equal(walk("open/root-link2", false, &why), -EPERM);
	assert_string_equal(why, "a symbolic link on the way sits in a directory others may write in");
}

static void test_file_ours(void **state)
{
	const char *why = NULL;
	char path[256], second[256];
	struct stat st;
	int fd;

	(void)state;
	at("series", path, sizeof(path));
	fd = open(path, O_CREAT | O_WRONLY, 0644);
	assert_int_equal(trusted_file_ours(fd, &st, &why), 0);
	at("series2", second, sizeof(second));
	assert_int_equal(link(path, second), 0);
	assert_int_equal(trusted_file_ours(fd, &st, &why), -EPERM);
	assert_string_equal(why, "a file with other names (hard links)");
	unlink(second);
	if (geteuid() == 0) {
		assert_int_equal(fchown(fd, NOBODY, NOBODY), 0);
		assert_int_equal(trusted_file_ours(fd, &st, &why), -EPERM);
		assert_string_equal(why, "another user's file");
	}
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ours_walked_and_made, setup, teardown),
		cmocka_unit_test_setup_teardown(test_others_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_file_ours, setup, teardown),
		cmocka_unit_test_setup_teardown(test_longest_name, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
