/* SPDX-License-Identifier: MIT */
/*
 * core_pmus.h: the core PMUs of a machine, the PMUs that count the generic
 * hardware and cache events on its CPUs, and the one place where a generic
 * event becomes one event per core PMU on a machine that has several: Intel
 * hybrid parts (cpu_core and cpu_atom) and arm64 big.LITTLE boards (one
 * armv8_* PMU per kind of core, each with its own `cpus` list).
 */
#ifndef PFSHIM_PRELOAD_EVENTS_CORE_PMUS_H
#define PFSHIM_PRELOAD_EVENTS_CORE_PMUS_H

#include <stdint.h>

#include "preload/events/pmu.h"
#include "preload/events/spec.h"

/* The kernel's since 5.16 (linux/perf_event.h); spelled here for older headers. */
#ifndef PERF_PMU_TYPE_SHIFT
#define PERF_PMU_TYPE_SHIFT 32
#endif

struct core_pmu {
	char name[PMU_NAME_MAX];
	uint32_t type;
};

struct core_pmus {
	int nr;
	struct core_pmu pmu[EVENTS_CORE_PMUS_MAX];	/* by type, as perf lists them:
							 * cpu_core (4) before cpu_atom (10) */
};

/*
 * core_pmus_load - the core PMUs under @root, as perf finds them
 * (tools/perf/util/pmu.c, is_pmu_core()): a PMU named "cpu" is the one core
 * PMU of the machine (one file read, no directory walk); otherwise each PMU
 * with a `cpus` file is one. PMUs beyond EVENTS_CORE_PMUS_MAX are left out.
 * Return: how many (0 on a machine without a hardware PMU).
 */
int core_pmus_load(const char *root, struct core_pmus *cp);

/*
 * core_pmus_resolve - "<pmu>/<generic name>/" as perf reads it
 * ("cpu_atom/cycles/", "cpu_core/L1-icache-loads/"): @terms is one generic
 * hardware or cache name and <pmu> lists no alias of that name, so @spec is
 * the generic event with <pmu>'s type in config's upper bits; on a machine
 * of several core PMUs it is that PMU's part (spec.h), counted as read.
 * Return: 0; -ENOENT when @terms is not such a name or <pmu> has no type
 * (the sysfs resolver's then, which says what is wrong).
 */
int core_pmus_resolve(const char *root, const char *pmu, const char *terms,
		      struct event_spec *spec);

/*
 * core_pmus_expand - on a machine of two or more core PMUs, every generic
 * hardware or cache event of @list becomes one part per core PMU, named
 * "<pmu>/<event>/<modifiers>" and with config |= type << PERF_PMU_TYPE_SHIFT,
 * followed by its sum (the name as written, never opened: spec.h); a {...}
 * group holding such an event becomes one group per core PMU, its other
 * members in the first. Sysfs is read only when @list has a generic event;
 * with one core PMU or none @list is left as it was, byte for byte.
 * Return: how many events did not fit in EVENTS_MAX and were dropped.
 */
int core_pmus_expand(const char *root, struct event_list *list);

#endif
