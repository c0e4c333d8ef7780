/* SPDX-License-Identifier: MIT */
/*
 * likwid_time: LIKWID's GET sums every call of a tag. The tag "nap" is run
 * 3 times, each call sleeping 100 ms and touching 64 fresh pages. Prints
 * what GET returns against the program's own measure of the same calls:
 * the time at least 3 x 100 ms (nanosleep never wakes early) and at most the
 * sum of the program's own clock around each start..stop; the count 3; the
 * first event's sum (page-faults under PFSHIM_EVENTS=...,page-faults) at
 * least 3 x 64. A GET holding the last call only reads 0.1 s and 64.
 * Then RESET, and GET again: 0 calls, 0 s, 0 page-faults.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define LIKWID_PERFMON
#include <likwid-marker.h>

#define CALLS 3
#define PAGES 64

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(void)
{
	const struct timespec nap = { 0, 100000000 };
	double own = 0, t = -1, ev[16];
	int nev = 16, count = -1;

	LIKWID_MARKER_INIT;
	for (int i = 0; i < CALLS; i++) {
		double before = now_s();
		char *p;

		LIKWID_MARKER_START("nap");
		p = mmap(NULL, PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 1;
		memset(p, 1, PAGES * 4096);
		while (nanosleep(&nap, NULL) != 0)
			;
		LIKWID_MARKER_STOP("nap");
		own += now_s() - before;
		munmap(p, PAGES * 4096);
	}
	LIKWID_MARKER_GET("nap", &nev, ev, &t, &count);
	printf("count %d time>=0.3 %d time<=own %d events %d faults>=%d %d\n", count,
	       t >= CALLS * 0.1, t <= own, nev, CALLS * PAGES, nev > 1 && ev[1] >= CALLS * PAGES);
	/* RESET clears all three: a GET after it reads nothing of the calls before. */
	LIKWID_MARKER_RESET("nap");
	nev = 16;
	LIKWID_MARKER_GET("nap", &nev, ev, &t, &count);
	printf("after reset: count %d time %g faults %g\n", count, t, nev > 1 ? ev[1] : -1);
	LIKWID_MARKER_CLOSE;
	return 0;
}
