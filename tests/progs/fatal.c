/* SPDX-License-Identifier: MIT */
/*
 * fatal HOW: die, or try to, by a signal.
 *   segv        write through a null pointer
 *   fpe         divide by zero
 *   abort       abort()
 *   term [N]    send itself SIGTERM N times (default 1), printing
 *               "survived I" after each that it lives through
 *   kill SIGNO  send itself SIGNO, print "survived" if it lives
 *   own-term    install its own SIGTERM handler (which prints "own handler"
 *               and exits 3), then send itself SIGTERM
 *   abort-handled  install a SIGABRT handler that prints "own handler" and
 *               returns, then abort(): which dies all the same
 *   abort-ignored  SIGABRT ignored, then abort(): which dies all the same
 *   exit-group  the raw exit_group system call, status 4
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static void own_handler(int signo)
{
	static const char msg[] = "own handler\n";

	(void)signo;
	write(STDOUT_FILENO, msg, sizeof(msg) - 1);
	_exit(3);
}

static void own_handler_returns(int signo)
{
	static const char msg[] = "own handler\n";

	(void)signo;
	write(STDOUT_FILENO, msg, sizeof(msg) - 1);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";
	volatile int zero = 0;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(how, "segv"))
		*(volatile int *)(long)zero = 1;
	if (!strcmp(how, "fpe"))
		return 100 / zero;	/* not 1 / x: gcc turns that into a compare */
	if (!strcmp(how, "abort"))
		abort();
	if (!strcmp(how, "term")) {
		int n = argc > 2 ? atoi(argv[2]) : 1;

		for (int i = 1; i <= n; i++) {
			kill(getpid(), SIGTERM);
			printf("survived %d\n", i);
		}
		return 0;
	}
	if (!strcmp(how, "kill") && argc > 2) {
		kill(getpid(), atoi(argv[2]));
		printf("survived\n");
		return 0;
	}
	if (!strcmp(how, "abort-handled")) {
		signal(SIGABRT, own_handler_returns);
		abort();
	}
	if (!strcmp(how, "abort-ignored")) {
		signal(SIGABRT, SIG_IGN);
		abort();
	}
	if (!strcmp(how, "exit-group"))
		syscall(SYS_exit_group, 4);
	if (!strcmp(how, "own-term")) {
		signal(SIGTERM, own_handler);
		kill(getpid(), SIGTERM);
		return 0;
	}
	return 2;
}
