/* SPDX-License-Identifier: MIT */
/*
 * builtin.h: the resolver of the event names perf knows without asking
 * sysfs: generic hardware events, software events and hardware-cache events,
 * spelled and encoded as perf spells and encodes them
 * (tools/perf/util/parse-events.c), and raw events (rNNNN). Pure: tables and
 * the name, no file, no message.
 */
#ifndef PFSHIM_PRELOAD_EVENTS_BUILTIN_H
#define PFSHIM_PRELOAD_EVENTS_BUILTIN_H

#include <stdint.h>
#include <linux/perf_event.h>

#include "export/report.h"	/* enum report_kind */

struct event_builtin {
	uint32_t type;		/* PERF_TYPE_HARDWARE, _SOFTWARE or _HW_CACHE */
	uint64_t config;
	double scale;		/* 1e-6 for the clocks, which count nanoseconds */
	const char *unit;	/* "msec" for the clocks, else "" */
	enum report_kind kind;	/* what it counts: REPORT_KIND_CYCLES, _SOFTWARE, _CACHE... */
};

/*
 * Look @name up among the built-in events. 0 on success; -ENOENT if unknown;
 * -EINVAL if it is a hardware-cache name that perf refuses because the
 * cache has no such operation (e.g. iTLB-stores): @why then names the
 * operations the cache does have.
 */
int event_builtin_lookup(const char *name, struct event_builtin *out, const char **why);

/*
 * A raw event: 'r' then 1 to 16 hex digits, without 0x, as perf writes it
 * ("r01c2"), into @config (PERF_TYPE_RAW). 0, or -ENOENT if @name is not one.
 */
int event_raw_parse(const char *name, uint64_t *config);

/*
 * What an encoding another resolver made counts, where the built-in names
 * say (a generic hardware event of libpfm4's "perf::" PMU is cycles too):
 * a hardware or hardware-cache kind, else REPORT_KIND_PMU.
 */
enum report_kind event_builtin_kind(uint32_t type, uint64_t config);

/* Call @fn with every built-in name (aliases included), for did-you-mean. */
void event_builtin_names(void (*fn)(void *ctx, const char *name), void *ctx);

/* The same, with each name's encoding; an alias follows the name it stands
 * for (cycles, then cpu-cycles). For `pfshim list`. */
void event_builtin_each(void (*fn)(void *ctx, const char *name, uint32_t type,
				   uint64_t config), void *ctx);

/*
 * What a built-in encoding counts, in a few words ("CPU cycles"), or NULL.
 * In builtin_desc.c, which only `pfshim list` links: the shim carries no text
 * it never prints.
 */
const char *event_builtin_desc(uint32_t type, uint64_t config);

#endif
