/* SPDX-License-Identifier: MIT */
/*
 * host.h: what the markers take from the process (struct markers_host),
 * apart from markers.h so that the room's shared state (state.h) can hold
 * it without depending on the room's entry points.
 */
#ifndef PFSHIM_PRELOAD_MARKERS_HOST_H
#define PFSHIM_PRELOAD_MARKERS_HOST_H

#include <stdbool.h>

struct counter_set;
struct event_list;

/*
 * What the markers take from the process, handed in once by markers_start()
 * so that nothing here calls back up into the lifecycle.
 */
struct markers_host {
	const struct event_list *events;	/* attrs, and the order of pfshim_counts */
	const struct counter_set *totals;	/* which events opened, at which privilege */
	bool (*is_self)(void);			/* false in a vfork()ed child */
	void (*report)(void);			/* pfshim_report(): a report now */
	bool compensate;			/* PFSHIM_COMPENSATE=1: regions less the probe (probe.c) */
};

#endif
