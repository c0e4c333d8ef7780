/* SPDX-License-Identifier: MIT */
/*
 * test_listing.c: preload/events/listing.c over the fixture trees
 * (tests/fixtures/sysfs/intel, tests/fixtures/tracefs): each source's names
 * in the order a person reads them, each as the parser takes it, the
 * caller's filter applied, and a tracefs that is not there said as such.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "preload/events/listing.h"

static char sysfs[512], tracefs[512];

static int setup(void **state)
{
	const char *base = getenv("PFSHIM_TEST_FIXTURES");

	(void)state;
	snprintf(sysfs, sizeof(sysfs), "%s/intel", base ? base : "tests/fixtures/sysfs");
	snprintf(tracefs, sizeof(tracefs), "%s/../tracefs", base ? base : "tests/fixtures/sysfs");
	return 0;
}

struct seen {
	int n;
	char names[256][96];
	char where[96];
	enum event_source source;
};

static void collect(void *ctx, const struct event_listed *e)
{
	struct seen *s = ctx;

	assert_true(s->n < 256);
	assert_int_equal(e->source, s->source);
	assert_non_null(e->desc);
	snprintf(s->names[s->n++], sizeof(s->names[0]), "%s", e->name);
	snprintf(s->where, sizeof(s->where), "%s", e->where);
}

static bool holds_sched(void *ctx, const char *name)
{
	(void)ctx;
	return strstr(name, "sched") != NULL;
}

static int find(const struct seen *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->names[i], name))
			return i;
	return -1;
}

static void builtin_aliases_on_one_line(void **state)
{
	struct events_list_options o = { sysfs, tracefs, NULL, NULL };
	static struct seen s = { .source = EVENT_SOURCE_BUILTIN };
	const char *why;

	(void)state;
	assert_int_equal(events_list(EVENT_SOURCE_BUILTIN, &o, collect, &s, &why), 0);
	assert_true(find(&s, "cycles, cpu-cycles") >= 0);
	assert_true(find(&s, "page-faults, faults") >= 0);
	assert_string_equal(s.where, "");
}

static void sysfs_sorted_as_the_parser_names_them(void **state)
{
	struct events_list_options o = { sysfs, tracefs, NULL, NULL };
	static struct seen s = { .source = EVENT_SOURCE_SYSFS };
	const char *why;

	(void)state;
	assert_int_equal(events_list(EVENT_SOURCE_SYSFS, &o, collect, &s, &why), 0);
	assert_true(find(&s, "cpu/instructions/") >= 0);
	assert_true(find(&s, "cpu/topdown-fe-bound/") >= 0);
	for (int i = 1; i < s.n; i++)
		assert_true(strcmp(s.names[i - 1], s.names[i]) < 0);
	assert_string_equal(s.where, sysfs);
}

static void tracepoints_filtered(void **state)
{
	struct events_list_options o = { sysfs, tracefs, holds_sched, NULL };
	static struct seen s = { .source = EVENT_SOURCE_TRACEPOINT };
	char where[600];
	const char *why;

	(void)state;
	assert_int_equal(events_list(EVENT_SOURCE_TRACEPOINT, &o, collect, &s, &why), 0);
	assert_true(s.n > 0);
	assert_true(find(&s, "sched:sched_switch") >= 0);
	for (int i = 0; i < s.n; i++)
		assert_non_null(strstr(s.names[i], "sched"));
	snprintf(where, sizeof(where), "%s/events", tracefs);
	assert_string_equal(s.where, where);

	o.tracefs = "/nonexistent";
	s.n = 0;
	assert_int_equal(events_list(EVENT_SOURCE_TRACEPOINT, &o, collect, &s, &why), -ENOENT);
	assert_int_equal(s.n, 0);
	assert_non_null(strstr(why, "none readable"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(builtin_aliases_on_one_line),
		cmocka_unit_test(sysfs_sorted_as_the_parser_names_them),
		cmocka_unit_test(tracepoints_filtered),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
