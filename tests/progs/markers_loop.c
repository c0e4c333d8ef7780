/* SPDX-License-Identifier: MIT */
/*
 * markers_loop N: region "base" around a loop of 1 iteration and region
 * "loop" around the same loop of N + 1 iterations, one call each, so that
 * instructions(loop) - instructions(base) = 2 * N exactly where counters are
 * exact (QEMU's arm64 PMU under -icount): on aarch64 each iteration is
 * exactly two instructions (subs, b.ne), and both regions run the same code
 * around it. Elsewhere the loop is portable C and only the calls are exact.
 * Prints "loop_minus_base_instructions=<2N>" for the harness to compare.
 * With MARKERS_LOOP_BY_NAME=1 in the environment the regions are begun and
 * ended by name (pfshim_region_begin/end), the same counts expected.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pfshim.h"

/* @n >= 1 iterations of exactly two instructions on aarch64. */
static __attribute__((noinline)) void spin(unsigned long n)
{
#if defined(__aarch64__)
	__asm__ volatile("1:\n\tsubs %0, %0, #1\n\tb.ne 1b" : "+r"(n) : : "cc");
#else
	for (volatile unsigned long i = 0; i < n; i++)
		;
#endif
}

static __attribute__((noinline)) void region_around_spin(pfshim_region_t r, unsigned long n)
{
	pfshim_begin(r);
	spin(n);
	pfshim_end(r);
}

static __attribute__((noinline)) void named_around_spin(const char *name, unsigned long n)
{
	pfshim_region_begin(name);
	spin(n);
	pfshim_region_end(name);
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 10000000;
	const char *by_name = getenv("MARKERS_LOOP_BY_NAME");

	if (by_name && *by_name == '1') {
		/* As below; the thread's first call is a begin by name. */
		named_around_spin("base", 1);
		named_around_spin("loop", 1);
		named_around_spin("base", 1);
		named_around_spin("loop", n + 1);
		printf("loop_minus_base_instructions=%lu\n", 2 * n);
		return 0;
	}
	pfshim_region_t base = pfshim_region("base"), loop = pfshim_region("loop");

	/* Warm both paths once (first calls set the thread up and create the slots). */
	region_around_spin(base, 1);
	region_around_spin(loop, 1);
	region_around_spin(base, 1);
	region_around_spin(loop, n + 1);
	printf("loop_minus_base_instructions=%lu\n", 2 * n);
	return 0;
}
