/* SPDX-License-Identifier: MIT */
/* test_likwid_group.c: preload/metrics/likwid_group.c, reading group files. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "preload/metrics/likwid_group.h"

/* Shaped as LIKWID's own files are, with the cases they hold. */
static const char branch[] =
	"SHORT Branch prediction miss rate/ratio\n"
	"\n"
	"REQUIRE_NOHT\n"
	"\n"
	"EVENTSET\n"
	"PMC0  INST_RETIRED\n"
	"PMC1:EDGEDETECT\tBR_MIS_PRED\n"
	"\n"
	"METRICS\n"
	"Runtime (RDTSC) [s] time\n"
	"CPI  PMC1/PMC0\n"
	"L3|MEM evict bandwidth [MBytes/s]  1.0E-06*PMC1*64.0/time\n"
	"Spread out [GBytes] 1.0E-09*(PMC0 +     PMC1)*64.0\n"
	"\n"
	"LONG\n"
	"Formulas:\n"
	"CPI = CPU_CYCLES/INST_RETIRED\n";

static void reads_a_group(void **state)
{
	struct likwid_group g;
	int line = 0;

	(void)state;
	assert_int_equal(likwid_group_parse(branch, &g, &line), 0);
	assert_string_equal(g.short_text, "Branch prediction miss rate/ratio");
	assert_int_equal(g.require_noht, 1);
	assert_int_equal(g.nr_events, 2);
	assert_string_equal(g.events[1].counter, "PMC1:EDGEDETECT");
	assert_string_equal(g.events[1].event, "BR_MIS_PRED");

	assert_int_equal(g.nr_metrics, 4);
	assert_string_equal(g.metrics[0].name, "Runtime (RDTSC)");
	assert_string_equal(g.metrics[0].unit, "s");
	assert_string_equal(g.metrics[0].text, "time");
	assert_string_equal(g.metrics[1].name, "CPI");
	assert_string_equal(g.metrics[1].unit, "");
	assert_string_equal(g.metrics[2].name, "L3|MEM evict bandwidth");
	assert_string_equal(g.metrics[2].unit, "MBytes/s");
	/* A formula with spaces in it: LIKWID's last-word rule would take "PMC1)*64.0". */
	assert_string_equal(g.metrics[3].name, "Spread out");
	assert_string_equal(g.metrics[3].text, "1.0E-09*(PMC0 +     PMC1)*64.0");

	double values[] = { 100, 200 }, out;	/* PMC1, PMC0: in order of appearance */

	assert_int_equal(formula_eval(&g.metrics[1].formula, values, &out), 0);
	assert_true(out == 0.5);
	likwid_group_free(&g);
}

static void refuses_what_is_no_group(void **state)
{
	static const struct { const char *text; int line; } bad[] = {
		{ "SHORT x\nEVENTSET\nPMC0\n", 3 },			/* a counter without event */
		{ "SHORT x\nEVENTSET\nPMC0 A\nMETRICS\nCPI [x]\n", 5 },	/* no formula */
		{ "SHORT x\nsomething\n", 2 },				/* outside any section */
		{ "SHORT x\nMETRICS\nCPI PMC0\n", 3 },			/* no EVENTSET */
	};
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct likwid_group g;
		int line = 0;

		assert_int_equal(likwid_group_parse(bad[i].text, &g, &line), -EINVAL);
		assert_int_equal(line, bad[i].line);
		assert_null(g.events);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(reads_a_group),
		cmocka_unit_test(refuses_what_is_no_group),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
