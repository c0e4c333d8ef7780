/*
 * metrics.h: the ratios perf stat prints beside its counts (insn per cycle,
 * branch miss rate, CPUs utilized, ...), computed from a report.
 *
 * Async-signal-safe: arithmetic on the report only; the text writer calls
 * it from the PFSHIM_SIGNAL handler.
 */
#ifndef PFSHIM_EXPORT_METRICS_H
#define PFSHIM_EXPORT_METRICS_H

#include "export/report.h"

/* What an event counts, whatever alias or modifiers the user wrote. */
enum event_kind {
	EVENT_OTHER,
	EVENT_CYCLES,
	EVENT_INSTRUCTIONS,
	EVENT_BRANCHES,
	EVENT_BRANCH_MISSES,
	EVENT_CACHE_REFERENCES,
	EVENT_CACHE_MISSES,
	EVENT_TASK_CLOCK,
	EVENT_CPU_CLOCK,
	EVENT_SOFTWARE_COUNT,	/* faults, switches, migrations: shown as rates */
};

/*
 * event_kind_of - the kind of event @name names: "cpu-cycles:u" and
 * "cycles" are both EVENT_CYCLES (modifiers after ':' are ignored).
 */
enum event_kind event_kind_of(const char *name);

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
