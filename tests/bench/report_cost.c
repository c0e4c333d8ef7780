/* SPDX-License-Identifier: MIT */
/*
 * report_cost BATCHES REPORTS: the wall time of one pfshim_report() (an
 * explicit report, formatted and written as at exit), the median over
 * BATCHES batches of REPORTS reports each, with two marker regions closed
 * before the first (so a report formats their totals, and with
 * PFSHIM_GROUP their metrics). bench.sh runs it with and without
 * PFSHIM_GROUP, PFSHIM_OUTPUT=/dev/null: the ratio is what the group's
 * metrics add at report time. Run under LD_PRELOAD; prints one line.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "pfshim.h"

int main(int argc, char **argv)
{
	int batches = argc > 1 ? atoi(argv[1]) : 50, reports = argc > 2 ? atoi(argv[2]) : 20;
	double *per = calloc((size_t)batches, sizeof(*per));

	if (!per || batches < 1 || reports < 1)
		return 2;
	PFSHIM_REGION_BEGIN("outer");
	PFSHIM_REGION_BEGIN("inner");
	PFSHIM_REGION_END("inner");
	PFSHIM_REGION_END("outer");
	if (pfshim_report() != 0) {
		printf("skipped: pfshim_report() failed: not run under the shim?\n");
		return 0;
	}
	for (int b = 0; b < batches; b++) {
		uint64_t t = bench_now_ns();

		for (int i = 0; i < reports; i++)
			pfshim_report();
		per[b] = (double)(bench_now_ns() - t) / reports;
	}
	printf("%.0f\n", bench_median(per, batches));
	free(per);
	return 0;
}
