/* SPDX-License-Identifier: MIT */
/*
 * likwid_twice: LIKWID's marker API misused: a tag started twice and stopped
 * once, then stopped again. Built against pfshim's header. Prints each
 * return code.
 */
#define LIKWID_PERFMON
#include <likwid-marker.h>
#include <stdio.h>

int main(void)
{
	printf("start before init: %d\n", LIKWID_MARKER_START("twice"));
	LIKWID_MARKER_INIT;
	printf("start: %d\n", LIKWID_MARKER_START("twice"));
	printf("start again: %d\n", LIKWID_MARKER_START("twice"));
	printf("stop: %d\n", LIKWID_MARKER_STOP("twice"));
	printf("stop again: %d\n", LIKWID_MARKER_STOP("twice"));
	LIKWID_MARKER_CLOSE;
	printf("start after close: %d\n", LIKWID_MARKER_START("twice"));
	return 0;
}
