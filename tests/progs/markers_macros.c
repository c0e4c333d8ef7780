/* SPDX-License-Identifier: MIT */
/*
 * markers_macros: regions through the PFSHIM_* macros and the functions.
 * Built as is it calls the shim; markers_disabled.c builds it with
 * PFSHIM_DISABLE_MARKERS, where neither may leave a reference to pfshim_v1_*
 * behind, and every function answers PFSHIM_INACTIVE even under the shim.
 */
#include "pfshim.h"

int main(void)
{
	volatile int x = 0;
	pfshim_region_t handle = pfshim_region("handle");
	struct pfshim_counts counts;
	int inactive = !pfshim_active();

	for (int i = 0; i < 10; i++) {
		PFSHIM_REGION_BEGIN("macro");
		x += i;
		PFSHIM_REGION_END("macro");
		if ((pfshim_begin(handle) == PFSHIM_INACTIVE) != inactive ||
		    (pfshim_end(handle) == PFSHIM_INACTIVE) != inactive)
			return 2;
	}
	if ((pfshim_read(&counts) == PFSHIM_INACTIVE) != inactive)
		return 3;
	PFSHIM_REPORT();
	return x != 45;
}
