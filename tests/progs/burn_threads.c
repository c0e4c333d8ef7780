/* SPDX-License-Identifier: MIT */
/*
 * burn_threads T MS: T threads each burn MS milliseconds of their own CPU
 * time (measured with CLOCK_THREAD_CPUTIME_ID), then the program exits.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long burn_ms;

static double thread_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *burn(void *arg)
{
	volatile unsigned long x = 0;

	(void)arg;
	while (thread_cpu_ms() < burn_ms)
		for (int i = 0; i < 10000; i++)
			x += i;
	return NULL;
}

int main(int argc, char **argv)
{
	int nr = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t t[64];

	burn_ms = argc > 2 ? atol(argv[2]) : 100;
	if (nr < 1 || nr > 64)
		return 2;
	for (int i = 0; i < nr; i++)
		pthread_create(&t[i], NULL, burn, NULL);
	for (int i = 0; i < nr; i++)
		pthread_join(t[i], NULL);
	return 0;
}
