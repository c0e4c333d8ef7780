/* SPDX-License-Identifier: MIT */
/*
 * papi_lowlevel [PAGES]: PAPI's low-level API counting perf::PAGE-FAULTS
 * (perf_event component, a software event: no PMU needed) around touching
 * PAGES fresh pages (default 2000). Prints "faults N" and "ok" when
 * PAGES <= N < PAGES + 200; the test runs it with and without pfshim's
 * preloads, which must leave PAPI's low-level calls to PAPI.
 */
#include <papi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 2000;
	int set = PAPI_NULL, rc;
	long long v = 0;
	char *p;

	if ((rc = PAPI_library_init(PAPI_VER_CURRENT)) != PAPI_VER_CURRENT) {
		fprintf(stderr, "PAPI_library_init: %d\n", rc);
		return 1;
	}
	if ((rc = PAPI_create_eventset(&set)) != PAPI_OK ||
	    (rc = PAPI_add_named_event(set, "perf::PAGE-FAULTS")) != PAPI_OK) {
		fprintf(stderr, "event set: %s\n", PAPI_strerror(rc));
		return 1;
	}
	p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	/* one fault per page: no transparent huge page may serve many at once */
	madvise(p, pages * 4096, MADV_NOHUGEPAGE);
	if ((rc = PAPI_start(set)) != PAPI_OK) {
		fprintf(stderr, "PAPI_start: %s\n", PAPI_strerror(rc));
		return 1;
	}
	for (long i = 0; i < pages; i++)
		p[i * 4096] = 1;
	if ((rc = PAPI_stop(set, &v)) != PAPI_OK) {
		fprintf(stderr, "PAPI_stop: %s\n", PAPI_strerror(rc));
		return 1;
	}
	printf("faults %lld\n%s\n", v, v >= pages && v < pages + 200 ? "ok" : "wrong");
	return 0;
}
