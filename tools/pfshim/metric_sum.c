/* SPDX-License-Identifier: MIT */
/*
 * metric_sum.c: a job's metrics (see metric_sum.h). A metric is known by
 * everything that fixes its value from counts: its group, name, unit,
 * formula and what each name of the formula stands for. Its sums are kept
 * per (metric, --by group, region) cell; the whole job's are the cells'
 * sums, and each value is computed once, at printing, from them.
 *
 * An image whose report could not compute the metric (an event not
 * counted there, or not a region event) adds nothing to the sums but is
 * counted and named, as an event not counted in some images is: the value
 * is then that of the images that counted it, and says so.
 */
#include "tools/pfshim/metric_sum.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/buf.h"
#include "export/formula.h"
#include "tools/pfshim/summary.h"

enum input_source { SOURCE_EVENT, SOURCE_TIME, SOURCE_INVERSE_CLOCK, SOURCE_NONE };

static const char *const source_names[] = { "event", "time", "inverse-clock", "none" };

struct input {
	char *name;		/* as the formula writes it */
	enum input_source source;
	char *event;		/* SOURCE_EVENT */
	double value;		/* SOURCE_INVERSE_CLOCK */
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
	uint64_t *sums;		/* [def.nr_inputs]: SOURCE_EVENT's counts */
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

static struct metric_sums *sums_of(struct summary *s)
{
	if (!s->metric_sums) {
		s->metric_sums = xrealloc(NULL, sizeof(*s->metric_sums));
		memset(s->metric_sums, 0, sizeof(*s->metric_sums));
	}
	return s->metric_sums;
}

static enum input_source source_parse(const char *name)
{
	for (int i = SOURCE_EVENT; i < SOURCE_NONE; i++)
		if (!strcmp(name, source_names[i]))
			return (enum input_source)i;
	return SOURCE_NONE;
}

/* The identity of @metric of @group: what fixes its value from counts. */
static char *def_key(const char *group, json_t *metric)
{
	size_t size = 256, len;
	char *key = NULL;
	json_t *in;
	size_t i;

	for (;;) {
		key = xrealloc(key, size);
		len = (size_t)snprintf(key, size, "%s\x1f%s\x1f%s\x1f%s", group,
				       string_or(json_object_get(metric, "name"), "?"),
				       string_or(json_object_get(metric, "unit"), ""),
				       string_or(json_object_get(metric, "formula"), ""));
		json_array_foreach(json_object_get(metric, "inputs"), i, in) {
			json_t *v = json_object_get(in, "value");

			len += (size_t)snprintf(key + (len < size ? len : size), len < size ? size - len : 0,
						"\x1f%s=%s:%s:%a",
						string_or(json_object_get(in, "name"), "?"),
						string_or(json_object_get(in, "source"), "?"),
						string_or(json_object_get(in, "event"), ""),
						json_is_number(v) ? json_number_value(v) : 0.0);
		}
		if (len < size)
			return key;
		size = len + 1;
	}
}

static void def_init(struct def *d, int group, json_t *metric)
{
	json_t *inputs = json_object_get(metric, "inputs"), *in;
	size_t where, i;

	memset(d, 0, sizeof(*d));
	d->group = group;
	d->name = xstrdup(string_or(json_object_get(metric, "name"), "?"));
	d->unit = xstrdup(string_or(json_object_get(metric, "unit"), ""));
	d->formula = xstrdup(string_or(json_object_get(metric, "formula"), ""));
	d->nr_inputs = (int)json_array_size(inputs);
	d->inputs = xrealloc(NULL, ((size_t)d->nr_inputs + 1) * sizeof(*d->inputs));
	json_array_foreach(inputs, i, in) {
		json_t *v = json_object_get(in, "value");

		d->inputs[i] = (struct input){
			.name = xstrdup(string_or(json_object_get(in, "name"), "")),
			.source = source_parse(string_or(json_object_get(in, "source"), "")),
			.event = xstrdup(string_or(json_object_get(in, "event"), "")),
			.value = json_is_number(v) ? json_number_value(v) : 0,
		};
		if (d->inputs[i].source == SOURCE_EVENT && !*d->inputs[i].event)
			d->inputs[i].source = SOURCE_NONE;
	}
	if (!json_is_array(inputs)) {
		d->unusable = "the reports do not say what its formula's names stand for "
			      "(written by a pfshim older than pfshim report --metrics)";
		return;
	}
	if (formula_compile(d->formula, &d->f, &where)) {
		d->unusable = "its formula does not compile";
		return;
	}
	for (unsigned n = 0; n < d->f.nr_names; n++) {
		d->input_of[n] = -1;
		for (int k = 0; k < d->nr_inputs; k++)
			if (strlen(d->inputs[k].name) == d->f.names[n].len &&
			    !memcmp(d->inputs[k].name, d->f.names[n].text, d->f.names[n].len))
				d->input_of[n] = k;
		if (d->input_of[n] < 0)
			d->unusable = "a name of its formula is not among the report's inputs";
	}
}

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

static struct cell *cell_get(struct metric_sums *m, int def, int group, int region)
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

/* The count of @event in @events (a report's, or a region's): the last of the name, as the shim binds. */
static json_t *count_of(json_t *events, const char *event, const char *field)
{
	json_t *e, *found = NULL;
	size_t i;

	json_array_foreach(events, i, e)
		if (!strcmp(string_or(json_object_get(e, "name"), ""), event))
			found = json_object_get(e, field);
	return is_count(found) ? found : NULL;
}

/*
 * One image's @metric into @c: its events' counts from @events (@field
 * "value" for the report's, "sum" for a region's) and @time_ns.
 */
static void cell_add(struct cell *c, const struct def *d, json_t *metric, json_t *events,
		     const char *field, uint64_t time_ns)
{
	const char *status = string_or(json_object_get(metric, "status"), "");
	const char *missing = string_or(json_object_get(metric, "missing"), "?");
	const char *why = string_or(json_object_get(metric, "why"), "not counted");

	c->images++;
	for (int k = 0; strcmp(status, "not-counted") != 0 && k < d->nr_inputs; k++)
		if (d->inputs[k].source == SOURCE_EVENT &&
		    !count_of(events, d->inputs[k].event, field))
			status = "not-counted", missing = d->inputs[k].event, why = "not in the report";
	if (!strcmp(status, "not-counted")) {
		if (!c->missing) {
			c->missing = xstrdup(missing);
			c->why = xstrdup(why);
		}
		return;
	}
	c->counted++;
	c->scaled |= json_is_true(json_object_get(metric, "scaled"));
	count_add(&c->time_ns, time_ns);
	for (int k = 0; k < d->nr_inputs; k++)
		if (d->inputs[k].source == SOURCE_EVENT)
			count_add(&c->sums[k], (uint64_t)json_integer_value(
					  count_of(events, d->inputs[k].event, field)));
}

static int def_of(struct metric_sums *m, const char *group, json_t *metric)
{
	char *key = def_key(group, metric);
	int d = names_find(&m->keys, key);

	if (d < 0) {
		d = names_add(&m->keys, key);
		m->defs = xrealloc(m->defs, ((size_t)m->nr_defs + 1) * sizeof(*m->defs));
		def_init(&m->defs[m->nr_defs++], names_add(&m->groups, group), metric);
	}
	free(key);
	return d;
}

void metric_sums_add(struct summary *s, int group, json_t *report)
{
	const char *mgroup = string_or(json_object_get(report, "metric_group"), NULL);
	json_t *metrics = json_object_get(report, "metrics"), *metric, *total;
	json_t *totals = json_object_get(json_object_get(report, "regions"), "totals");
	uint64_t wall_ns = count_or(json_object_get(report, "wall_ns"), 0);
	struct metric_sums *m;
	int defs[256];
	size_t i, t;

	if (!mgroup || !json_is_array(metrics))
		return;
	m = sums_of(s);
	json_array_foreach(metrics, i, metric) {
		if (i >= sizeof(defs) / sizeof(defs[0]) || !json_is_object(metric))
			break;
		defs[i] = def_of(m, mgroup, metric);
		cell_add(cell_get(m, defs[i], group, -1), &m->defs[defs[i]], metric,
			 json_object_get(report, "events"), "value", wall_ns);
	}
	json_array_foreach(totals, t, total) {
		const char *name = string_or(json_object_get(total, "name"), NULL);
		json_t *rm = json_object_get(total, "metrics");
		uint64_t region_ns = count_or(json_object_get(json_object_get(total, "wall_ns"), "sum"), 0);
		int region;

		if (!name || (s->opt.regions.n && names_find(&s->opt.regions, name) < 0))
			continue;
		region = names_add(&m->regions, name);
		json_array_foreach(rm, i, metric) {
			if (i >= json_array_size(metrics) || i >= sizeof(defs) / sizeof(defs[0]))
				break;
			cell_add(cell_get(m, defs[i], group, region), &m->defs[defs[i]], metric,
				 json_object_get(total, "events"), "sum", region_ns);
		}
	}
}

/* ---- the views */

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

static const char *const row_status_names[] = { "computed", "not-counted", "undefined", "not-computable" };

/* The metric @def from the sums @c: formula(sums), with the shim's evaluator. */
static enum metric_row_status row_value(const struct def *d, const struct cell *c, double *value)
{
	double values[FORMULA_MAX_NAMES];

