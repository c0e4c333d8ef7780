/* SPDX-License-Identifier: MIT */
/*
 * touch_rate P T D: fault in P fresh pages every T ms for D ms (D/T
 * rounds, P * D/T pages; pages.h): a long-running program whose
 * page-faults grow at a known rate, for the interval reports
 * (tests/e2e/interval.bats). Prints nothing.
 */
#include <stdlib.h>

#include "pages.h"

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	pages_touch_rate(atol(argv[1]), atol(argv[2]), atol(argv[3]));
	return 0;
}
