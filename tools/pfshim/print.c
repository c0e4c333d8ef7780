/*
 * print.c: a summary as text (like perf stat's, for a person), JSON
 * (schema pfshim.summary) or CSV, for scripts. docs/pfshim.md has the
 * schemas.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "tools/pfshim/summary.h"

/* 1234567 -> "1,234,567"; a scaled value (the clocks) -> "1234.57" with 2 decimals. */
static void value_format(const struct summary_event *e, const struct summary_sum *v, char *out,
			 size_t size)
{
	char digits[32];
	size_t n, o = 0;

	if (!v->counted) {	/* as perf stat says it */
		snprintf(out, size, v->not_supported ? "<not supported>" : "<not counted>");
		return;
	}
	if (e->scale != 1.0) {
		snprintf(out, size, "%.2f", (double)v->value * e->scale);
		return;
	}
	n = (size_t)snprintf(digits, sizeof(digits), "%" PRIu64, v->value);
	for (size_t i = 0; i < n && o + 2 < size; i++) {
		if (i && (n - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
}

/* Programs by their first event's sum (task-clock by default), largest first. */
static int program_cmp(const void *a, const void *b)
{
	const struct summary_program *x = a, *y = b;
	uint64_t vx = x->sums ? x->sums[0].value : 0, vy = y->sums ? y->sums[0].value : 0;

	if (vx != vy)
		return vx < vy ? 1 : -1;
	return strcmp(x->name, y->name);
}

static struct summary_program *programs_sorted(const struct summary *s)
{
	struct summary_program *p = malloc((size_t)(s->nr_programs ? s->nr_programs : 1) * sizeof(*p));

	if (!p)
		return NULL;
	if (s->nr_programs)	/* none: a job whose processes all died without a report */
		memcpy(p, s->programs, (size_t)s->nr_programs * sizeof(*p));
	if (s->nr_events && s->nr_programs)
		qsort(p, (size_t)s->nr_programs, sizeof(*p), program_cmp);
	return p;
}

void summary_print_text(const struct summary *s, const char *title, const char *where, FILE *out)
{
	struct summary_program *sorted = programs_sorted(s);
	int name_width = 20;
	char v[48];

	for (int p = 0; p < s->nr_programs; p++)
		if ((int)strlen(s->programs[p].name) > name_width)
			name_width = (int)strlen(s->programs[p].name);
	fprintf(out, "\n pfshim: Performance counter stats for %s%s%s (%" PRIu64 " processes, %" PRIu64
		" reports, %d programs):\n\n", title ? "'" : "", title ? title : "the job",
		title ? "'" : "", s->processes, s->reports, s->nr_programs);
	for (int i = 0; i < s->nr_events; i++) {
		value_format(&s->events[i], &s->totals[i], v, sizeof(v));
		fprintf(out, " %18s %-5s %s\n", v, s->events[i].unit, s->events[i].name);
	}
	fprintf(out, "\n %-*s %8s", name_width, "per program", "reports");
	for (int i = 0; i < s->nr_events; i++) {
		char head[96];

		snprintf(head, sizeof(head), "%s%s%s", s->events[i].name,
			 *s->events[i].unit ? " " : "", s->events[i].unit);
		fprintf(out, " %*s", (int)(strlen(head) > 14 ? strlen(head) : 14), head);
	}
	fputc('\n', out);
	for (int p = 0; sorted && p < s->nr_programs; p++) {
		fprintf(out, " %-*s %8" PRIu64, name_width, sorted[p].name, sorted[p].reports);
		for (int i = 0; i < s->nr_events; i++) {
			size_t w = strlen(s->events[i].name) +
				   (*s->events[i].unit ? strlen(s->events[i].unit) + 1 : 0);

			value_format(&s->events[i], &sorted[p].sums[i], v, sizeof(v));
			fprintf(out, " %*s", (int)(w > 14 ? w : 14), v);
		}
		fputc('\n', out);
	}
	if (s->skipped)
		fprintf(out, "\n pfshim: %" PRIu64 " inputs skipped (named above)\n", s->skipped);
	if (where)
		fprintf(out, "\n pfshim: the reports are in %s (pfshim report %s)\n", where, where);
	fputc('\n', out);
	free(sorted);
}

static json_t *sum_json(const struct summary_sum *v)
{
	return v->counted ? json_integer((json_int_t)v->value) : json_null();
}

void summary_print_json(const struct summary *s, FILE *out)
{
	json_t *root = json_object(), *events = json_array(), *programs = json_array();

	json_object_set_new(root, "schema", json_string("pfshim.summary"));
	json_object_set_new(root, "version", json_integer(1));
	json_object_set_new(root, "reports", json_integer((json_int_t)s->reports));
	json_object_set_new(root, "processes", json_integer((json_int_t)s->processes));
	json_object_set_new(root, "skipped", json_integer((json_int_t)s->skipped));
	for (int i = 0; i < s->nr_events; i++)
		json_array_append_new(events, json_pack("{s:s, s:s, s:f, s:o, s:I, s:I}",
			"name", s->events[i].name, "unit", s->events[i].unit,
			"scale", s->events[i].scale, "value", sum_json(&s->totals[i]),
			"counted", (json_int_t)s->totals[i].counted,
			"not_supported", (json_int_t)s->totals[i].not_supported));
	for (int p = 0; p < s->nr_programs; p++) {
		json_t *sums = json_array();

		for (int i = 0; i < s->nr_events; i++)
			json_array_append_new(sums, json_pack("{s:s, s:o, s:I, s:I}",
				"name", s->events[i].name, "value", sum_json(&s->programs[p].sums[i]),
				"counted", (json_int_t)s->programs[p].sums[i].counted,
				"not_supported", (json_int_t)s->programs[p].sums[i].not_supported));
		json_array_append_new(programs, json_pack("{s:s, s:I, s:o}",
			"program", s->programs[p].name, "reports", (json_int_t)s->programs[p].reports,
			"events", sums));
	}
	json_object_set_new(root, "events", events);
	json_object_set_new(root, "programs", programs);
	json_dumpf(root, out, JSON_COMPACT | JSON_REAL_PRECISION(15));
	fputc('\n', out);
	json_decref(root);
}

/* A field quoted as RFC 4180 asks when it holds a comma, a quote or a line break. */
static void csv_field(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void csv_row(FILE *out, const char *scope, const char *program, uint64_t reports,
		    const struct summary_event *e, const struct summary_sum *v)
{
	fprintf(out, "%s,", scope);
	csv_field(out, program);
	fprintf(out, ",%" PRIu64 ",", reports);
	csv_field(out, e->name);
	if (v->counted)
		fprintf(out, ",%" PRIu64, v->value);
	else
		fputc(',', out);
	fprintf(out, ",%" PRIu64 ",", v->counted);
	csv_field(out, e->unit);
	fprintf(out, ",%.15g\n", e->scale);
}

void summary_print_csv(const struct summary *s, FILE *out)
{
	fputs("scope,program,reports,event,value,counted,unit,scale\n", out);
	for (int i = 0; i < s->nr_events; i++)
		csv_row(out, "total", "", s->reports, &s->events[i], &s->totals[i]);
	for (int p = 0; p < s->nr_programs; p++)
		for (int i = 0; i < s->nr_events; i++)
			csv_row(out, "program", s->programs[p].name, s->programs[p].reports,
				&s->events[i], &s->programs[p].sums[i]);
}