	if (d->unusable)
		return METRIC_ROW_UNUSABLE;
	if (!c->counted)
		return METRIC_ROW_NOT_COUNTED;
	for (unsigned n = 0; n < d->f.nr_names; n++) {
		const struct input *in = &d->inputs[d->input_of[n]];

		switch (in->source) {
		case SOURCE_EVENT:
			values[n] = (double)c->sums[d->input_of[n]];
			break;
		case SOURCE_TIME:
			values[n] = (double)c->time_ns / 1e9;
			break;
		case SOURCE_INVERSE_CLOCK:
			values[n] = in->value;
			break;
		default:
			return METRIC_ROW_NOT_COUNTED;
		}
	}
	return formula_eval(&d->f, values, value) == -EDOM ? METRIC_ROW_UNDEFINED : METRIC_ROW_COMPUTED;
}

/* The rows in print order: per PFSHIM_GROUP, the totals then each region; all groups then each. */
typedef void (*row_fn)(const struct summary *s, const struct def *d, int group, int region,
		       const struct cell *c, void *ctx);

static void rows_each(const struct summary *s, row_fn fn, void *ctx)
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

static const char *group_name(const struct summary *s, int group)
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

	row.status = row_value(d, c, &row.value);
	row.why = row.status == METRIC_ROW_UNUSABLE ? d->unusable :
		  c->counted < c->images ? c->why : NULL;
	e->fn(&row, e->ctx);
}

