/*
 * spec.h: one event specification, what a resolver makes of a name and
 * what the list of events.h holds. A header of its own so that the parts of
 * the parser (the resolvers, suggest.c) need not include the parser's.
 */
#ifndef PFSHIM_PRELOAD_EVENTS_SPEC_H
#define PFSHIM_PRELOAD_EVENTS_SPEC_H

#include <stdbool.h>
#include <linux/perf_event.h>

#include "export/report.h"	/* enum report_kind */

#define EVENTS_NAME_MAX 128

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
};

#endif
