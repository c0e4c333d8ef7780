/* SPDX-License-Identifier: MIT */
/*
 * bench_compat.c: the cost of a start/stop pair through pfshim's LIKWID and
 * PAPI_hl compatibility calls, beside the native pfshim pairs and the real
 * PAPI_hl, in one process run under LD_PRELOAD=libpfshim.so:
 *
 *   PFSHIM_EVENTS=... PAPI_EVENTS=... LD_PRELOAD=libpfshim.so \
 *       bench_compat LIBPFSHIM_COMPAT_SO BATCHES PAIRS_PER_BATCH
 *
 * The real PAPI_hl_* is libpapi's (linked); pfshim's are reached with
 * dlopen(RTLD_LOCAL) + dlsym from libpfshim-compat.so, so both live in one
 * process. Prints medians over interleaved batches; asserts nothing.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <papi.h>

#include "bench.h"
#include "pfshim.h"

enum op { OP_HANDLE, OP_NAME, OP_LIKWID, OP_COMPAT_HL, OP_PAPI_HL, NR_OPS };

static const char *const op_label[NR_OPS] = {
	[OP_HANDLE] = "pfshim_begin + pfshim_end",
	[OP_NAME] = "pfshim_region_begin + end (by name)",
	[OP_LIKWID] = "likwid_marker Start + Stop (pfshim)",
	[OP_COMPAT_HL] = "PAPI_hl_region_begin + end (pfshim)",
	[OP_PAPI_HL] = "PAPI_hl_region_begin + end (PAPI)",
};

static int (*lk_start)(const char *), (*lk_stop)(const char *);
static int (*hl_begin)(const char *), (*hl_end)(const char *);
static pfshim_region_t region;

static double batch(enum op op, int pairs)
{
	uint64_t t0 = bench_now_ns();
	int err = 0;

	for (int i = 0; i < pairs; i++) {
		switch (op) {
		case OP_HANDLE:
			err |= pfshim_begin(region) | pfshim_end(region);
			break;
		case OP_NAME:
			err |= pfshim_region_begin("bench") | pfshim_region_end("bench");
			break;
		case OP_LIKWID:
			err |= lk_start("bench") | lk_stop("bench");
			break;
		case OP_COMPAT_HL:
			err |= hl_begin("bench") | hl_end("bench");
			break;
		case OP_PAPI_HL:
			err |= PAPI_hl_region_begin("bench") | PAPI_hl_region_end("bench");
			break;
		default:
			break;
		}
	}
	if (err)
		return -1;
	return (double)(bench_now_ns() - t0) / pairs;
}

int main(int argc, char **argv)
{
	static double ns[NR_OPS][1000];
	int batches, pairs, have_papi;
	void *lib;

	if (argc != 4 || (batches = atoi(argv[2])) < 1 || batches > 1000 ||
	    (pairs = atoi(argv[3])) < 1) {
		fprintf(stderr, "usage: bench_compat LIBPFSHIM_COMPAT_SO BATCHES PAIRS_PER_BATCH\n");
		return 2;
	}
	if (!pfshim_active()) {
		printf("skipped: libpfshim.so is not preloaded\n");
		return 0;
	}
	lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		printf("skipped: %s\n", dlerror());
		return 0;
	}
	lk_start = (int (*)(const char *))dlsym(lib, "likwid_markerStartRegion");
	lk_stop = (int (*)(const char *))dlsym(lib, "likwid_markerStopRegion");
	hl_begin = (int (*)(const char *))dlsym(lib, "PAPI_hl_region_begin");
	hl_end = (int (*)(const char *))dlsym(lib, "PAPI_hl_region_end");
	((void (*)(void))dlsym(lib, "likwid_markerInit"))();
	region = pfshim_region("bench");
	have_papi = PAPI_hl_region_begin("bench") == PAPI_OK &&
		    PAPI_hl_region_end("bench") == PAPI_OK;

	for (int b = 0; b < batches; b++)
		for (int op = 0; op < NR_OPS; op++)
			if (op != OP_PAPI_HL || have_papi)
				ns[op][b] = batch(op, pairs);

	printf("median of %d batches of %d pairs each, batches interleaved, one process\n\n",
	       batches, pairs);
	double base = bench_median(ns[OP_HANDLE], batches);
	for (int op = 0; op < NR_OPS; op++) {
		if (op == OP_PAPI_HL && !have_papi) {
			printf("%-38s skipped: PAPI_hl failed (PAPI_EVENTS?)\n", op_label[op]);
			continue;
		}
		double m = bench_median(ns[op], batches);
		if (m < 0)
			printf("%-38s failed: a call returned an error\n", op_label[op]);
		else
			printf("%-38s %8.0f ns/pair  %5.2fx\n", op_label[op], m, m / base);
	}
	return 0;
}
