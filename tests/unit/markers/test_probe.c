/* SPDX-License-Identifier: MIT */
/*
 * test_probe.c: preload/markers/probe.c without counters: the hidden
 * region's reserved id, and PFSHIM_COMPENSATE's subtraction on tables built
 * by hand (exact, clamped at 0, scaled groups, per-call min/max, a probe
 * that could not measure, a table without a probe).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "preload/markers/probe.h"

/* Two events in one group: sample = { wall, ev0, ev1, enabled, running }. */
static struct region_layout layout;
static struct region_thread *thread;
static uint64_t clock_ns;

static int setup(void **state)
{
	static const int group_of[2] = { 0, 0 };

	(void)state;
	assert_int_equal(region_layout_init(&layout, 2, 1, group_of, 4096), 0);
	thread = calloc(1, layout.thread_size);
	region_thread_init(thread, 1234);
	clock_ns = 1000;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(thread);
	return 0;
}

/*
 * One call of region @id counting @a and @b, its group on a counter
 * @running of every @enabled ns (equal: never multiplexed).
 */
static void call(uint32_t id, uint64_t a, uint64_t b, uint64_t enabled, uint64_t running)
{
	uint64_t v0[5] = { clock_ns, 1000000, 2000000, clock_ns, clock_ns };
	uint64_t v1[5] = { clock_ns + enabled, 1000000 + a, 2000000 + b, clock_ns + enabled,
			   clock_ns + running };

	assert_int_equal(region_begin(thread, &layout, id, REGIONS_NAMES_MAX, v0), 0);
	assert_int_equal(region_end(thread, &layout, id, REGIONS_NAMES_MAX, v1), 0);
	clock_ns += 2 * enabled;
}

static struct region_slot *slot(uint32_t id)
{
	assert_true(thread->slot_of[id] > 0);
	return region_slot_at(thread, &layout, thread->slot_of[id] - 1u);
}

static uint64_t value(uint32_t id, int e)
{
	uint64_t v = 0;

	assert_int_equal(region_slot_value(slot(id), &layout, 1 + e, &v), 0);
	return v;
}

static void test_reserve_keeps_the_programs_256_names(void **state)
{
	static struct region_names names;
	char name[16];

	(void)state;
	probe_reserve(&names);
	assert_int_equal(atomic_load(&names.nr), 1);
	assert_string_equal(region_names_get(&names, PROBE_REGION_ID), "");
	/* No name finds it: the empty name is refused, and it is not in the hash. */
	assert_int_equal(region_names_lookup(&names, ""), -ENOENT);
	assert_int_equal(region_names_intern(&names, "a"), 1);
	for (int i = 1; i < 256; i++) {
		snprintf(name, sizeof(name), "n%d", i);
		assert_int_equal(region_names_intern(&names, name), i + 1);
	}
	assert_int_equal(region_names_intern(&names, "one-too-many"), -ENOSPC);
}

static void test_per_call(void **state)
{
	uint64_t v;

	(void)state;
	call(PROBE_REGION_ID, 100, 7, 50, 50);
	call(PROBE_REGION_ID, 100, 7, 50, 50);
	assert_non_null(probe_slot(thread, &layout));
	assert_int_equal(probe_per_call(probe_slot(thread, &layout), &layout, 0, &v), 0);
	assert_int_equal(v, 100);
	assert_int_equal(probe_per_call(probe_slot(thread, &layout), &layout, 1, &v), 0);
	assert_int_equal(v, 7);
}

