/* SPDX-License-Identifier: MIT */
/*
 * listing.h: every event name PFSHIM_EVENTS accepts on this machine, source
 * by source, for `pfshim list` (tools/pfshim/list.c), which prints them:
 * the built-in names, the sysfs PMU events, the tracepoints and libpfm4's
 * vendor names, each found by the resolver that parses it (so the list
 * cannot disagree with the parser) and tried as the shim would open it
 * (tracepoints: the first 8, and the rest only if those disagree).
 * Not for the shim's own start-up: it opens one event per name.
 */
#ifndef PFSHIM_PRELOAD_EVENTS_LISTING_H
#define PFSHIM_PRELOAD_EVENTS_LISTING_H

#include <stdbool.h>

enum event_source { EVENT_SOURCE_BUILTIN, EVENT_SOURCE_SYSFS, EVENT_SOURCE_TRACEPOINT,
		    EVENT_SOURCE_PFM };

/* One event, as events_list() passes it. Its strings live until the callback returns. */
struct event_listed {
	enum event_source source;
	/*
	 * What the section is of: the sysfs root, the tracefs events/
	 * directory, libpfm4's PMU; "" for the built-in names.
	 */
	const char *where;
	const char *name;	/* as PFSHIM_EVENTS takes it; built-in: "cycles, cpu-cycles" */
	const char *desc;	/* what it counts, or "" */
	const char *why_not;	/* NULL: perf_event_open() of it for this process worked just now */
};

struct events_list_options {
	const char *sysfs;	/* PMU_SYSFS_ROOT, or a test's tree */
	const char *tracefs;	/* NULL: the real ones (tracefs.h) */
	/* Is @name wanted (a pattern's match)? NULL: every name. */
	bool (*wanted)(void *ctx, const char *name);
	void *ctx;
};

typedef void events_listed_fn(void *ctx, const struct event_listed *e);

/*
 * events_list - @fn for each event of @source that @o wants, in the order
 * a person reads them (built-in in the table's order, the others sorted by
 * name). Return: 0, or -ENOENT when the source has none to offer here
 * (tracefs not readable, libpfm4 not installed): @why then says why.
 */
int events_list(enum event_source source, const struct events_list_options *o,
		events_listed_fn *fn, void *ctx, const char **why);

#endif
