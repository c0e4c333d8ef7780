/* SPDX-License-Identifier: MIT */
/*
 * metric_sum.h: `pfshim report --metrics`: the metrics of PFSHIM_GROUP for a
 * whole job, per --by group and per region. Each metric's events are summed
 * over the images whose reports carry it, then its formula is computed once
 * with the shim's own evaluator (export/formula.c): a ratio of sums, never a
 * mean of ratios. A report says what each name of a formula stands for
 * (its metrics' "inputs"), so nothing here knows a group file.
 */
#ifndef PFSHIM_TOOLS_METRIC_SUM_H
#define PFSHIM_TOOLS_METRIC_SUM_H

#include <jansson.h>
#include <stdio.h>

struct summary;
struct metric_sums;

/* metric_sums_add - the metrics of @report, the last one of its image, into group @group. */
void metric_sums_add(struct summary *s, int group, json_t *report);
void metric_sums_free(struct metric_sums *m);

/* The views (docs/pfshim.md, "Metrics"): text for a person, one JSON object, one CSV table. */
void metric_sums_print_text(const struct summary *s, FILE *out);
void metric_sums_print_json(const struct summary *s, FILE *out);
void metric_sums_print_csv(const struct summary *s, FILE *out);

#endif
