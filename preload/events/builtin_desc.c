/* SPDX-License-Identifier: MIT */
/*
 * builtin_desc.c: one line on what each built-in event counts, for
 * `pfshim list` (tools/pfshim/list.c). A file of its own so that the shim,
 * which never prints these, links none of them (--gc-sections).
 * The words are docs/events.md's.
 */
#include "preload/events/builtin.h"

#include <stddef.h>

static const char *const hardware_desc[] = {
	[PERF_COUNT_HW_CPU_CYCLES] = "CPU cycles",
	[PERF_COUNT_HW_INSTRUCTIONS] = "instructions retired",
	[PERF_COUNT_HW_CACHE_REFERENCES] = "last-level cache accesses, as the CPU defines them",
	[PERF_COUNT_HW_CACHE_MISSES] = "last-level cache misses, as the CPU defines them",
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = "branches retired",
	[PERF_COUNT_HW_BRANCH_MISSES] = "branches mispredicted",
	[PERF_COUNT_HW_BUS_CYCLES] = "bus cycles",
	[PERF_COUNT_HW_STALLED_CYCLES_FRONTEND] = "cycles the front end stalled",
	[PERF_COUNT_HW_STALLED_CYCLES_BACKEND] = "cycles the back end stalled",
	[PERF_COUNT_HW_REF_CPU_CYCLES] = "reference cycles, not scaled by frequency changes",
};

static const char *const software_desc[] = {
	[PERF_COUNT_SW_CPU_CLOCK] = "time on CPU, per-CPU clock (msec)",
	[PERF_COUNT_SW_TASK_CLOCK] = "time on CPU, the task's clock (msec)",
	[PERF_COUNT_SW_PAGE_FAULTS] = "page faults",
	[PERF_COUNT_SW_CONTEXT_SWITCHES] = "context switches",
	[PERF_COUNT_SW_CPU_MIGRATIONS] = "moves to another CPU",
	[PERF_COUNT_SW_PAGE_FAULTS_MIN] = "minor page faults (no I/O)",
	[PERF_COUNT_SW_PAGE_FAULTS_MAJ] = "major page faults (I/O)",
	[PERF_COUNT_SW_ALIGNMENT_FAULTS] = "alignment fix-ups by the kernel",
	[PERF_COUNT_SW_EMULATION_FAULTS] = "instruction emulations by the kernel",
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

const char *event_builtin_desc(uint32_t type, uint64_t config)
{
	if (type == PERF_TYPE_HARDWARE && config < ARRAY_LEN(hardware_desc))
		return hardware_desc[config];
	if (type == PERF_TYPE_SOFTWARE && config < ARRAY_LEN(software_desc))
		return software_desc[config];
	if (type == PERF_TYPE_HW_CACHE)
		return (config >> 16) & 0xff ? "hardware-cache misses" : "hardware-cache accesses";
	return NULL;
}
