/* SPDX-License-Identifier: MIT */
/*
 * papi_hl_example: a program instrumented with PAPI's high-level API as PAPI
 * documents it. Built against Debian's libpapi (-lpapi), against pfshim's
 * compatibility header (-lpfshim-compat), and with -DNATIVE (pfshim.h).
 * Two threads "worker-0/1" each run "work" 5 times with "inner" nested and a
 * PAPI_hl_read inside; main runs "setup" once. Exits 1 on any code but
 * PAPI_OK, as PAPI's examples do.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#ifdef NATIVE
#include <pfshim.h>
#define PAPI_OK 0
#define PAPI_hl_region_begin(r) (pfshim_region_begin(r), PAPI_OK)
#define PAPI_hl_region_end(r) (pfshim_region_end(r), PAPI_OK)
#define PAPI_hl_read(r) PAPI_OK
#define PAPI_hl_stop() PAPI_OK
#else
#include <papi.h>
#endif

#define PAGES 64
#define CHECK(call) do { int rc_ = (call); if (rc_ != PAPI_OK) { \
	fprintf(stderr, "%s: %d\n", #call, rc_); exit(1); } } while (0)

static void *worker(void *arg)
{
	long id = (long)arg;
	char name[16];
	int i;

	snprintf(name, sizeof(name), "worker-%ld", id);
	pthread_setname_np(pthread_self(), name);
	for (i = 0; i < 5; i++) {
		char *p;

		CHECK(PAPI_hl_region_begin("work"));
		p = mmap(NULL, PAGES * 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			exit(1);
		CHECK(PAPI_hl_region_begin("inner"));
		memset(p, i + 1, PAGES * 4096);	/* PAGES fresh pages: >= PAGES page-faults */
		CHECK(PAPI_hl_read("inner"));
		CHECK(PAPI_hl_region_end("inner"));
		munmap(p, PAGES * 4096);
		CHECK(PAPI_hl_region_end("work"));
	}
	return NULL;
}

int main(void)
{
	pthread_t th[2];
	long i;

	CHECK(PAPI_hl_region_begin("setup"));
	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	CHECK(PAPI_hl_region_end("setup"));
	CHECK(PAPI_hl_stop());
	printf("done\n");
	return 0;
}
