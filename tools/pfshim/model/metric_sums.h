/* SPDX-License-Identifier: MIT */
/*
 * metric_sums.h: inside the model's metrics (model/metrics.h), for the three
 * parts that build, compute and show them: read/metrics.c adds a report's
 * metrics, model/metrics.c turns the sums into rows, view/metrics.c prints
 * the rows. A metric is known by everything that fixes its value from
 * counts: its group, name, unit, formula and what each name of the formula
 * stands for. Its sums are kept per (metric, --by group, region) cell.
 */
#ifndef PFSHIM_TOOLS_METRIC_SUMS_H
#define PFSHIM_TOOLS_METRIC_SUMS_H

#include <stdbool.h>
#include <stdint.h>

#include "export/formula.h"
#include "export/report.h"
#include "tools/pfshim/model/metrics.h"
#include "tools/pfshim/model/summary.h"

/* A name of a formula and where its value comes from, as the reports' "inputs" say (export/report.h). */
struct input {
	char *name;		/* as the formula writes it */
	enum report_input_source source;
	char *event;		/* INPUT_EVENT */
	double value;		/* INPUT_INVERSE_CLOCK */
};

struct def {
	int group;		/* in metric_sums.groups: PFSHIM_GROUP's name */
	char *name, *unit, *formula;
	int nr_inputs;
	struct input *inputs;
	struct formula f;	/* names point into @formula */
	int input_of[FORMULA_MAX_NAMES];	/* f.names[n] is inputs[input_of[n]] */
	const char *unusable;	/* why it cannot be computed again, or NULL */
};

struct cell {
	int def, group, region;	/* region -1: the reports' totals */
	uint64_t images;	/* images whose report has the metric */
	uint64_t counted;	/* ... and counted its events: the sums are theirs */
	uint64_t time_ns;
	bool scaled;
	uint64_t *sums;		/* [def.nr_inputs]: INPUT_EVENT's counts */
	char *missing, *why;	/* the first report's that did not count it */
};

struct metric_sums {
	struct names groups, regions, keys;	/* keys[i]: def i's identity */
	int nr_defs;
	struct def *defs;
	int nr_cells;
	struct cell *cells;
	struct table_index index;
};

/* metric_cell_get - the cell of (@def, @group, @region), made when new. */
struct cell *metric_cell_get(struct metric_sums *m, int def, int group, int region);

/* A row's status as --json and --csv name it: the reports' names, and "not-computable". */
const char *metric_row_status_name(enum metric_row_status status);
/* metric_row_value - the metric @d from the sums @c: formula(sums), with the shim's evaluator. */
enum metric_row_status metric_row_value(const struct def *d, const struct cell *c, double *value);
/* The name of --by group @group, "" for the whole job (-1). */
const char *metric_group_name(const struct summary *s, int group);

/* The rows in print order: per PFSHIM_GROUP, the totals then each region; all groups then each. */
typedef void (*metric_row_fn)(const struct summary *s, const struct def *d, int group, int region,
			      const struct cell *c, void *ctx);
void metric_rows_each(const struct summary *s, metric_row_fn fn, void *ctx);

#endif
