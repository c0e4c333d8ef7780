/* SPDX-License-Identifier: MIT */
/*
 * markers_errno: the first marker calls set up the thread's counters (sysfs
 * reads, opens that may fail); the host's errno must come out as it went in.
 * Prints "errno kept" or what changed, and exits 1 on a change.
 */
#include <errno.h>
#include <stdio.h>

#include <pfshim.h>

int main(void)
{
	pfshim_region_t r;
	int bad = 0;

	errno = EDOM;
	r = pfshim_region("first");
	bad |= errno != EDOM;
	errno = ERANGE;
	pfshim_begin(r);
	bad |= errno != ERANGE;
	errno = EDOM;
	pfshim_end(r);
	bad |= errno != EDOM;
	printf(bad ? "errno changed (now %d)\n" : "errno kept\n", errno);
	return bad;
}
