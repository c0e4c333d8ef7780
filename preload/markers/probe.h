/* SPDX-License-Identifier: MIT */
/*
 * probe.h: the markers' own cost per call (the probe effect). Each thread
 * measures, at its set-up, what an empty pfshim_begin/pfshim_end pair counts
 * on a hidden region of its own table; reports show it beside the regions,
 * and PFSHIM_COMPENSATE=1 subtracts it from every region at report time
 * (docs/markers.md "The markers' own cost").
 */
#ifndef PFSHIM_PRELOAD_MARKERS_PROBE_H
#define PFSHIM_PRELOAD_MARKERS_PROBE_H

#include <stdint.h>

#include "preload/markers/regions.h"

#define PROBE_REGION_ID	0	/* the hidden region's id, reserved before any name */
#define PROBE_TRIES	5	/* empty pairs measured; each value keeps its minimum */

struct marker_thread;

/*
 * probe_reserve - reserve id PROBE_REGION_ID of @names for the hidden
 * region: no name, not in the hash, so no lookup ever finds it and no
 * program can open it. Call once, before any other name is interned.
 */
void probe_reserve(struct region_names *names);

/*
 * probe_measure - PROBE_TRIES empty pairs on the hidden region, called the
 * way a program calls them (pfshim.h's wrappers: the GOT check and the
 * PLT), so that each counts what a program's empty region counts. The
 * hidden slot then holds one call: for each value the least any try gave
 * with its group on a counter all along; a group never on a counter whole
 * reads "not counted". Thread set-up only: after the groups are settled
 * and the thread's state is published (the pairs go through the API).
 */
void probe_measure(struct marker_thread *t);

/* probe_slot - the hidden slot of table @t, or NULL when it has none. */
const struct region_slot *probe_slot(const struct region_thread *t,
				     const struct region_layout *l);

/*
 * probe_per_call - event @e's count per call in the hidden slot @p (its
 * sum over its calls, exact: the slot's times are equal). Return: 0, or
 * -ENODATA when the probe could not measure it.
 */
int probe_per_call(const struct region_slot *p, const struct region_layout *l, int e,
		   uint64_t *out);

/*
 * probe_compensate - PFSHIM_COMPENSATE=1: from each region of @t but the
 * hidden one, for each event the probe measured, subtract calls x probe
 * from the sum (in raw units: x running/enabled when the group was
 * multiplexed, so that the scaled value loses exactly calls x probe), and
 * the probe from the first event's per-call min and max; never below 0.
 * Under @t's sequence counter. Async-signal-safe. Apply once to a table:
 * an exiting thread's, or a report's copy of a live one.
 */
void probe_compensate(struct region_thread *t, const struct region_layout *l);

#endif
