/* SPDX-License-Identifier: MIT */
/*
 * markers_read_signal N: N begin/end pairs of region "pairs" while a
 * real-time timer (SIGALRM every 50 us) interrupts them with a handler
 * that calls pfshim_read(), as a sampling profiler's might:
 * some of its reads land inside a pfshim_end() between the end's sample
 * and its close. Prints "signals=<handler calls> failed=<handler reads that
 * did not return 0> bad=<pairs that did not return 0>"; the shim's report
 * then says what the region counted (its wall times among it).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "pfshim.h"

static volatile sig_atomic_t signals, failed;

static void on_alarm(int sig)
{
	struct pfshim_counts c;

	(void)sig;
	signals++;
	if (pfshim_read(&c) != 0)
		failed++;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000, bad = 0;
	pfshim_region_t pairs = pfshim_region("pairs");
	struct itimerval every = { { 0, 50 }, { 0, 50 } }, off = { { 0, 0 }, { 0, 0 } };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) < 0 || setitimer(ITIMER_REAL, &every, NULL) < 0) {
		perror("markers_read_signal");
		return 2;
	}
	for (long i = 0; i < n; i++) {
		bad += pfshim_begin(pairs) != 0;
		bad += pfshim_end(pairs) != 0;
	}
	setitimer(ITIMER_REAL, &off, NULL);
	printf("signals=%d failed=%d bad=%ld\n", (int)signals, (int)failed, bad);
	return 0;
}
