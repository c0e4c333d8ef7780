/* SPDX-License-Identifier: MIT */
/*
 * tracefs.h: the resolver of tracepoints, "subsys:name" as perf writes them
 * ("sched:sched_switch", "syscalls:sys_enter_write", "block:*"): each is
 * PERF_TYPE_TRACEPOINT with config = <tracefs>/events/<subsys>/<name>/id.
 * It looks for tracefs once per events_parse(), on the first name of the
 * shape "a:b" that no built-in, raw or sysfs name explains (events.c), never
 * for any other name, and keeps no descriptor open.
 * It mounts nothing: when tracefs is not there, or not readable (its files
 * are root's only by default), a message says so and what to do.
 */
#ifndef PFSHIM_PRELOAD_EVENTS_TRACEFS_H
#define PFSHIM_PRELOAD_EVENTS_TRACEFS_H

#include <stdbool.h>
#include <stdint.h>

#include "preload/events/diag.h"

/* Where tracefs is mounted (since Linux 4.1), and where debugfs shows it. */
#define TRACEFS_ROOT "/sys/kernel/tracing"
#define TRACEFS_ROOT_DEBUGFS "/sys/kernel/debug/tracing"

struct tracefs_names {
	const char *given;	/* a root to use alone (tests), or NULL: the two above */
	const char *root;	/* the root whose events/ could be opened, or NULL */
	struct diag *diag;
	int error;		/* 0 until looked for; then why there is none (-errno) */
};

/* Start with nothing opened; @root stands for TRACEFS_ROOT (NULL: the real ones). */
void tracefs_names_start(struct tracefs_names *t, const char *root, struct diag *d);
void tracefs_names_end(struct tracefs_names *t);

/*
 * tracefs_has_subsys - is there a readable tracefs with a subsystem @subsys
 * (a plain name, no glob)? Says nothing: the driver asks it to choose
 * between tracefs and libpfm4 for "a:b" (events.c).
 */
bool tracefs_has_subsys(struct tracefs_names *t, const char *subsys);

/* Called once per tracepoint found, in alphabetical order; @ctx is the caller's. */
typedef void tracefs_add_fn(void *ctx, const char *subsys, const char *name, uint64_t id);

/*
 * tracefs_resolve - the tracepoints @subsys:@name of @item (each part may be
 * a glob: '*', '?', '[...]', and then every match counts, as in perf) to
 * @add. A part with '/' or ".." is refused: no name leaves events/.
 * Return: 0 (at least one was added), or a negative errno after a message
 * (tracefs not mounted or not readable, no such tracepoint, no match).
 */
int tracefs_resolve(struct tracefs_names *t, const char *item, const char *subsys,
		    const char *name, tracefs_add_fn *add, void *ctx);

#endif
