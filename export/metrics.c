/* SPDX-License-Identifier: MIT */
/*
 * metrics.c: derived metrics for the text report (see metrics.h).
 *
 * Async-signal-safe: floating-point arithmetic only. Events are matched by
 * the kind their resolver recorded (report.h), not by spelling, so
 * "cpu-cycles:u" pairs with "instructions:u" as perf stat pairs them.
 */
#include <errno.h>
#include <stdbool.h>

#include "export/metrics.h"

static bool same_pmu(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/*
 * The value of the first counted, non-zero event of @kind, or 0. On a
 * hybrid machine a part pairs with the part of its own core PMU
 * (cpu_core's instructions per cpu_core's cycle), anything else with the
 * sums and the events of no core PMU: @pmu is the asking event's.
 */
static double counted_value(const struct report *r, enum report_kind kind, const char *pmu)
{
	for (int i = 0; i < r->nr_events; i++) {
		const struct report_event *e = &r->events[i];

		if (e->status == STATUS_COUNTED && e->value && e->kind == kind &&
		    same_pmu(e->pmu, pmu))
			return (double)e->value;
	}
	return 0;
}

/* ns of CPU time: task-clock, else cpu-clock (both count nanoseconds). */
static double cpu_time_ns(const struct report *r)
{
	double ns = counted_value(r, REPORT_KIND_TASK_CLOCK, NULL);

	return ns ? ns : counted_value(r, REPORT_KIND_CPU_CLOCK, NULL);
}

static int metric_set(struct metric *m, double value, unsigned digits,
		      int percent, const char *text)
{
	m->value = value;
	m->digits = digits;
	m->percent = percent;
	m->text = text;
	return 0;
}

static int metric_ratio(struct metric *m, double num, double den,
			int percent, const char *text)
{
	if (den == 0)
		return -ENOENT;
	return metric_set(m, percent ? 100.0 * num / den : num / den, 2,
			  percent, text);
}

/* perf stat's rate: events per second of CPU time, with a K/M/G prefix. */
static int metric_rate(struct metric *m, double count, double cpu_ns)
{
	double rate;

	if (cpu_ns == 0)
		return -ENOENT;
	rate = count * 1e9 / cpu_ns;
	if (rate >= 1e9)
		return metric_set(m, rate / 1e9, 3, 0, "G/sec");
	if (rate >= 1e6)
		return metric_set(m, rate / 1e6, 3, 0, "M/sec");
	if (rate >= 1e3)
		return metric_set(m, rate / 1e3, 3, 0, "K/sec");
	return metric_set(m, rate, 3, 0, "/sec");
}

int metric_compute(const struct report *r, int i, struct metric *m)
{
	const struct report_event *e = &r->events[i];
	double v = (double)e->value;

	if (e->status != STATUS_COUNTED)
		return -ENOENT;
	switch (e->kind) {
	case REPORT_KIND_INSTRUCTIONS:
		return metric_ratio(m, v, counted_value(r, REPORT_KIND_CYCLES, e->pmu), 0,
				    "insn per cycle");
	case REPORT_KIND_BRANCH_MISSES:
		return metric_ratio(m, v, counted_value(r, REPORT_KIND_BRANCHES, e->pmu), 1,
				    "of all branches");
	case REPORT_KIND_CACHE_MISSES:
		return metric_ratio(m, v, counted_value(r, REPORT_KIND_CACHE_REFERENCES, e->pmu),
				    1, "of all cache refs");
	case REPORT_KIND_TASK_CLOCK:
	case REPORT_KIND_CPU_CLOCK:
		if (r->wall_ns == 0)
			return -ENOENT;
		return metric_set(m, v / (double)r->wall_ns, 3, 0, "CPUs utilized");
	case REPORT_KIND_CYCLES:
		/* A hybrid part ran only on its PMU's cores: its own running time. */
		if (e->pmu && e->running)
			return metric_set(m, v / (double)e->running, 3, 0, "GHz");
		if (cpu_time_ns(r) == 0)
			return -ENOENT;
		return metric_set(m, v / cpu_time_ns(r), 3, 0, "GHz");
	case REPORT_KIND_SOFTWARE:
		return metric_rate(m, v, cpu_time_ns(r));
	default:
		return -ENOENT;
	}
}
