/* SPDX-License-Identifier: MIT */
/*
 * html.h: what the files of the HTML page share. html.c writes the page
 * and its per-group charts; html_job.c the job's processes: the overview,
 * the costliest processes, their timeline and the collapsible tree;
 * html_metrics.c the metrics of PFSHIM_GROUP.
 */
#ifndef PFSHIM_TOOLS_HTML_H
#define PFSHIM_TOOLS_HTML_H

#include <stdint.h>
#include <stdio.h>

#include "tools/pfshim/view/view.h"

#define HTML_CHART_W 760	/* a chart's viewBox width; the page scales it */
#define HTML_NAME_CHARS 60	/* of a name in a table cell; the whole in its tooltip */

/* Text or attribute content from a report: the five characters HTML gives a meaning escaped. */
void html_text(FILE *out, const char *s);
/* A label cut to @max characters (UTF-8, not bytes): its start, "...", and its end (a pid). */
void html_label(FILE *out, const char *s, int max);

/* An axis: a step of 1, 2 or 5 times a power of ten for about @n ticks up to @max ... */
double html_tick_step(double max, int n);
/* ... ceil(@x), its whole number of steps ... */
double html_whole_up(double x);
/* ... how many ticks (at most 20) ... */
int html_ticks_of(double max, double step);
/* ... and each one's label: 0.25, 500, 5k, 1.5M. */
void html_tick_format(double v, double step, double max, char *out, size_t size);

/* How a group is named on the page: "rank 3", "no rank", "vm:1234 make", "cc1". */
void html_group_name(const struct summary *s, int g, char *out, size_t size);

/*
 * The event a process's cost is measured in: task-clock when some report
 * counted it, else the first event counted; -1 when none was.
 */
int html_cost_event(const struct summary *s);

/* @one when @n is 1, else @more: "1 input", "2 inputs". */
static inline const char *html_plural(uint64_t n, const char *one, const char *more)
{
	return n == 1 ? one : more;
}

/* html_job.c: the overview (elapsed, CPU use, totals, what was lost); always written. */
void html_overview(const struct summary *s, FILE *out);
/* html_job.c: the costliest processes and their timeline (with the images: --html keeps them). */
void html_processes(const struct summary *s, FILE *out);
/* html_job.c: the process tree with subtree totals, collapsible. */
void html_tree(const struct summary *s, FILE *out);
/* html_region_tree.c: the region tree, inclusive, exclusive and % per path, collapsible. */
void html_region_tree(const struct summary *s, FILE *out);
/* html_metrics.c: PFSHIM_GROUP's metrics per group, top-down bars; nothing without metrics. */
void html_metrics(const struct summary *s, FILE *out);

#endif
