/* SPDX-License-Identifier: MIT */
/*
 * bench.h: the clock and the statistics every `make bench` program shares.
 * Medians, never means: one timer interrupt or page-cache miss in a batch
 * moves a mean but not a median, and ratios of medians are what we compare.
 */
#ifndef PFSHIM_BENCH_H
#define PFSHIM_BENCH_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/perf_event.h>

/*
 * The 4 events of every read and marker comparison: software events, the only
 * ones the build machines have (docs/kernel-notes.md "No hardware PMU").
 */
#define BENCH_NR_EVENTS 4

/* bench_sw_attr - @attr zeroed, sized, and set to software event @i of the 4. */
static inline void bench_sw_attr(struct perf_event_attr *attr, int i)
{
	static const unsigned long long config[BENCH_NR_EVENTS] = {
		PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_PAGE_FAULTS,
		PERF_COUNT_SW_CONTEXT_SWITCHES, PERF_COUNT_SW_CPU_MIGRATIONS,
	};

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = config[i];
}

static inline uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* bench_median - the median of @v[0..n-1]; sorts @v in place. */
static inline double bench_median(double *v, int n)
{
	if (n <= 0)
		return 0.0;
	qsort(v, (size_t)n, sizeof(*v), bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

#endif
