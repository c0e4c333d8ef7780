/* SPDX-License-Identifier: MIT */
/*
 * shim_target_arm64.c N [THREADS]: the dynamically linked program
 * test_shim_arm64 runs under LD_PRELOAD=libpfshim.so. Each of THREADS threads
 * (default 1: main alone) retires 2 x N user instructions in a known loop, so
 * the shim's report has a number we can know.
 */
#include <pthread.h>

#include "pmu_arm64.h"

static uint64_t iterations;

static void *thread_loop(void *arg)
{
	(void)arg;
	pmu_loop(iterations);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[16];
	int threads = argc > 2 ? atoi(argv[2]) : 1;

	if (argc < 2 || threads < 1 || threads > 16)
		return 2;
	iterations = strtoull(argv[1], NULL, 10);
	if (threads == 1) {
		pmu_loop(iterations);
		return 0;
	}
	for (int i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, thread_loop, NULL) != 0)
			return 1;
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
