/* SPDX-License-Identifier: MIT */
/*
 * markers_nested OUTER INNER: region "outer" touches OUTER fresh pages and
 * holds region "inner", which touches INNER pages and burns a little CPU.
 * Inclusive counts: outer >= OUTER + INNER page-faults, inner >= INNER.
 */
#include <stdlib.h>
#include <unistd.h>

#include "pages.h"
#include "pfshim.h"

int main(int argc, char **argv)
{
	long outer = argc > 1 ? atol(argv[1]) : 100, inner = argc > 2 ? atol(argv[2]) : 50;
	volatile unsigned long x = 0;

	PFSHIM_REGION_BEGIN("outer");
	pages_touch(outer);
	PFSHIM_REGION_BEGIN("inner");
	pages_touch(inner);
	for (long i = 0; i < 20000000; i++)
		x += i;
	PFSHIM_REGION_END("inner");
	PFSHIM_REGION_END("outer");
	return x == 0;
}
