/* SPDX-License-Identifier: MIT */
/*
 * signal_self SIGNO N: touch N pages, send itself SIGNO (the shim's report
 * signal), touch N more pages, print "after" and exit 0. The signal report
 * must show about N page-faults, the exit report about 2N.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pages.h"

int main(int argc, char **argv)
{
	int signo = argc > 1 ? atoi(argv[1]) : SIGUSR1;
	long n = argc > 2 ? atol(argv[2]) : 2000;

	pages_touch(n);
	kill(getpid(), signo);
	pages_touch(n);
	printf("after\n");
	return 0;
}
