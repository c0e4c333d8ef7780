/* SPDX-License-Identifier: MIT */
/*
 * test_exec_search.c: preload/exec_search.c, execvp()'s PATH walk: the
 * order of the candidates, glibc's default PATH, an empty element as the
 * working directory, a path too long skipped, the first one taken wins.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "preload/exec_search.h"

struct seen {
	char all[1024];	/* the candidates offered, ';'-separated */
	const char *take;	/* the one to take, or NULL */
};

static bool record(const char *candidate, void *arg)
{
	struct seen *s = arg;

	strcat(s->all, candidate);
	strcat(s->all, ";");
	return s->take && strcmp(candidate, s->take) == 0;
}

static void test_order_and_first_taken(void **state)
{
	struct seen s = { "", "/usr/bin/cc" };

	(void)state;
	assert_true(exec_search("cc", "/opt/x:/usr/bin:/bin", record, &s));
	assert_string_equal(s.all, "/opt/x/cc;/usr/bin/cc;");
}

static void test_none_taken(void **state)
{
	struct seen s = { "", NULL };

	(void)state;
	assert_false(exec_search("cc", "/a::/b", record, &s));
	/* the empty element is the working directory: the bare name */
	assert_string_equal(s.all, "/a/cc;cc;/b/cc;");
}

static void test_default_path_and_empty_name(void **state)
{
	struct seen s = { "", NULL };

	(void)state;
	assert_false(exec_search("true", NULL, record, &s));
	assert_string_equal(s.all, "/bin/true;/usr/bin/true;");
	s.all[0] = '\0';
	assert_false(exec_search("", "/bin", record, &s));
	assert_string_equal(s.all, "");
}

static void test_too_long_skipped(void **state)
{
	static char path[PATH_MAX + 16];
	struct seen s = { "", NULL };

	(void)state;
	memset(path, 'd', PATH_MAX);
	path[0] = '/';
	strcpy(path + PATH_MAX, ":/bin");
	assert_false(exec_search("sh", path, record, &s));
	assert_string_equal(s.all, "/bin/sh;");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_first_taken),
		cmocka_unit_test(test_none_taken),
		cmocka_unit_test(test_default_path_and_empty_name),
		cmocka_unit_test(test_too_long_skipped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
