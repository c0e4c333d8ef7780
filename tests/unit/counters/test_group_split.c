/* SPDX-License-Identifier: MIT */
/*
 * test_group_split.c: preload/counters/group_split.c against a fake PMU that holds
 * a known number of events per group (no hardware PMU here:
 * docs/kernel-notes.md),
 * so every split it must make is known in advance.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "preload/counters/group_split.h"

/* A PMU of @counters counters; event @refused (if >= 0) never opens; counts the trials. */
struct fake_pmu {
	int counters;
	int refused;
	int trials;
};

static int fake_try(int first, int nr, void *arg)
{
	struct fake_pmu *pmu = arg;

	pmu->trials++;
	if (pmu->refused >= first && pmu->refused < first + nr)
		return -ENOENT;
	return nr > pmu->counters ? -ENOSPC : 0;
}

static void assert_groups(const struct group_spec *got, int nr_got, const int *sizes, int nr)
{
	int first = 0;

	assert_int_equal(nr_got, nr);
	for (int g = 0; g < nr; g++) {
		assert_int_equal(got[g].first, first);
		assert_int_equal(got[g].nr, sizes[g]);
		first += sizes[g];
	}
}

/* 7 instructions on QEMU's 6 counters: 6 + 1, as the arm64 harness sees. */
static void test_one_too_many_splits_off_the_last(void **state)
{
	struct group_spec g[8] = { { 0, 7 } };
	struct fake_pmu pmu = { 6, -1, 0 };
	int nr = 1;

	(void)state;
	assert_int_equal(group_plan_split(g, &nr, 8, fake_try, &pmu), 0);
	assert_groups(g, nr, (const int[]){ 6, 1 }, 2);
	assert_int_equal(pmu.trials, 2);	/* 7: no, 6: yes; a single event is never tried */
}

/* The split-off part is tried in its turn and split again; later groups keep their place. */
static void test_split_repeats_and_keeps_order(void **state)
{
	struct group_spec g[16] = { { 0, 7 }, { 7, 2 } };
	struct fake_pmu pmu = { 3, -1, 0 };
	int nr = 2;

	(void)state;
	assert_int_equal(group_plan_split(g, &nr, 16, fake_try, &pmu), 0);
	assert_groups(g, nr, (const int[]){ 3, 3, 1, 2 }, 4);
}

static void test_groups_that_fit_are_left_alone(void **state)
{
	struct group_spec g[4] = { { 0, 2 }, { 2, 4 } };
	struct fake_pmu pmu = { 4, -1, 0 };
	int nr = 2;

	(void)state;
	assert_int_equal(group_plan_split(g, &nr, 4, fake_try, &pmu), 0);
	assert_groups(g, nr, (const int[]){ 2, 4 }, 2);
	assert_int_equal(pmu.trials, 2);
}

/* An event that cannot open at all is no reason to split: the thread's open reports it. */
static void test_other_errors_do_not_split(void **state)
{
	struct group_spec g[4] = { { 0, 3 } };
	struct fake_pmu pmu = { 1, 1, 0 };
	int nr = 1;

	(void)state;
	assert_int_equal(group_plan_split(g, &nr, 4, fake_try, &pmu), 0);
	assert_groups(g, nr, (const int[]){ 3 }, 1);
}

/* A PMU that holds nothing as a group: down to single events, never below. */
static void test_single_events_stay(void **state)
{
	struct group_spec g[4] = { { 0, 3 } };
	struct fake_pmu pmu = { 0, -1, 0 };
	int nr = 1;

	(void)state;
	assert_int_equal(group_plan_split(g, &nr, 4, fake_try, &pmu), 0);
	assert_groups(g, nr, (const int[]){ 1, 1, 1 }, 3);
}

static void test_no_room_for_another_group(void **state)
{
	struct group_spec g[2] = { { 0, 2 }, { 2, 5 } };
	struct fake_pmu pmu = { 4, -1, 0 };
	int nr = 2;

	(void)state;
	assert_int_equal(group_plan_split(g, &nr, 2, fake_try, &pmu), -E2BIG);
	assert_groups(g, nr, (const int[]){ 2, 5 }, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_too_many_splits_off_the_last),
		cmocka_unit_test(test_split_repeats_and_keeps_order),
		cmocka_unit_test(test_groups_that_fit_are_left_alone),
		cmocka_unit_test(test_other_errors_do_not_split),
		cmocka_unit_test(test_single_events_stay),
		cmocka_unit_test(test_no_room_for_another_group),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
