/* SPDX-License-Identifier: MIT */
/*
 * test_builtin.c: preload/events/builtin.c, the built-in and raw names, and
 * the kind each resolver records for the metrics of a report (it replaced
 * export/metrics.c's guess from the spelling, whose cases are kept here).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "preload/events/builtin.h"
#include "preload/events/events.h"

static enum report_kind kind_of(const char *name)
{
	struct event_builtin b;
	const char *why;

	if (event_builtin_lookup(name, &b, &why))
		return REPORT_KIND_UNKNOWN;
	return b.kind;
}

static void test_builtin_kinds(void **state)
{
	static const struct {
		const char *name;
		enum report_kind kind;
	} t[] = {
		{ "cycles", REPORT_KIND_CYCLES }, { "cpu-cycles", REPORT_KIND_CYCLES },
		{ "instructions", REPORT_KIND_INSTRUCTIONS },
		{ "branch-instructions", REPORT_KIND_BRANCHES },
		{ "branch-misses", REPORT_KIND_BRANCH_MISSES },
		{ "cache-references", REPORT_KIND_CACHE_REFERENCES },
		{ "cache-misses", REPORT_KIND_CACHE_MISSES },
		{ "task-clock", REPORT_KIND_TASK_CLOCK }, { "cpu-clock", REPORT_KIND_CPU_CLOCK },
		{ "page-faults", REPORT_KIND_SOFTWARE }, { "cs", REPORT_KIND_SOFTWARE },
		{ "emulation-faults", REPORT_KIND_SOFTWARE },
		{ "bus-cycles", REPORT_KIND_HARDWARE }, { "ref-cycles", REPORT_KIND_HARDWARE },
		{ "L1-dcache-load-misses", REPORT_KIND_CACHE },
		/* a prefix or a longer name is not the event */
		{ "cycle", REPORT_KIND_UNKNOWN }, { "cycles-ct", REPORT_KIND_UNKNOWN },
		{ "", REPORT_KIND_UNKNOWN },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (kind_of(t[i].name) != t[i].kind)
			fail_msg("%s: kind %d, not %d", t[i].name, kind_of(t[i].name), t[i].kind);
}

static void test_raw_parse(void **state)
{
	static const char *const not_raw[] = { "r", "r0x1a", "r11112222333344445", "cycles" };
	uint64_t config = 0;
	(void)state;

	assert_int_equal(event_raw_parse("r01c2", &config), 0);
	assert_int_equal(config, 0x1c2);
	assert_int_equal(event_raw_parse("rFFFFFFFFFFFFFFFF", &config), 0);
	assert_int_equal(config, UINT64_MAX);
	for (size_t i = 0; i < sizeof(not_raw) / sizeof(not_raw[0]); i++)
		assert_int_equal(event_raw_parse(not_raw[i], &config), -ENOENT);
}

/* What every resolver records reaches the event list, modifiers or not. */
static void test_kind_in_the_spec(void **state)
{
	static const struct {
		const char *text;
		enum report_kind kind;
	} t[] = {
		{ "cpu-cycles:u", REPORT_KIND_CYCLES },
		{ "instructions:ukh", REPORT_KIND_INSTRUCTIONS },
		{ "cache-misses:k", REPORT_KIND_CACHE_MISSES },
		{ "r01c2", REPORT_KIND_RAW },
		{ "cpu/cpu-cycles/", REPORT_KIND_PMU },	/* sysfs: no generic kind, as before */
		{ "cpu/event=0x3c/", REPORT_KIND_PMU },
		{ "mem-loads", REPORT_KIND_PMU },
	};
	const char *base = getenv("PFSHIM_TEST_FIXTURES");
	static struct event_list list;
	char root[4096];
	(void)state;

	snprintf(root, sizeof(root), "%s/intel", base ? base : "tests/fixtures/sysfs");
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		assert_int_equal(events_parse(t[i].text, root, "/nonexistent", &list, NULL, NULL), 1);
		if (list.ev[0].kind != t[i].kind)
			fail_msg("%s: kind %d, not %d", t[i].text, list.ev[0].kind, t[i].kind);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_kinds),
		cmocka_unit_test(test_raw_parse),
		cmocka_unit_test(test_kind_in_the_spec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
