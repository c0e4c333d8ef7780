/* SPDX-License-Identifier: MIT */
/*
 * test_markers.c: preload/markers/markers.c on a hybrid machine's event
 * list: a thread's groups follow the totals' (one per core PMU), and
 * pfshim_read() fills each sum from its parts. Software events stand in for
 * the parts (these machines have no hardware PMU): what markers.c does with
 * a part depends on its PMU's name only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "pfshim.h"
#include "preload/counters/totals.h"
#include "preload/markers/long_name.h"
#include "preload/markers/markers.h"
#include "preload/markers/state.h"

static struct event_list list;
static struct counter_set totals;

static bool always_self(void)
{
	return true;
}

static void no_report(void)
{
}

static void spec_set(int i, const char *name, const char *pmu)
{
	struct event_spec *e = &list.ev[i];

	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->attr.size = sizeof(e->attr);
	e->attr.type = PERF_TYPE_SOFTWARE;
	e->attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	e->group = -1;
	e->scale = 1.0;
	e->kind = REPORT_KIND_SOFTWARE;
	snprintf(e->pmu, sizeof(e->pmu), "%s", pmu);
}

static void test_sums_and_part_groups(void **state)
{
	struct markers_host host = { &list, &totals, always_self, no_report, false };
	struct pfshim_counts a, b;
	long page = sysconf(_SC_PAGESIZE);
	char *pages;

	(void)state;
	spec_set(0, "cpu_core/page-faults/", "cpu_core");
	spec_set(1, "cpu_atom/page-faults/", "cpu_atom");
	spec_set(2, "page-faults", "");
	list.ev[2].nr_parts = 2;
	list.ev[2].parts[0] = 0;
	list.ev[2].parts[1] = 1;
	list.nr = 3;
	if (counters_open(&totals, &list) != 2)
		skip();	/* perf_event_open refused here */
	markers_start(&host);

	assert_int_equal(pfshim_v1_read(&a), 0);
	/* One group per core PMU, each of parts: read as counted. */
	assert_int_equal(markers.nr_groups, 2);
	assert_true(markers.group_is_part[0]);
	assert_true(markers.group_is_part[1]);
	pages = mmap(NULL, 64 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(pages != MAP_FAILED);
	madvise(pages, 64 * page, MADV_NOHUGEPAGE);
	for (long off = 0; off < 64 * page; off += page)
		pages[off] = 1;
	assert_int_equal(pfshim_v1_read(&b), 0);
	munmap(pages, 64 * page);

	assert_int_equal(b.nr, 3);
	for (int i = 0; i < 2; i++) {
		assert_true(b.value[i] - a.value[i] >= 64);
		assert_int_equal(b.enabled[i], b.running[i]);
	}
	assert_int_equal(b.value[2], b.value[0] + b.value[1]);
	assert_int_equal(b.running[2], b.running[0] + b.running[1]);
	assert_int_equal(b.enabled[2], b.enabled[0] > b.enabled[1] ? b.enabled[0] : b.enabled[1]);
	counters_close(&totals);
}

/*
 * pfshim_v1_region_values(): a region's calls and counts in PFSHIM_EVENTS
 * order, each sum from its parts; a region this thread never began, a
 * name never given, and NULL are PFSHIM_MISUSE with every value 0.
 */
static void test_region_values(void **state)
{
	struct markers_host host = { &list, &totals, always_self, no_report, false };
	struct pfshim_region_values v;
	long page = sysconf(_SC_PAGESIZE);
	char *pages;

	(void)state;
	if (counters_open(&totals, &list) != 2)
		skip();
	markers_start(&host);
	pages = mmap(NULL, 3 * 64 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		     -1, 0);
	assert_true(pages != MAP_FAILED);
	madvise(pages, 3 * 64 * page, MADV_NOHUGEPAGE);
	assert_int_equal(pfshim_v1_region("elsewhere") > 0, 1);	/* a name, never begun here */
	for (int call = 0; call < 3; call++) {
		assert_int_equal(pfshim_v1_region_begin("touch"), 0);
		for (long off = 0; off < 64 * page; off += page)
			pages[call * 64 * page + off] = 1;
		assert_int_equal(pfshim_v1_region_end("touch"), 0);
	}
	munmap(pages, 3 * 64 * page);
	memset(&v, 0xff, sizeof(v));
	assert_int_equal(pfshim_v1_region_values("touch", &v), 0);
	assert_int_equal(v.nr, 3);
	assert_int_equal(v.calls, 3);
	assert_int_equal(v.open, 0);
	assert_true(v.wall_ns > 0);
	assert_true(v.value[0] + v.value[1] >= 3 * 64);
	assert_int_equal(v.value[2], v.value[0] + v.value[1]);
	/* Open: the completed calls only. */
	assert_int_equal(pfshim_v1_region_begin("touch"), 0);
	assert_int_equal(pfshim_v1_region_values("touch", &v), 0);
	assert_int_equal(v.calls, 3);
	assert_int_equal(v.open, 1);
	assert_int_equal(pfshim_v1_region_end("touch"), 0);
	for (int k = 0; k < 3; k++) {
		static const char *const names[] = { "elsewhere", "never-named", NULL };

		memset(&v, 0xff, sizeof(v));
		assert_int_equal(pfshim_v1_region_values(names[k], &v), PFSHIM_MISUSE);
		assert_int_equal(v.nr, 3);
		assert_int_equal(v.calls + v.wall_ns + (uint64_t)v.open, 0);
		assert_int_equal(v.value[0] + v.value[1] + v.value[2], 0);
	}
	assert_int_equal(pfshim_v1_region_values("touch", NULL), PFSHIM_MISUSE);
	counters_close(&totals);
}

