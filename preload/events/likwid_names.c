/* SPDX-License-Identifier: MIT */
/*
 * likwid_names.c: the table of likwid_names.h. Only events whose meaning
 * perf's generic names carry are here: the architectural ones a LIKWID
 * fixed or general counter counts on Intel, AMD and Arm. A model-specific
 * event (L1D_REPLACEMENT, MEM_LOAD_RETIRED_L3_HIT) has no generic name and
 * is never guessed.
 */
#include <string.h>

#include "preload/events/likwid_names.h"

static const struct {
	const char *likwid, *perf;
} likwid_names[] = {
	/* Intel: the fixed counters, then the architectural events */
	{ "INSTR_RETIRED_ANY", "instructions" },		/* FIXC0 */
	{ "CPU_CLK_UNHALTED_CORE", "cycles" },			/* FIXC1 */
	{ "CPU_CLK_UNHALTED_REF", "ref-cycles" },		/* FIXC2 */
	{ "CPU_CLK_UNHALTED_THREAD_P", "cycles" },
	{ "BR_INST_RETIRED_ALL_BRANCHES", "branches" },
	{ "BR_MISP_RETIRED_ALL_BRANCHES", "branch-misses" },
	{ "LONGEST_LAT_CACHE_REFERENCE", "cache-references" },
	{ "LONGEST_LAT_CACHE_MISS", "cache-misses" },
	/* AMD Zen */
	{ "RETIRED_INSTRUCTIONS", "instructions" },
	{ "CPU_CLOCKS_UNHALTED", "cycles" },
	{ "RETIRED_BRANCH_INSTR", "branches" },
	{ "RETIRED_MISP_BRANCH_INSTR", "branch-misses" },
	/* Arm (PMUv3 common events) */
	{ "INST_RETIRED", "instructions" },
	{ "CPU_CYCLES", "cycles" },
	{ "BR_MIS_PRED", "branch-misses" },
};

const char *likwid_event_perf(const char *name)
{
	for (size_t i = 0; i < sizeof(likwid_names) / sizeof(likwid_names[0]); i++)
		if (strcmp(likwid_names[i].likwid, name) == 0)
			return likwid_names[i].perf;
	return NULL;
}
