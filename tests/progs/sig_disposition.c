/* SPDX-License-Identifier: MIT */
/*
 * sig_disposition SIGNO [child]: print how SIGNO is disposed of here
 * ("ignored", "default" or "caught"), then, with "child", the same for a
 * forked child that execs this program again. Last, send SIGNO to itself
 * and print "alive": a process that ignores it carries on.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *disposition(int signo)
{
	struct sigaction sa;

	if (sigaction(signo, NULL, &sa) < 0)
		return "error";
	if (sa.sa_handler == SIG_IGN)
		return "ignored";
	return sa.sa_handler == SIG_DFL ? "default" : "caught";
}

int main(int argc, char **argv)
{
	int signo = argc > 1 ? atoi(argv[1]) : SIGUSR1;

	printf("%s\n", disposition(signo));
	fflush(stdout);
	if (argc > 2 && strcmp(argv[2], "child") == 0) {
		pid_t pid = fork();
		int status;

		if (pid == 0) {
			execl("/proc/self/exe", argv[0], argv[1], (char *)NULL);
			_exit(127);
		}
		waitpid(pid, &status, 0);
	}
	kill(getpid(), signo);
	printf("alive\n");
	return 0;
}
