/* SPDX-License-Identifier: MIT */
/*
 * main_leaves T MS: main starts T threads that each sleep MS milliseconds,
 * then leaves by pthread_exit(). glibc ends the process when the last
 * thread leaves, as exit(0) would: the atexit handler prints "atexit".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static long sleep_ms;

static void say_atexit(void)
{
	printf("atexit\n");
	fflush(stdout);
}

static void *sleep_a_while(void *arg)
{
	(void)arg;
	usleep((useconds_t)sleep_ms * 1000);
	return NULL;
}

int main(int argc, char **argv)
{
	int nr = argc > 1 ? atoi(argv[1]) : 1;
	pthread_t t;

	sleep_ms = argc > 2 ? atol(argv[2]) : 100;
	if (nr < 0 || nr > 64)
		return 2;
	atexit(say_atexit);
	for (int i = 0; i < nr; i++)
		if (pthread_create(&t, NULL, sleep_a_while, NULL))
			return 3;
	pthread_exit(NULL);
}
