/* SPDX-License-Identifier: MIT */
/*
 * test_hybrid.c: the writers on a hybrid machine's report (export/text.c,
 * csv.c, json.c, metrics.c): each core PMU's part of a generic event on a
 * line of its own, named as perf names it, and the sum of the parts under
 * the name the user wrote, in every format. The report is built by hand, as
 * preload/counters/totals.c fills it: a part's value is its raw count.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "export/report.h"

static const int cycles_parts[] = { 1, 2 };
static const int instructions_parts[] = { 4, 5 };

/*
 * 200 ms on the CPU: 150 on cpu_core, 50 on cpu_atom. cpu_core: 600,000,000
 * cycles and 1,200,000,000 instructions (2.00 insn per cycle); cpu_atom:
 * 100,000,000 and 100,000,000 (1.00); the sums 700,000,000 and
 * 1,300,000,000 (1.857..., printed 1.86).
 */
static const struct report_event hybrid_events[] = {
	{ .name = "task-clock", .kind = REPORT_KIND_TASK_CLOCK, .unit = "msec", .scale = 1e-6,
	  .raw = 200000000, .value = 200000000, .enabled = 200000000, .running = 200000000 },
	{ .name = "cpu_core/cycles/", .kind = REPORT_KIND_CYCLES, .unit = "", .scale = 1.0,
	  .raw = 600000000, .value = 600000000, .enabled = 200000000, .running = 150000000,
	  .pmu = "cpu_core" },
	{ .name = "cpu_atom/cycles/", .kind = REPORT_KIND_CYCLES, .unit = "", .scale = 1.0,
	  .raw = 100000000, .value = 100000000, .enabled = 200000000, .running = 50000000,
	  .pmu = "cpu_atom" },
	{ .name = "cycles", .kind = REPORT_KIND_CYCLES, .unit = "", .scale = 1.0,
	  .raw = 700000000, .value = 700000000, .enabled = 200000000, .running = 200000000,
	  .nr_parts = 2, .parts = cycles_parts },
	{ .name = "cpu_core/instructions/", .kind = REPORT_KIND_INSTRUCTIONS, .unit = "",
	  .scale = 1.0, .raw = 1200000000, .value = 1200000000, .enabled = 200000000,
	  .running = 150000000, .pmu = "cpu_core" },
	{ .name = "cpu_atom/instructions/", .kind = REPORT_KIND_INSTRUCTIONS, .unit = "",
	  .scale = 1.0, .raw = 100000000, .value = 100000000, .enabled = 200000000,
	  .running = 50000000, .pmu = "cpu_atom" },
	{ .name = "instructions", .kind = REPORT_KIND_INSTRUCTIONS, .unit = "", .scale = 1.0,
	  .raw = 1300000000, .value = 1300000000, .enabled = 200000000, .running = 200000000,
	  .nr_parts = 2, .parts = instructions_parts },
};

static const struct report hybrid_report = {
	.program = "demo",
	.argv0 = "./demo",
	.pid = 4242,
	.ppid = 4241,
	.hostname = "build1",
	.start_ns = 1700000000123456789ULL,
	.wall_ns = 400000000,
	.reason = REPORT_EXIT,
	.nr_events = sizeof(hybrid_events) / sizeof(hybrid_events[0]),
	.events = hybrid_events,
};

static char out[16384];

static void assert_has(const char *text, const char *want)
{
	if (!strstr(text, want))
		fail_msg("missing \"%s\" in:\n%s", want, text);
}

static void test_text(void **state)
{
	(void)state;
	assert_true(report_format_text(&hybrid_report, out, sizeof(out)) < sizeof(out));
	/* A part's GHz over its own running time; its share of the time, as perf shows it. */
	assert_has(out, "\n       600,000,000      cpu_core/cycles/                 "
			"#    4.000 GHz  (75.00%)\n"
			"       100,000,000      cpu_atom/cycles/                 "
			"#    2.000 GHz  (25.00%)\n"
			"       700,000,000      cycles                           "
			"#    3.500 GHz\n"
			"     1,200,000,000      cpu_core/instructions/           "
			"#     2.00 insn per cycle  (75.00%)\n"
			"       100,000,000      cpu_atom/instructions/           "
			"#     1.00 insn per cycle  (25.00%)\n"
			"     1,300,000,000      instructions                     "
			"#     1.86 insn per cycle\n");
}

static void test_csv(void **state)
{
	(void)state;
	assert_true(report_format_csv(&hybrid_report, out, sizeof(out)) < sizeof(out));
	/* The same columns as anywhere (pid_ns, seq, interval_ns, delta empty here): the PMU is in the name, as perf -x, writes it. */
	assert_has(out, "\n4242,demo,exit,,400000000,cpu_core/cycles/,600000000,,1,600000000,"
			"200000000,150000000,75.00,counted,0,0,,,,,,,,," PFSHIM_VERSION "\n"
			"4242,demo,exit,,400000000,cpu_atom/cycles/,100000000,,1,100000000,"
			"200000000,50000000,25.00,counted,0,0,,,,,,,,," PFSHIM_VERSION "\n"
			"4242,demo,exit,,400000000,cycles,700000000,,1,700000000,"
			"200000000,200000000,100.00,counted,0,0,,,,,,,,," PFSHIM_VERSION "\n");
}

static void test_openmetrics(void **state)
{
	(void)state;
	assert_true(report_format_openmetrics(&hybrid_report, out, sizeof(out)) < sizeof(out));
	/* Each part a family of its own, the sum under the name written; the event label says which. */
	assert_has(out, "pfshim_cpu_core_cycles_total{program=\"demo\",pid=\"4242\",host=\"build1\","
			"rank=\"\",event=\"cpu_core/cycles/\"} 600000000\n");
	assert_has(out, "pfshim_cpu_atom_cycles_total{program=\"demo\",pid=\"4242\",host=\"build1\","
			"rank=\"\",event=\"cpu_atom/cycles/\"} 100000000\n");
	assert_has(out, "pfshim_cycles_total{program=\"demo\",pid=\"4242\",host=\"build1\","
			"rank=\"\",event=\"cycles\"} 700000000\n");
}

static void test_json(void **state)
{
	(void)state;
	assert_true(report_format_json(&hybrid_report, out, sizeof(out)) < sizeof(out));
	/* Additive fields only: "pmu" on a part, "parts" on a sum, nothing else changes. */
	assert_has(out, "{\"name\":\"cpu_core/cycles/\",\"status\":\"counted\","
			"\"pmu\":\"cpu_core\",\"value\":600000000,");
	assert_has(out, "{\"name\":\"cpu_atom/instructions/\",\"status\":\"counted\","
			"\"pmu\":\"cpu_atom\",\"value\":100000000,");
	assert_has(out, "{\"name\":\"cycles\",\"status\":\"counted\","
			"\"parts\":[\"cpu_core/cycles/\",\"cpu_atom/cycles/\"],"
			"\"value\":700000000,");
	assert_has(out, "{\"name\":\"instructions\",\"status\":\"counted\","
			"\"parts\":[\"cpu_core/instructions/\",\"cpu_atom/instructions/\"],"
			"\"value\":1300000000,");
	assert_has(out, "{\"name\":\"task-clock\",\"status\":\"counted\",\"value\":");
	assert_int_equal(strstr(out, "\"pmu\"") - out, strstr(out, "\"pmu\":\"cpu_core\"") - out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_openmetrics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
