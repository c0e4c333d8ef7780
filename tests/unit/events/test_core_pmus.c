/* SPDX-License-Identifier: MIT */
/*
 * test_core_pmus.c: preload/events/core_pmus.c, generic events on machines
 * of several kinds of core. Against fake sysfs trees of an Intel hybrid
 * (cpu_core type 4, cpu_atom type 10) and an arm64 big.LITTLE board
 * (armv8_cortex_a53 type 8, armv8_cortex_a72 type 9), the exact attrs that
 * would be opened: type, config with the PMU type in bits 32-63, the
 * modifiers' exclude_* bits and the groups. No real hybrid machine ran this.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "preload/events/core_pmus.h"
#include "preload/events/events.h"

static const char *fixtures(const char *tree)
{
	static char path[4096];
	const char *base = getenv("PFSHIM_TEST_FIXTURES");

	snprintf(path, sizeof(path), "%s/%s", base ? base : "tests/fixtures/sysfs", tree);
	return path;
}

static struct event_list list;
static int warned;
static char last_warning[512];

static void warn_note(void *ctx, const char *message)
{
	(void)ctx;
	warned++;
	snprintf(last_warning, sizeof(last_warning), "%s", message);
}

static int parse_in(const char *tree, const char *text)
{
	warned = 0;
	return events_parse(text, fixtures(tree), "/nonexistent", &list, warn_note, NULL);
}

/* Event @i: its name, type, config, group and core PMU ("" for none). */
static void assert_event(int i, const char *name, uint32_t type, uint64_t config, int group,
			 const char *pmu)
{
	const struct event_spec *e = &list.ev[i];

	if (strcmp(e->name, name) || e->attr.type != type || e->attr.config != config ||
	    e->group != group || strcmp(e->pmu, pmu))
		fail_msg("event %d: '%s' type %u config %#llx group %d pmu '%s'; want '%s' %u "
			 "%#llx %d '%s'", i, e->name, e->attr.type,
			 (unsigned long long)e->attr.config, e->group, e->pmu, name, type,
			 (unsigned long long)config, group, pmu);
	assert_int_equal(e->attr.size, sizeof(e->attr));
}

/* Event @i is the sum of two parts, at @a and @b. */
static void assert_sum(int i, int a, int b)
{
	const struct event_spec *e = &list.ev[i];

	assert_int_equal(e->nr_parts, 2);
	assert_int_equal(e->parts[0], a);
	assert_int_equal(e->parts[1], b);
	assert_string_equal(e->pmu, "");
}

static void test_load(void **state)
{
	struct core_pmus cp;

	(void)state;
	assert_int_equal(core_pmus_load(fixtures("intel-hybrid"), &cp), 2);
	assert_string_equal(cp.pmu[0].name, "cpu_core");
	assert_int_equal(cp.pmu[0].type, 4);
	assert_string_equal(cp.pmu[1].name, "cpu_atom");
	assert_int_equal(cp.pmu[1].type, 10);
	assert_int_equal(core_pmus_load(fixtures("arm64-biglittle"), &cp), 2);
	assert_string_equal(cp.pmu[0].name, "armv8_cortex_a53");
	assert_int_equal(cp.pmu[0].type, 8);
	assert_string_equal(cp.pmu[1].name, "armv8_cortex_a72");
	assert_int_equal(cp.pmu[1].type, 9);
	/* One core PMU, or none: not hybrid. */
	assert_int_equal(core_pmus_load(fixtures("intel"), &cp), 1);
	assert_string_equal(cp.pmu[0].name, "cpu");
	assert_int_equal(core_pmus_load(fixtures("amd"), &cp), 1);
	assert_int_equal(core_pmus_load(fixtures("arm64"), &cp), 0);	/* no `cpus` file */
	assert_int_equal(core_pmus_load("/nonexistent", &cp), 0);
}

