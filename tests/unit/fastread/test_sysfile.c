/* SPDX-License-Identifier: MIT */
/*
 * test_sysfile.c: fastread/sysfile.c, the one reader of small sysfs and
 * procfs values: trailing whitespace dropped, a value too long for the
 * buffer refused rather than cut, errors as -errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fastread/sysfile.h"

static char path[64];

static void file_make(const char *text)
{
	int fd;

	snprintf(path, sizeof(path), "/tmp/pfshim-sysfile-%d", (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void test_value_without_its_newline(void **state)
{
	char buf[32];

	(void)state;
	file_make("event=0x3c,umask=0x01 \t\r\n");
	assert_int_equal(sysfile_read(path, buf, sizeof(buf)), 21);
	assert_string_equal(buf, "event=0x3c,umask=0x01");
	unlink(path);
}

static void test_exact_fit_and_one_more(void **state)
{
	char buf[5];

	(void)state;
	file_make("1234");		/* 4 bytes and the NUL: fits */
	assert_int_equal(sysfile_read(path, buf, sizeof(buf)), 4);
	assert_string_equal(buf, "1234");
	file_make("1234\n");		/* the newline does not fit, and is no part of the value */
	assert_int_equal(sysfile_read(path, buf, sizeof(buf)), -ENAMETOOLONG);
	file_make("12345");		/* a value cut short is no value */
	assert_int_equal(sysfile_read(path, buf, sizeof(buf)), -ENAMETOOLONG);
	unlink(path);
}

static void test_empty_and_missing(void **state)
{
	char buf[8] = "x";

	(void)state;
	file_make("\n");
	assert_int_equal(sysfile_read(path, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	unlink(path);
	assert_int_equal(sysfile_read(path, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(sysfile_read("/proc/self/nonexistent-leaf", buf, sizeof(buf)), -ENOENT);
}

/* A descriptor opened (and checked) by the caller: read from its offset, left open. */
static void test_open_descriptor(void **state)
{
	char buf[8];
	int fd;

	(void)state;
	file_make("skip:value\n");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(lseek(fd, 5, SEEK_SET), 5);
	assert_int_equal(sysfile_read_fd(fd, buf, sizeof(buf)), 5);
	assert_string_equal(buf, "value");
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);	/* still open */
	assert_int_equal(sysfile_read_fd(fd, buf, sizeof(buf)), -ENAMETOOLONG);
	close(fd);
	assert_int_equal(sysfile_read_fd(fd, buf, sizeof(buf)), -EBADF);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_value_without_its_newline),
		cmocka_unit_test(test_exact_fit_and_one_more),
		cmocka_unit_test(test_empty_and_missing),
		cmocka_unit_test(test_open_descriptor),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
