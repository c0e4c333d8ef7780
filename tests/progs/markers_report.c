/*
 * markers_report: region "first" once, then pfshim_report() (an "explicit"
 * report), then region "second" once; exit writes the final report.
 * Prints pfshim_report()'s return value.
 */
#include <stdio.h>

#include "pfshim.h"

int main(void)
{
	int ret;

	pfshim_region_begin("first");
	pfshim_region_end("first");
	ret = pfshim_report();
	pfshim_region_begin("second");
	pfshim_region_end("second");
	printf("%d\n", ret);
	return 0;
}
