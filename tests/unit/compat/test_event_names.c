/* SPDX-License-Identifier: MIT */
/*
 * test_event_names.c: compat/event_names.c, LIKWID_EVENTS and PAPI_EVENTS
 * as PFSHIM_EVENTS: each name of the table, perf's own names passed on,
 * groups and model-specific events listed back, never guessed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "compat/event_names.h"

static char out[512], rest[256];

static int likwid(const char *list)
{
	return compat_events(COMPAT_LIKWID, list, out, sizeof(out), rest, sizeof(rest));
}

static int papi(const char *list)
{
	return compat_events(COMPAT_PAPI, list, out, sizeof(out), rest, sizeof(rest));
}

static void test_likwid_fixed_counters(void **state)
{
	(void)state;
	assert_int_equal(likwid("INSTR_RETIRED_ANY:FIXC0,CPU_CLK_UNHALTED_CORE:FIXC1,"
				"CPU_CLK_UNHALTED_REF:FIXC2,L1D_REPLACEMENT:PMC0"), 3);
	assert_string_equal(out, "instructions,cycles,ref-cycles");
	assert_string_equal(rest, "L1D_REPLACEMENT:PMC0");
}

static void test_likwid_architectural(void **state)
{
	(void)state;
	assert_int_equal(likwid("BR_INST_RETIRED_ALL_BRANCHES:PMC0,BR_MISP_RETIRED_ALL_BRANCHES:PMC1,"
				"LONGEST_LAT_CACHE_REFERENCE:PMC2,LONGEST_LAT_CACHE_MISS:PMC3"), 4);
	assert_string_equal(out, "branches,branch-misses,cache-references,cache-misses");
	assert_string_equal(rest, "");
	/* AMD's and Arm's names for the same, each event once */
	assert_int_equal(likwid("RETIRED_INSTRUCTIONS:PMC0,CPU_CLOCKS_UNHALTED:PMC1,"
				"RETIRED_BRANCH_INSTR:PMC2,RETIRED_MISP_BRANCH_INSTR:PMC3,"
				"INST_RETIRED:PMC4,CPU_CYCLES:PMC5,BR_MIS_PRED:PMC6"), 4);
	assert_string_equal(out, "instructions,cycles,branches,branch-misses");
}

static void test_likwid_perf_names_and_options(void **state)
{
	(void)state;
	/* perf's names pass on; the counter and LIKWID's options after ':' are dropped */
	assert_int_equal(likwid("task-clock,page-faults:PMC0,r01c2:PMC1,"
				"cpu/event=0x3c,umask=0x0/:PMC2,INSTR_RETIRED_ANY:FIXC0:EDGEDETECT"), 5);
	assert_string_equal(out, "task-clock,page-faults,r01c2,cpu/event=0x3c,umask=0x0/,instructions");
	assert_string_equal(rest, "");
}

static void test_likwid_groups(void **state)
{
	(void)state;
	assert_int_equal(likwid("MEM"), 0);
	assert_string_equal(out, "");
	assert_string_equal(rest, "MEM (a LIKWID group: counted when LIKWID_EVENTS names it alone)");
	/* several event sets (likwid-perfctr -g A -g B) are joined with '|' */
	assert_int_equal(likwid("FLOPS_DP|INSTR_RETIRED_ANY:FIXC0,CPU_CLK_UNHALTED_CORE:FIXC1|"
				"INSTR_RETIRED_ANY:FIXC0"), 2);
	assert_string_equal(out, "instructions,cycles");
	assert_string_equal(rest, "FLOPS_DP (a LIKWID group: counted when LIKWID_EVENTS names it alone)");
}

static void test_papi_presets(void **state)
{
	(void)state;
	assert_int_equal(papi("PAPI_TOT_INS,PAPI_TOT_CYC,PAPI_REF_CYC,PAPI_BR_INS,PAPI_BR_MSP,"
			      "PAPI_L1_DCM,PAPI_L1_ICM,PAPI_L3_TCA,PAPI_L3_TCM"), 9);
	assert_string_equal(out, "instructions,cycles,ref-cycles,branches,branch-misses,"
			    "L1-dcache-load-misses,L1-icache-load-misses,cache-references,cache-misses");
	assert_int_equal(papi("PAPI_FP_OPS,PAPI_TOT_INS,PAPI_VEC_DP"), 1);
	assert_string_equal(out, "instructions");
	assert_string_equal(rest, "PAPI_FP_OPS, PAPI_VEC_DP");
}

static void test_papi_perf_names(void **state)
{
	(void)state;
	assert_int_equal(papi("perf::TASK-CLOCK,perf::PAGE-FAULTS,perf::CONTEXT-SWITCHES,"
			      "perf::CPU-MIGRATIONS,perf::MINOR-FAULTS,perf::CS"), 6);
	assert_string_equal(out, "task-clock,page-faults,context-switches,cpu-migrations,"
			    "minor-faults,cs");
	/* perf's cache names are not all lower case */
	assert_int_equal(papi("perf::L1-DCACHE-LOAD-MISSES,perf::LLC-LOADS,perf::DTLB-LOAD-MISSES,"
			      "perf::ITLB-LOAD-MISSES,perf::BRANCH-LOADS"), 5);
	assert_string_equal(out, "L1-dcache-load-misses,LLC-loads,dTLB-load-misses,"
			    "iTLB-load-misses,branch-loads");
	/* libpfm4's PERF_COUNT_* spellings */
	assert_int_equal(papi("perf::PERF_COUNT_SW_TASK_CLOCK,perf::PERF_COUNT_HW_INSTRUCTIONS,"
			      "perf::PERF_COUNT_SW_PAGE_FAULTS_MIN,perf::PERF_COUNT_SW_CGROUP_SWITCHES"), 3);
	assert_string_equal(out, "task-clock,instructions,minor-faults");
	assert_string_equal(rest, "perf::PERF_COUNT_SW_CGROUP_SWITCHES");
	/* raw events; modifiers and other components have no perf spelling */
	assert_int_equal(papi("perf_raw::r0151,perf_raw::x,perf::CYCLES:u=0,rapl::RAPL_ENERGY_PKG"), 1);
	assert_string_equal(out, "r0151");
	assert_string_equal(rest, "perf_raw::x, perf::CYCLES:u=0, rapl::RAPL_ENERGY_PKG");
}

static void test_empty_items_and_duplicates(void **state)
{
	(void)state;
	assert_int_equal(papi(",perf::TASK-CLOCK,,perf::PERF_COUNT_SW_TASK_CLOCK,"), 1);
	assert_string_equal(out, "task-clock");
	assert_string_equal(rest, "");
	assert_int_equal(papi(""), 0);
	assert_string_equal(out, "");
}

static void test_small_buffers(void **state)
{
	char small[16], tiny[16];

	(void)state;
	/* what does not fit in out is listed with the rest; a rest that does not fit ends in "..." */
	assert_int_equal(compat_events(COMPAT_PAPI, "PAPI_TOT_INS,PAPI_TOT_CYC,AAAA,BB", small,
				       sizeof(small), tiny, sizeof(tiny)), 1);
	assert_string_equal(small, "instructions");
	assert_string_equal(tiny, "PAPI_TOT_CYC...");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_likwid_fixed_counters),
		cmocka_unit_test(test_likwid_architectural),
		cmocka_unit_test(test_likwid_perf_names_and_options),
		cmocka_unit_test(test_likwid_groups),
		cmocka_unit_test(test_papi_presets),
		cmocka_unit_test(test_papi_perf_names),
		cmocka_unit_test(test_empty_items_and_duplicates),
		cmocka_unit_test(test_small_buffers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
