/* SPDX-License-Identifier: MIT */
/*
 * markers_tree [THREADS [fork]]: a known region tree, with page-faults known
 * per path. Each of the main thread and THREADS threads (named "tree-<i>")
 * runs 3 rounds of
 *   setup (50 pages) > kernel (100 pages)
 *   solve (20 pages) > kernel (300 pages), then solve again inside itself
 *                      (a re-entry: 10 pages, counted in the outer solve)
 * so that "kernel" has two parents. With "fork", a child runs the rounds
 * too, after the parent's, and prints nothing; the parent prints its pid.
 *
 * markers_tree wide N: "leaf" under N parents "p0".."pN-1" in the main
 * thread: 2N paths, p<i> 10 pages of its own and its leaf i + 1 pages.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pages.h"
#include "pfshim.h"

static void rounds(void)
{
	for (int r = 0; r < 3; r++) {
		pfshim_region_begin("setup");
		pages_touch(50);
		pfshim_region_begin("kernel");
		pages_touch(100);
		pfshim_region_end("kernel");
		pfshim_region_end("setup");

		pfshim_region_begin("solve");
		pages_touch(20);
		pfshim_region_begin("kernel");
		pages_touch(300);
		pfshim_region_end("kernel");
		pfshim_region_begin("solve");
		pages_touch(10);
		pfshim_region_end("solve");
		pfshim_region_end("solve");
	}
}

static void *worker(void *arg)
{
	char name[16];

	snprintf(name, sizeof(name), "tree-%ld", (long)arg);
	pthread_setname_np(pthread_self(), name);
	rounds();
	return NULL;
}

static int wide(int n)
{
	char name[16];

	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		pfshim_region_begin(name);
		pages_touch(10);
		pfshim_region_begin("leaf");
		pages_touch(i + 1);
		pfshim_region_end("leaf");
		pfshim_region_end(name);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int nr = argc > 1 ? atoi(argv[1]) : 0;
	int with_fork = argc > 2 && strcmp(argv[2], "fork") == 0;
	pthread_t t[16];
	pid_t pid;

	if (argc > 2 && strcmp(argv[1], "wide") == 0)
		return wide(atoi(argv[2]));
	if (nr < 0 || nr > 16)
		return 2;
	for (long i = 0; i < nr; i++)
		pthread_create(&t[i], NULL, worker, (void *)i);
	for (int i = 0; i < nr; i++)
		pthread_join(t[i], NULL);
	rounds();
	if (!with_fork)
		return 0;
	pid = fork();
	if (pid == 0) {
		rounds();
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	printf("%d\n", (int)pid);
	return 0;
}
