/* SPDX-License-Identifier: MIT */
/*
 * test_claim.c: tools/pfshim/run/claim.c, a runner's claim on its output
 * directory: a second claim while the first's descriptor is open is
 * refused with the first's pid, and taken once it is closed; without
 * create, nothing is made; what is planted at the name (a link, a FIFO, a
 * second name) is refused, never locked or written.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/pfshim/run/claim.h"

static char dir[] = "/tmp/test_claim.XXXXXX";
static int dfd = -1;

static int setup(void **state)
{
	(void)state;
	strcpy(dir, "/tmp/test_claim.XXXXXX");
	assert_non_null(mkdtemp(dir));
	dfd = open(dir, O_PATH | O_DIRECTORY);
	return dfd < 0;
}

static int teardown(void **state)
{
	(void)state;
	unlinkat(dfd, CLAIM_FILE, 0);
	unlinkat(dfd, "second", 0);
	unlinkat(dfd, "target", 0);
	close(dfd);
	rmdir(dir);
	return 0;
}

static void test_a_held_claim_is_refused_with_its_pid_then_taken(void **state)
{
	const char *why;
	int holder, first, second;
	char text[32];

	(void)state;
	assert_int_equal(run_claim(dfd, false, &holder, &why), -ENOENT);
	assert_int_equal(faccessat(dfd, CLAIM_FILE, F_OK, 0), -1);
	first = run_claim(dfd, true, &holder, &why);
	assert_true(first >= 0);
	/* a flock(2) is the open file description's: a second open conflicts, in one process too */
	assert_int_equal(run_claim(dfd, true, &holder, &why), -EWOULDBLOCK);
	assert_int_equal(holder, getpid());
	assert_int_equal(run_claim(dfd, false, &holder, &why), -EWOULDBLOCK);
	snprintf(text, sizeof(text), "%d\n", (int)getpid());
	assert_int_equal(pread(first, text + 16, 16, 0), (ssize_t)strlen(text));
	assert_memory_equal(text + 16, text, strlen(text));
	close(first);
	/* its holder gone (a runner killed), the file is anyone's next claim */
	second = run_claim(dfd, false, &holder, &why);
	assert_true(second >= 0);
	close(second);
}

static void test_what_is_planted_at_the_name_is_refused(void **state)
{
	const char *why;
	int holder, fd;
	struct stat st;

	(void)state;
	assert_int_equal(symlinkat("target", dfd, CLAIM_FILE), 0);
	assert_int_equal(run_claim(dfd, true, &holder, &why), -EPERM);
	assert_string_equal(why, "a symbolic link");
	assert_int_equal(fstatat(dfd, "target", &st, 0), -1);	/* not created through it */
	assert_int_equal(unlinkat(dfd, CLAIM_FILE, 0), 0);

	assert_int_equal(mkfifoat(dfd, CLAIM_FILE, 0600), 0);
	assert_int_equal(run_claim(dfd, true, &holder, &why), -EPERM);
	assert_string_equal(why, "not a regular file");
	assert_int_equal(unlinkat(dfd, CLAIM_FILE, 0), 0);

	fd = openat(dfd, CLAIM_FILE, O_WRONLY | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "victim\n", 7), 7);
	close(fd);
	assert_int_equal(linkat(dfd, CLAIM_FILE, dfd, "second", 0), 0);
	assert_int_equal(run_claim(dfd, true, &holder, &why), -EPERM);
	assert_string_equal(why, "a file with other names (hard links)");
	assert_int_equal(fstatat(dfd, "second", &st, 0), 0);
	assert_int_equal(st.st_size, 7);	/* never written */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_a_held_claim_is_refused_with_its_pid_then_taken,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_what_is_planted_at_the_name_is_refused, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
