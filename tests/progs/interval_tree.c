/* SPDX-License-Identifier: MIT */
/*
 * interval_tree P T D PROGRAM: a parent and a fork child that each touch
 * P pages every T ms for D ms (pages.h); then the child execs
 * "PROGRAM P T D" (touch_rate) and the parent waits for it. Prints the
 * child's pid. Three images, three series (tests/e2e/interval.bats).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pages.h"

int main(int argc, char **argv)
{
	long pages, period, duration;
	int status;
	pid_t pid;

	if (argc < 5)
		return 2;
	pages = atol(argv[1]);
	period = atol(argv[2]);
	duration = atol(argv[3]);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		pages_touch_rate(pages, period, duration);
		execl(argv[4], argv[4], argv[1], argv[2], argv[3], (char *)NULL);
		_exit(127);
	}
	printf("%d\n", (int)pid);
	pages_touch_rate(pages, period, duration);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 1;
	return WEXITSTATUS(status);
}
