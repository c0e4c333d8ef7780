/* SPDX-License-Identifier: MIT */
/*
 * metrics.c: a report's metrics of PFSHIM_GROUP into the model's sums
 * (model/metric_sums.h). An image whose report could not compute the
 * metric (an event not counted there, or not a region event) adds nothing
 * to the sums but is counted and named, as an event not counted in some
 * images is: the value is then that of the images that counted it, and
 * says so.
 */
#include <stdlib.h>
#include <string.h>

#include "tools/pfshim/model/metric_sums.h"
#include "tools/pfshim/read/read.h"

static struct metric_sums *sums_of(struct summary *s)
{
	if (!s->metric_sums) {
		s->metric_sums = xrealloc(NULL, sizeof(*s->metric_sums));
		memset(s->metric_sums, 0, sizeof(*s->metric_sums));
	}
	return s->metric_sums;
}

static enum report_input_source source_parse(const char *name)
{
	for (int i = INPUT_EVENT; i < INPUT_NONE; i++)
		if (!strcmp(name, report_input_source_name((enum report_input_source)i)))
			return (enum report_input_source)i;
	return INPUT_NONE;
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
		if (d->inputs[i].source == INPUT_EVENT && !*d->inputs[i].event)
			d->inputs[i].source = INPUT_NONE;
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
	const char *not_counted = report_metric_status_name(METRIC_NOT_COUNTED);

	for (int k = 0; strcmp(status, not_counted) != 0 && k < d->nr_inputs; k++)
		if (d->inputs[k].source == INPUT_EVENT &&
		    !count_of(events, d->inputs[k].event, field))
			status = not_counted, missing = d->inputs[k].event, why = "not in the report";
	if (!strcmp(status, not_counted)) {
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
		if (d->inputs[k].source == INPUT_EVENT)
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
		cell_add(metric_cell_get(m, defs[i], group, -1), &m->defs[defs[i]], metric,
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
			cell_add(metric_cell_get(m, defs[i], group, region), &m->defs[defs[i]], metric,
				 json_object_get(total, "events"), "sum", region_ns);
		}
	}
}
