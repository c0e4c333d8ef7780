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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sums_and_part_groups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
