/* SPDX-License-Identifier: MIT */
/*
 * test_metrics.c: export/metrics.c, the perf-stat ratios of the text
 * report, on the shared sample whose numbers are worked out by hand. The
 * events are paired by the kind their resolver set: that a name gets its
 * kind is tested with the resolver (tests/unit/events/test_builtin.c).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "export/metrics.h"
#include "report_sample.h"

enum { TASK_CLOCK, CS, CYCLES, INSNS, BRANCHES, BRANCH_MISSES, CACHE_REFS,
       CACHE_MISSES, MIGRATIONS };

static void assert_metric(const struct report *r, int i, double value,
			  const char *text, int percent)
{
	struct metric m;

	assert_int_equal(metric_compute(r, i, &m), 0);
	assert_true(fabs(m.value - value) <= 1e-12 * fabs(value));
	assert_string_equal(m.text, text);
	assert_int_equal(m.percent, percent);
}

static void test_sample_metrics(void **state)
{
	const struct report *r = &sample_report;
	struct metric m;
	(void)state;
	assert_metric(r, TASK_CLOCK, 987654321.0 / 1234567890.0, "CPUs utilized", 0);
	assert_metric(r, CS, 1234 / 0.987654321 / 1e3, "K/sec", 0);
	assert_metric(r, CYCLES, 3e9 / 987654321.0, "GHz", 0);
	assert_metric(r, INSNS, 1.5, "insn per cycle", 0);
	assert_metric(r, BRANCH_MISSES, 1.2345, "of all branches", 1);
	/* no metric of their own, or their partner is missing */
	assert_int_equal(metric_compute(r, BRANCHES, &m), -ENOENT);
	assert_int_equal(metric_compute(r, CACHE_REFS, &m), -ENOENT);
	assert_int_equal(metric_compute(r, CACHE_MISSES, &m), -ENOENT);
	/* a rate of 0 is still a rate */
	assert_metric(r, MIGRATIONS, 0.0, "/sec", 0);
}

static void test_cache_miss_ratio(void **state)
{
	struct report_event ev[] = {
		{ .name = "cache-misses:u", .kind = REPORT_KIND_CACHE_MISSES, .value = 250 },
		{ .name = "cache-references:u", .kind = REPORT_KIND_CACHE_REFERENCES, .value = 1000 },
	};
	struct report r = { .nr_events = 2, .events = ev };
	(void)state;
	assert_metric(&r, 0, 25.0, "of all cache refs", 1);
}

/* Partners that are not counted, or count zero, give no ratio. */
static void test_missing_partners(void **state)
{
	struct report_event ev[] = {
		{ .name = "instructions", .kind = REPORT_KIND_INSTRUCTIONS, .value = 100 },
		{ .name = "cycles", .kind = REPORT_KIND_CYCLES, .status = STATUS_NOT_SUPPORTED },
		{ .name = "branch-misses", .kind = REPORT_KIND_BRANCH_MISSES, .value = 5 },
		{ .name = "branches", .kind = REPORT_KIND_BRANCHES, .value = 0 },
		{ .name = "task-clock", .kind = REPORT_KIND_TASK_CLOCK, .status = STATUS_NOT_COUNTED },
		{ .name = "page-faults", .kind = REPORT_KIND_SOFTWARE, .value = 7 },
	};
	struct report r = { .nr_events = 6, .events = ev, .wall_ns = 0 };
	struct metric m;
	(void)state;
	for (int i = 0; i < r.nr_events; i++)
		assert_int_equal(metric_compute(&r, i, &m), -ENOENT);
}

/* cpu-clock stands in for task-clock as the time base of rates. */
static void test_rate_prefixes(void **state)
{
	struct report_event ev[] = {
		{ .name = "cpu-clock", .kind = REPORT_KIND_CPU_CLOCK, .value = 1000000000 },	/* 1 s */
		{ .name = "page-faults", .kind = REPORT_KIND_SOFTWARE, .value = 999 },
		{ .name = "minor-faults", .kind = REPORT_KIND_SOFTWARE, .value = 2500 },
		{ .name = "major-faults", .kind = REPORT_KIND_SOFTWARE, .value = 3000000 },
		{ .name = "cs", .kind = REPORT_KIND_SOFTWARE, .value = 4000000000ULL },
		/* exactly a prefix's power: that prefix, not 1000 of the one below */
		{ .name = "migrations", .kind = REPORT_KIND_SOFTWARE, .value = 1000000 },
		{ .name = "faults", .kind = REPORT_KIND_SOFTWARE, .value = 1000 },
	};
	struct report r = { .nr_events = 7, .events = ev, .wall_ns = 2000000000 };
	(void)state;
	assert_metric(&r, 0, 0.5, "CPUs utilized", 0);
	assert_metric(&r, 1, 999, "/sec", 0);
	assert_metric(&r, 2, 2.5, "K/sec", 0);
	assert_metric(&r, 3, 3.0, "M/sec", 0);
	assert_metric(&r, 4, 4.0, "G/sec", 0);
	assert_metric(&r, 5, 1.0, "M/sec", 0);
	assert_metric(&r, 6, 1.0, "K/sec", 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_metrics),
		cmocka_unit_test(test_cache_miss_ratio),
		cmocka_unit_test(test_missing_partners),
		cmocka_unit_test(test_rate_prefixes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
