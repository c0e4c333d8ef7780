/* SPDX-License-Identifier: MIT */
/*
 * events.h: event specifications, parsed from perf's event syntax.
 *
 * "task-clock,cycles:u,{instructions,branches},cpu/event=0x3c,umask=1/,r01c2"
 * becomes a list of perf_event_attr with the name the user wrote. Names are
 * resolved against built-in tables (hardware, software, hardware-cache) and
 * against sysfs PMU descriptions (type, format/, events/, .scale, .unit);
 * tracepoints ("sched:sched_switch", "block:*") against tracefs.
 * The parser prints nothing: every warning goes to the caller's callback.
 * It reads sysfs (sysfs.c, through pmu.c and pmu_catalog.c) for the names
 * that are not built in, and only for those, and tracefs (tracefs.c) for
 * tracepoints only; it opens no counter.
 */
#ifndef PFSHIM_PRELOAD_EVENTS_EVENTS_H
#define PFSHIM_PRELOAD_EVENTS_EVENTS_H

#include <stddef.h>

#include "preload/events/spec.h"	/* struct event_list, EVENTS_MAX, EVENTS_NAME_MAX */

#define EVENTS_DEFAULT \
	"task-clock,context-switches,cpu-migrations,page-faults," \
	"cycles,instructions,branches,branch-misses"

/* Called once per problem with one self-contained sentence (no "pfshim:"). */
typedef void (*events_warn_fn)(void *ctx, const char *message);

/*
 * events_parse - parse @text (comma-separated, perf syntax) into @out.
 * @sysfs_root: directory standing for /sys/bus/event_source/devices.
 * @tracefs_root: directory standing for /sys/kernel/tracing, or NULL for
 * the real one (or its debugfs twin): read only for a tracepoint.
 *
 * A bad item (unknown name, bad term, broken braces, empty item) is reported
 * through @warn, naming the item and, for an unknown name, the closest known
 * one ("unknown event 'cylces' (did you mean 'cycles'?)"), and is skipped: the
 * rest are still parsed.
 *
 * Return: the number of events in @out (0 if nothing usable).
 */
int events_parse(const char *text, const char *sysfs_root, const char *tracefs_root,
		 struct event_list *out, events_warn_fn warn, void *ctx);

#endif
