/* SPDX-License-Identifier: MIT */
/*
 * fork_children N K P: fork N children that each touch K pages and exit
 * (without exec), while the parent touches P pages; the parent prints the
 * children's pids, one per line, and waits for them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pages.h"

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;
	long child_pages = argc > 2 ? atol(argv[2]) : 1000;
	long parent_pages = argc > 3 ? atol(argv[3]) : 0;

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0) {
			pages_touch(child_pages);
			exit(0);
		}
		printf("%d\n", (int)pid);
		fflush(stdout);
	}
	pages_touch(parent_pages);
	while (wait(NULL) > 0)
		;
	return 0;
}
