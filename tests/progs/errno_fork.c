/* SPDX-License-Identifier: MIT */
/*
 * errno_fork: set errno to 1234, fork, and print "child N" and "parent N":
 * the errno each side sees after a successful fork(), which sets none.
 */
#include <errno.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void)
{
	pid_t pid;

	errno = 1234;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		printf("child %d\n", errno);
		return 0;
	}
	waitpid(pid, NULL, 0);
	printf("parent %d\n", errno);
	return 0;
}
