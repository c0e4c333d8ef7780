/* SPDX-License-Identifier: MIT */
/*
 * likwid_names.h: LIKWID's names of the events perf has a generic name
 * for, in one table, for both places LIKWID's names come in: a
 * performance group's EVENTSET (preload/metrics/group.c) and
 * LIKWID_EVENTS through the compat library (compat/event_names.c).
 */
#ifndef PFSHIM_PRELOAD_EVENTS_LIKWID_NAMES_H
#define PFSHIM_PRELOAD_EVENTS_LIKWID_NAMES_H

/* likwid_event_perf - perf's name for LIKWID's event @name, or NULL when it has none. */
const char *likwid_event_perf(const char *name);

#endif
