/* SPDX-License-Identifier: MIT */
/*
 * fastread/arch.h: pick the counter and timestamp hooks of this architecture
 * (arch/<arch>.h), and the attr hooks of an open (arch_attr_user_read,
 * arch_attr_wide_probe, in aarch64.h only); everything else in fastread/ is
 * architecture-neutral.
 */
#ifndef PFSHIM_FASTREAD_ARCH_H
#define PFSHIM_FASTREAD_ARCH_H

/* -DFASTREAD_FORCE_GENERIC builds the read(2)-only path anywhere (checks, comparisons). */
#if defined(FASTREAD_FORCE_GENERIC)
#include "fastread/arch/generic.h"
#elif defined(__x86_64__)
#include "fastread/arch/x86_64.h"
#elif defined(__aarch64__)
#include "fastread/arch/aarch64.h"
#else
#include "fastread/arch/generic.h"
#endif

/* An architecture that needs no bit in the attr for user reads defines no hook. */
#ifndef FASTREAD_ARCH_USER_BIT
#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>

#define FASTREAD_ARCH_USER_BIT 0

static inline bool arch_attr_user_read(struct perf_event_attr *attr, uint64_t config1, int n)
{
	(void)attr;
	(void)config1;
	(void)n;
	return false;
}

static inline bool arch_attr_wide_probe(const struct perf_event_attr *attr,
					struct perf_event_attr *probe)
{
	(void)attr;
	(void)probe;
	return false;
}
#endif

/*
 * How many events' slots, offsets and pages a cached read that opens an
 * interval takes into registers before its first counter
 * (fastread/cached.h): as many as fit beside the read's own without a spill.
 */
#ifndef FASTREAD_ARCH_HOIST_EVENTS
#define FASTREAD_ARCH_HOIST_EVENTS 0
#endif

/* Intel's top-down registers (x86_64.h): elsewhere such a group is read with read(2). */
#ifndef FASTREAD_ARCH_TOPDOWN
#define FASTREAD_ARCH_TOPDOWN 0
#endif

#endif
