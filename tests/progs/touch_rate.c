/*
 * touch_rate P T D: fault in P fresh pages (pages.h) every T ms for D ms,
 * D/T rounds in all (P * D/T pages), on a fixed CLOCK_MONOTONIC grid: a
 * long-running program whose page-faults grow at a known rate, for the
 * interval reports (tests/e2e/interval.bats). Prints nothing.
 */
#include <stdlib.h>
#include <time.h>

#include "pages.h"

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 0;
	long period_ms = argc > 2 ? atol(argv[2]) : 10;
	long duration_ms = argc > 3 ? atol(argv[3]) : 100;
	struct timespec next;

	if (period_ms <= 0)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (long round = 0; round < duration_ms / period_ms; round++) {
		pages_touch(pages);
		next.tv_nsec += period_ms % 1000 * 1000000;
		next.tv_sec += period_ms / 1000 + next.tv_nsec / 1000000000;
		next.tv_nsec %= 1000000000;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL))
			;
	}
	return 0;
}
