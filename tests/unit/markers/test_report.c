/* SPDX-License-Identifier: MIT */
/*
 * test_report.c: preload/markers/report.c, the regions section of a report,
 * on a marker state built by hand (state.h): an exited thread's table among
 * the retired ones, a live thread's table, the process totals. No marker
 * call, no counter, no process: every number below is known in advance.
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
#include "preload/markers/state.h"

/* Two events in one group: sample = { wall, ev0, ev1, enabled, running }. */
static const int group_of[2] = { 0, 0 };
static struct fastread_group live_groups[1];
static struct marker_thread live;
static int load, solve;

/* A call of region @id in @t from @begin to @end, each { time, ev0, ev1 }; no end: left open. */
static void call(struct region_thread *t, int id, const uint64_t begin[3], const uint64_t *end)
{
	const struct region_layout *l = &markers.layout;
	/* { wall, ev0, ev1, enabled, running }: the group ran all the time. */
	uint64_t v[5] = { begin[0], begin[1], begin[2], begin[0], begin[0] };

	assert_int_equal(region_begin(t, l, (uint32_t)id, markers_names_nr(), v), 0);
	if (!end)
		return;
	memcpy(v, end, 3 * sizeof(*v));
	v[3] = v[4] = end[0];
	assert_int_equal(region_end(t, l, (uint32_t)id, markers_names_nr(), v), 0);
}

/*
 * Thread 101 "worker" exited after one call of "load": 1000 ns, 100 and 400.
 * Thread 202 "main" lives: one call of "load" (500 ns, 50 and 60), "solve"
 * open; 7 reads from user space, 2 through read(2), 1 failed.
 */
static int setup(void **state)
{
	const struct region_layout *l = &markers.layout;
	struct region_thread *exited;

	(void)state;
	assert_int_equal(region_layout_init(&markers.layout, 2, 1, group_of, 4096), 0);
	markers.nr_groups = 1;
	markers.event_index[0] = 2;
	markers.event_index[1] = 0;
	markers.tables_size = region_totals_size(l) + MARKERS_RETIRED_MAX * l->thread_size;
	markers.totals = fd_map_zeroed(markers.tables_size);
	assert_non_null(markers.totals);
	markers.retired = (char *)markers.totals + region_totals_size(l);
	region_totals_init(markers.totals, l);
	load = region_names_intern(&markers_names, "load");
	solve = region_names_intern(&markers_names, "solve");
	assert_true(load >= 0 && solve >= 0);

	exited = (struct region_thread *)markers.retired;
	region_thread_init(exited, 101);
	region_thread_set_name(exited, "worker");
	call(exited, load, (const uint64_t[]){ 100, 10, 20 }, (const uint64_t[]){ 1100, 110, 420 });
	region_thread_close(exited, l);
	region_totals_merge(markers.totals, l, exited, 0);
	atomic_store(&markers.retired_nr, 1);

	live = (struct marker_thread){ .groups = live_groups, .read_errors = 1 };
	live_groups[0] = (struct fastread_group){ .nr_user_reads = 7, .nr_syscall_reads = 2 };
	live.regions = calloc(1, l->thread_size);
	region_thread_init(live.regions, 202);
	region_thread_set_name(live.regions, "main");
	call(live.regions, load, (const uint64_t[]){ 0, 0, 0 }, (const uint64_t[]){ 500, 50, 60 });
	call(live.regions, solve, (const uint64_t[]){ 600, 70, 80 }, NULL);
	atomic_store(&markers.live[0], &live);

	markers.user_read_problem = "no user access here";
	atomic_store(&markers.ready, true);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	atomic_store(&markers.ready, false);
	atomic_store(&markers.live[0], NULL);
	atomic_store(&markers.retired_nr, 0);
	munmap(markers.totals, markers.tables_size);
	free(live.regions);
	return 0;
}

