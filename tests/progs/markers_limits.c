/* SPDX-License-Identifier: MIT */
/*
 * markers_limits THREADS NAMES: the limits, none of which may crash.
 * THREADS threads run one after the other, each through region "t" once;
 * then the main thread asks for NAMES distinct region names ("n0", "n1",
 * ...) and enters and leaves each one. Prints how many handles were 0.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "pfshim.h"

static void *one_region(void *arg)
{
	(void)arg;
	pfshim_region_begin("t");
	pfshim_region_end("t");
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 300, names = argc > 2 ? atoi(argv[2]) : 300;
	int refused = 0;
	char name[32];

	for (int i = 0; i < threads; i++) {
		pthread_t t;

		if (pthread_create(&t, NULL, one_region, NULL) != 0)
			return 1;
		pthread_join(t, NULL);
	}
	for (int i = 0; i < names; i++) {
		pfshim_region_t r;

		snprintf(name, sizeof(name), "n%d", i);
		r = pfshim_region(name);
		refused += r == 0;
		pfshim_begin(r);
		pfshim_end(r);
	}
	printf("refused=%d\n", refused);
	return 0;
}
