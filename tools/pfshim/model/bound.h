/* SPDX-License-Identifier: MIT */
/*
 * bound.h: `pfshim check`'s bounds, "SCOPE EVENT[/call|/image] VALUE", and
 * their value in a summary. Parsing knows nothing of reports; evaluating
 * reads the model (summary.h) only, as the views do.
 */
#ifndef PFSHIM_TOOLS_BOUND_H
#define PFSHIM_TOOLS_BOUND_H

#include <stdbool.h>

#include "tools/pfshim/model/summary.h"

enum bound_kind { BOUND_MAX, BOUND_MIN };
enum bound_scope { SCOPE_TOTAL, SCOPE_PROGRAM, SCOPE_REGION };
enum bound_per { PER_NONE, PER_CALL, PER_IMAGE };

struct bound {
	enum bound_kind kind;
	enum bound_scope scope;
	char *name;		/* the program's or region's; NULL for total */
	char *event;		/* an event, or for a region "wall" or "calls" */
	enum bound_per per;
	double limit;		/* in the reports' "value" unit: ns for the clocks */
	bool timed;		/* the limit was given with a time unit (ns, us, ms, s) */
};

/*
 * bound_parse - @text ("region:solve instructions/call 1.2e6", "total
 * page-faults 5000", "program:cc1 task-clock 2s") into @b, which then owns
 * copies of its names. Return: 0, or -EINVAL with *@why saying what is
 * wrong (a static string).
 */
int bound_parse(const char *text, enum bound_kind kind, struct bound *b, const char **why);
void bound_free(struct bound *b);

/*
 * bound_value - @b's measure in @s: the sum over the combined reports (the
 * job's totals for "total" when a pfshim.job was read), divided by the
 * region's calls (/call) or the images (/image). Return: 0; -ENOENT when
 * @s has no such program, region or event (*@why names which: "region",
 * "program", "event"); -ENODATA when it was not counted there or there is
 * nothing to divide by.
 */
int bound_value(const struct summary *s, const struct bound *b, double *value, const char **why);

/* bound_holds - whether @value keeps within @b. */
bool bound_holds(const struct bound *b, double value);

#endif
