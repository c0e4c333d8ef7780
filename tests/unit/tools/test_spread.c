/* SPDX-License-Identifier: MIT */
/*
 * test_spread.c: tools/pfshim/model/spread.c: perf stat -r's standard deviation
 * of the mean, computed here by hand for known values, and when two sets of
 * repeats lie apart.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "tools/pfshim/model/spread.h"

static void test_spread_known(void **state)
{
	/* mean 5; deviations -3 -1 1 3: squares 20; / (n-1) = 6.667; / n = 1.6667 */
	const double x[] = { 2, 4, 6, 8 }, one[] = { 7 };
	struct spread sp;

	(void)state;
	spread_of(x, 4, &sp);
	assert_int_equal(sp.n, 4);
	assert_true(sp.mean == 5 && sp.min == 2 && sp.max == 8);
	assert_true(fabs(sp.stddev - sqrt(20.0 / 3 / 4)) < 1e-12);
	assert_true(fabs(spread_percent(&sp) - 100 * sqrt(20.0 / 12) / 5) < 1e-9);
	spread_of(one, 1, &sp);
	assert_true(sp.n == 1 && sp.mean == 7 && sp.stddev == 0);
	spread_of(x, 0, &sp);
	assert_true(sp.n == 0 && sp.mean == 0 && spread_percent(&sp) == 0);
	/* large equal counts: no cancellation (one pass of sum of squares would give noise) */
	const double big[] = { 1e15 + 1, 1e15 + 1, 1e15 + 1 };

	spread_of(big, 3, &sp);
	assert_true(sp.stddev == 0);
}

static void test_spread_apart(void **state)
{
	const double a[] = { 100, 120 }, b[] = { 150, 170 }, c[] = { 115, 160 }, p[] = { 130 }, q[] = { 110 };
	const double d[] = { 120, 150 };
	struct spread sa, sb, sc, sd, sp, sq;

	(void)state;
	spread_of(a, 2, &sa);
	spread_of(b, 2, &sb);
	spread_of(c, 2, &sc);
	spread_of(d, 2, &sd);
	spread_of(p, 1, &sp);
	spread_of(q, 1, &sq);
	assert_true(spread_apart(&sa, &sb));
	assert_true(spread_apart(&sb, &sa));
	assert_false(spread_apart(&sa, &sc));	/* 115 is within 100..120 */
	assert_false(spread_apart(&sa, &sd));	/* ranges that touch overlap */
	assert_false(spread_apart(&sd, &sa));
	assert_true(spread_apart(&sa, &sp));	/* one run beside repeats: outside their range */
	assert_false(spread_apart(&sa, &sq));
	assert_false(spread_apart(&sp, &sq));	/* one value a side: no noise known */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spread_known),
		cmocka_unit_test(test_spread_apart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
