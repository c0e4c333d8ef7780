/* SPDX-License-Identifier: MIT */
/*
 * test_report_hybrid.c: preload/markers/report.c on a hybrid machine: the
 * regions section lists each core PMU's part of a generic event and,
 * computed at report time (never in begin/end), their sum, in every format,
 * as the totals do. The events come from the fake Intel hybrid sysfs tree;
 * software page-faults stand in for the parts (no PMU on these machines):
 * what the report does with a part depends on its PMU's name only.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "pfshim.h"
#include "preload/counters/totals.h"
#include "preload/events/events.h"
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

/* @n pages touched inside region @id, in the calling thread. */
static void touch_in_region(int id, int n)
{
	long page = sysconf(_SC_PAGESIZE);
	char *pages = mmap(NULL, (size_t)n * page, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(pages != MAP_FAILED);
	madvise(pages, (size_t)n * page, MADV_NOHUGEPAGE);
	assert_int_equal(pfshim_begin((pfshim_region_t)id), 0);
	for (long off = 0; off < n * page; off += page)
		pages[off] = 1;
	assert_int_equal(pfshim_end((pfshim_region_t)id), 0);
	munmap(pages, (size_t)n * page);
}

static void *touch_16(void *id)
{
	touch_in_region((int)(intptr_t)id, 16);
	return NULL;
}

static void warn_none(void *ctx, const char *message)
{
	(void)ctx;
	fail_msg("unexpected warning: %s", message);
}

static const char *fixtures(const char *tree)
{
	static char path[4096];
	const char *base = getenv("PFSHIM_TEST_FIXTURES");

	snprintf(path, sizeof(path), "%s/%s", base ? base : "tests/fixtures/sysfs", tree);
	return path;
}

static char out[65536];

static void assert_has(const char *text, const char *want)
{
	if (!strstr(text, want))
		fail_msg("missing \"%s\" in:\n%s", want, strstr(text, "region") ? strstr(text, "region") : text);
}

/*
 * "page-faults,cycles" as the fake Intel hybrid tree resolves it: cycles
 * is cpu_core's part, cpu_atom's part and their sum. The parts are then
 * made software page-faults (no PMU here) and counted in region 'touch'
 * around 64 touched pages; the region's sum row is the parts added up, in
 * each thread's table and in the totals, in every format.
 */
static void test_region_sums_in_every_format(void **state)
{
	struct markers_host host = { &list, &totals, always_self, no_report, false };
	struct report_event events[EVENTS_MAX];
	struct markers_report m;
	const struct report_regions *r;
	const struct report_region *g;
	const struct report_region_stat *t;
	uint64_t core, atom, other;
	char want[256];
	pthread_t worker;
	int id;

	(void)state;
	assert_int_equal(events_parse("page-faults,cycles", fixtures("intel-hybrid"), "/nonexistent",
				      &list, warn_none, NULL), 4);
	assert_string_equal(list.ev[1].name, "cpu_core/cycles/");
	assert_string_equal(list.ev[2].name, "cpu_atom/cycles/");
	assert_string_equal(list.ev[3].name, "cycles");
	assert_int_equal(list.ev[3].nr_parts, 2);
	for (int i = 1; i <= 2; i++) {
		list.ev[i].attr.type = PERF_TYPE_SOFTWARE;
		list.ev[i].attr.config = PERF_COUNT_SW_PAGE_FAULTS;
		list.ev[i].kind = REPORT_KIND_SOFTWARE;
	}
	if (counters_open(&totals, &list) != 3)
		skip();
	markers_start(&host);
	id = (int)pfshim_region("touch");
	touch_in_region(id, 64);

	r = markers_report_build(&m, true);
	assert_non_null(r);
	assert_null(r->note);
	/* page-faults, the two parts, then their sum: the totals' order. */
	assert_int_equal(r->nr_events, 4);
	for (int e = 0; e < 4; e++)
		assert_int_equal(r->event[e], e);
	assert_int_equal(r->nr_threads, 1);
	g = &r->threads[0].regions[0];
	assert_string_equal(g->name, "touch");
	core = g->values[1].value;
	atom = g->values[2].value;
	/* Both parts count every fault here (software stand-ins): 64 and more each. */
	assert_true(core >= 64 && atom >= 64);
	assert_int_equal(g->values[3].status, STATUS_COUNTED);
	assert_int_equal(g->values[3].value, core + atom);
	assert_int_equal(g->values[3].running, g->values[1].running + g->values[2].running);
	t = &r->totals[0].values[3];
	assert_int_equal(t->sum, core + atom);
	assert_int_equal(t->min, core + atom);
	assert_int_equal(t->max, core + atom);
	assert_int_equal(t->threads, 1);

	counters_read(&totals, &list, events);
	struct report rep = {
		.program = "demo", .argv0 = "./demo", .pid = 4242, .ppid = 1, .hostname = "h",
		.reason = REPORT_EXIT, .nr_events = list.nr, .events = events, .regions = r,
	};

	assert_true(report_format_text(&rep, out, sizeof(out)) < sizeof(out));
	/* The thread's line, then the totals' (sum, min, max, mean: the one thread's sum). */
	snprintf(want, sizeof(want), "\n%18llu      cpu_atom/cycles/\n%18llu      cycles\n",
		 (unsigned long long)atom, (unsigned long long)(core + atom));
	assert_has(out, want);
	snprintf(want, sizeof(want), "\n%14llu%14llu%14llu%14llu      cycles\n",
		 (unsigned long long)(core + atom), (unsigned long long)(core + atom),
		 (unsigned long long)(core + atom), (unsigned long long)(core + atom));
	assert_non_null(strstr(strstr(out, "region 'touch': 1 thread"), want));

	assert_true(report_format_json(&rep, out, sizeof(out)) < sizeof(out));
	assert_has(out, "\"regions\":{\"events\":[\"page-faults\",\"cpu_core/cycles/\","
			"\"cpu_atom/cycles/\",\"cycles\"]");
	snprintf(want, sizeof(want), "{\"name\":\"cycles\",\"value\":%llu,\"raw\":%llu,",
		 (unsigned long long)(core + atom), (unsigned long long)(core + atom));
	assert_has(out, want);
	snprintf(want, sizeof(want), "{\"name\":\"cycles\",\"status\":\"counted\",\"scaled\":false,"
		 "\"threads\":1,\"sum\":%llu,\"min\":%llu,\"max\":%llu,\"mean\":%llu}",
		 (unsigned long long)(core + atom), (unsigned long long)(core + atom),
		 (unsigned long long)(core + atom), (unsigned long long)(core + atom));
	assert_has(out, want);

	assert_true(report_format_csv(&rep, out, sizeof(out)) < sizeof(out));
	snprintf(want, sizeof(want), ",cpu_atom/cycles/,%llu,%llu,", (unsigned long long)atom,
		 (unsigned long long)atom);
	assert_has(out, want);
	snprintf(want, sizeof(want), ",cycles,%llu,%llu,", (unsigned long long)(core + atom),
		 (unsigned long long)(core + atom));
	assert_has(out, want);
	snprintf(want, sizeof(want), ",cycles,%llu,,,,counted,%llu,%llu,%llu,0,,,," PFSHIM_VERSION "\n",
		 (unsigned long long)(core + atom), (unsigned long long)(core + atom),
		 (unsigned long long)(core + atom), (unsigned long long)(core + atom));
	assert_has(out, want);

	assert_true(report_format_openmetrics(&rep, out, sizeof(out)) < sizeof(out));
	snprintf(want, sizeof(want), "region=\"touch\",event=\"cycles\"} %llu\n",
		 (unsigned long long)(core + atom));
	assert_has(out, want);

	markers_report_release(&m);

	/*
	 * A second thread, 16 pages: the sum's min and max over threads are
	 * its own sum and the main thread's, not the parts' minima added up.
	 */
	assert_int_equal(pthread_create(&worker, NULL, touch_16, (void *)(intptr_t)id), 0);
	assert_int_equal(pthread_join(worker, NULL), 0);
	r = markers_report_build(&m, true);
	assert_null(r->note);
	assert_int_equal(r->nr_threads, 2);
	g = &r->threads[0].regions[0];	/* exited threads first */
	assert_int_equal(g->values[3].value, g->values[1].value + g->values[2].value);
	other = g->values[3].value;
	assert_true(other >= 32 && other < core + atom);
	t = &r->totals[0].values[3];
	assert_int_equal(t->threads, 2);
	assert_int_equal(t->sum, core + atom + other);
	assert_int_equal(t->min, other);
	assert_int_equal(t->max, core + atom);
	assert_int_equal(t->mean, (core + atom + other) / 2);
	assert_int_equal(t->sum, r->totals[0].values[1].sum + r->totals[0].values[2].sum);
	markers_report_release(&m);
	counters_close(&totals);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_region_sums_in_every_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
