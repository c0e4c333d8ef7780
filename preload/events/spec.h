/* SPDX-License-Identifier: MIT */
/*
 * spec.h: one event specification, what a resolver makes of a name, and
 * the list of them that events.h fills. A header of its own so that the parts of
 * the parser (the resolvers, suggest.c) need not include the parser's.
 */
#ifndef PFSHIM_PRELOAD_EVENTS_SPEC_H
#define PFSHIM_PRELOAD_EVENTS_SPEC_H

#include <stdbool.h>
#include <linux/perf_event.h>

#include "export/report.h"	/* enum report_kind */

#define EVENTS_NAME_MAX 128
#define EVENTS_PMU_NAME_MAX 64	/* PMU_NAME_MAX of pmu.h */
#define EVENTS_CORE_PMUS_MAX 4	/* core PMUs of a hybrid machine (2 known: 3 fit) */

struct event_spec {
	char name[EVENTS_NAME_MAX];	/* as written, modifiers included */
	struct perf_event_attr attr;	/* type, config, config1, config2, exclude_*,
					 * pinned (on the group's leader), exclusive */
	int group;		/* index of the {...} it was in, or -1 */
	bool modifiers;		/* the user gave :u/:k/:h: don't second-guess them */
	bool weak;		/* :W on its group: open its members apart rather than split */
	bool named;		/* name= gave its name: no group modifiers appended to it */
	double scale;		/* display scale (sysfs .scale; 1e-6 for clocks) */
	char unit[16];		/* display unit ("msec", sysfs .unit, or "") */
	enum report_kind kind;	/* what it counts, as its resolver knew it */
	/*
	 * On a machine of several core PMUs (core_pmus.c), a generic hardware
	 * or cache event is one part per core PMU, each with that PMU's type in
	 * config's upper bits, and one sum that is never opened: the sum of its
	 * parts' counts. Elsewhere pmu is "" and nr_parts 0.
	 */
	char pmu[EVENTS_PMU_NAME_MAX];	/* a part: its core PMU ("cpu_core") */
	int nr_parts;			/* a sum: how many parts, at parts[] */
	int parts[EVENTS_CORE_PMUS_MAX];	/* indices in the event list */
};

#define EVENTS_MAX 64

/* The parser's result (events.h), and what core_pmus.c rewrites on a hybrid machine. */
struct event_list {
	int nr;
	int nr_groups;		/* how many {...} groups */
	struct event_spec ev[EVENTS_MAX];
};

#endif
