/* SPDX-License-Identifier: MIT */
/*
 * metrics.c: a job's metrics as rows (model/metrics.h): the cells' sums
 * over the groups a row covers, then the formula computed once from them,
 * at printing: a ratio of sums, never a mean of ratios.
 */
#include "tools/pfshim/model/metric_sums.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/buf.h"

struct cell_key {
	const struct metric_sums *m;
	int def, group, region;
};

static uint64_t cell_hash(int def, int group, int region)
{
	int k[3] = { def, group, region };

	return hash_bytes(HASH_SEED, k, sizeof(k));
}

static bool cell_match(const void *ctx, int pos)
{
	const struct cell_key *k = ctx;
	const struct cell *c = &k->m->cells[pos];

	return c->def == k->def && c->group == k->group && c->region == k->region;
}

static uint64_t cell_hash_at(const void *ctx, int pos)
{
	const struct cell *c = &((const struct metric_sums *)ctx)->cells[pos];

	return cell_hash(c->def, c->group, c->region);
}

struct cell *metric_cell_get(struct metric_sums *m, int def, int group, int region)
{
	struct cell_key k = { m, def, group, region };
	uint64_t h = cell_hash(def, group, region);
	int pos = table_find(&m->index, h, cell_match, &k);

	if (pos >= 0)
		return &m->cells[pos];
	m->cells = xrealloc(m->cells, ((size_t)m->nr_cells + 1) * sizeof(*m->cells));
	m->cells[m->nr_cells] = (struct cell){ .def = def, .group = group, .region = region };
	m->cells[m->nr_cells].sums = xrealloc(NULL, ((size_t)m->defs[def].nr_inputs + 1) *
					      sizeof(uint64_t));
	memset(m->cells[m->nr_cells].sums, 0, ((size_t)m->defs[def].nr_inputs + 1) * sizeof(uint64_t));
	table_add(&m->index, h, m->nr_cells, cell_hash_at, m);
	return &m->cells[m->nr_cells++];
}

static void row_add(const struct def *d, const struct cell *c, struct cell *out)
{
	out->images += c->images;
	out->counted += c->counted;
	count_add(&out->time_ns, c->time_ns);
	out->scaled |= c->scaled;
	for (int k = 0; k < d->nr_inputs; k++)
		count_add(&out->sums[k], c->sums[k]);
	if (!out->missing && c->missing)
		out->missing = c->missing, out->why = c->why;
}

/* The sums of (@def, @region) in @group, or in every group (-1), into @out. */
static bool row_sum(const struct metric_sums *m, int def, int group, int region, struct cell *out)
{
	const struct def *d = &m->defs[def];

	memset(out, 0, sizeof(*out));
	out->sums = xrealloc(NULL, ((size_t)d->nr_inputs + 1) * sizeof(uint64_t));
	memset(out->sums, 0, ((size_t)d->nr_inputs + 1) * sizeof(uint64_t));
	if (group >= 0) {	/* one cell: found by its hash, as 10,000 ranks need */
		struct cell_key k = { m, def, group, region };
		int pos = table_find(&m->index, cell_hash(def, group, region), cell_match, &k);

		if (pos >= 0)
			row_add(d, &m->cells[pos], out);
		return out->images > 0;
	}
	for (int i = 0; i < m->nr_cells; i++) {
		const struct cell *c = &m->cells[i];

		if (c->def != def || c->region != region)
			continue;
		row_add(d, c, out);
	}
	return out->images > 0;
}

const char *metric_row_status_name(enum metric_row_status status)
{
	switch (status) {
	case METRIC_ROW_COMPUTED:	return report_metric_status_name(METRIC_COMPUTED);
	case METRIC_ROW_NOT_COUNTED:	return report_metric_status_name(METRIC_NOT_COUNTED);
	case METRIC_ROW_UNDEFINED:	return report_metric_status_name(METRIC_UNDEFINED);
	case METRIC_ROW_UNUSABLE:	break;
	}
	return "not-computable";	/* pfshim report's own: the reports cannot say it */
}

/* The metric @def from the sums @c: formula(sums), with the shim's evaluator. */
enum metric_row_status metric_row_value(const struct def *d, const struct cell *c, double *value)
{
	double values[FORMULA_MAX_NAMES];

