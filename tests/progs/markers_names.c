/* SPDX-License-Identifier: MIT */
/*
 * markers_names: regions by name where the name's address and its string
 * part ways (the markers' per-thread name cache, preload/markers/name_cache.h):
 *   - "shared" begun and ended through three copies of the string (a
 *     literal, two heap buffers), each call by another copy: 300 calls;
 *   - "reused_NN_with_a_long_common_prefix", NN = 0..K-1: each in a heap
 *     buffer of the same size, freed after use, so that malloc hands the
 *     same address to the next name; region NN gets NN + 1 calls;
 *   - "in_place_with_a_long_prefix_1" then "..._2" written over each other in
 *     one static buffer, 3 and 5 calls, then 1 again: 4 and 5.
 * Every call must return 0 under the shim (PFSHIM_INACTIVE without it).
 * Prints "same_address=N": how many of the K reused names got the address
 * of the first (glibc's allocator: K - 1; one that never reuses: 0).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pfshim.h"

#define K 10

static long bad;
static int want;

static void pair(const char *begin, const char *end)
{
	bad += pfshim_region_begin(begin) != want;
	bad += pfshim_region_end(end) != want;
}

int main(void)
{
	static _Alignas(16) char in_place[64];
	char *a = strdup("shared"), *b = strdup("shared"), *first = NULL;
	int same = 0;

	want = pfshim_active() ? 0 : PFSHIM_INACTIVE;
	for (int i = 0; i < 100; i++) {
		pair(a, b);
		pair(b, "shared");
		pair("shared", a);
	}
	for (int i = 0; i < K; i++) {
		char *name = malloc(48);

		snprintf(name, 48, "reused_%02d_with_a_long_common_prefix", i);
		if (i == 0)
			first = name;
		else
			same += name == first;
		for (int k = 0; k <= i; k++)
			pair(name, name);
		free(name);
	}
	strcpy(in_place, "in_place_with_a_long_prefix_1");
	for (int k = 0; k < 3; k++)
		pair(in_place, in_place);
	strcpy(in_place, "in_place_with_a_long_prefix_2");
	for (int k = 0; k < 5; k++)
		pair(in_place, in_place);
	in_place[strlen(in_place) - 1] = '1';
	pair(in_place, in_place);
	printf("same_address=%d\n", same);
	free(a);
	free(b);
	if (bad)
		fprintf(stderr, "markers_names: %ld unexpected return values\n", bad);
	return bad != 0;
}
