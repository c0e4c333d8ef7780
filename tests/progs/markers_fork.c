/* SPDX-License-Identifier: MIT */
/*
 * markers_fork: the parent is inside region "parent" when it forks; the
 * child runs region "child" 10 times and exits; the parent waits, closes
 * "parent" and exits. Prints the child's pid.
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pfshim.h"

int main(void)
{
	pid_t pid;

	pfshim_region_begin("parent");
	pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 10; i++) {
			pfshim_region_begin("child");
			pfshim_region_end("child");
		}
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	pfshim_region_end("parent");
	printf("%d\n", (int)pid);
	return 0;
}
