/* SPDX-License-Identifier: MIT */
/*
 * report_loop N: call pfshim_report() N times (0: forever), touching a page
 * between calls, so that a kill -9 at a random instant often lands inside a
 * report being written. Prints nothing.
 */
#include <stdlib.h>

#include <pfshim.h>

#include "pages.h"

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;

	for (long i = 0; n == 0 || i < n; i++) {
		pages_touch(1);
		pfshim_report();
	}
	return 0;
}
