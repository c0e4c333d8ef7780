/* SPDX-License-Identifier: MIT */
/*
 * likwid_get: what LIKWID's GET says after several START/STOP pairs, of
 * nested tags, of a tag never started, after RESET, of a tag started twice,
 * and in a thread that never started the tag. "inner" runs twice inside each
 * of 4 calls of "outer" and once on its own (9 calls on two paths), each
 * call touching 16 fresh pages. Prints each GET as "TAG: count N time_ns T
 * events E values V0 V1 ..." for tests/e2e/compat.bats, which compares them
 * with the thread's regions in pfshim's report.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define LIKWID_PERFMON
#include <likwid-marker.h>

#define PAGES 16

static void get(const char *label, const char *tag)
{
	double ev[8], time = -1;
	int n = 8, count = -1;

	LIKWID_MARKER_GET(tag, &n, ev, &time, &count);
	printf("%s: count %d time_ns %.0f events %d values", label, count, time * 1e9, n);
	for (int i = 0; i < n; i++)
		printf(" %.0f", ev[i]);
	printf("\n");
}

static int touch(void)
{
	char *p = mmap(NULL, PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		return -1;
	memset(p, 1, PAGES * 4096);
	return munmap(p, PAGES * 4096);
}

static void *other_thread(void *arg)
{
	(void)arg;
	get("other thread outer", "outer");
	return NULL;
}

int main(void)
{
	pthread_t th;
	int bad = 0;

	LIKWID_MARKER_INIT;
	get("never", "never");
	for (int i = 0; i < 4; i++) {
		bad |= LIKWID_MARKER_START("outer");
		for (int k = 0; k < 2; k++) {
			bad |= LIKWID_MARKER_START("inner");
			bad |= touch();
			bad |= LIKWID_MARKER_STOP("inner");
		}
		bad |= LIKWID_MARKER_STOP("outer");
	}
	bad |= LIKWID_MARKER_START("inner");
	bad |= touch();
	bad |= LIKWID_MARKER_STOP("inner");
	get("outer", "outer");
	get("inner", "inner");
	get("never", "never");
	pthread_create(&th, NULL, other_thread, NULL);
	pthread_join(th, NULL);
	/* RESET: GET counts from here; the report keeps every call. */
	bad |= LIKWID_MARKER_RESET("outer");
	get("outer after reset", "outer");
	bad |= LIKWID_MARKER_START("outer");
	bad |= touch();
	bad |= LIKWID_MARKER_STOP("outer");
	get("outer after reset and a call", "outer");
	/* Started twice, stopped once: one call (LIKWID warns). */
	bad |= LIKWID_MARKER_START("twice");
	bad |= LIKWID_MARKER_START("twice");
	bad |= touch();
	bad |= LIKWID_MARKER_STOP("twice");
	get("twice", "twice");
	LIKWID_MARKER_CLOSE;
	printf("bad %d\n", bad);
	return 0;
}
