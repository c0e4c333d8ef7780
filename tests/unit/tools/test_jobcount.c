/* SPDX-License-Identifier: MIT */
/*
 * test_jobcount.c: tools/pfshim/run/jobcount.c's reading of pfshim run's ledger
 * (preload/output/ledger.h): "PID ERRNO\n" lines only, and a malformed one
 * (two lines joined by a short write, a line cut short, another writer's
 * bytes) skipped and counted, the lines after it still read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tools/pfshim/run/jobcount.h"

static bool line_is(const char *line, size_t len, int pid, int err)
{
	int p = -1, e = -1;

	return jobcount_ledger_line(line, len, &p, &e) && p == pid && e == err;
}

static bool malformed(const char *line, size_t len)
{
	int p, e;

	return !jobcount_ledger_line(line, len, &p, &e);
}

#define LINE(s) s, sizeof(s) - 1

static void test_line_good(void **state)
{
	(void)state;
	assert_true(line_is(LINE("4242 0\n"), 4242, 0));
	assert_true(line_is(LINE("1 28\n"), 1, 28));
	assert_true(line_is(LINE("4194303 4095\n"), 4194303, 4095));	/* the largest of each */
}

static void test_line_malformed(void **state)
{
	(void)state;
	/* what a short write past the reserved room leaves: joined, or cut short */
	assert_true(malformed(LINE("4242 24243 0\n")));
	assert_true(malformed(LINE("4242 4243 0\n")));
	assert_true(malformed(LINE("4242 2")));
	assert_true(malformed(LINE("4242 ")));
	assert_true(malformed(LINE("4242\n")));
	assert_true(malformed(LINE("\n")));
	assert_true(malformed(LINE("")));
	/* anything but "digits space digits newline" */
	assert_true(malformed(LINE(" 4242 0\n")));
	assert_true(malformed(LINE("4242  0\n")));
	assert_true(malformed(LINE("4242\t0\n")));
	assert_true(malformed(LINE("4242 0\r\n")));
	assert_true(malformed(LINE("4242 0 \n")));
	assert_true(malformed(LINE("-1 0\n")));
	assert_true(malformed(LINE("+1 0\n")));
	assert_true(malformed(LINE("4242 -28\n")));
	assert_true(malformed(LINE("0x10 0\n")));
	assert_true(malformed(LINE("42\x1b[2J 0\n")));
	assert_true(malformed(LINE("4242 0\0\n")));	/* a NUL inside: getline's length counts it */
	/* out of range: no pid 0 or past PID_MAX_LIMIT, no errno past MAX_ERRNO, no overflow */
	assert_true(malformed(LINE("0 0\n")));
	assert_true(malformed(LINE("4194304 0\n")));
	assert_true(malformed(LINE("4242 4096\n")));
	assert_true(malformed(LINE("99999999999999999999 0\n")));
	assert_true(malformed(LINE("4242 18446744073709551644\n")));
}

/* A ledger with malformed lines among good ones: each skipped, counted, and reading goes on. */
static void test_read_goes_on(void **state)
{
	static const char ledger[] = "1 0\ngarbage\n2 28\n\n3 24243 0\n4 0\n5 2";
	struct jobcount j;
	FILE *f = fmemopen((void *)ledger, sizeof(ledger) - 1, "r");

	(void)state;
	memset(&j, 0, sizeof(j));
	assert_non_null(f);
	jobcount_ledger_read(&j, f);
	fclose(f);
	assert_int_equal(j.ledger_malformed, 4);
}

/* A line of 1 MiB (no newline for a long way): one malformed line, not a stop. */
static void test_read_huge_line(void **state)
{
	size_t n = 1 << 20;
	char *ledger = malloc(n + 16);
	struct jobcount j;
	FILE *f;

	(void)state;
	assert_non_null(ledger);
	memset(ledger, '7', n);
	memcpy(ledger + n, "\n1 0\n", 6);
	f = fmemopen(ledger, n + 5, "r");
	assert_non_null(f);
	memset(&j, 0, sizeof(j));
	jobcount_ledger_read(&j, f);
	fclose(f);
	free(ledger);
	assert_int_equal(j.ledger_malformed, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_good),
		cmocka_unit_test(test_line_malformed),
		cmocka_unit_test(test_read_goes_on),
		cmocka_unit_test(test_read_huge_line),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
