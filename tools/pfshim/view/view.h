/* SPDX-License-Identifier: MIT */
/*
 * view.h: the views of a combined job: each a function of a const model
 * (model/summary.h) writing a stream, and the formats every view shares
 * (docs/pfshim.md has the schemas). html.h has the page's own parts.
 */
#ifndef PFSHIM_TOOLS_VIEW_H
#define PFSHIM_TOOLS_VIEW_H

#include <stdint.h>
#include <stdio.h>

#include "tools/pfshim/model/summary.h"

/* The ways to print it. @title: the command, or NULL. */
void summary_print_text(const struct summary *s, const char *title, const char *where, FILE *out);
/* The text's last lines: where the reports are (@where, or NULL: none), and a blank line. */
void summary_print_where(const char *where, FILE *out);
void summary_print_tree(const struct summary *s, FILE *out);
void summary_print_json(const struct summary *s, FILE *out);
void summary_print_csv(const struct summary *s, FILE *out);
void summary_print_html(const struct summary *s, const char *title, FILE *out);

/* metrics.c, `--metrics`: text for a person, one JSON object, one CSV table. */
void metric_sums_print_text(const struct summary *s, FILE *out);
void metric_sums_print_json(const struct summary *s, FILE *out);
void metric_sums_print_csv(const struct summary *s, FILE *out);

/* @s as one CSV cell, quoted as RFC 4180 asks, never read as a spreadsheet formula. */
void csv_field(FILE *out, const char *s);
/* 1234567 -> "1,234,567"; a scaled value (the clocks) -> "1234.57". */
void summary_value_format(const struct summary_event *e, uint64_t value, char *out, size_t size);
/* A mean (in the event's own unit) as every text view shows one: "1.67", "2", "1.23" msec. */
void summary_mean_format(const struct summary_event *e, double mean, char *out, size_t size);

/* A region metric's name, unit and scale: metric 0, wall time, is in ns, shown in msec. */
struct summary_event summary_metric_event(const struct summary *s, int metric);

/*
 * region_tree.c: the region tree (model/region_tree.h) as text, Caliper's
 * runtime-report's way (per metric: the paths indented, calls, inclusive,
 * exclusive, % of the total), and as the JSON view's "region_tree" array.
 */
struct json_t;
void region_tree_print_text(const struct summary *s, FILE *out);
struct json_t *region_tree_json(const struct summary *s);
/* The whole a metric's % is of: an event's job total, the top regions' sum for wall time. */
uint64_t region_tree_whole(const struct summary *s, int metric);

/* The points by event, then time, then group (a copy the caller frees). */
struct summary_point *summary_points_sorted(const struct summary *s);
/* A step's time in ns since the job's first start (0 for a report just after it). */
int64_t summary_bucket_time(const struct summary *s, int64_t bucket);

#endif
