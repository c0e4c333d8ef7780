/* SPDX-License-Identifier: MIT */
/*
 * pages.h: what every page-fault test program does, written once: fault in
 * exactly N fresh anonymous pages, one write each, so that page-faults can
 * be asserted to the page. Huge pages are refused for the mapping: one
 * transparent huge page would take 512 pages in a single fault.
 */
#ifndef PFSHIM_TESTS_PAGES_H
#define PFSHIM_TESTS_PAGES_H

#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static inline void pages_touch(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p;

	if (n <= 0)
		return;
	p = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		exit(1);
	madvise(p, n * page, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		p[i * page] = 1;
	munmap(p, n * page);
}

/*
 * pages_touch_rate - @pages fresh pages every @period_ms for @duration_ms:
 * duration/period rounds on a fixed CLOCK_MONOTONIC grid, so a program's
 * page-faults grow at a known rate (the interval reports' tests).
 */
static inline void pages_touch_rate(long pages, long period_ms, long duration_ms)
{
	struct timespec next;

	if (period_ms <= 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (long round = 0; round < duration_ms / period_ms; round++) {
		pages_touch(pages);
		next.tv_nsec += period_ms % 1000 * 1000000;
		next.tv_sec += period_ms / 1000 + next.tv_nsec / 1000000000;
		next.tv_nsec %= 1000000000;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL))
			;
	}
}

#endif