void metric_sums_each(const struct summary *s,
		      void (*fn)(const struct metric_row *row, void *ctx), void *ctx)
{
	struct each_ctx e = { fn, ctx };

	rows_each(s, each_row, &e);
}

struct text_ctx {
	FILE *out;
	int mg, group, region;	/* the heading last printed */
};

static void text_row(const struct summary *s, const struct def *d, int group, int region,
		     const struct cell *c, void *ctx)
{
	const struct metric_sums *m = s->metric_sums;
	struct text_ctx *t = ctx;
	char value[64];
	double v = 0;
	enum metric_row_status st = row_value(d, c, &v);

	if (t->mg != d->group || t->group != group || t->region != region) {
		fprintf(t->out, "\n %s", m->groups.name[d->group]);
		if (region >= 0)
			fprintf(t->out, ", region %s", m->regions.name[region]);
		if (group < 0)
			fprintf(t->out, ", all:\n");
		else if (s->opt.by == BY_PROCESS && s->groups[group].program)
			fprintf(t->out, ", %s %s %s:\n", summary_by_name(s->opt.by),
				s->groups[group].name, s->groups[group].program);
		else
			fprintf(t->out, ", %s %s:\n", summary_by_name(s->opt.by), s->groups[group].name);
		t->mg = d->group, t->group = group, t->region = region;
	}
	metric_row_text(&(struct metric_row){ .status = st, .value = v }, value, sizeof(value));
	fprintf(t->out, " %18s      %s", value, d->name);
	if (*d->unit)
		fprintf(t->out, " [%s]", d->unit);
	if (st == METRIC_ROW_UNUSABLE)
		fprintf(t->out, "  (%s)", d->unusable);
	else if (c->counted < c->images)
		fprintf(t->out, "  (%s: %s in %" PRIu64 " of %" PRIu64 " images%s)",
			c->missing ? c->missing : "?", c->why ? c->why : "not counted",
			c->images - c->counted, c->images,
			c->counted ? "; the value is the others'" : "");
	if (c->scaled && st == METRIC_ROW_COMPUTED)
		fputs("  (scaled)", t->out);
	fputc('\n', t->out);
}

void metric_sums_print_text(const struct summary *s, FILE *out)
{
	struct text_ctx t = { out, -1, -2, -2 };

	fprintf(out, "\n pfshim: metrics of the job (%" PRIu64 " %s): each metric's events "
		"summed over the images, then its formula computed\n", s->images,
		s->images == 1 ? "image" : "images");
	if (!s->metric_sums)
		fputs("\n pfshim: no report has metrics (PFSHIM_GROUP was not set)\n", out);
	rows_each(s, text_row, &t);
	fputc('\n', out);
}

