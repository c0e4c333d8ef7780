/* SPDX-License-Identifier: MIT */
/*
 * test_scale.c: fastread/scale.c, value * enabled / running without
 * 64-bit overflow, held to a 128-bit reference, values near 2^64 included.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "fastread/internal.h"

static int scale(uint64_t value, uint64_t enabled, uint64_t running, uint64_t *out)
{
	struct fastread_count c = { value, enabled, running };

	return fastread_scale(&c, out);
}

/* Enabled for some time, running for none: never on a counter. */
static void test_scale_not_counted(void **state)
{
	uint64_t out = 123;

	(void)state;
	assert_int_equal(scale(5000, 1000, 0, &out), -ENODATA);
	assert_int_equal(out, 0);
	out = 123;
	assert_int_equal(scale(0, 1, 0, &out), -ENODATA);
	assert_int_equal(out, 0);
}

/*
 * Two fastread reads between two updates of the page (times equal there are
 * not brought forward) differ by 0 ns enabled and 0 ns running: the counter
 * ran all that time, so the difference is exact, never "not counted".
 */
static void test_scale_equal_zero_times_are_exact(void **state)
{
	struct fastread_count begin = { 1000, 7000, 7000 }, end = { 1250, 7000, 7000 };
	struct fastread_count delta = { end.value - begin.value, end.enabled - begin.enabled,
					end.running - begin.running };
	uint64_t out = 0;

	(void)state;
	assert_int_equal(fastread_scale(&delta, &out), 0);
	assert_int_equal(out, 250);
	assert_int_equal(scale(0, 0, 0, &out), 0);	/* an exact 0 */
	assert_int_equal(out, 0);
	assert_int_equal(scale(UINT64_MAX, 0, 0, &out), 0);
	assert_int_equal(out, UINT64_MAX);
}

static void test_scale_known_values(void **state)
{
	uint64_t out;

	(void)state;
	assert_int_equal(scale(1000, 300, 300, &out), 0);
	assert_int_equal(out, 1000);
	assert_int_equal(scale(1000, 300, 100, &out), 0);
	assert_int_equal(out, 3000);
	assert_int_equal(scale(10, 3, 2, &out), 0);
	assert_int_equal(out, 15);
	assert_int_equal(scale(7, 3, 2, &out), 0);	/* 10.5, rounded down */
	assert_int_equal(out, 10);
	/* value * enabled overflows 64 bits, the result does not. */
	assert_int_equal(scale(UINT64_MAX, UINT64_C(1) << 32, UINT64_C(1) << 33, &out), 0);
	assert_int_equal(out, UINT64_MAX / 2);
	assert_int_equal(scale(UINT64_C(1) << 63, 3000000000ULL, 4000000000ULL, &out), 0);
	assert_int_equal(out, 3ULL << 61);
	/* Equal times keep even the largest value as it is. */
	assert_int_equal(scale(UINT64_MAX, UINT64_MAX, UINT64_MAX, &out), 0);
	assert_int_equal(out, UINT64_MAX);
}

static void test_scale_result_too_large(void **state)
{
	uint64_t out = 0;

	(void)state;
	assert_int_equal(scale(UINT64_MAX - 5, 2000, 1000, &out), -EOVERFLOW);
	assert_int_equal(out, UINT64_MAX);
	/* Exactly 2^64: one past the largest quotient. */
	assert_int_equal(scale(UINT64_C(1) << 63, 2, 1, &out), -EOVERFLOW);
	assert_int_equal(scale((UINT64_C(1) << 63) - 1, 2, 1, &out), 0);
	assert_int_equal(out, UINT64_MAX - 1);
	/* The largest quotient itself, 2^64 - 1 = 3 * 6148914691236517205: it fits. */
	assert_int_equal(scale(UINT64_C(6148914691236517205), 3, 1, &out), 0);
	assert_int_equal(out, UINT64_MAX);
	assert_int_equal(fastread_mul_div_portable(UINT64_C(6148914691236517205), 3, 1, &out), 0);
	assert_int_equal(out, UINT64_MAX);
}

static uint64_t rand64(void)
{
	return (uint64_t)random() << 62 ^ (uint64_t)random() << 31 ^ (uint64_t)random();
}

/* Random operands, many of them near 2^64, through both implementations. */
static void test_mul_div_against_reference(void **state)
{
	int i, checked = 0;

	(void)state;
	srandom(3);
	for (i = 0; i < 300000; i++) {
		uint64_t a = rand64() >> (random() % 4 == 0 ? random() % 64 : 0);
		uint64_t b = rand64() >> (random() % 64);
		uint64_t c = rand64() >> (random() % 64);
		unsigned __int128 want;
		uint64_t got, got_portable;
		int err = 0;

		if (c == 0)
			continue;
		if (i % 8 == 0)
			b = c + (rand64() & 0xffff);	/* enabled just above running */
		want = (unsigned __int128)a * b / c;
		if (want > UINT64_MAX) {
			want = UINT64_MAX;
			err = -EOVERFLOW;
		}
		assert_int_equal(fastread_mul_div(a, b, c, &got), err);
		assert_int_equal(fastread_mul_div_portable(a, b, c, &got_portable), err);
		assert_int_equal(got, (uint64_t)want);
		assert_int_equal(got_portable, (uint64_t)want);
		checked++;
	}
	assert_true(checked > 290000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scale_not_counted),
		cmocka_unit_test(test_scale_equal_zero_times_are_exact),
		cmocka_unit_test(test_scale_known_values),
		cmocka_unit_test(test_scale_result_too_large),
		cmocka_unit_test(test_mul_div_against_reference),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
