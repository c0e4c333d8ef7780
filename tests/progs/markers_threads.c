/* SPDX-License-Identifier: MIT */
/*
 * markers_threads T N PAGES: T threads named "worker-<i>", each N times
 * through region "work" (touching PAGES fresh pages the first time) and
 * once through "setup". The main thread uses no marker.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pages.h"
#include "pfshim.h"

static long calls, pages;

static void *worker(void *arg)
{
	pfshim_region_t work = pfshim_region("work");
	char name[16];

	snprintf(name, sizeof(name), "worker-%ld", (long)arg);
	pthread_setname_np(pthread_self(), name);
	pfshim_region_begin("setup");
	pfshim_region_end("setup");
	for (long i = 0; i < calls; i++) {
		pfshim_begin(work);
		pages_touch(i == 0 ? pages : 0);
		pfshim_end(work);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int nr = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t t[64];

	calls = argc > 2 ? atol(argv[2]) : 1000;
	pages = argc > 3 ? atol(argv[3]) : 0;
	if (nr < 1 || nr > 64)
		return 2;
	for (long i = 0; i < nr; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < nr; i++)
		pthread_join(t[i], NULL);
	return 0;
}
