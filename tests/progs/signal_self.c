/*
 * signal_self SIGNO N: touch N pages, send itself SIGNO (the shim's report
 * signal), touch N more pages, print "after" and exit 0. The signal report
 * must show about N page-faults, the exit report about 2N.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static void touch(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(1);
	madvise(p, n * page, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		p[i * page] = 1;
}

int main(int argc, char **argv)
{
	int signo = argc > 1 ? atoi(argv[1]) : SIGUSR1;
	long n = argc > 2 ? atol(argv[2]) : 2000;

	touch(n);
	kill(getpid(), signo);
	touch(n);
	printf("after\n");
	return 0;
}
