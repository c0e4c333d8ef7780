/* SPDX-License-Identifier: MIT */
/*
 * named.h: metrics by name (PFSHIM_METRICS), as a group text in LIKWID's
 * format for group.c. Runs once, in the constructor (it allocates).
 */
#ifndef PFSHIM_PRELOAD_METRICS_NAMED_H
#define PFSHIM_PRELOAD_METRICS_NAMED_H

#include <stdbool.h>
#include <stddef.h>

#include "preload/metrics/topdown.h"

/*
 * metric_named_text - the group text of the comma list @names: an EVENTSET
 * of each named metric's events and its METRICS; *@text is NULL when no
 * name but TopdownL1 is known (the caller's to free). TopdownL1 is the
 * level 1 of the machine @machine describes where its PMU has the events
 * (topdown_find(), into @td): *@group_events is then their group in perf's
 * syntax (td->group), to be counted as written, else NULL. Elsewhere
 * *@topdown is set: LIKWID's TMA group, which the caller reads (td->why
 * says why the machine has none of its own, when it is known).
 * @unknown: the first name that is neither, or "".
 * Return: 0, or -ENOMEM.
 */
int metric_named_text(const char *names, const struct topdown_machine *machine,
		      struct topdown *td, char **text, const char **group_events, bool *topdown,
		      char *unknown, size_t unknown_size);

/* Is every item of the comma list @names a metric metric_named_text() knows (and one at least)? */
bool metric_named_all(const char *names);

/*
 * metric_named_at - the @i-th metric of the table, with its unit, formula
 * and (*@events)[k] = { a name of the formula, the event it counts } (NULL
 * after the last); NULL past the last metric (TopdownL1 is not in it).
 */
const char *metric_named_at(size_t i, const char **unit, const char **formula,
			    const char *(*events)[2][2]);

/* The names metric_named_text() knows, for a message: "IPC, CPI, ..., TopdownL1". */
const char *metric_named_list(void);

#endif
