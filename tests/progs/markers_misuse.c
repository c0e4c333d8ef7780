/*
 * markers_misuse: every misuse the report must count, none of which may
 * crash: an end without begin ("never-begun", twice), a bad handle, a region
 * left open at exit ("left-open"), and recursion: "recurse" entered 3 times
 * from the top, 5 deep each (calls 3, re-entries 12).
 */
#include "pfshim.h"

static pfshim_region_t recurse;

static void down(int depth)
{
	pfshim_begin(recurse);
	if (depth > 1)
		down(depth - 1);
	pfshim_end(recurse);
}

int main(void)
{
	recurse = pfshim_region("recurse");
	pfshim_region_end("never-begun");
	pfshim_end(pfshim_region("never-begun"));
	pfshim_begin((pfshim_region_t)100000);
	for (int i = 0; i < 3; i++)
		down(5);
	pfshim_region_begin("left-open");
	return 0;
}
