/* SPDX-License-Identifier: MIT */
/*
 * metrics.h: the ratios perf stat prints beside its counts (insn per cycle,
 * branch miss rate, CPUs utilized, ...), computed from a report.
 *
 * Async-signal-safe: arithmetic on the report only; the text writer calls
 * it from the PFSHIM_SIGNAL handler. Events are paired by their kind
 * (struct report_event), which the event's resolver set.
 */
#ifndef PFSHIM_EXPORT_METRICS_H
#define PFSHIM_EXPORT_METRICS_H

#include "export/report.h"

struct metric {
	double value;
	unsigned digits;	/* decimals to print */
	int percent;		/* value is a percentage: print '%' after it */
	const char *text;	/* "insn per cycle", "K/sec", ... */
};

/*
 * metric_compute - the derived metric of @r->events[@i], as perf stat
 * shows it: instructions/cycles, branch-misses/branches,
 * cache-misses/cache-references, clock/wall time, cycles/task-clock (GHz),
 * software counts per second of task-clock.
 *
 * Return: 0 with @m filled, or -ENOENT when the event has no metric, or
 * the events it needs are absent, not counted, or zero.
 */
int metric_compute(const struct report *r, int i, struct metric *m);

#endif
