/* SPDX-License-Identifier: MIT */
/*
 * likwid_many: one thread's 66 LIKWID tags (tag-00 ... tag-65), each started
 * and stopped twice: more than the 64 the compat layer once held, and more
 * than pfshim's own region table holds. Then a tag of 100 bytes, and a stop
 * of a tag never started. Prints the return codes that were not 0 and what
 * GET says; tests/e2e/compat.bats checks them and the report.
 */
#include <stdio.h>
#include <string.h>

#include <likwid-marker.h>

static void get(const char *tag)
{
	double ev[4];
	double time;
	int n = 4, count;

	likwid_markerGetRegion(tag, &n, ev, &time, &count);
	printf("get %.8s: count %d\n", tag, count);
}

int main(void)
{
	char tag[16], long_tag[101];
	int bad = 0, rc;

	likwid_markerInit();
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 66; i++) {
			snprintf(tag, sizeof(tag), "tag-%02d", i);
			if ((rc = likwid_markerStartRegion(tag)) != 0)
				printf("start %s: %d\n", tag, rc), bad++;
			if ((rc = likwid_markerStopRegion(tag)) != 0)
				printf("stop %s: %d\n", tag, rc), bad++;
		}
	get("tag-00");
	get("tag-63");
	get("tag-65");
	memset(long_tag, 'L', 100);
	long_tag[100] = '\0';
	printf("long start %d", likwid_markerStartRegion(long_tag));
	printf(" stop %d\n", likwid_markerStopRegion(long_tag));
	get(long_tag);
	printf("stop never started: %d\n", likwid_markerStopRegion("never"));
	likwid_markerClose();
	printf("bad %d\n", bad);
	return 0;
}
