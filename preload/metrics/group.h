/* SPDX-License-Identifier: MIT */
/*
 * group.h: the metric group a run asked for (PFSHIM_GROUP, PFSHIM_METRICS):
 * a LIKWID group file's events, named as pfshim's event parser knows them
 * and counted beside PFSHIM_EVENTS, and its metrics, computed at every
 * report.
 *
 * metric_group_open() and metric_group_bind() run once, in the constructor
 * (they read files and allocate); metric_group_compute() is
 * async-signal-safe: arithmetic on a report's counts.
 */
#ifndef PFSHIM_PRELOAD_METRICS_GROUP_H
#define PFSHIM_PRELOAD_METRICS_GROUP_H

#include "export/report.h"
#include "preload/events/events.h"
#include "preload/events/spec.h"
#include "preload/metrics/likwid_group.h"
#include "preload/metrics/topdown.h"

#define METRIC_GROUP_ROOT "/usr/share/likwid/perfgroups"	/* Debian's likwid package */
#define METRIC_GROUP_MAX 64	/* metrics in one group; LIKWID's have at most 38 */

/* Where a formula's name takes its value from. */
struct metric_source {
	enum { SOURCE_EVENT, SOURCE_TIME, SOURCE_INVERSE_CLOCK, SOURCE_NONE } kind;
	int event;		/* SOURCE_EVENT: index in the report's events */
	const char *why;	/* SOURCE_NONE: why it has no value here */
	char label[48];		/* what to name when it has none: the event, or the name */
};

struct metric_group {
	char name[64];			/* "BRANCH", or the file's name less ".txt" */
	struct likwid_group group;
	char **event_names;		/* [group.nr_events]: each event as pfshim names it */
	char *events_text;		/* those names, comma-separated, for events_parse */
	double inverse_clock;		/* s per cycle at the CPU's base clock; 0: unknown */
	struct metric_source (*sources)[FORMULA_MAX_NAMES];	/* [group.nr_metrics] */
	/* The same bindings as a report carries them (their names allocated). */
	struct report_metric_input (*inputs)[FORMULA_MAX_NAMES];	/* [group.nr_metrics] */
};

/*
 * metric_group_arch - LIKWID's group directory for the CPU @cpuinfo_path
 * (/proc/cpuinfo) describes ("skylakeX"), or NULL when it has none; @cpu
 * gets the CPU's short description for the message that says so.
 */
const char *metric_group_arch(const char *cpuinfo_path, char *cpu, size_t size);

/*
 * metric_group_open - read the group @spec names: a path to a group file,
 * or a group name looked up under @root/<arch>/<NAME>.txt for the CPU
 * @cpuinfo_path describes (/proc/cpuinfo). Each of its events gets the name
 * pfshim's parser knows it by (docs/metrics.md's table); mg->events_text
 * lists those not already in @counted (PFSHIM_EVENTS' text), once each.
 *
 * Return: 0, or a negative errno with @why set to one sentence for the user
 * (no group directory for this CPU, no such group, a file that is not a
 * group, more than METRIC_GROUP_MAX metrics).
 */
int metric_group_open(const char *spec, const char *root, const char *cpuinfo_path,
		      const char *counted, struct metric_group *mg, char *why, size_t why_size);

/*
 * metric_group_bind - find each metric's counters among @events (the
 * parsed PFSHIM_EVENTS plus mg->events_text; the group's own are the last
 * of each name), and the CPU's base clock under @sysfs_cpu
 * (/sys/devices/system/cpu). A name with no value makes its metric
 * uncomputable, said in the report.
 */
/* What PFSHIM_METRICS asks for, and where to look. */
struct metric_request {
	const char *names;	/* PFSHIM_METRICS: a comma list (metrics/named.h) */
	const char *group;	/* PFSHIM_GROUP beside them, or NULL */
	const char *root;	/* LIKWID's group directories (METRIC_GROUP_ROOT) */
	const char *cpuinfo;	/* /proc/cpuinfo */
	const char *sysfs;	/* the PMUs (PMU_SYSFS_ROOT): TopdownL1's events */
	const char *counted;	/* PFSHIM_EVENTS' text: its events are not listed again */
	const char *sysfs_cpu;	/* /sys/devices/system/cpu (arm64's MIDR), or NULL: not looked at */
};

/*
 * metric_group_open_named - the metrics @q names, with the group @q->group
 * beside them, or LIKWID's TMA group for TopdownL1 where this machine has
 * no level 1 of its own (metrics/topdown.h), as one group named PFSHIM_METRICS (PFSHIM_METRICS+NAME
 * with the group file NAME's metrics). A name nothing knows, or a group
 * file that cannot be read, is said in @note (one sentence, "" when none)
 * and the rest goes on.
 *
 * Return: 0, or a negative errno with @why set when nothing is left.
 */
int metric_group_open_named(const struct metric_request *q, struct metric_group *mg,
			    char *why, size_t why_size, char *note, size_t note_size);

/*
 * metric_group_topdown - TopdownL1's source on the machine @q describes
 * (q->sysfs, q->cpuinfo, q->sysfs_cpu), as metric_group_open_named() finds
 * it: topdown_find()'s answer, for `pfshim list --metrics`.
 */
int metric_group_topdown(const struct metric_request *q, struct topdown *td);

void metric_group_bind(struct metric_group *mg, const struct event_list *events,
		       const char *sysfs_cpu);

/*
 * metric_group_compute - each metric of @mg from the counts of @r (whose
 * events are in the order metric_group_bind() saw), into @out
 * [mg->group.nr_metrics]; @seconds is the time the counts cover.
 * Async-signal-safe.
 */
void metric_group_compute(const struct metric_group *mg, const struct report *r,
			  double seconds, struct report_metric *out);

/*
 * metric_group_compute_delta - the same over each event's delta (the change
 * since the previous report), @seconds the time since then: an interval's
 * metrics. Async-signal-safe.
 */
void metric_group_compute_delta(const struct metric_group *mg, const struct report *r,
				double seconds, struct report_metric *out);

/*
 * metric_group_compute_region - the same for the region @t of @r: each
 * event's sum over the region's threads and calls, @t's wall time summed
 * as the time. An event that is not a region event (the marker API counts
 * the totals' first group in each thread) leaves its metrics not counted.
 * Async-signal-safe.
 */
void metric_group_compute_region(const struct metric_group *mg, const struct report *r,
				 const struct report_region_total *t, struct report_metric *out);

void metric_group_free(struct metric_group *mg);

#endif
