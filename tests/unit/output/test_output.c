/* SPDX-License-Identifier: MIT */
/*
 * test_output.c: preload/output/output.c, the PFSHIM_OUTPUT template (%p, %h, %e,
 * %r, %t, %n, %%) and where a report lands: a file appended to, one write per report.
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

#include "preload/output/output.h"

/* 1700000000.5 s: 2023-11-14T22:13:20.5Z */
static const struct output_names names = { .pid = 4242, .host = "vm", .program = "sieve",
					    .rank = "3", .start_ns = 1700000000500000000ULL,
					    .seq = 17 };

static void test_expand(void **state)
{
	char path[64];

	(void)state;
	assert_int_equal(output_expand("/tmp/%e.%p.%h.json", &names, path, sizeof(path)), 0);
	assert_string_equal(path, "/tmp/sieve.4242.vm.json");
	assert_int_equal(output_expand("100%%-%p", &names, path, sizeof(path)), 0);
	assert_string_equal(path, "100%-4242");
	assert_int_equal(output_expand("plain", &names, path, sizeof(path)), 0);
	assert_string_equal(path, "plain");
	assert_int_equal(output_expand("", &names, path, sizeof(path)), 0);
	assert_string_equal(path, "");
}

static void test_expand_rank_time_seq(void **state)
{
	struct output_names no_rank = names;
	char path[64];

	(void)state;
	assert_int_equal(output_expand("r%r-%t-%n", &names, path, sizeof(path)), 0);
	assert_string_equal(path, "r3-20231114T221320Z-17");
	no_rank.rank = NULL;
	no_rank.start_ns = 0;
	assert_int_equal(output_expand("r%r-%t", &no_rank, path, sizeof(path)), 0);
	assert_string_equal(path, "r-19700101T000000Z");
	assert_true(output_uses_seq("a.%n"));
	assert_false(output_uses_seq("a.%%n"));
	assert_false(output_uses_seq("a.%p%"));
	assert_true(output_is_dir("/tmp/reports/"));
	assert_false(output_is_dir("/tmp/reports"));
}

/* %n: the first free number, each file created anew. */
static void test_write_seq(void **state)
{
	char dir[] = "/tmp/pfshim-test-output.XXXXXX", template[64], got[64];

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(template, sizeof(template), "%s/r.%%n", dir);
	output_write(template, false, &names, false, "one\n", 4);
	output_write(template, false, &names, false, "two\n", 4);
	for (int i = 0; i < 2; i++) {
		snprintf(got, sizeof(got), "%s/r.%d", dir, i);
		assert_int_equal(access(got, F_OK), 0);
		unlink(got);
	}
	rmdir(dir);
}

static void test_expand_bad_percent(void **state)
{
	char path[64];

	(void)state;
	assert_int_equal(output_expand("/tmp/%x", &names, path, sizeof(path)), -EINVAL);
	assert_int_equal(output_expand("/tmp/50%", &names, path, sizeof(path)), -EINVAL);
}

/* "a.4242" needs 7 bytes with its NUL: 6 is too few, 7 is enough. */
static void test_expand_too_long(void **state)
{
	char path[8];

	(void)state;
	assert_int_equal(output_expand("a.%p", &names, path, 6), -ENAMETOOLONG);
	assert_int_equal(output_expand("a.%p", &names, path, 7), 0);
	assert_string_equal(path, "a.4242");
	assert_int_equal(output_expand("", &names, path, 0), -ENAMETOOLONG);
}

static void test_write_appends(void **state)
{
	char dir[] = "/tmp/pfshim-test-output.XXXXXX", template[64], got[64];
	int fd;
	ssize_t n;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(template, sizeof(template), "%s/r.%%p", dir);
	errno = 1234;
	output_write(template, false, &names, false, "one\n", 4);
	output_write(template, false, &names, false, "two\n", 4);
	assert_int_equal(errno, 1234);
	snprintf(got, sizeof(got), "%s/r.4242", dir);
	fd = open(got, O_RDONLY);
	assert_true(fd >= 0);
	n = read(fd, got, sizeof(got));
	close(fd);
	assert_int_equal(n, 8);
	assert_memory_equal(got, "one\ntwo\n", 8);
	snprintf(got, sizeof(got), "%s/r.4242", dir);
	unlink(got);
	rmdir(dir);
}

/* An expanded field never climbs out of the template's directory, nor carries control bytes. */
static void test_expand_sanitizes_fields(void **state)
{
	static const struct { const char *host, *program, *template, *path; } cases[] = {
		{ "../../etc", "x", "/tmp/%h", "/tmp/_._.._etc" },
		{ "..", "..", "/tmp/%e/%h", "/tmp/_./_." },
		{ ".", ".", "/tmp/%e%h.log", "/tmp/_..log" },
		{ "h", ".", "/tmp/.%e", "/tmp/._" },
		{ "h", "a/../../b", "/tmp/r.%e", "/tmp/r.a_.._.._b" },
		{ "h\x1b[2J", "p\n\x7f", "/tmp/%h-%e", "/tmp/h_[2J-p__" },
		{ "h", ".hidden", "/tmp/%e", "/tmp/_hidden" },
		{ "h", "v1.2", "/tmp/%e.%p", "/tmp/v1.2.4242" },
		{ "h", "x", "/tmp/../%e", "/tmp/../x" },	/* the template's own ".." is the user's */
	};
	char path[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct output_names n = { .pid = 4242, .host = cases[i].host,
					  .program = cases[i].program };

		assert_int_equal(output_expand(cases[i].template, &n, path, sizeof(path)), 0);
		assert_string_equal(path, cases[i].path);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_expand_rank_time_seq),
		cmocka_unit_test(test_write_seq),
		cmocka_unit_test(test_expand_bad_percent),
		cmocka_unit_test(test_expand_too_long),
		cmocka_unit_test(test_write_appends),
		cmocka_unit_test(test_expand_sanitizes_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
