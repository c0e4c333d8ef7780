/* SPDX-License-Identifier: MIT */
/*
 * event_names.h: LIKWID's and PAPI's event lists (LIKWID_EVENTS,
 * PAPI_EVENTS) as perf's event syntax, for PFSHIM_EVENTS. The one table of
 * their names is in event_names.c; docs/compat.md prints it.
 */
#ifndef PFSHIM_COMPAT_EVENT_NAMES_H
#define PFSHIM_COMPAT_EVENT_NAMES_H

#include <stddef.h>

enum compat_events_syntax {
	COMPAT_LIKWID,	/* "INSTR_RETIRED_ANY:FIXC0,L1D_REPLACEMENT:PMC0", "MEM", "A|B" */
	COMPAT_PAPI,	/* "PAPI_TOT_INS,perf::TASK-CLOCK,perf_raw::r0151" */
};

/*
 * compat_events - @list, in @syntax, as a PFSHIM_EVENTS value in @out: each
 * item that has a perf name, once, in the order given. Every item that has
 * none is appended to @rest as written, with why in parentheses when it is
 * a LIKWID group ("MEM (a LIKWID group: counted when LIKWID_EVENTS names it alone),
 * L1D_REPLACEMENT:PMC0"), "" when
 * none. An item that does not fit in @out goes to @rest too, and what does
 * not fit in @rest is dropped ("..." ends it). Pure: reads nothing but
 * @list.
 *
 * Return: the number of events written to @out (0: @out is "").
 */
int compat_events(enum compat_events_syntax syntax, const char *list, char *out, size_t out_size,
		  char *rest, size_t rest_size);

#endif
