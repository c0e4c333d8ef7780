/* SPDX-License-Identifier: MIT */
/*
 * fd_budget: what a program sees of its descriptor budget.
 *   fd_budget files         print "first=F files=N": the first number open()
 *                           returns, and how many files it can hold open at
 *                           once before EMFILE.
 *   fd_budget fds           print the open descriptors, in order, one line.
 *   fd_budget threads T     T threads each time a region with a marker, open
 *                           one file and hold it until all have; print
 *                           "failed=N", the opens that failed.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pfshim.h"

static pthread_barrier_t opened;
static int failed;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int files(void)
{
	int first = open("/dev/null", O_RDONLY), last = first, n = first >= 0;

	while (last >= 0 && (last = open("/dev/null", O_RDONLY)) >= 0)
		n++;
	printf("first=%d files=%d\n", first, n);
	return 0;
}

static int fds(void)
{
	for (int fd = 0; fd < 1 << 16; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			printf("%d ", fd);
	printf("\n");
	return 0;
}

static void *worker(void *arg)
{
	int fd;

	(void)arg;
	pfshim_region_begin("work");
	pfshim_region_end("work");
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0) {
		pthread_mutex_lock(&lock);
		failed++;
		pthread_mutex_unlock(&lock);
	}
	pthread_barrier_wait(&opened);
	return NULL;
}

static int threads(int nr)
{
	pthread_t *t = calloc((size_t)nr, sizeof(*t));
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	pthread_barrier_init(&opened, NULL, (unsigned)nr);
	for (int i = 0; i < nr; i++)
		if (pthread_create(&t[i], &attr, worker, NULL) != 0)
			return 2;
	for (int i = 0; i < nr; i++)
		pthread_join(t[i], NULL);
	printf("failed=%d\n", failed);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "files") == 0)
		return files();
	if (argc > 1 && strcmp(argv[1], "fds") == 0)
		return fds();
	if (argc > 2 && strcmp(argv[1], "threads") == 0)
		return threads(atoi(argv[2]));
	return 2;
}
