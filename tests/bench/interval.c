/* SPDX-License-Identifier: MIT */
/*
 * interval SECONDS MS: the cost of PFSHIM_INTERVAL=MSms. Burns the CPU on
 * one thread for SECONDS, then reads, exactly, the CPU time of the whole
 * process (every thread, the shim's included) and of the shim's thread
 * "pfshim-intv" (its own thread CPU clock, found in /proc/self/task), and
 * prints both, their ratio (the share of the program's CPU time that
 * pfshim took to write its interval reports), the share of the wall time
 * (what it is for a program with a CPU of its own: on a loaded machine the
 * program gets less CPU than wall time, the shim's cost does not shrink),
 * and the cost of one report. Run under LD_PRELOAD with PFSHIM_INTERVAL.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

/* MAKE_THREAD_CPUCLOCK(tid, CPUCLOCK_SCHED) of include/linux/posix-timers.h. */
static clockid_t thread_cpu_clock(int tid)
{
	return (clockid_t)((~(unsigned)tid << 3) | 6);
}

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The tid of the thread named @name, or 0. */
static int thread_find(const char *name)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int found = 0;

	while (d && !found && (e = readdir(d))) {
		char path[300], comm[32] = "";
		int fd;
		ssize_t n;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		n = read(fd, comm, sizeof(comm) - 1);
		close(fd);
		if (n > 0 && comm[n - 1] == '\n')
			comm[n - 1] = '\0';
		if (strcmp(comm, name) == 0)
			found = atoi(e->d_name);
	}
	if (d)
		closedir(d);
	return found;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 3.0;
	double ms = argc > 2 ? atof(argv[2]) : 100.0;
	uint64_t end = clock_ns(CLOCK_MONOTONIC) + (uint64_t)(seconds * 1e9);
	volatile uint64_t spin = 0;
	uint64_t process, shim;
	int tid;

	while (clock_ns(CLOCK_MONOTONIC) < end)
		for (int i = 0; i < 10000; i++)
			spin++;
	tid = thread_find("pfshim-intv");
	process = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	if (!tid) {
		printf("  no pfshim-intv thread: run under LD_PRELOAD with PFSHIM_INTERVAL\n");
		return 1;
	}
	shim = clock_ns(thread_cpu_clock(tid));
	printf("  process CPU time      %10.3f ms (all threads)\n", (double)process / 1e6);
	printf("  pfshim-intv CPU time  %10.3f ms\n", (double)shim / 1e6);
	printf("  ratio                 %10.4f %%  of the process's CPU time\n",
	       100.0 * (double)shim / (double)process);
	printf("                        %10.4f %%  of the wall time (a CPU of its own)\n",
	       100.0 * (double)shim / (seconds * 1e9));
	printf("  per report            %10.1f us  (%.0f reports)\n",
	       (double)shim / 1e3 / (seconds * 1000.0 / ms), seconds * 1000.0 / ms);
	return 0;
}
