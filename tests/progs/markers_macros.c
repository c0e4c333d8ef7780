/* SPDX-License-Identifier: MIT */
/*
 * markers_macros: regions through the PFSHIM_* macros only. Built as is it
 * calls the shim; markers_disabled.c builds it with PFSHIM_DISABLE_MARKERS,
 * where the macros must leave no reference to pfshim_v1_* behind.
 */
#include "pfshim.h"

int main(void)
{
	volatile int x = 0;

	for (int i = 0; i < 10; i++) {
		PFSHIM_REGION_BEGIN("macro");
		x += i;
		PFSHIM_REGION_END("macro");
	}
	PFSHIM_REPORT();
	return x != 45;
}
