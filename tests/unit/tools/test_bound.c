/* SPDX-License-Identifier: MIT */
/*
 * test_bound.c: tools/pfshim/model/bound.c, `pfshim check`'s bounds: the three
 * words and what each may be, time units for the clocks, and each bound's
 * value in a summary of hand-written reports (missing names are -ENOENT,
 * never a pass).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "tools/pfshim/model/bound.h"
#include "tools/pfshim/read/read.h"

static void test_parse_good(void **state)
{
	struct bound b;
	const char *why = NULL;

	(void)state;
	assert_int_equal(bound_parse("region:solve instructions/call 1.2e6", BOUND_MAX, &b, &why), 0);
	assert_int_equal(b.scope, SCOPE_REGION);
	assert_string_equal(b.name, "solve");
	assert_string_equal(b.event, "instructions");
	assert_int_equal(b.per, PER_CALL);
	assert_true(b.limit == 1.2e6);
	assert_false(b.timed);
	bound_free(&b);

	assert_int_equal(bound_parse("  total\tpage-faults   5000 ", BOUND_MIN, &b, &why), 0);
	assert_int_equal(b.kind, BOUND_MIN);
	assert_int_equal(b.scope, SCOPE_TOTAL);
	assert_null(b.name);
	assert_string_equal(b.event, "page-faults");
	assert_int_equal(b.per, PER_NONE);
	assert_true(b.limit == 5000);
	bound_free(&b);

	assert_int_equal(bound_parse("program:cc1 task-clock/image 2s", BOUND_MAX, &b, &why), 0);
	assert_string_equal(b.name, "cc1");
	assert_int_equal(b.per, PER_IMAGE);
	assert_true(b.limit == 2e9);
	assert_true(b.timed);
	bound_free(&b);

	/* a tracepoint's name holds ':'; a program's may hold '/' */
	assert_int_equal(bound_parse("program:a/b syscalls:sys_enter_write 3", BOUND_MAX, &b, &why), 0);
	assert_string_equal(b.name, "a/b");
	assert_string_equal(b.event, "syscalls:sys_enter_write");
	bound_free(&b);

	assert_int_equal(bound_parse("region:r wall/call 1.5ms", BOUND_MAX, &b, &why), 0);
	assert_true(b.limit == 1.5e6);
	bound_free(&b);
	assert_int_equal(bound_parse("region:r calls 10", BOUND_MAX, &b, &why), 0);
	bound_free(&b);
}

static void test_parse_bad(void **state)
{
	static const char *const bad[] = {
		"", "total", "total page-faults", "total page-faults 1 2", "all page-faults 1",
		"program: page-faults 1", "region: x 1", "total page-faults/call 1",
		"program:x page-faults/call 1", "region:r page-faults/image 1",
		"total page-faults/thread 1", "total /call 1", "total page-faults -1",
		"total page-faults 1e400", "total page-faults nan", "total page-faults 5k",
		"total page-faults 1h", "total calls 1", "program:x wall 1", "region:r x/ 1",
	};
	struct bound b;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *why = NULL;

		if (bound_parse(bad[i], BOUND_MAX, &b, &why) != -EINVAL)
			fail_msg("accepted '%s'", bad[i]);
		assert_non_null(why);
		assert_null(b.name);
		assert_null(b.event);
	}
}

static void test_holds(void **state)
{
	struct bound max = { .kind = BOUND_MAX, .limit = 10 }, min = { .kind = BOUND_MIN, .limit = 10 };

	(void)state;
	assert_true(bound_holds(&max, 10));	/* the bound itself holds */
	assert_false(bound_holds(&max, 10.000001));
	assert_true(bound_holds(&min, 10));
	assert_false(bound_holds(&min, 9.999));
}

/* A report of program @prog: page-faults @pf; with @calls calls of region "solve" and its page-faults. */
static void report_add(struct summary *s, int pid, const char *prog, int pf, int calls, int rpf)
{
	char text[1400];

	snprintf(text, sizeof(text),
		 "{\"schema\":\"pfshim.report\",\"version\":4,\"program\":\"%s\",\"pid\":%d,"
		 "\"hostname\":\"h\",\"start_ns\":%d,\"reason\":\"exit\",\"events\":["
		 "{\"name\":\"page-faults\",\"value\":%d,\"unit\":\"\",\"scale\":1,\"status\":\"counted\"},"
		 "{\"name\":\"cycles\",\"value\":null,\"unit\":\"\",\"scale\":1,\"status\":\"not-supported\"}],"
		 "\"regions\":{\"events\":[\"page-faults\"],\"totals\":[{\"name\":\"solve\","
		 "\"threads\":1,\"calls\":%d,\"reentries\":0,\"unclosed\":0,\"wall_ns\":{"
		 "\"status\":\"counted\",\"threads\":1,\"sum\":1000,\"min\":1000,\"max\":1000},"
		 "\"events\":[{\"name\":\"page-faults\",\"status\":\"counted\",\"threads\":1,"
		 "\"sum\":%d,\"min\":%d,\"max\":%d}]}]}}\n",
		 prog, pid, pid, pf, calls, rpf, rpf, rpf);
	summary_add_text(s, "test", text, strlen(text));
}

static double value_of(const struct summary *s, const char *text, int expect)
{
	struct bound b;
	const char *why = "";
	double v = -1;

	assert_int_equal(bound_parse(text, BOUND_MAX, &b, &why), 0);
	assert_int_equal(bound_value(s, &b, &v, &why), expect);
	bound_free(&b);
	return v;
}

static void test_value(void **state)
{
	struct summary_options opt = { .by = BY_PROGRAM };
	struct summary s;

	(void)state;
	summary_init(&s, &opt);
	report_add(&s, 1, "cc1", 100, 4, 40);
	report_add(&s, 2, "cc1", 120, 6, 20);
	report_add(&s, 3, "ld", 30, 0, 0);
	summary_finish(&s);
	assert_true(value_of(&s, "total page-faults 1", 0) == 250);
	assert_true(value_of(&s, "total page-faults/image 1", 0) == 250.0 / 3);
	assert_true(value_of(&s, "program:cc1 page-faults 1", 0) == 220);
	assert_true(value_of(&s, "program:cc1 page-faults/image 1", 0) == 110);
	assert_true(value_of(&s, "program:ld page-faults 1", 0) == 30);
	assert_true(value_of(&s, "region:solve calls 1", 0) == 10);
	assert_true(value_of(&s, "region:solve page-faults 1", 0) == 60);
	assert_true(value_of(&s, "region:solve page-faults/call 1", 0) == 6);
	assert_true(value_of(&s, "region:solve wall 1", 0) == 3000);
	/* what the reports do not have: never a value */
	value_of(&s, "program:as page-faults 1", -ENOENT);
	value_of(&s, "region:setup calls 1", -ENOENT);
	value_of(&s, "total instructions 1", -ENOENT);
	value_of(&s, "region:solve instructions 1", -ENOENT);
	value_of(&s, "total cycles 1", -ENODATA);	/* named, but counted nowhere */
	summary_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_holds),
		cmocka_unit_test(test_value),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