static void test_hybrid_hardware_event(void **state)
{
	(void)state;
	assert_int_equal(parse_in("intel-hybrid", "cycles"), 3);
	assert_int_equal(warned, 0);
	assert_event(0, "cpu_core/cycles/", PERF_TYPE_HARDWARE, 0x400000000ULL, -1, "cpu_core");
	assert_event(1, "cpu_atom/cycles/", PERF_TYPE_HARDWARE, 0xa00000000ULL, -1, "cpu_atom");
	assert_event(2, "cycles", PERF_TYPE_HARDWARE, 0, -1, "");
	assert_sum(2, 0, 1);
	assert_int_equal(list.ev[0].nr_parts, 0);
	assert_int_equal(list.ev[0].kind, REPORT_KIND_CYCLES);
	assert_int_equal(list.ev[2].kind, REPORT_KIND_CYCLES);
}

static void test_hybrid_cache_event(void **state)
{
	(void)state;
	/* L1D | READ << 8 | MISS << 16 = 0x10000, the PMU type above it. */
	assert_int_equal(parse_in("intel-hybrid", "L1-dcache-load-misses,dTLB-stores"), 6);
	assert_event(0, "cpu_core/L1-dcache-load-misses/", PERF_TYPE_HW_CACHE, 0x400010000ULL,
		     -1, "cpu_core");
	assert_event(1, "cpu_atom/L1-dcache-load-misses/", PERF_TYPE_HW_CACHE, 0xa00010000ULL,
		     -1, "cpu_atom");
	assert_event(2, "L1-dcache-load-misses", PERF_TYPE_HW_CACHE, 0x10000, -1, "");
	assert_sum(2, 0, 1);
	/* DTLB 3 | WRITE 1 << 8 | ACCESS 0 */
	assert_event(3, "cpu_core/dTLB-stores/", PERF_TYPE_HW_CACHE, 0x400000103ULL, -1, "cpu_core");
	assert_event(4, "cpu_atom/dTLB-stores/", PERF_TYPE_HW_CACHE, 0xa00000103ULL, -1, "cpu_atom");
	assert_sum(5, 3, 4);
}

static void test_hybrid_modifiers(void **state)
{
	const struct event_spec *e;

	(void)state;
	assert_int_equal(parse_in("intel-hybrid", "instructions:u,branch-misses:kD"), 6);
	assert_event(0, "cpu_core/instructions/u", PERF_TYPE_HARDWARE, 0x400000001ULL, -1,
		     "cpu_core");
	assert_event(1, "cpu_atom/instructions/u", PERF_TYPE_HARDWARE, 0xa00000001ULL, -1,
		     "cpu_atom");
	assert_event(2, "instructions:u", PERF_TYPE_HARDWARE, 1, -1, "");
	for (int i = 0; i < 3; i++) {
		e = &list.ev[i];
		assert_int_equal(e->attr.exclude_user, 0);
		assert_int_equal(e->attr.exclude_kernel, 1);
		assert_int_equal(e->attr.exclude_hv, 1);
		assert_true(e->modifiers);
	}
	assert_event(3, "cpu_core/branch-misses/kD", PERF_TYPE_HARDWARE, 0x400000005ULL, -1,
		     "cpu_core");
	assert_event(4, "cpu_atom/branch-misses/kD", PERF_TYPE_HARDWARE, 0xa00000005ULL, -1,
		     "cpu_atom");
	for (int i = 3; i < 5; i++) {
		e = &list.ev[i];
		assert_int_equal(e->attr.exclude_user, 1);
		assert_int_equal(e->attr.exclude_kernel, 0);
		assert_int_equal(e->attr.pinned, 1);
	}
}

