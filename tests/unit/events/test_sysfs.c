/* SPDX-License-Identifier: MIT */
/*
 * test_sysfs.c: preload/events/sysfs.c, the sysfs resolver alone, against
 * the fake tree tests/fixtures/sysfs/intel: what it reads and when, and its
 * contract with the driver (-ENOENT: not a sysfs name, and nothing said).
 * The forms and messages are tested end to end in test_events.c.
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

#include "preload/events/sysfs.h"

static char said[1024];
static struct diag diag;
static struct sysfs_names names;
static struct event_spec spec;

static void say(void *ctx, const char *message)
{
	(void)ctx;
	snprintf(said, sizeof(said), "%s", message);
}

/* A resolver that has read nothing yet, over the intel tree. */
static void start(void)
{
	static char root[4096];
	const char *base = getenv("PFSHIM_TEST_FIXTURES");

	sysfs_names_end(&names);	/* the previous test's; nothing before the first */
	snprintf(root, sizeof(root), "%s/intel", base ? base : "tests/fixtures/sysfs");
	said[0] = '\0';
	diag = (struct diag){ .warn = say };
	memset(&spec, 0, sizeof(spec));
	sysfs_names_start(&names, root, &diag);
}

/* Nothing is read until a name needs it. */
static void test_lazy(void **state)
{
	char terms[] = "event=0x3c";
	(void)state;

	start();
	assert_false(names.cat.loaded);
	assert_null(names.descs);
	assert_int_equal(sysfs_resolve_pmu(&names, "cpu/event=0x3c/", "cpu", terms, &spec), 0);
	assert_true(names.cat.loaded);
	assert_int_equal(names.nr_descs, 1);
	assert_int_equal(spec.attr.type, 4);
	assert_int_equal(spec.attr.config, 0x3c);
	assert_int_equal(spec.kind, REPORT_KIND_PMU);
}

/* A name no PMU lists is not the resolver's: -ENOENT, and no message, so
 * that the driver can say "unknown event" with every source's candidates. */
static void test_alias_not_mine(void **state)
{
	(void)state;
	start();
	assert_int_equal(sysfs_resolve_alias(&names, "cylces", "cylces", &spec), -ENOENT);
	assert_string_equal(said, "");
	assert_int_equal(diag.warned, 0);
}

static void test_alias(void **state)
{
	(void)state;
	start();
	assert_int_equal(sysfs_resolve_alias(&names, "mem-loads:u", "mem-loads", &spec), 0);
	assert_int_equal(spec.attr.type, 4);
	assert_int_equal(spec.attr.config, 0x1cd);
	assert_int_equal(spec.attr.config1, 3);
	assert_int_equal(spec.kind, REPORT_KIND_PMU);
	assert_int_equal(diag.warned, 0);
}

/* A PMU form it cannot resolve is said once, and is never -ENOENT-and-silent. */
static void test_pmu_unknown(void **state)
{
	char terms[] = "event=1";
	(void)state;

	start();
	assert_int_equal(sysfs_resolve_pmu(&names, "cpux/event=1/", "cpux", terms, &spec), -ENOENT);
	assert_string_equal(said, "unknown PMU 'cpux' in 'cpux/event=1/' (did you mean 'cpu'?); "
			    "the event is skipped");
	assert_int_equal(diag.warned, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lazy),
		cmocka_unit_test(test_alias_not_mine),
		cmocka_unit_test(test_alias),
		cmocka_unit_test(test_pmu_unknown),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);

	sysfs_names_end(&names);
	return failed;
}
