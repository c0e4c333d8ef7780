/* SPDX-License-Identifier: MIT */
/*
 * likwid_example: a program instrumented with LIKWID's marker API as LIKWID
 * documents it. Built three ways by compat/compat.mk: against Debian's
 * likwid (-llikwid), against pfshim's compatibility header (-lpfshim-compat),
 * and with -DNATIVE, where the same calls are pfshim.h's, for comparison.
 * Two threads named "worker-0/1" each run "work" 5 times with "inner" nested
 * inside; main runs "setup" once. Prints what GET returns and the codes of a
 * stop without start and a reset, so the test can check them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifdef NATIVE
#include <pfshim.h>
#define LIKWID_MARKER_INIT
#define LIKWID_MARKER_THREADINIT
#define LIKWID_MARKER_REGISTER(t) ((void)pfshim_region(t))
#define LIKWID_MARKER_START(t) pfshim_region_begin(t)
#define LIKWID_MARKER_STOP(t) pfshim_region_end(t)
#define LIKWID_MARKER_CLOSE
#else
#define LIKWID_PERFMON
#include <likwid-marker.h>
#endif

#define PAGES 64

static void *worker(void *arg)
{
	long id = (long)arg;
	char name[16];
	int i;

	snprintf(name, sizeof(name), "worker-%ld", id);
	pthread_setname_np(pthread_self(), name);
	LIKWID_MARKER_THREADINIT;
	for (i = 0; i < 5; i++) {
		char *p;

		LIKWID_MARKER_START("work");
		p = mmap(NULL, PAGES * 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			exit(1);
		LIKWID_MARKER_START("inner");
		memset(p, i + 1, PAGES * 4096);	/* PAGES fresh pages: >= PAGES page-faults */
		LIKWID_MARKER_STOP("inner");
		munmap(p, PAGES * 4096);
		LIKWID_MARKER_STOP("work");
	}
#ifndef NATIVE
	{
		int nev = 16, count = -1;
		double ev[16], t = -1;

		LIKWID_MARKER_GET("work", &nev, ev, &t, &count);
		/* under PFSHIM_EVENTS=task-clock,page-faults: ev[1] is page-faults */
		printf("%s get work: count %d time>0 %d events %d faults>=%d %d\n", name, count,
		       t > 0, nev, 5 * PAGES, nev >= 2 && ev[1] >= 5 * PAGES);
	}
#endif
	return NULL;
}

int main(void)
{
	pthread_t th[2];
	long i;

	LIKWID_MARKER_INIT;
	LIKWID_MARKER_REGISTER("work");
	LIKWID_MARKER_START("setup");
	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	LIKWID_MARKER_STOP("setup");
#ifndef NATIVE
	{
		int nev = 16, count = -1;
		double ev[16], t;

		LIKWID_MARKER_GET("setup", &nev, ev, &t, &count);
		printf("main get setup: count %d\n", count);
		printf("main reset setup: %d\n", LIKWID_MARKER_RESET("setup"));
		LIKWID_MARKER_GET("setup", &nev, ev, &t, &count);
		printf("main get setup after reset: count %d\n", count);
		printf("main stop not started: %d\n", LIKWID_MARKER_STOP("idle"));
	}
#endif
	LIKWID_MARKER_CLOSE;
	printf("done\n");
	return 0;
}
