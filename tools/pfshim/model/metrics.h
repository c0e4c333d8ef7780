/* SPDX-License-Identifier: MIT */
/*
 * metrics.h: `pfshim report --metrics`: the metrics of PFSHIM_GROUP for a
 * whole job, per --by group and per region. Each metric's events are summed
 * over the images whose reports carry it (read/metrics.c), then its formula
 * is computed once with the shim's own evaluator (export/formula.c): a
 * ratio of sums, never a mean of ratios. A report says what each name of a
 * formula stands for (its metrics' "inputs"), so nothing here knows a group
 * file. The views print the rows (view/view.h).
 */
#ifndef PFSHIM_TOOLS_METRICS_H
#define PFSHIM_TOOLS_METRICS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct summary;
struct metric_sums;

void metric_sums_free(struct metric_sums *m);

/*
 * One row of every view: a metric of a PFSHIM_GROUP over the whole job
 * (@group -1) or one --by group, over the reports' totals (@region NULL) or
 * one region. @column tells a metric apart from another of the same name
 * (another formula, or another CPU's clock); the strings live as long as @s.
 */
enum metric_row_status {
	METRIC_ROW_COMPUTED, METRIC_ROW_NOT_COUNTED, METRIC_ROW_UNDEFINED, METRIC_ROW_UNUSABLE
};

struct metric_row {
	const char *metric_group, *name, *unit, *formula, *region;
	int column, group;
	enum metric_row_status status;
	double value;		/* METRIC_ROW_COMPUTED */
	bool scaled;
	uint64_t images, counted;	/* counted < images: @missing and @why say what was not */
	const char *missing, *why;	/* METRIC_ROW_UNUSABLE: @why says why */
};

/* metric_sums_each - @fn for each row, in the order the text view prints them. */
void metric_sums_each(const struct summary *s,
		      void (*fn)(const struct metric_row *row, void *ctx), void *ctx);
/* metric_row_text - the row's value as the text view prints it: "1,234.56", "<not counted>". */
void metric_row_text(const struct metric_row *row, char *out, size_t size);

#endif
