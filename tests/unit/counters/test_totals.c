/* SPDX-License-Identifier: MIT */
/*
 * test_totals.c: preload/counters/totals.c, the sums of a hybrid machine.
 * These machines have no hardware PMU, so the parts here are software
 * events given a core PMU's name: what totals.c does with a part (a group of
 * its own PMU, a count not extrapolated, added into its sum) depends on
 * that name only, not on the event's type.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "preload/counters/totals.h"

static struct event_list list;

static void spec_set(int i, const char *name, uint64_t config, const char *pmu)
{
	struct event_spec *e = &list.ev[i];

	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->attr.size = sizeof(e->attr);
	e->attr.type = PERF_TYPE_SOFTWARE;
	e->attr.config = config;
	e->group = -1;
	e->scale = 1.0;
	e->kind = REPORT_KIND_SOFTWARE;
	snprintf(e->pmu, sizeof(e->pmu), "%s", pmu);
}

static void test_parts_and_sum(void **state)
{
	static struct counter_set s;
	struct report_event out[EVENTS_MAX];
	long page = sysconf(_SC_PAGESIZE);
	char *pages;

	(void)state;
	memset(&list, 0, sizeof(list));
	spec_set(0, "cpu_core/page-faults/", PERF_COUNT_SW_PAGE_FAULTS, "cpu_core");
	spec_set(1, "cpu_atom/page-faults/", PERF_COUNT_SW_PAGE_FAULTS, "cpu_atom");
	spec_set(2, "page-faults", PERF_COUNT_SW_PAGE_FAULTS, "");
	list.ev[2].nr_parts = 2;
	list.ev[2].parts[0] = 0;
	list.ev[2].parts[1] = 1;
	spec_set(3, "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES, "");
	list.nr = 4;

	if (counters_open(&s, &list) != 3)
		skip();	/* perf_event_open refused here (paranoid 3, seccomp) */
	/* One group per core PMU, none for the sum, the rest with the others of no PMU. */
	assert_int_equal(s.c[0].leader, 0);
	assert_int_equal(s.c[1].leader, 1);
	assert_int_equal(s.c[2].fd, -1);
	assert_int_equal(s.c[2].error, 0);
	assert_int_equal(s.c[3].leader, 3);
	/* 64 pages touched, without huge pages: at least 64 faults in each part. */
	pages = mmap(NULL, 64 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(pages != MAP_FAILED);
	madvise(pages, 64 * page, MADV_NOHUGEPAGE);
	for (long off = 0; off < 64 * page; off += page)
		pages[off] = 1;
	counters_read(&s, &list, out);
	counters_close(&s);

	assert_string_equal(out[0].pmu, "cpu_core");
	assert_string_equal(out[1].pmu, "cpu_atom");
	assert_null(out[2].pmu);
	assert_null(out[3].pmu);
	assert_int_equal(out[2].nr_parts, 2);
	assert_ptr_equal(out[2].parts, list.ev[2].parts);
	assert_int_equal(out[0].status, STATUS_COUNTED);
	assert_int_equal(out[1].status, STATUS_COUNTED);
	assert_int_equal(out[2].status, STATUS_COUNTED);
	/* Both parts saw every fault, as software events do: the sum is twice one. */
	munmap(pages, 64 * page);
	assert_true(out[0].raw >= 64);
	assert_true(out[1].raw >= 64);
	assert_int_equal(out[0].value, out[0].raw);
	assert_int_equal(out[2].value, out[0].value + out[1].value);
	assert_int_equal(out[2].raw, out[0].raw + out[1].raw);
	assert_int_equal(out[2].running, out[0].running + out[1].running);
	assert_int_equal(out[2].enabled, out[0].enabled > out[1].enabled ? out[0].enabled :
			 out[1].enabled);
	assert_false(out[2].scaled);
}

/* No part counted: the sum says so, with its first part's error. */
static void test_sum_of_nothing(void **state)
{
	static struct counter_set s;
	struct report_event out[EVENTS_MAX];

	(void)state;
	memset(&list, 0, sizeof(list));
	spec_set(0, "cpu_core/cycles/", 0, "cpu_core");
	spec_set(1, "cpu_atom/cycles/", 0, "cpu_atom");
	spec_set(2, "cycles", 0, "");
	list.ev[2].nr_parts = 2;
	list.ev[2].parts[0] = 0;
	list.ev[2].parts[1] = 1;
	list.nr = 3;
	counters_none(&s, &list, ENOENT);
	counters_read(&s, &list, out);
	assert_int_equal(out[2].status, STATUS_NOT_SUPPORTED);
	assert_int_equal(out[2].error, ENOENT);
	assert_int_equal(out[2].value, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parts_and_sum),
		cmocka_unit_test(test_sum_of_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
