/* SPDX-License-Identifier: MIT */
/*
 * papi_mixed [PAGES]: one program using both of PAPI's APIs: a low-level
 * event set counting perf::PAGE-FAULTS around a PAPI_hl region "touch"
 * that touches PAGES fresh pages (default 2000), then a second region
 * "idle" outside the event set. Prints the high-level calls' return codes
 * and the low-level count; tests/e2e/compat.bats runs it under the compat
 * preload (the low level stays PAPI's and exact, the regions go to pfshim).
 */
#include <papi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

int main(int argc, char **argv)
{
	long pages = argc > 1 ? atol(argv[1]) : 2000;
	int set = PAPI_NULL, rc, hl[4];
	long long v = 0;
	char *p;

	if ((rc = PAPI_library_init(PAPI_VER_CURRENT)) != PAPI_VER_CURRENT ||
	    (rc = PAPI_create_eventset(&set)) != PAPI_OK ||
	    (rc = PAPI_add_named_event(set, "perf::PAGE-FAULTS")) != PAPI_OK) {
		fprintf(stderr, "papi_mixed: event set: %d\n", rc);
		return 1;
	}
	p = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	/* one fault per page: no transparent huge page may serve many at once */
	madvise(p, pages * 4096, MADV_NOHUGEPAGE);
	if ((rc = PAPI_start(set)) != PAPI_OK) {
		fprintf(stderr, "papi_mixed: PAPI_start: %d\n", rc);
		return 1;
	}
	hl[0] = PAPI_hl_region_begin("touch");
	for (long i = 0; i < pages; i++)
		p[i * 4096] = 1;
	hl[1] = PAPI_hl_region_end("touch");
	if ((rc = PAPI_stop(set, &v)) != PAPI_OK) {
		fprintf(stderr, "papi_mixed: PAPI_stop: %d\n", rc);
		return 1;
	}
	hl[2] = PAPI_hl_region_begin("idle");
	hl[3] = PAPI_hl_region_end("idle");
	printf("hl %d %d %d %d\nfaults %lld\n", hl[0], hl[1], hl[2], hl[3], v);
	return 0;
}
