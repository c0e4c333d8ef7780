/* SPDX-License-Identifier: MIT */
/*
 * markers_report [exec]: region "first" once, then pfshim_report() (an
 * "explicit" report), then region "second" once; exit writes the final
 * report, or with "exec" the program execs /bin/true, whose report has no
 * regions. Prints pfshim_report()'s return value.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pfshim.h"

int main(int argc, char **argv)
{
	int ret;

	pfshim_region_begin("first");
	pfshim_region_end("first");
	ret = pfshim_report();
	pfshim_region_begin("second");
	pfshim_region_end("second");
	printf("%d\n", ret);
	fflush(stdout);
	if (argc > 1 && strcmp(argv[1], "exec") == 0)
		execl("/bin/true", "true", (char *)NULL);
	return 0;
}