static void test_hybrid_groups(void **state)
{
	(void)state;
	/* perf: {cycles,instructions} is one group per core PMU. */
	assert_int_equal(parse_in("intel-hybrid", "task-clock,{cycles,instructions}:u,page-faults"),
			 8);
	assert_int_equal(warned, 0);
	assert_int_equal(list.nr_groups, 2);
	assert_event(0, "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, -1, "");
	assert_event(1, "cpu_core/cycles/u", PERF_TYPE_HARDWARE, 0x400000000ULL, 0, "cpu_core");
	assert_event(2, "cpu_core/instructions/u", PERF_TYPE_HARDWARE, 0x400000001ULL, 0,
		     "cpu_core");
	assert_event(3, "cpu_atom/cycles/u", PERF_TYPE_HARDWARE, 0xa00000000ULL, 1, "cpu_atom");
	assert_event(4, "cpu_atom/instructions/u", PERF_TYPE_HARDWARE, 0xa00000001ULL, 1,
		     "cpu_atom");
	assert_event(5, "cycles:u", PERF_TYPE_HARDWARE, 0, -1, "");
	assert_sum(5, 1, 3);
	assert_event(6, "instructions:u", PERF_TYPE_HARDWARE, 1, -1, "");
	assert_sum(6, 2, 4);
	assert_event(7, "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, -1, "");
	for (int i = 1; i < 5; i++)
		assert_int_equal(list.ev[i].attr.exclude_kernel, 1);
}

static void test_hybrid_group_with_software(void **state)
{
	(void)state;
	/* A software member is counted once, in the first core PMU's group. */
	assert_int_equal(parse_in("intel-hybrid", "{page-faults,cycles},{task-clock,cs}"), 6);
	assert_int_equal(list.nr_groups, 3);
	assert_event(0, "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0, "");
	assert_event(1, "cpu_core/cycles/", PERF_TYPE_HARDWARE, 0x400000000ULL, 0, "cpu_core");
	assert_event(2, "cpu_atom/cycles/", PERF_TYPE_HARDWARE, 0xa00000000ULL, 1, "cpu_atom");
	assert_event(3, "cycles", PERF_TYPE_HARDWARE, 0, -1, "");
	assert_sum(3, 1, 2);
	assert_event(4, "task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 2, "");
	assert_event(5, "cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 2, "");
}

static void test_hybrid_leaves_the_rest(void **state)
{
	(void)state;
	/* Raw, a named PMU and software events address one PMU already. */
	assert_int_equal(parse_in("intel-hybrid", "r01c2,cpu_atom/event=0xc0/,cpu_core/cpu-cycles/,"
				  "page-faults"), 4);
	assert_int_equal(warned, 0);
	assert_event(0, "r01c2", PERF_TYPE_RAW, 0x1c2, -1, "");
	assert_event(1, "cpu_atom/event=0xc0/", 10, 0xc0, -1, "");
	assert_event(2, "cpu_core/cpu-cycles/", 4, 0x3c, -1, "");
	assert_event(3, "page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, -1, "");
}

/* perf's "<pmu>/<generic name>/": one PMU's part, as written. */
static void test_pmu_generic_names(void **state)
{
	(void)state;
	assert_int_equal(parse_in("intel-hybrid", "cpu_atom/cycles/,cpu_core/L1-icache-load-misses/u,"
				  "cpu_core/cpu-cycles/"), 3);
	assert_int_equal(warned, 0);
	assert_event(0, "cpu_atom/cycles/", PERF_TYPE_HARDWARE, 0xa00000000ULL, -1, "cpu_atom");
	assert_int_equal(list.ev[0].kind, REPORT_KIND_CYCLES);
	/* L1I 1 | READ 0 | MISS 1 << 16 */
	assert_event(1, "cpu_core/L1-icache-load-misses/u", PERF_TYPE_HW_CACHE, 0x400010001ULL, -1,
		     "cpu_core");
	assert_int_equal(list.ev[1].attr.exclude_kernel, 1);
	/* The PMU's own alias wins. */
	assert_event(2, "cpu_core/cpu-cycles/", 4, 0x3c, -1, "");
	/* A machine of one core PMU: the type in config, but no part of anything. */
	assert_int_equal(parse_in("intel", "cpu/branch-misses/,cpu/instructions/"), 2);
	assert_event(0, "cpu/branch-misses/", PERF_TYPE_HARDWARE, 0x400000005ULL, -1, "");
	assert_event(1, "cpu/instructions/", 4, 0xc0, -1, "");	/* its alias */
	/* Not a generic name: the sysfs resolver's message, as before. */
	assert_int_equal(parse_in("intel-hybrid", "cpu_atom/cylces/"), 0);
	assert_int_equal(warned, 1);
	assert_non_null(strstr(last_warning, "cylces"));
}

static void test_big_little(void **state)
{
	(void)state;
	assert_int_equal(parse_in("arm64-biglittle", "{cycles,instructions},LLC-loads"), 9);
	assert_int_equal(warned, 0);
	assert_int_equal(list.nr_groups, 2);
	assert_event(0, "armv8_cortex_a53/cycles/", PERF_TYPE_HARDWARE, 0x800000000ULL, 0,
		     "armv8_cortex_a53");
	assert_event(1, "armv8_cortex_a53/instructions/", PERF_TYPE_HARDWARE, 0x800000001ULL, 0,
		     "armv8_cortex_a53");
	assert_event(2, "armv8_cortex_a72/cycles/", PERF_TYPE_HARDWARE, 0x900000000ULL, 1,
		     "armv8_cortex_a72");
	assert_event(3, "armv8_cortex_a72/instructions/", PERF_TYPE_HARDWARE, 0x900000001ULL, 1,
		     "armv8_cortex_a72");
	assert_sum(4, 0, 2);
	assert_sum(5, 1, 3);
	/* LLC-loads: LL 2, READ, ACCESS; after the group and its sums. */
	assert_event(6, "armv8_cortex_a53/LLC-loads/", PERF_TYPE_HW_CACHE, 0x800000002ULL, -1,
		     "armv8_cortex_a53");
	assert_event(7, "armv8_cortex_a72/LLC-loads/", PERF_TYPE_HW_CACHE, 0x900000002ULL, -1,
		     "armv8_cortex_a72");
	assert_sum(8, 6, 7);
}

/* A machine of one core PMU, or none: the very same bytes as without sysfs. */
static void test_single_core_pmu_unchanged(void **state)
{
	static struct event_list plain;
	const char *text = "cycles,{instructions,L1-dcache-loads}:u,branch-misses:k,page-faults";
	const char *trees[] = { "intel", "amd", "arm64" };

	(void)state;
	assert_int_equal(events_parse(text, "/nonexistent", "/nonexistent", &plain, NULL, NULL), 5);
	for (size_t t = 0; t < sizeof(trees) / sizeof(trees[0]); t++) {
		assert_int_equal(parse_in(trees[t], text), 5);
		assert_int_equal(list.nr_groups, plain.nr_groups);
		assert_memory_equal(list.ev, plain.ev, 5 * sizeof(list.ev[0]));
	}
}

static void test_hybrid_too_many(void **state)
{
	char text[40 * 7 + 1] = "";

	(void)state;
	for (int i = 0; i < 40; i++)
		strcat(text, i ? ",cycles" : "cycles");
	/* 40 sums of 2 parts: 120 events, of which EVENTS_MAX are kept. */
	assert_int_equal(parse_in("intel-hybrid", text), EVENTS_MAX);
	assert_int_equal(warned, 1);
	assert_non_null(strstr(last_warning, "the first 64 are kept and 56 more are skipped"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_hybrid_hardware_event),
		cmocka_unit_test(test_hybrid_cache_event),
		cmocka_unit_test(test_hybrid_modifiers),
		cmocka_unit_test(test_hybrid_groups),
		cmocka_unit_test(test_hybrid_group_with_software),
		cmocka_unit_test(test_hybrid_leaves_the_rest),
		cmocka_unit_test(test_pmu_generic_names),
		cmocka_unit_test(test_big_little),
		cmocka_unit_test(test_single_core_pmu_unchanged),
		cmocka_unit_test(test_hybrid_too_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
