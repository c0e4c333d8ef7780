/* SPDX-License-Identifier: MIT */
/*
 * test_timer.c: fastread/timer.c on synthetic metadata pages: the
 * clock is offered only where a page says cap_user_time, takes the page's
 * factors, and then counts forward at the rate they give.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "fastread/arch.h"
#include "fastread/internal.h"

static struct perf_event_mmap_page page;
static struct fastread_group group;

static int reset(void **state)
{
	(void)state;
	memset(&page, 0, sizeof(page));
	memset(&group, 0, sizeof(group));
	group.nr = 1;
	group.page[0] = &page;
	return 0;
}

/* No cap_user_time (software events, as on the build machines): no clock. */
static void test_timer_needs_user_time(void **state)
{
	struct fastread_timer t = { 7, 7 };

	(void)state;
	page.time_mult = 33554432;
	page.time_shift = 21;
	assert_int_equal(fastread_timer_init(&t, &group), -ENODATA);
	assert_int_equal(t.mult, 0);
	/* Nor without a page, or with factors that convert nothing. */
	page.cap_user_time = 1;
	group.page[0] = NULL;
	assert_int_equal(fastread_timer_init(&t, &group), -ENODATA);
	group.page[0] = &page;
	page.time_mult = 0;
	assert_int_equal(fastread_timer_init(&t, &group), -ENODATA);
	page.time_mult = 1;
	page.time_shift = 64;
	assert_int_equal(fastread_timer_init(&t, &group), -ENODATA);
}

/*
 * The page's factors are kept, and the clock runs forward at their rate:
 * with mult 3 << 20 and shift 20, three ns a tick of the timestamp counter.
 */
static void test_timer_takes_the_page_factors(void **state)
{
	struct fastread_timer t;
	uint64_t a, b, ta, tb;

	(void)state;
	page.cap_user_time = 1;
	page.time_mult = 3u << 20;
	page.time_shift = 20;
	if (!FASTREAD_ARCH_USER_READ) {
		assert_int_equal(fastread_timer_init(&t, &group), -ENODATA);
		return;
	}
	assert_int_equal(fastread_timer_init(&t, &group), 0);
	assert_int_equal(t.mult, 3u << 20);
	assert_int_equal(t.shift, 20);
	ta = arch_read_timestamp();
	a = fastread_timer_ns(&t);
	b = fastread_timer_ns(&t);
	tb = arch_read_timestamp();
	assert_true(b >= a);
	/*
	 * 3 ns a tick of the ticks read around them (the split formula is exact
	 * here); 1000 ticks of slack, as x86's rdtsc is not ordered.
	 */
	assert_true(a + 3000 >= 3 * ta && b <= 3 * tb + 3000);
	assert_true(b - a <= 3 * (tb - ta) + 3000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_timer_needs_user_time, reset),
		cmocka_unit_test_setup(test_timer_takes_the_page_factors, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