/*
 * pfshim_v1_region_start(): LIKWID's START. A region open in this thread,
 * on every path to it (the name's first start, a name the thread's cache
 * holds, under another parent), is PFSHIM_OPEN, not entered again: one end
 * closes it, no re-entry counted. Closed, it starts as a begin does.
 */
static void test_region_start_once(void **state)
{
	struct markers_host host = { &list, &totals, always_self, no_report, false };
	struct pfshim_region_values v;

	(void)state;
	if (counters_open(&totals, &list) != 2)
		skip();
	markers_start(&host);
	for (int call = 0; call < 3; call++) {
		assert_int_equal(pfshim_v1_region_start("tag"), 0);
		assert_int_equal(pfshim_v1_region_start("tag"), PFSHIM_OPEN);
		assert_int_equal(pfshim_v1_region_values("tag", &v), 0);
		assert_int_equal(v.open, 1);
		assert_int_equal(pfshim_v1_region_end("tag"), 0);
		assert_int_equal(pfshim_v1_region_end("tag"), PFSHIM_MISUSE);
	}
	/* under another parent, and a begin of the same region inside it */
	assert_int_equal(pfshim_v1_region_begin("outer"), 0);
	assert_int_equal(pfshim_v1_region_start("tag"), 0);
	assert_int_equal(pfshim_v1_region_start("tag"), PFSHIM_OPEN);
	assert_int_equal(pfshim_v1_region_begin("tag"), 0);	/* a re-entry, as always */
	assert_int_equal(pfshim_v1_region_end("tag"), 0);
	assert_int_equal(pfshim_v1_region_end("tag"), 0);
	assert_int_equal(pfshim_v1_region_end("outer"), 0);
	assert_int_equal(pfshim_v1_region_values("tag", &v), 0);
	assert_int_equal(v.calls, 4);
	assert_int_equal(v.open, 0);
	counters_close(&totals);
}

/*
 * A name of 64 bytes or more is a region, kept shortened (long_name.h): by
 * name and by handle alike, the long name and its short one the same
 * region, nothing refused.
 */
static void test_long_name_is_a_region(void **state)
{
	struct markers_host host = { &list, &totals, always_self, no_report, false };
	struct pfshim_region_values v;
	char name[100], buf[REGIONS_NAME_LEN];
	uint64_t refused = atomic_load(&markers.names_refused);

	(void)state;
	if (counters_open(&totals, &list) != 2)
		skip();
	markers_start(&host);
	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	for (int call = 0; call < 2; call++) {
		assert_int_equal(pfshim_v1_region_begin(name), 0);
		assert_int_equal(pfshim_v1_region_end(name), 0);
	}
	assert_int_equal(pfshim_v1_begin(pfshim_v1_region(region_name_shorten(name, buf))), 0);
	assert_int_equal(pfshim_v1_end(pfshim_v1_region(name)), 0);
	assert_int_equal(pfshim_v1_region_values(name, &v), 0);
	assert_int_equal(v.calls, 3);
	assert_int_equal(pfshim_v1_region_values(buf, &v), 0);
	assert_int_equal(v.calls, 3);
	assert_int_equal(atomic_load(&markers.names_refused), refused);
	counters_close(&totals);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sums_and_part_groups),
		cmocka_unit_test(test_region_values),
		cmocka_unit_test(test_region_start_once),
		cmocka_unit_test(test_long_name_is_a_region),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