static const struct report_region_total *total_of(const struct report_regions *r,
						  const char *name)
{
	for (int i = 0; i < r->nr_totals; i++)
		if (strcmp(r->totals[i].name, name) == 0)
			return &r->totals[i];
	fail_msg("no total for %s", name);
	return NULL;
}

static void test_not_ready_is_no_section(void **state)
{
	struct markers_report m;

	(void)state;
	atomic_store(&markers.ready, false);
	assert_null(markers_report_build(&m, false));
	markers_report_release(&m);
}

static void test_header(void **state)
{
	struct markers_report m;
	const struct report_regions *r = markers_report_build(&m, false);

	(void)state;
	assert_non_null(r);
	assert_null(r->note);
	assert_int_equal(r->nr_events, 2);
	assert_ptr_equal(r->event, markers.event_index);
	assert_int_equal(r->event[0], 2);
	assert_int_equal(r->capacity, markers.layout.capacity);
	assert_string_equal(r->user_read_problem, "no user access here");
	markers_report_release(&m);
	assert_null(m.work);
}

/* Exited threads first, then the live ones, each region with its sums. */
static void test_threads(void **state)
{
	struct markers_report m;
	const struct report_regions *r = markers_report_build(&m, false);
	const struct report_thread *t;
	const struct report_region *g;

	(void)state;
	assert_int_equal(r->nr_threads, 2);

	t = &r->threads[0];
	assert_int_equal(t->tid, 101);
	assert_string_equal(t->name, "worker");
	assert_int_equal(t->exited, 1);
	assert_int_equal(t->nr_regions, 1);
	g = &t->regions[0];
	assert_string_equal(g->name, "load");
	assert_int_equal(g->calls, 1);
	assert_int_equal(g->wall_ns, 1000);
	assert_int_equal(g->values[0].value, 100);
	assert_int_equal(g->values[1].value, 400);
	assert_int_equal(g->values[0].status, STATUS_COUNTED);
	assert_false(g->values[0].scaled);

	t = &r->threads[1];
	assert_int_equal(t->tid, 202);
	assert_string_equal(t->name, "main");
	assert_int_equal(t->exited, 0);
	assert_int_equal(t->skipped, 0);
	assert_int_equal(t->user_reads, 7);
	assert_int_equal(t->syscall_reads, 2);
	assert_int_equal(t->read_errors, 1);
	assert_int_equal(t->nr_regions, 2);
	assert_string_equal(t->regions[0].name, "load");
	assert_int_equal(t->regions[0].wall_ns, 500);
	assert_int_equal(t->regions[0].values[1].value, 60);
	assert_string_equal(t->regions[1].name, "solve");
	assert_int_equal(t->regions[1].calls, 0);
	assert_int_equal(t->regions[1].open, 1);
	assert_int_equal(t->regions[1].unclosed, 0);
	markers_report_release(&m);
}

/* The totals: the exited thread's merged ones plus each live table. */
static void test_totals(void **state)
{
	struct markers_report m;
	const struct report_regions *r = markers_report_build(&m, false);
	const struct report_region_total *t;

	(void)state;
	assert_int_equal(r->nr_totals, 2);
	t = total_of(r, "load");
	assert_int_equal(t->threads, 2);
	assert_int_equal(t->calls, 2);
	assert_int_equal(t->wall.sum, 1500);
	assert_int_equal(t->wall.min, 500);
	assert_int_equal(t->wall.max, 1000);
	assert_int_equal(t->wall.mean, 750);
	assert_int_equal(t->values[0].sum, 150);
	assert_int_equal(t->values[1].sum, 460);
	assert_int_equal(t->values[1].min, 60);
	assert_int_equal(t->values[1].max, 400);
	t = total_of(r, "solve");
	assert_int_equal(t->threads, 1);
	assert_int_equal(t->calls, 0);
	assert_int_equal(t->unclosed, 0);
	markers_report_release(&m);

	/* The process totals are copied, never changed by a report. */
	assert_int_equal(region_total_at(markers.totals, &markers.layout, (uint32_t)load)->threads,
			 1);
}

