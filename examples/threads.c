/* SPDX-License-Identifier: MIT */
/*
 * threads [STEPS]: 4 worker threads, each named "worker-<i>", each with its
 * own marker regions: "alloc" (fault in a private buffer, more for higher
 * workers), "compute" (STEPS rounds of arithmetic over it, default 20) and,
 * nested inside each round, "round". The report lists every thread's
 * regions and then each region over the four threads (sum, min, max, mean).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include <pfshim.h>

#define WORKERS 4

static long steps;
static pfshim_region_t r_alloc, r_compute, r_round;

struct worker {
	pthread_t thread;
	int index;
	double result;
};

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	size_t n = (size_t)(w->index + 1) << 18;	/* 2, 4, 6, 8 MB of doubles */
	char name[16];
	double *v, sum = 0;

	snprintf(name, sizeof(name), "worker-%d", w->index);
	pthread_setname_np(pthread_self(), name);

	pfshim_begin(r_alloc);
	v = malloc(n * sizeof(*v));
	if (!v) {
		pfshim_end(r_alloc);
		return NULL;
	}
	/* Not memset(0): the compiler may turn malloc + memset into calloc, which touches nothing. */
	for (size_t i = 0; i < n; i++)
		v[i] = 1.0;
	pfshim_end(r_alloc);

	pfshim_begin(r_compute);
	for (long s = 0; s < steps; s++) {
		pfshim_begin(r_round);
		for (size_t i = 0; i < n; i++) {
			v[i] = v[i] * 0.5 + (double)(i % 17);
			sum += v[i];
		}
		pfshim_end(r_round);
	}
	pfshim_end(r_compute);

	w->result = sum;
	free(v);
	return NULL;
}

int main(int argc, char **argv)
{
	struct worker workers[WORKERS];

	steps = argc > 1 ? atol(argv[1]) : 20;
	r_alloc = pfshim_region("alloc");
	r_compute = pfshim_region("compute");
	r_round = pfshim_region("round");
	for (int i = 0; i < WORKERS; i++) {
		workers[i].index = i;
		pthread_create(&workers[i].thread, NULL, worker_run, &workers[i]);
	}
	for (int i = 0; i < WORKERS; i++) {
		pthread_join(workers[i].thread, NULL);
		printf("worker-%d: %.6g\n", i, workers[i].result);
	}
	printf("markers %s\n", pfshim_active() ? "on" : "off: run under libpfshim.so to see them");
	return 0;
}
