/* SPDX-License-Identifier: MIT */
/*
 * markers_calls N: N begin/end pairs of region "pairs" (by handle) and N of
 * "by-name" (by name), checking every return value. Prints "active=0|1"
 * and exits 1 when a call returned something else than expected: 0 under
 * the shim, PFSHIM_INACTIVE without it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>

#include "pfshim.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	int active = pfshim_active();
	int want = active ? 0 : PFSHIM_INACTIVE;
	pfshim_region_t pairs = pfshim_region("pairs");
	long bad = 0;

	if ((pairs != 0) != active)
		bad++;
	for (long i = 0; i < n; i++) {
		bad += pfshim_begin(pairs) != want;
		bad += pfshim_end(pairs) != want;
		bad += pfshim_region_begin("by-name") != want;
		bad += pfshim_region_end("by-name") != want;
	}
	printf("active=%d\nfd=%d\n", active, open("/dev/null", O_RDONLY));
	if (bad)
		fprintf(stderr, "markers_calls: %ld unexpected return values\n", bad);
	return bad != 0;
}