/* At exit or exec, a region still open is misuse: unclosed, in its thread and in the totals. */
static void test_final_counts_open_as_unclosed(void **state)
{
	struct markers_report m;
	const struct report_regions *r = markers_report_build(&m, true);

	(void)state;
	assert_int_equal(r->threads[1].regions[1].unclosed, 1);
	assert_int_equal(total_of(r, "solve")->unclosed, 1);
	assert_int_equal(total_of(r, "load")->unclosed, 0);
	markers_report_release(&m);
}

/* A signal that lands inside a marker call: that table is left out, with a note. */
static void test_table_being_written_is_skipped(void **state)
{
	struct markers_report m;
	const struct report_regions *r;

	(void)state;
	region_thread_write_begin(live.regions);	/* a write in progress */
	r = markers_report_build(&m, false);
	assert_int_equal(r->nr_threads, 2);
	assert_int_equal(r->threads[1].tid, 202);
	assert_int_equal(r->threads[1].skipped, 1);
	assert_int_equal(r->threads[1].nr_regions, 0);
	assert_int_equal(r->threads[1].user_reads, 7);
	assert_string_equal(r->note, "a thread was inside a marker call: its regions are left out");
	/* Its regions are not in the totals either. */
	assert_int_equal(total_of(r, "load")->threads, 1);
	markers_report_release(&m);
	region_thread_write_end(live.regions);
}

/* A thread retiring (or this signal interrupting one): no threads, a note, nothing waits. */
static void test_retiring_thread_leaves_regions_out(void **state)
{
	struct markers_report m;
	const struct report_regions *r;

	(void)state;
	assert_true(markers_retire_lock_try(1));
	r = markers_report_build(&m, false);
	assert_non_null(r);
	assert_int_equal(r->nr_threads, 0);
	assert_int_equal(r->nr_totals, 0);
	assert_non_null(strstr(r->note, "a thread was exiting"));
	assert_int_equal(r->nr_events, 2);
	markers_retire_unlock();
	markers_report_release(&m);

	/* The lock was given back: the next report has it all. */
	r = markers_report_build(&m, false);
	assert_int_equal(r->nr_threads, 2);
	markers_report_release(&m);
}

/* Fill @t's table to capacity, one call each, with names from the @first-th id on. */
static void table_fill(struct region_thread *t, int first)
{
	const struct region_layout *l = &markers.layout;

	for (int k = first; t->nr_slots < (uint32_t)l->capacity; k++) {
		int id = k % REGIONS_NAMES_MAX;

		if (!t->slot_of[id])
			call(t, id, (const uint64_t[]){ 0, 0, 0 }, (const uint64_t[]){ 10, 1, 2 });
	}
}

/*
 * The largest report: every name in use, every retired table listed and
 * full, live threads full too. Its arena is sized by arena_need(): nothing
 * may be left out. Last in the list: it interns names that the other tests
 * do not expect.
 */
