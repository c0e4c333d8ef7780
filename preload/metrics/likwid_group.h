/* SPDX-License-Identifier: MIT */
/*
 * likwid_group.h: a LIKWID performance group file (SHORT, EVENTSET,
 * METRICS, LONG), as Debian's likwid package installs them under
 * /usr/share/likwid/perfgroups/<arch>/<NAME>.txt: the events a group
 * counts, each on a named counter (PMC0, FIXC1, ...), and the metrics
 * computed from those counters, each with its unit and formula.
 *
 * Parsing allocates and runs once, at start-up or in the pfshim command;
 * the compiled formulas are then evaluated with formula_eval().
 */
#ifndef PFSHIM_PRELOAD_METRICS_LIKWID_GROUP_H
#define PFSHIM_PRELOAD_METRICS_LIKWID_GROUP_H

#include "export/formula.h"

struct likwid_group_event {
	char *counter;		/* "PMC3:EDGEDETECT": a counter, maybe with options */
	char *event;		/* "UOPS_ISSUED_STALL_CYCLES": LIKWID's name */
};

struct likwid_group_metric {
	char *name;		/* "Branch misprediction ratio" */
	char *unit;		/* "MBytes/s", or "" when the line gives none */
	char *text;		/* the formula as written */
	struct formula formula;	/* compiled from text */
};

struct likwid_group {
	char *short_text;	/* the SHORT line: what the group measures */
	int require_noht;	/* REQUIRE_NOHT: LIKWID runs it only without SMT */
	int nr_events;
	struct likwid_group_event *events;
	int nr_metrics;
	struct likwid_group_metric *metrics;
};

/*
 * likwid_group_parse - read the group file @text into @g.
 *
 * A metric line is "NAME [UNIT] FORMULA": the formula is the longest tail
 * of the line's words that is a formula (LIKWID itself takes the last
 * word, which breaks on the one shipped formula that holds spaces).
 *
 * Return: 0, or -EINVAL with *@line set to the first line that is not a
 * group's (a metric with no formula, an event line without an event),
 * -ENOMEM. On error @g holds nothing to free.
 */
int likwid_group_parse(const char *text, struct likwid_group *g, int *line);

void likwid_group_free(struct likwid_group *g);

#endif
