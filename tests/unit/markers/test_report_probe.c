/* SPDX-License-Identifier: MIT */
/*
 * test_report_probe.c: preload/markers/report.c with the probe's hidden
 * region (preload/markers/probe.c), on a marker state built by hand as
 * test_report.c builds one: the probe is shown apart from the regions, its
 * slot is not the program's, and PFSHIM_COMPENSATE=1 subtracts it once from
 * each table (an exited one at its exit, a live one on the report's copy).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "preload/markers/markers.h"
#include "preload/fd.h"
#include "preload/markers/probe.h"
#include "preload/markers/state.h"

/* Two events in one group: sample = { wall, ev0, ev1, enabled, running }. */
static const int group_of[2] = { 0, 0 };
static struct fastread_group live_groups[1];
static struct marker_thread live;
static int load;

/* Calls of region @id in @t, each counting @a and @b in 100 ns, times equal (never multiplexed). */
static void calls(struct region_thread *t, int id, int n, uint64_t a, uint64_t b)
{
	const struct region_layout *l = &markers.layout;

	for (int i = 0; i < n; i++) {
		uint64_t v0[5] = { 1000, 10, 20, 1000, 1000 };
		uint64_t v1[5] = { 1100, 10 + a, 20 + b, 1100, 1100 };

		assert_int_equal(region_begin(t, l, (uint32_t)id, markers_names_nr(), v0), 0);
		assert_int_equal(region_end(t, l, (uint32_t)id, markers_names_nr(), v1), 0);
	}
}

/*
 * Both threads' probes count 30 and 5 per call. Thread 101 exited after one
 * call of "load" (100 and 400), compensated at its exit as markers.c does;
 * thread 202 lives with two calls of "load" (50 and 60 each), and read 17
 * times from user space, 10 of them the probe's.
 */
static int setup_compensate(bool compensate)
{
	const struct region_layout *l = &markers.layout;
	struct region_thread *exited;

	if (markers_names_nr() == 0)	/* once per process, before any name */
		probe_reserve(&markers_names);
	markers.probe_reserved = true;
	markers.host.compensate = compensate;
	assert_int_equal(region_layout_init(&markers.layout, 2, 1, group_of, 4096), 0);
	markers.nr_groups = 1;
	markers.tables_size = region_totals_size(l) + MARKERS_RETIRED_MAX * l->thread_size;
	markers.totals = fd_map_zeroed(markers.tables_size);
	assert_non_null(markers.totals);
	markers.retired = (char *)markers.totals + region_totals_size(l);
	region_totals_init(markers.totals, l);
	load = region_names_intern(&markers_names, "load");
	assert_int_equal(load, 1);

	exited = (struct region_thread *)markers.retired;
	region_thread_init(exited, 101);
	calls(exited, PROBE_REGION_ID, 1, 30, 5);
	calls(exited, load, 1, 100, 400);
	if (compensate)
		probe_compensate(exited, l);
	region_totals_merge(markers.totals, l, exited, 0);
	atomic_store(&markers.retired_nr, 1);

	live = (struct marker_thread){ .groups = live_groups, .probe_user_reads = 10 };
	live_groups[0] = (struct fastread_group){ .nr_user_reads = 17 };
	live.regions = calloc(1, l->thread_size);
	region_thread_init(live.regions, 202);
	calls(live.regions, PROBE_REGION_ID, 1, 30, 5);
	calls(live.regions, load, 2, 50, 60);
	atomic_store(&markers.live[0], &live);
	atomic_store(&markers.ready, true);
	return 0;
}

static int setup_plain(void **state)
{
	(void)state;
	return setup_compensate(false);
}

static int setup_compensated(void **state)
{
	(void)state;
	return setup_compensate(true);
}

static int teardown(void **state)
{
	(void)state;
	atomic_store(&markers.ready, false);
	atomic_store(&markers.live[0], NULL);
	atomic_store(&markers.retired_nr, 0);
	munmap(markers.totals, markers.tables_size);
	free(live.regions);
	markers.probe_reserved = false;
	markers.host.compensate = false;
	return 0;
}

/* The probe is no region: apart in each thread and over threads; its slot is not the program's. */
static void test_probe_apart(void **state)
{
	struct markers_report m;
	const struct report_regions *r = markers_report_build(&m, false);

	(void)state;
	assert_non_null(r);
	assert_int_equal(r->capacity, markers.layout.capacity - 1);
	assert_int_equal(r->compensated, 0);
	assert_int_equal(r->nr_threads, 2);
	for (int i = 0; i < 2; i++) {
		const struct report_thread *t = &r->threads[i];

		assert_int_equal(t->nr_regions, 1);
		assert_string_equal(t->regions[0].name, "load");
		assert_non_null(t->probe);
		assert_int_equal(t->probe[0].value, 30);
		assert_int_equal(t->probe[1].value, 5);
		assert_int_equal(t->probe[0].status, STATUS_COUNTED);
	}
	/* The probe's own reads are not the program's. */
	assert_int_equal(r->threads[1].user_reads, 7);
	assert_int_equal(r->nr_totals, 1);
	assert_string_equal(r->totals[0].name, "load");
	assert_non_null(r->probe);
	assert_int_equal(r->probe[0].threads, 2);
	assert_int_equal(r->probe[0].min, 30);
	assert_int_equal(r->probe[0].max, 30);
	assert_int_equal(r->probe[0].mean, 30);
	assert_int_equal(r->probe[1].mean, 5);
	/* Uncompensated: the counts as read. */
	assert_int_equal(r->threads[0].regions[0].values[0].value, 100);
	assert_int_equal(r->threads[1].regions[0].values[1].value, 120);
	assert_int_equal(r->totals[0].values[0].sum, 200);
	markers_report_release(&m);
}

/* Each table less calls x probe once; the totals are their threads' sums; a second report agrees. */
static void test_compensated_once(void **state)
{
	(void)state;
	for (int k = 0; k < 2; k++) {
		struct markers_report m;
		const struct report_regions *r = markers_report_build(&m, true);

		assert_int_equal(r->compensated, 1);
		assert_int_equal(r->threads[0].regions[0].values[0].value, 100 - 30);
		assert_int_equal(r->threads[0].regions[0].values[1].value, 400 - 5);
		assert_int_equal(r->threads[1].regions[0].values[0].value, 2 * (50 - 30));
		assert_int_equal(r->threads[1].regions[0].values[1].value, 2 * (60 - 5));
		assert_int_equal(r->threads[1].regions[0].first_min, 50 - 30);
		assert_int_equal(r->totals[0].values[0].sum, 70 + 40);
		assert_int_equal(r->totals[0].values[1].sum, 395 + 110);
		assert_int_equal(r->totals[0].values[0].min, 40);
		/* The probe itself is as measured. */
		assert_int_equal(r->threads[1].probe[0].value, 30);
		markers_report_release(&m);
	}
	/* The live table itself was never changed: only the report's copy. */
	assert_int_equal(region_slot_at(live.regions, &markers.layout, 1)->v[1], 2 * 50);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_probe_apart, setup_plain, teardown),
		cmocka_unit_test_setup_teardown(test_compensated_once, setup_compensated, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