static void test_largest_report_fits(void **state)
{
	const struct region_layout *l = &markers.layout;
	struct marker_thread more[2];
	struct markers_report m;
	const struct report_regions *r;

	char name[16];

	(void)state;
	for (int k = 0; markers_names_nr() < REGIONS_NAMES_MAX; k++) {
		snprintf(name, sizeof(name), "r%d", k);
		assert_true(region_names_intern(&markers_names, name) >= 0);
	}
	for (int i = 0; i < MARKERS_RETIRED_MAX; i++) {
		struct region_thread *t = (struct region_thread *)(markers.retired + i * l->thread_size);

		region_thread_init(t, 1000 + i);
		table_fill(t, i * l->capacity);
		region_totals_merge(markers.totals, l, t, 0);
	}
	atomic_store(&markers.retired_nr, MARKERS_RETIRED_MAX);
	table_fill(live.regions, 0);
	for (int i = 0; i < 2; i++) {
		more[i] = (struct marker_thread){ .groups = live_groups };
		more[i].regions = calloc(1, l->thread_size);
		region_thread_init(more[i].regions, 300 + i);
		table_fill(more[i].regions, 0);
		atomic_store(&markers.live[1 + i], &more[i]);
	}

	r = markers_report_build(&m, true);
	assert_null(r->note);
	assert_int_equal(r->nr_threads, MARKERS_RETIRED_MAX + 3);
	for (int i = 0; i < r->nr_threads; i++)
		assert_int_equal(r->threads[i].nr_regions, l->capacity);
	assert_int_equal(r->nr_totals, REGIONS_NAMES_MAX);
	markers_report_release(&m);
	for (int i = 0; i < 2; i++) {
		atomic_store(&markers.live[1 + i], NULL);
		free(more[i].regions);
	}
}

/*
 * The live thread calls "load" inside its open "solve" (200 ns, 5 and 6):
 * its paths are load, solve and solve > load, each with its own numbers,
 * parents by index; its flat "load" the sum of its two paths; the totals
 * count each thread once per region.
 */
static void test_paths(void **state)
{
	struct markers_report m;
	const struct report_regions *r;
	const struct report_thread *t;
	const struct report_region_total *tl;

	(void)state;
	call(live.regions, load, (const uint64_t[]){ 700, 90, 100 }, (const uint64_t[]){ 900, 95, 106 });
	r = markers_report_build(&m, false);
	assert_non_null(r);
	assert_int_equal(r->nr_threads, 2);
	t = &r->threads[1];
	assert_int_equal(t->tid, 202);
	assert_int_equal(t->nr_paths, 3);
	assert_string_equal(t->paths[0].name, "load");
	assert_int_equal(t->paths[0].parent, -1);
	assert_string_equal(t->paths[1].name, "solve");
	assert_int_equal(t->paths[1].parent, -1);
	assert_int_equal(t->paths[1].open, 1);
	assert_string_equal(t->paths[2].name, "load");
	assert_int_equal(t->paths[2].parent, 1);
	assert_int_equal(t->paths[2].calls, 1);
	assert_int_equal(t->paths[2].wall_ns, 200);
	assert_int_equal(t->paths[2].values[0].raw, 5);
	assert_int_equal(t->paths[0].values[0].raw, 50);
	/* The flat regions: load once, its two paths added up; solve. */
	assert_int_equal(t->nr_regions, 2);
	assert_string_equal(t->regions[0].name, "load");
	assert_int_equal(t->regions[0].calls, 2);
	assert_int_equal(t->regions[0].wall_ns, 700);
	assert_int_equal(t->regions[0].values[0].raw, 55);
	assert_int_equal(t->regions[0].values[1].raw, 66);
	assert_int_equal(t->regions[0].wall_min_ns, 200);
	assert_int_equal(t->regions[0].wall_max_ns, 500);
	assert_int_equal(t->regions[0].parent, -1);
	/* The exited thread has one path, its region's. */
	assert_int_equal(r->threads[0].nr_paths, 1);
	assert_int_equal(r->threads[0].paths[0].parent, -1);
	tl = total_of(r, "load");
	assert_int_equal(tl->threads, 2);
	assert_int_equal(tl->calls, 3);
	assert_int_equal(tl->wall.sum, 1000 + 700);
	assert_int_equal(tl->wall.max, 1000);
	assert_int_equal(tl->wall.min, 700);
	assert_int_equal(tl->values[0].sum, 100 + 55);
	markers_report_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_not_ready_is_no_section, setup, teardown),
		cmocka_unit_test_setup_teardown(test_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths, setup, teardown),
		cmocka_unit_test_setup_teardown(test_totals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_final_counts_open_as_unclosed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_table_being_written_is_skipped, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_retiring_thread_leaves_regions_out, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_largest_report_fits, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
