/* SPDX-License-Identifier: MIT */
/*
 * metrics.c: `pfshim report --metrics` (docs/pfshim.md, "Metrics"): the
 * model's metric rows as text for a person, one JSON object, one CSV table.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>

#include "export/buf.h"
#include "tools/pfshim/model/metric_sums.h"
#include "tools/pfshim/view/view.h"

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
	enum metric_row_status st = metric_row_value(d, c, &v);

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
	metric_rows_each(s, text_row, &t);
	fputc('\n', out);
}

static json_t *inputs_json(const struct def *d, const struct cell *c)
{
	json_t *a = json_array();

	for (int k = 0; k < d->nr_inputs; k++) {
		const struct input *in = &d->inputs[k];
		json_t *o = json_object();

		json_object_set_new(o, "name", json_string(in->name));
		json_object_set_new(o, "source", json_string(report_input_source_name(in->source)));
		json_object_set_new(o, "event", in->source == INPUT_EVENT ?
				    json_string(in->event) : json_null());
		json_object_set_new(o, "sum", in->source == INPUT_EVENT && c->counted ?
				    json_integer((json_int_t)c->sums[k]) : json_null());
		json_object_set_new(o, "value", in->source == INPUT_INVERSE_CLOCK ?
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
	enum metric_row_status st = metric_row_value(d, c, &v);

	json_object_set_new(o, "metric_group", json_string(m->groups.name[d->group]));
	json_object_set_new(o, "region", region < 0 ? json_null() : json_string(m->regions.name[region]));
	json_object_set_new(o, "group", group < 0 ? json_null() : json_string(metric_group_name(s, group)));
	json_object_set_new(o, "name", json_string(d->name));
	json_object_set_new(o, "unit", json_string(d->unit));
	json_object_set_new(o, "value", st == METRIC_ROW_COMPUTED ? json_real(v) : json_null());
	json_object_set_new(o, "status", json_string(metric_row_status_name(st)));
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
	metric_rows_each(s, json_row, rows);
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
	enum metric_row_status st = metric_row_value(d, c, &v);

	csv_field(out, m->groups.name[d->group]);
	fputc(',', out);
	csv_field(out, region < 0 ? "" : m->regions.name[region]);
	fputc(',', out);
	csv_field(out, metric_group_name(s, group));
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
	fprintf(out, ",%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",", metric_row_status_name(st),
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
	metric_rows_each(s, csv_row, out);
}
