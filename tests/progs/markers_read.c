/* SPDX-License-Identifier: MIT */
/*
 * markers_read N: pfshim_read() before and after faulting in N fresh pages.
 * Prints "nr=<events>", then for each configured event (PFSHIM_EVENTS order)
 * "<i> <after - before> <1 if it ran, else 0>", and the return value.
 */
#include <stdio.h>
#include <stdlib.h>

#include "pages.h"
#include "pfshim.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	struct pfshim_counts before, after;
	int ret;

	ret = pfshim_read(&before);
	pages_touch(n);
	ret |= pfshim_read(&after);
	printf("ret=%d\nnr=%d\n", ret, after.nr);
	for (int i = 0; i < after.nr && i < PFSHIM_MAX_EVENTS; i++)
		printf("%d %llu %d\n", i, (unsigned long long)(after.value[i] - before.value[i]),
		       after.running[i] > 0);
	return 0;
}