static json_t *inputs_json(const struct def *d, const struct cell *c)
{
	json_t *a = json_array();

	for (int k = 0; k < d->nr_inputs; k++) {
		const struct input *in = &d->inputs[k];
		json_t *o = json_object();

		json_object_set_new(o, "name", json_string(in->name));
		json_object_set_new(o, "source", json_string(source_names[in->source]));
		json_object_set_new(o, "event", in->source == SOURCE_EVENT ?
				    json_string(in->event) : json_null());
		json_object_set_new(o, "sum", in->source == SOURCE_EVENT && c->counted ?
				    json_integer((json_int_t)c->sums[k]) : json_null());
		json_object_set_new(o, "value", in->source == SOURCE_INVERSE_CLOCK ?
				    json_real(in->value) : json_null());
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *string_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static void json_row(const struct summary *s, const struct def *d, int group, int region,
		     const struct cell *c, void *ctx)
{
	const struct metric_sums *m = s->metric_sums;
	json_t *o = json_object();
	double v = 0;
	enum metric_row_status st = row_value(d, c, &v);

	json_object_set_new(o, "metric_group", json_string(m->groups.name[d->group]));
	json_object_set_new(o, "region", region < 0 ? json_null() : json_string(m->regions.name[region]));
	json_object_set_new(o, "group", group < 0 ? json_null() : json_string(group_name(s, group)));
	json_object_set_new(o, "name", json_string(d->name));
	json_object_set_new(o, "unit", json_string(d->unit));
	json_object_set_new(o, "value", st == METRIC_ROW_COMPUTED ? json_real(v) : json_null());
	json_object_set_new(o, "status", json_string(row_status_names[st]));
	json_object_set_new(o, "scaled", json_boolean(c->scaled));
	json_object_set_new(o, "images", json_integer((json_int_t)c->images));
	json_object_set_new(o, "images_counted", json_integer((json_int_t)c->counted));
	json_object_set_new(o, "time_ns", json_integer((json_int_t)c->time_ns));
	json_object_set_new(o, "missing", string_or_null(c->counted < c->images ? c->missing : NULL));
	json_object_set_new(o, "why", string_or_null(st == METRIC_ROW_UNUSABLE ? d->unusable :
						      c->counted < c->images ? c->why : NULL));
	json_object_set_new(o, "formula", json_string(d->formula));
	json_object_set_new(o, "inputs", inputs_json(d, c));
	json_array_append_new(ctx, o);
}

void metric_sums_print_json(const struct summary *s, FILE *out)
{
	json_t *root = json_object(), *rows = json_array();

	json_object_set_new(root, "schema", json_string("pfshim.metrics"));
	json_object_set_new(root, "version", json_integer(1));
	json_object_set_new(root, "by", json_string(summary_by_name(s->opt.by)));
	json_object_set_new(root, "images", json_integer((json_int_t)s->images));
	rows_each(s, json_row, rows);
	json_object_set_new(root, "metrics", rows);
	json_dumpf(root, out, JSON_COMPACT | JSON_REAL_PRECISION(17));
	fputc('\n', out);
	json_decref(root);
}

static void csv_row(const struct summary *s, const struct def *d, int group, int region,
		    const struct cell *c, void *ctx)
{
	const struct metric_sums *m = s->metric_sums;
	FILE *out = ctx;
	double v = 0;
	enum metric_row_status st = row_value(d, c, &v);

	csv_field(out, m->groups.name[d->group]);
	fputc(',', out);
	csv_field(out, region < 0 ? "" : m->regions.name[region]);
	fputc(',', out);
	csv_field(out, group_name(s, group));
	fputc(',', out);
	csv_field(out, d->name);
	fputc(',', out);
	if (st == METRIC_ROW_COMPUTED) {	/* the fewest digits that read back as @v, as JSON's */
		char text[40];
		struct buf b;

		buf_init(&b, text, sizeof(text));
		buf_put_double(&b, v);
		buf_finish(&b);
		fputs(text, out);
	}
	fputc(',', out);
	csv_field(out, d->unit);
	fprintf(out, ",%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",", row_status_names[st],
		c->scaled ? "true" : "false", c->images, c->counted, c->time_ns);
	csv_field(out, c->counted < c->images && c->missing ? c->missing : "");
	fputc(',', out);
	csv_field(out, st == METRIC_ROW_UNUSABLE ? d->unusable : c->counted < c->images && c->why ? c->why : "");
	fputc(',', out);
	csv_field(out, d->formula);
	fputc('\n', out);
}

void metric_sums_print_csv(const struct summary *s, FILE *out)
{
	fprintf(out, "metric_group,region,%s,metric,value,unit,status,scaled,images,images_counted,"
		"time_ns,missing,why,formula\n", summary_by_name(s->opt.by));
	rows_each(s, csv_row, out);
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