/* calls x probe off each sum; a sum below it stops at 0, never wraps. */
static void test_subtract_and_clamp(void **state)
{
	(void)state;
	call(PROBE_REGION_ID, 100, 7, 50, 50);
	for (int i = 0; i < 3; i++)
		call(1, 1000 + 100 + i, 3, 500, 500);
	probe_compensate(thread, &layout);
	assert_int_equal(value(1, 0), 3 * 1000 + 0 + 1 + 2);
	assert_int_equal(value(1, 1), 0);	/* 9 - 21: clamped */
	/* The first event's per-call extremes lose one probe each. */
	assert_int_equal(slot(1)->first_min, 1000);
	assert_int_equal(slot(1)->first_max, 1002);
	/* The probe itself is never compensated. */
	assert_int_equal(value(PROBE_REGION_ID, 0), 100);
	assert_int_equal(value(PROBE_REGION_ID, 1), 7);
	/* Calls, wall time and the times are what was measured. */
	assert_int_equal(slot(1)->calls, 3);
	assert_int_equal(slot(1)->v[region_value_wall()], 1500);
}

static void test_min_below_probe_clamps(void **state)
{
	(void)state;
	call(PROBE_REGION_ID, 100, 7, 50, 50);
	call(1, 60, 7, 50, 50);		/* less than the probe: cycles vary */
	call(1, 300, 7, 50, 50);
	probe_compensate(thread, &layout);
	assert_int_equal(slot(1)->first_min, 0);
	assert_int_equal(slot(1)->first_max, 200);
	assert_int_equal(value(1, 0), 360 - 200);
}

/* A multiplexed group: the scaled value loses exactly calls x probe. */
static void test_scaled_group(void **state)
{
	uint64_t before;

	(void)state;
	call(PROBE_REGION_ID, 100, 8, 50, 50);
	call(1, 5000, 700, 1000, 250);	/* on a counter a quarter of the time */
	call(1, 5000, 700, 1000, 250);
	before = value(1, 0);
	assert_int_equal(before, 40000);
	probe_compensate(thread, &layout);
	assert_int_equal(value(1, 0), 40000 - 2 * 100);
	assert_int_equal(value(1, 1), 5600 - 2 * 8);
}

/* A probe whose group never ran whole measured nothing: nothing is subtracted. */
static void test_probe_not_counted(void **state)
{
	uint64_t v;

	(void)state;
	call(PROBE_REGION_ID, 100, 7, 50, 0);
	call(1, 1000, 10, 50, 50);
	assert_int_equal(probe_per_call(probe_slot(thread, &layout), &layout, 0, &v), -ENODATA);
	probe_compensate(thread, &layout);
	assert_int_equal(value(1, 0), 1000);
	assert_int_equal(value(1, 1), 10);
}

static void test_no_probe_changes_nothing(void **state)
{
	uint32_t seq;

	(void)state;
	call(1, 1000, 10, 50, 50);
	seq = atomic_load(&thread->seq);
	assert_null(probe_slot(thread, &layout));
	probe_compensate(thread, &layout);
	assert_int_equal(value(1, 0), 1000);
	assert_int_equal(atomic_load(&thread->seq), seq);
}

/*
 * Counters read from user space leave a group's times as they were (0 and
 * 0 summed): equal times are an exact count, and lose calls x probe.
 */
static void test_zero_times_are_exact(void **state)
{
	(void)state;
	call(PROBE_REGION_ID, 100, 7, 0, 0);
	call(1, 1000, 10, 0, 0);
	call(1, 1000, 10, 0, 0);
	probe_compensate(thread, &layout);
	assert_int_equal(value(1, 0), 2 * 900);
	assert_int_equal(value(1, 1), 2 * 3);
}

/* Compensation writes under the table's sequence counter: a copy taken meanwhile retries. */
static void test_compensate_moves_the_sequence(void **state)
{
	uint32_t seq;

	(void)state;
	call(PROBE_REGION_ID, 100, 7, 50, 50);
	call(1, 1000, 10, 50, 50);
	seq = atomic_load(&thread->seq);
	probe_compensate(thread, &layout);
	assert_int_equal(atomic_load(&thread->seq), seq + (1u << REGION_SEQ_SHIFT));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reserve_keeps_the_programs_256_names),
		cmocka_unit_test_setup_teardown(test_per_call, setup, teardown),
		cmocka_unit_test_setup_teardown(test_subtract_and_clamp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_min_below_probe_clamps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scaled_group, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probe_not_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_probe_changes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_zero_times_are_exact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compensate_moves_the_sequence, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
