/* SPDX-License-Identifier: MIT */
/*
 * waitcore PROGRAM [ARGS...]: run PROGRAM and print how it ended, as
 * waitpid() says: "exit=N", or "signal=N core=0|1" (WCOREDUMP).
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc < 2)
		return 2;
	pid = fork();
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 2;
	if (WIFEXITED(status))
		printf("exit=%d\n", WEXITSTATUS(status));
	else
		printf("signal=%d core=%d\n", WTERMSIG(status), WCOREDUMP(status) ? 1 : 0);
	return 0;
}
