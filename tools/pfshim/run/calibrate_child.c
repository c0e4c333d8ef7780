/* SPDX-License-Identifier: MIT */
/*
 * calibrate_child.c: the program pfshim run's calibration runs to price a
 * page fault and a fork under the shim (calibrate.h): `pfshim
 * CALIBRATE_CHILD PAGES FORKS`. No installed program faults in a known
 * number of pages or forks a known number of children, so the command runs
 * itself; nothing else of it runs in this mode.
 */
#include "tools/pfshim/run/calibrate.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fastread/sysfile.h"

/* Fresh anonymous pages, one write each: one fault each, huge pages refused (one would take 512). */
static void touch_pages(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p;

	if (n <= 0)
		return;
	p = mmap(NULL, (size_t)(n * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		exit(1);
	madvise(p, (size_t)(n * page), MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		p[i * page] = 1;
	munmap(p, (size_t)(n * page));
}

/*
 * One child forked and waited for, as a shell runs one command at a time;
 * its whole CPU time (sum_exec_runtime, read before it is reaped) added to
 * *@ns: the runner sees only this process's. Return: 0, or -errno.
 */
static int fork_one(uint64_t *ns)
{
	char path[64], text[128];
	siginfo_t info;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0)
		_exit(0);
	while (waitid(P_PID, pid, &info, WEXITED | WNOWAIT) < 0)
		if (errno != EINTR)
			return -errno;
	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	if (sysfile_read(path, text, sizeof(text)) > 0)
		*ns += strtoull(text, NULL, 10);
	while (waitpid(pid, NULL, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

static uint64_t thread_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int calibrate_child(int argc, char **argv)
{
	uint64_t ns = 0, touch, forking;
	long forks;

	/* a person may type it too: nothing past 4 GiB of pages or 65536 children */
	if (argc != 3 || atol(argv[1]) > 1L << 20 || atol(argv[2]) > 1L << 16)
		return 2;
	touch = thread_ns();
	touch_pages(atol(argv[1]));
	touch = thread_ns() - touch;
	forks = atol(argv[2]);
	forking = thread_ns();
	for (long i = 0; i < forks; i++)
		if (fork_one(&ns) < 0)
			return 1;
	forking = thread_ns() - forking;
	printf("%llu %llu %llu\n", (unsigned long long)ns, (unsigned long long)touch,
	       (unsigned long long)forking);
	return fflush(stdout) == 0 ? 0 : 1;
}
