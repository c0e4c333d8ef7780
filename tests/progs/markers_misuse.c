/* SPDX-License-Identifier: MIT */
/*
 * markers_misuse: every misuse the report must count, none of which may
 * crash: an end without begin ("never-begun", twice), a bad handle, a region
 * left open at exit ("left-open"), a region left open by a thread that
 * exits ("thread-open"), and recursion: "recurse" entered 3 times from the
 * top, 5 deep each (calls 3, re-entries 12).
 */
#include <pthread.h>

#include "pfshim.h"

static void *leave_open(void *arg)
{
	(void)arg;
	pfshim_region_begin("thread-open");
	return NULL;
}

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
	pthread_t t;

	recurse = pfshim_region("recurse");
	if (pthread_create(&t, NULL, leave_open, NULL) != 0 || pthread_join(t, NULL) != 0)
		return 1;
	pfshim_region_end("never-begun");
	pfshim_end(pfshim_region("never-begun"));
	pfshim_begin((pfshim_region_t)100000);
	for (int i = 0; i < 3; i++)
		down(5);
	pfshim_region_begin("left-open");
	return 0;
}
