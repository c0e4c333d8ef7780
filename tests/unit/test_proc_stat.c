/* SPDX-License-Identifier: MIT */
/*
 * test_proc_stat.c: preload/proc_stat.c. The fields of a /proc/PID/stat
 * line, a comm with spaces and parentheses included; this process's own.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>
#include <cmocka.h>

#include "preload/proc_stat.h"

/* A zombie leader's line (main left by pthread_exit(), one thread left), comm "a) b (c". */
static const char zombie_line[] =
	"2316 (a) b (c) Z 2309 2309 32557 0 -1 4227340 157 0 1 0 0 0 0 0 20 0 2 0 4672611 "
	"0 0 18446744073709551615 0 0 0 0 0 0 0 6 0 0 0 0 17 1 0 0 0 0 0 0 0 0 0 0 0 0 0";

static void test_fields_after_a_comm_with_parentheses(void **state)
{
	struct proc_stat st;

	(void)state;
	assert_int_equal(proc_stat_parse(zombie_line, &st), 0);
	assert_int_equal(st.state, 'Z');
	assert_int_equal(st.ppid, 2309);
	assert_int_equal(st.threads, 2);
	assert_int_equal(st.start, 4672611);
}

static void test_a_line_cut_short_is_refused(void **state)
{
	struct proc_stat st;

	(void)state;
	assert_int_equal(proc_stat_parse("2316 (x) R 1 2 3", &st), -EIO);
	assert_int_equal(proc_stat_parse("no comm at all", &st), -EIO);
}

static void test_this_process(void **state)
{
	struct proc_stat st;

	(void)state;
	assert_int_equal(proc_stat_read(0, &st), 0);
	assert_int_equal(st.state, 'R');
	assert_int_equal(st.ppid, getppid());
	assert_int_equal(st.threads, 1);
	assert_int_equal(proc_stat_read(getpid(), &st), 0);
	assert_int_equal(st.ppid, getppid());
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fields_after_a_comm_with_parentheses),
		cmocka_unit_test(test_a_line_cut_short_is_refused),
		cmocka_unit_test(test_this_process),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
