/* SPDX-License-Identifier: MIT */
/*
 * markers_report_race T N: T threads each time region "work" once, wait for
 * one another, then each call pfshim_report() N times at once: T x N
 * explicit reports taken while others are being written.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "pfshim.h"

static pthread_barrier_t ready;
static int reports;

static void *worker(void *arg)
{
	(void)arg;
	pfshim_region_begin("work");
	pfshim_region_end("work");
	pthread_barrier_wait(&ready);
	for (int i = 0; i < reports; i++)
		pfshim_report();
	pthread_barrier_wait(&ready);
	return NULL;
}

int main(int argc, char **argv)
{
	int nr = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t t[64];

	reports = argc > 2 ? atoi(argv[2]) : 10;
	if (nr < 1 || nr > 64)
		return 2;
	pthread_barrier_init(&ready, NULL, (unsigned)nr);
	for (int i = 0; i < nr; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < nr; i++)
		pthread_join(t[i], NULL);
	return 0;
}
