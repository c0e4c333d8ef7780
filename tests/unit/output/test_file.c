/* SPDX-License-Identifier: MIT */
/*
 * test_report_file.c: preload/output/file.c, a report written into a file
 * the careful way: new files whole or not at all, appends cut back when
 * they fall short, planted symlinks, FIFOs and other users' files in
 * shared directories refused, nothing that blocks; and files replaced
 * whole at each report (report_file_replace(), for OpenMetrics).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "preload/output/file.h"

#define OTHER_UID 65534

static char dir[64];

static int make_dir(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/pfshim-test-report-file.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

/* Four paths at a time may be alive (symlink(in_dir(a), in_dir(b))). */
static char *in_dir(const char *name)
{
	static char paths[4][128];
	static int next;
	char *path = paths[next++ % 4];

	snprintf(path, 128, "%s/%s", dir, name);
	return path;
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static const char *read_file(const char *path)
{
	static char text[4096];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	assert_true(n >= 0);
	text[n] = '\0';
	return text;
}

/* report_file_write() borrows its path: a writable copy. */
static char *dev(const char *name)
{
	static char path[64];

	snprintf(path, sizeof(path), "/dev/%s", name);
	return path;
}

static int entries(void)
{
	DIR *d = opendir(dir);
	int n = 0;

	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.' || (e->d_name[1] && strcmp(e->d_name, ".."));
	closedir(d);
	return n;
}

static void test_new_file_whole_and_append(void **state)
{
	const char *why;

	(void)state;
	assert_int_equal(report_file_write(in_dir("r"), "one\n", 4, &why), 0);
	assert_string_equal(read_file(in_dir("r")), "one\n");
	assert_int_equal(report_file_write(in_dir("r"), "two\n", 4, &why), 0);
	assert_string_equal(read_file(in_dir("r")), "one\ntwo\n");
	assert_int_equal(entries(), 1);	/* no temporary name left behind */
}

static void test_new_file_mode_follows_umask(void **state)
{
	struct stat st;
	const char *why;
	mode_t old = umask(027);

	(void)state;
	assert_int_equal(report_file_write(in_dir("m"), "x", 1, &why), 0);
	umask(old);
	assert_int_equal(stat(in_dir("m"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0640);
}

static void test_fifo_without_reader_does_not_block(void **state)
{
	const char *why;

	(void)state;
	assert_int_equal(mkfifo(in_dir("p"), 0600), 0);
	assert_int_equal(report_file_write(in_dir("p"), "x", 1, &why), -ENXIO);
	assert_non_null(why);
}

static void test_block_device_and_directory_refused(void **state)
{
	const char *why;

	(void)state;
	assert_int_equal(report_file_write(dir, "x", 1, &why), -EISDIR);
	if (access("/dev/loop0", F_OK) == 0 && getuid() == 0)
			assert_int_equal(report_file_write(dev("loop0"), "x", 1, &why), -EINVAL);
	assert_int_equal(report_file_write(dev("null"), "x", 1, &why), 0);
}

static void test_full_device_is_an_error(void **state)
{
	const char *why;

	(void)state;
	assert_int_equal(report_file_write(dev("full"), "x", 1, &why), -ENOSPC);
}

/* A symlink of ours in a private directory is followed (PFSHIM_OUTPUT=/dev/stderr style). */
static void test_own_symlink_followed(void **state)
{
	const char *why;

	(void)state;
	write_file(in_dir("target"), "");
	assert_int_equal(symlink(in_dir("target"), in_dir("link")), 0);
	assert_int_equal(report_file_write(in_dir("link"), "via\n", 4, &why), 0);
	assert_string_equal(read_file(in_dir("target")), "via\n");
	/* a dangling link is not followed to create its target */
	assert_int_equal(symlink(in_dir("nothing"), in_dir("dangling")), 0);
	assert_int_equal(report_file_write(in_dir("dangling"), "x", 1, &why), -ENOENT);
	assert_int_equal(access(in_dir("nothing"), F_OK), -1);
}

/* In a shared directory (here sticky and world-writable): another user's symlink, file or FIFO is refused. */
static void test_sticky_directory_other_users_entries(void **state)
{
	const char *why;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(chmod(dir, 01777), 0);
	write_file(in_dir("secret"), "root only\n");
	assert_int_equal(chmod(in_dir("secret"), 0600), 0);
	assert_int_equal(symlink(in_dir("secret"), in_dir("planted")), 0);
	assert_int_equal(lchown(in_dir("planted"), OTHER_UID, OTHER_UID), 0);
	assert_int_equal(report_file_write(in_dir("planted"), "x\n", 2, &why), -ELOOP);
	assert_non_null(why);
	assert_string_equal(read_file(in_dir("secret")), "root only\n");

	write_file(in_dir("theirs"), "");
	assert_int_equal(chown(in_dir("theirs"), OTHER_UID, OTHER_UID), 0);
	assert_int_equal(report_file_write(in_dir("theirs"), "x\n", 2, &why), -EACCES);
	assert_string_equal(read_file(in_dir("theirs")), "");

	/* a hard link to our own file elsewhere (protected_hardlinks 0 allows anyone that) */
	write_file(in_dir("elsewhere"), "keep\n");
	assert_int_equal(link(in_dir("elsewhere"), in_dir("hardlink")), 0);
	assert_int_equal(report_file_write(in_dir("hardlink"), "x\n", 2, &why), -EACCES);
	assert_string_equal(read_file(in_dir("elsewhere")), "keep\n");

	/* ours, in the same directory: appended */
	write_file(in_dir("mine"), "");
	assert_int_equal(report_file_write(in_dir("mine"), "x\n", 2, &why), 0);
	assert_string_equal(read_file(in_dir("mine")), "x\n");

	/* world-writable without the sticky bit: anyone could have replaced ours; refused whole */
	assert_int_equal(chmod(dir, 0777), 0);
	assert_int_equal(report_file_write(in_dir("theirs"), "x\n", 2, &why), -EPERM);
	assert_string_equal(why, "others may write in a directory on the way (and it is not sticky)");
	assert_int_equal(report_file_write(in_dir("mine"), "x\n", 2, &why), -EPERM);

	/* the same file of another user in a directory that is not shared: theirs to give */
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(report_file_write(in_dir("theirs"), "x\n", 2, &why), 0);
	assert_string_equal(read_file(in_dir("theirs")), "x\n");
}

/* Past RLIMIT_FSIZE: an error, no signal, no partial report left in the file. */
static void test_file_size_limit(void **state)
{
	struct rlimit old, rl;
	char big[300];
	const char *why;

	(void)state;
	memset(big, 'r', sizeof(big));
	write_file(in_dir("old"), "0123456789\n");
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	rl = old;
	rl.rlim_cur = 100;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &rl), 0);
	assert_int_equal(report_file_write(in_dir("old"), big, sizeof(big), &why), -EFBIG);
	assert_int_equal(report_file_write(in_dir("new"), big, sizeof(big), &why), -EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	assert_string_equal(read_file(in_dir("old")), "0123456789\n");
	assert_int_equal(access(in_dir("new"), F_OK), -1);
	assert_int_equal(entries(), 1);
}

/*
 * report_file_replace(): each report replaces the file, atomically (a new
 * inode renamed over the name), leaving nothing else in the directory, for
 * any number of reports.
 */
static void test_replace_holds_the_latest(void **state)
{
	struct stat after;
	const char *why;
	char first[8] = "";
	int fd;

	(void)state;
	assert_int_equal(report_file_replace(in_dir("r.prom"), "one\n", 4, &why), 0);
	assert_string_equal(read_file(in_dir("r.prom")), "one\n");
	fd = open(in_dir("r.prom"), O_RDONLY);	/* the first file, as a reader holds it */
	assert_true(fd >= 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(report_file_replace(in_dir("r.prom"), "two\n", 4, &why), 0);
	assert_int_equal(report_file_replace(in_dir("r.prom"), "three\n", 6, &why), 0);
	assert_string_equal(read_file(in_dir("r.prom")), "three\n");
	/* renamed over, not rewritten: a reader of the old file still reads it whole */
	assert_int_equal(read(fd, first, sizeof(first) - 1), 4);
	assert_string_equal(first, "one\n");
	close(fd);
	assert_int_equal(entries(), 1);	/* no temporary left, hidden or not */

	/* a character device is written, not replaced */
	assert_int_equal(report_file_replace(dev("null"), "x", 1, &why), 0);
	assert_int_equal(stat("/dev/null", &after), 0);
	assert_true(S_ISCHR(after.st_mode));
}

/* A link to a regular file is refused (renaming would replace the link); one to a device is written. */
static void test_replace_symlinks(void **state)
{
	struct stat st;
	const char *why;

	(void)state;
	write_file(in_dir("target"), "kept\n");
	assert_int_equal(symlink(in_dir("target"), in_dir("link")), 0);
	assert_int_equal(report_file_replace(in_dir("link"), "new\n", 4, &why), -ELOOP);
	assert_non_null(why);
	assert_string_equal(read_file(in_dir("target")), "kept\n");
	assert_int_equal(lstat(in_dir("link"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));

	assert_int_equal(symlink("/dev/null", in_dir("null")), 0);
	assert_int_equal(report_file_replace(in_dir("null"), "x", 1, &why), 0);
	assert_int_equal(lstat(in_dir("null"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));

	/* a dangling link is not followed, nor replaced */
	assert_int_equal(symlink(in_dir("nothing"), in_dir("dangling")), 0);
	assert_int_equal(report_file_replace(in_dir("dangling"), "x", 1, &why), -ENOENT);
	assert_int_equal(access(in_dir("nothing"), F_OK), -1);
	assert_int_equal(entries(), 4);
}

/* In a shared directory, the checks of an append hold for a replacement. */
static void test_replace_sticky_directory(void **state)
{
	const char *why;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_int_equal(chmod(dir, 01777), 0);
	write_file(in_dir("secret"), "root only\n");
	assert_int_equal(symlink(in_dir("secret"), in_dir("planted")), 0);
	assert_int_equal(lchown(in_dir("planted"), OTHER_UID, OTHER_UID), 0);
	assert_int_equal(report_file_replace(in_dir("planted"), "x\n", 2, &why), -ELOOP);
	assert_string_equal(read_file(in_dir("secret")), "root only\n");

	write_file(in_dir("theirs"), "theirs\n");
	assert_int_equal(chown(in_dir("theirs"), OTHER_UID, OTHER_UID), 0);
	assert_int_equal(report_file_replace(in_dir("theirs"), "x\n", 2, &why), -EACCES);
	assert_string_equal(read_file(in_dir("theirs")), "theirs\n");

	write_file(in_dir("elsewhere"), "keep\n");
	assert_int_equal(link(in_dir("elsewhere"), in_dir("hardlink")), 0);
	assert_int_equal(report_file_replace(in_dir("hardlink"), "x\n", 2, &why), -EACCES);
	assert_string_equal(read_file(in_dir("elsewhere")), "keep\n");

	write_file(in_dir("mine"), "old\n");
	assert_int_equal(report_file_replace(in_dir("mine"), "new\n", 4, &why), 0);
	assert_string_equal(read_file(in_dir("mine")), "new\n");
	assert_int_equal(entries(), 6);
}

/* Past RLIMIT_FSIZE: EFBIG, no signal, the old report kept whole, nothing left behind. */
static void test_replace_file_size_limit(void **state)
{
	struct rlimit old, rl;
	char big[300];
	const char *why;

	(void)state;
	memset(big, 'r', sizeof(big));
	write_file(in_dir("old"), "0123456789\n");
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	rl = old;
	rl.rlim_cur = 100;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &rl), 0);
	assert_int_equal(report_file_replace(in_dir("old"), big, sizeof(big), &why), -EFBIG);
	assert_int_equal(report_file_replace(in_dir("new"), big, sizeof(big), &why), -EFBIG);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	assert_string_equal(read_file(in_dir("old")), "0123456789\n");
	assert_int_equal(access(in_dir("new"), F_OK), -1);
	assert_int_equal(entries(), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_new_file_whole_and_append, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_new_file_mode_follows_umask, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_fifo_without_reader_does_not_block, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_block_device_and_directory_refused, make_dir, remove_dir),
		cmocka_unit_test(test_full_device_is_an_error),
		cmocka_unit_test_setup_teardown(test_own_symlink_followed, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_sticky_directory_other_users_entries, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_file_size_limit, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_replace_holds_the_latest, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_replace_symlinks, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_replace_sticky_directory, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_replace_file_size_limit, make_dir, remove_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
