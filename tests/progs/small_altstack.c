/* SPDX-License-Identifier: MIT */
/*
 * small_altstack SIGNO [dfl-onstack]: install an 8 KiB alternate signal
 * stack with a guard page below it, as Rust's runtime does on every thread
 * for its stack-overflow handler, then send itself SIGNO and print "after".
 * A report handler that ran on that small stack would fault in the guard.
 * dfl-onstack: first set SIGNO's action to SIG_DFL with SA_ONSTACK (a flag
 * the default action has no use for).
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define ALTSTACK_SIZE 8192

int main(int argc, char **argv)
{
	int signo = argc > 1 ? atoi(argv[1]) : SIGUSR1;
	long page = sysconf(_SC_PAGESIZE);
	char *area = mmap(NULL, page + ALTSTACK_SIZE, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	stack_t ss;

	if (area == MAP_FAILED || mprotect(area, page, PROT_NONE) < 0)
		return 1;
	ss = (stack_t){ .ss_sp = area + page, .ss_size = ALTSTACK_SIZE };
	if (sigaltstack(&ss, NULL) < 0)
		return 1;
	if (argc > 2 && strcmp(argv[2], "dfl-onstack") == 0) {
		struct sigaction sa = { .sa_handler = SIG_DFL, .sa_flags = SA_ONSTACK };

		sigemptyset(&sa.sa_mask);
		if (sigaction(signo, &sa, NULL) < 0)
			return 1;
	}
	kill(getpid(), signo);
	printf("after\n");
	return 0;
}
