/* SPDX-License-Identifier: MIT */
/*
 * markers_compensate N: in each of 2 threads (one that exits, then the main
 * thread, which a report reads live), region "outer" around CALLS calls each
 * of region "empty" (a begin and an end, nothing between) and region "spin"
 * (a loop of exactly N iterations of two instructions on aarch64: subs,
 * b.ne). Where counters are exact (QEMU's arm64 PMU under -icount), spin -
 * empty = 2N per call, and with PFSHIM_COMPENSATE=1 empty reads about 0 and
 * spin about 2N: tests/arm64/test_shim_arm64.c ("compensate") checks the
 * JSON report; tests/e2e/markers.bats runs it for the report's probe lines.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "pfshim.h"

#define CALLS 3

static pfshim_region_t outer, empty, spin;
static unsigned long n;

static __attribute__((noinline)) void region_empty(pfshim_region_t r)
{
	pfshim_begin(r);
	pfshim_end(r);
}

/*
 * @iterations >= 1, inline between the two calls: no call of its own to
 * count. On aarch64 the count waits in x19 (callee-saved) across the begin
 * and the loop runs on it there: a copy into another register would be one
 * instruction more than region_empty has.
 */
static __attribute__((noinline)) void region_spin(pfshim_region_t r, unsigned long iterations)
{
#if defined(__aarch64__)
	register unsigned long left __asm__("x19") = iterations;

	__asm__ volatile("" : "+r"(left));
	pfshim_begin(r);
	__asm__ volatile("1:\n\tsubs %0, %0, #1\n\tb.ne 1b" : "+r"(left) : : "cc");
#else
	pfshim_begin(r);
	for (volatile unsigned long i = 0; i < iterations; i++)
		;
#endif
	pfshim_end(r);
}

static void *work(void *arg)
{
	(void)arg;
	pfshim_begin(outer);
	for (int i = 0; i < CALLS; i++) {
		region_empty(empty);
		region_spin(spin, n);
	}
	pfshim_end(outer);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	n = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000;
	if (n == 0)
		n = 1;
	outer = pfshim_region("outer");
	empty = pfshim_region("empty");
	spin = pfshim_region("spin");
	if (pthread_create(&t, NULL, work, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	work(NULL);
	printf("calls=%d spin_minus_empty_instructions=%lu\n", CALLS, 2 * n);
	return 0;
}