	if (d->unusable)
		return METRIC_ROW_UNUSABLE;
	if (!c->counted)
		return METRIC_ROW_NOT_COUNTED;
	for (unsigned n = 0; n < d->f.nr_names; n++) {
		const struct input *in = &d->inputs[d->input_of[n]];

		switch (in->source) {
		case INPUT_EVENT:
			values[n] = (double)c->sums[d->input_of[n]];
			break;
		case INPUT_TIME:
			values[n] = (double)c->time_ns / 1e9;
			break;
		case INPUT_INVERSE_CLOCK:
			values[n] = in->value;
			break;
		default:
			return METRIC_ROW_NOT_COUNTED;
		}
	}
	return formula_eval(&d->f, values, value) == -EDOM ? METRIC_ROW_UNDEFINED : METRIC_ROW_COMPUTED;
}

void metric_rows_each(const struct summary *s, metric_row_fn fn, void *ctx)
{
	const struct metric_sums *m = s->metric_sums;
	int *sorted = summary_groups_sorted(s);

	for (int mg = 0; m && mg < m->groups.n; mg++)
		for (int region = -1; region < m->regions.n; region++)
			for (int k = -1; k < s->nr_groups; k++)
				for (int d = 0; d < m->nr_defs; d++) {
					struct cell c;
					int g = k < 0 ? -1 : sorted[k];

					if (m->defs[d].group != mg)
						continue;
					if (row_sum(m, d, g, region, &c))
						fn(s, &m->defs[d], g, region, &c, ctx);
					free(c.sums);
				}
	free(sorted);
}

const char *metric_group_name(const struct summary *s, int group)
{
	return group < 0 ? "" : s->groups[group].name;
}

void metric_row_text(const struct metric_row *row, char *out, size_t size)
{
	struct buf b;

	buf_init(&b, out, size);
	if (row->status == METRIC_ROW_COMPUTED)
		buf_put_metric(&b, row->value);
	else
		buf_puts(&b, row->status == METRIC_ROW_UNDEFINED ? "<undefined>" :
			 row->status == METRIC_ROW_UNUSABLE ? "<not computable>" : "<not counted>");
	buf_finish(&b);
}

struct each_ctx {
	void (*fn)(const struct metric_row *row, void *ctx);
	void *ctx;
};

static void each_row(const struct summary *s, const struct def *d, int group, int region,
		     const struct cell *c, void *ctx)
{
	const struct metric_sums *m = s->metric_sums;
	const struct each_ctx *e = ctx;
	struct metric_row row = {
		.metric_group = m->groups.name[d->group],
		.name = d->name,
		.unit = d->unit,
		.formula = d->formula,
		.region = region < 0 ? NULL : m->regions.name[region],
		.column = (int)(d - m->defs),
		.group = group,
		.scaled = c->scaled,
		.images = c->images,
		.counted = c->counted,
		.missing = c->counted < c->images ? c->missing : NULL,
	};

	row.status = metric_row_value(d, c, &row.value);
	row.why = row.status == METRIC_ROW_UNUSABLE ? d->unusable :
		  c->counted < c->images ? c->why : NULL;
	e->fn(&row, e->ctx);
}

void metric_sums_each(const struct summary *s,
		      void (*fn)(const struct metric_row *row, void *ctx), void *ctx)
{
	struct each_ctx e = { fn, ctx };

	metric_rows_each(s, each_row, &e);
}

void metric_sums_free(struct metric_sums *m)
{
	if (!m)
		return;
	for (int d = 0; d < m->nr_defs; d++) {
		for (int k = 0; k < m->defs[d].nr_inputs; k++) {
			free(m->defs[d].inputs[k].name);
			free(m->defs[d].inputs[k].event);
		}
		free(m->defs[d].inputs);
		free(m->defs[d].name);
		free(m->defs[d].unit);
		free(m->defs[d].formula);
	}
	for (int i = 0; i < m->nr_cells; i++) {
		free(m->cells[i].sums);
		free(m->cells[i].missing);
		free(m->cells[i].why);
	}
	free(m->defs);
	free(m->cells);
	table_free(&m->index);
	names_free(&m->groups);
	names_free(&m->regions);
	names_free(&m->keys);
	free(m);
}
