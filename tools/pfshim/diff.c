/* SPDX-License-Identifier: MIT */
/*
 * diff.c: `pfshim diff A B`, or `pfshim diff A1 A2 -- B1 B2`: two jobs (or
 * sets of runs of one job) read as `pfshim report` reads them, compared row
 * by row (totals, programs, regions) with each side's noise beside the
 * change. The repeats are the runs when a side has several, else each
 * program's images. A view of const summaries: it reads the model only.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/version.h"
#include "tools/pfshim/diff.h"
#include "tools/pfshim/model/spread.h"
#include "tools/pfshim/read/read.h"
#include "tools/pfshim/view/view.h"

static const char usage_diff[] =
"Usage: pfshim diff [OPTIONS] A B\n"
"       pfshim diff [OPTIONS] A1 A2... -- B1 B2...\n"
"\n"
"Compare two jobs, A (before) and B (after): each a directory of reports, a\n"
"file of one report or JSON Lines, as `pfshim report` reads them. Several\n"
"inputs on a side, separated by --, are repeated runs of the job: each is\n"
"combined on its own, and a row's value is the mean over the side's runs.\n"
"With one input a side, the repeats of a program's row are its images (its\n"
"processes): the value is the mean per image.\n"
"\n"
"For each event of the totals, of each program and of each region (its calls,\n"
"wall time and events), one row: A's value, its noise, B's, its noise, the\n"
"ratio B/A and the change in percent. The noise (\"+-\") is the standard\n"
"deviation of the mean in percent of it, as perf stat -r prints it; \"beyond\n"
"noise\" means A's and B's min..max over their repeats do not overlap,\n"
"\"within noise\" that they do; nothing is said without repeats.\n"
"\n"
"  -e, --events LIST    only these events (comma list)\n"
"  -r, --regions LIST   only these regions (comma list)\n"
"  -A, --any-owner      read other users' files found in directories too\n"
"  --json               one JSON object, schema \"pfshim.diff\" version 1\n"
"  -h, --help           this text\n"
"\n"
"Exit status: 0, or 2 for a usage error or a side of which no report was read.\n";

enum row_scope { ROW_TOTAL, ROW_PROGRAM, ROW_REGION };

/* One side: its inputs, each combined on its own. */
struct side {
	char **paths;
	int n;
	struct summary *runs;	/* [n] */
};

struct row {
	enum row_scope scope;
	const char *name;	/* program or region, NULL for the totals */
	const char *metric;	/* event, or for a region "calls" or "wall" */
	struct summary_event event;	/* its unit and scale */
	struct spread a, b;
};

static int event_find(const struct summary *s, const char *name)
{
	for (int i = 0; i < s->nr_events; i++)
		if (strcmp(s->events[i].name, name) == 0)
			return i;
	return -1;
}

/* @metric of region @r in @s: its sum over groups, or its calls; false when not counted. */
static bool region_value(const struct summary *s, int r, const char *metric, double *v)
{
	struct summary_stats st;
	int m;

	if (strcmp(metric, "calls") == 0) {
		summary_region_stats(s, r, 0, &st);
		*v = (double)st.calls;
		return true;
	}
	m = names_find(&s->metrics, metric);
	if (m < 0)
		return false;
	summary_region_stats(s, r, m, &st);
	*v = (double)st.sum;
	return st.counted;
}

/* One run's value of @row, or false when it has none. */
static bool run_value(const struct summary *s, const struct row *row, double *v)
{
	const struct summary_sum *sum;
	int e, g, r;

	if (row->scope == ROW_REGION) {
		r = names_find(&s->region_names, row->name);
		return r >= 0 && region_value(s, r, row->metric, v);
	}
	e = event_find(s, row->metric);
	if (e < 0)
		return false;
	if (row->scope == ROW_TOTAL) {
		sum = s->job ? &s->job->total_sums[e] : &s->totals[e];
	} else {
		g = names_find(&s->group_keys, row->name);
		if (g < 0 || !s->groups[g].images)
			return false;
		sum = &s->groups[g].sums[e];
	}
	*v = (double)sum->value;
	return sum->counted != 0;
}

/* The repeats of @row on @sd: its runs', or (@per_image) one run's images of the program. */
static void side_spread(const struct side *sd, const struct row *row, bool per_image, struct spread *sp)
{
	const struct summary *s = &sd->runs[0];
	double *x;
	int n = 0;

	if (per_image && row->scope == ROW_PROGRAM) {
		int e = event_find(s, row->metric), p = names_find(&s->programs, row->name);

		x = xrealloc(NULL, (size_t)(s->nr_images + 1) * sizeof(*x));
		for (int i = 0; e >= 0 && p >= 0 && i < s->nr_images; i++) {
			const struct summary_image *im = &s->image_list[i];

			if (im->program == p && e < im->nr_values && im->value[e] != UINT64_MAX)
				x[n++] = (double)im->value[e];
		}
	} else {
		x = xrealloc(NULL, (size_t)sd->n * sizeof(*x));
		for (int k = 0; k < sd->n; k++)
			if (run_value(&sd->runs[k], row, &x[n]))
				n++;
	}
	spread_of(x, n, sp);
	free(x);
}

/* The rows in order: totals by event, then each program by event, then each region. */
struct rows {
	struct row *row;
	int n;
	struct names events, programs, regions, metrics;
	struct summary_event *event;	/* [events.n], then [metrics.n] after them */
};

static void rows_add(struct rows *l, enum row_scope scope, const char *name, const char *metric,
		     struct summary_event e)
{
	l->row = xrealloc(l->row, (size_t)(l->n + 1) * sizeof(*l->row));
	l->row[l->n++] = (struct row){ .scope = scope, .name = name, .metric = metric, .event = e };
}

static struct summary_event metric_event(const struct side *sides, const char *metric)
{
	if (strcmp(metric, "wall") == 0)
		return (struct summary_event){ "wall", "msec", 1e-6 };
	if (strcmp(metric, "calls") == 0)
		return (struct summary_event){ "calls", "", 1.0 };
	for (int side = 0; side < 2; side++)
		for (int k = 0; k < sides[side].n; k++) {
			int e = event_find(&sides[side].runs[k], metric);

			if (e >= 0)
				return sides[side].runs[k].events[e];
		}
	return (struct summary_event){ (char *)metric, "", 1.0 };
}

static void rows_build(struct rows *l, const struct side *sides, bool per_image)
{
	for (int side = 0; side < 2; side++)
		for (int k = 0; k < sides[side].n; k++) {
			const struct summary *s = &sides[side].runs[k];
			int *sorted = summary_groups_sorted(s);

			for (int i = 0; i < s->nr_events; i++)
				names_add(&l->events, s->events[i].name);
			for (int g = 0; g < s->nr_groups; g++)
				if (s->groups[sorted[g]].images)
					names_add(&l->programs, s->groups[sorted[g]].name);
			for (int r = 0; r < s->region_names.n; r++)
				names_add(&l->regions, s->region_names.name[r]);
			for (int m = 0; m < s->metrics.n; m++)
				names_add(&l->metrics, s->metrics.name[m]);
			free(sorted);
		}
	for (int i = 0; i < l->events.n; i++)
		rows_add(l, ROW_TOTAL, NULL, l->events.name[i], metric_event(sides, l->events.name[i]));
	for (int p = 0; p < l->programs.n; p++)
		for (int i = 0; i < l->events.n; i++)
			rows_add(l, ROW_PROGRAM, l->programs.name[p], l->events.name[i],
				 metric_event(sides, l->events.name[i]));
	for (int r = 0; r < l->regions.n; r++) {
		rows_add(l, ROW_REGION, l->regions.name[r], "calls", metric_event(sides, "calls"));
		for (int m = 0; m < l->metrics.n; m++)
			rows_add(l, ROW_REGION, l->regions.name[r], l->metrics.name[m],
				 metric_event(sides, l->metrics.name[m]));
	}
	for (int i = 0; i < l->n; i++) {
		side_spread(&sides[0], &l->row[i], per_image, &l->row[i].a);
		side_spread(&sides[1], &l->row[i], per_image, &l->row[i].b);
	}
}

static void rows_free(struct rows *l)
{
	free(l->row);
	names_free(&l->events);
	names_free(&l->programs);
	names_free(&l->regions);
	names_free(&l->metrics);
}

/* B/A; false when A is 0 and B is not (no finite ratio). */
static bool row_ratio(const struct row *r, double *ratio)
{
	if (!r->a.n || !r->b.n)
		return false;
	if (r->a.mean == 0) {
		*ratio = 1.0;
		return r->b.mean == 0;
	}
	*ratio = r->b.mean / r->a.mean;
	return true;
}

static const char *row_noise(const struct row *r)
{
	if (!r->a.n || !r->b.n || (r->a.n < 2 && r->b.n < 2))
		return "";
	return spread_apart(&r->a, &r->b) ? "beyond noise" : "within noise";
}

/* "1,234 +-0.50%", or "-" for a side without the row. */
static void side_format(const struct row *r, const struct spread *sp, char *v, size_t vsize,
			char *noise, size_t nsize)
{
	if (!sp->n) {
		snprintf(v, vsize, "-");
		snprintf(noise, nsize, " ");
		return;
	}
	summary_mean_format(&r->event, sp->mean, v, vsize);
	if (sp->n < 2)
		snprintf(noise, nsize, " ");
	else
		snprintf(noise, nsize, "+-%.2f%%", spread_percent(sp));
}

static void print_scope(const struct rows *l, int i, const struct side *sides, bool per_image, FILE *out)
{
	const struct row *r = &l->row[i];

	if (r->scope == ROW_TOTAL) {
		fputs(" total\n", out);
	} else if (r->scope == ROW_REGION) {
		fprintf(out, " region '%s'\n", r->name);
	} else if (per_image) {
		int a = names_find(&sides[0].runs[0].group_keys, r->name);
		int b = names_find(&sides[1].runs[0].group_keys, r->name);

		fprintf(out, " program '%s' (per image: A %" PRIu64 ", B %" PRIu64 " images)\n", r->name,
			a >= 0 ? sides[0].runs[0].groups[a].images : 0,
			b >= 0 ? sides[1].runs[0].groups[b].images : 0);
	} else {
		fprintf(out, " program '%s'\n", r->name);
	}
}

static void print_text(const struct rows *l, const struct side *sides, bool per_image, FILE *out)
{
	fprintf(out, "\n pfshim diff: A = ");
	for (int side = 0; side < 2; side++) {
		for (int k = 0; k < sides[side].n; k++)
			fprintf(out, "%s%s", k ? " " : "", sides[side].paths[k]);
		fprintf(out, " (%d %s)%s", sides[side].n, sides[side].n == 1 ? "run" : "runs",
			side ? "\n" : ", B = ");
	}
	fprintf(out, " value: %s; +-: the standard deviation of the mean, %% of it (as perf stat -r);\n"
		" change: B/A - 1; beyond noise: A's and B's min..max over their repeats do not overlap\n\n",
		per_image ? "the sum, a program's the mean per image" : "the mean over the runs");
	fprintf(out, " %-30s %15s %9s %15s %9s %8s %9s\n", "", "A", "", "B", "", "B/A", "change");
	for (int i = 0; i < l->n; i++) {
		const struct row *r = &l->row[i];
		char head[400], a[48], an[32], b[48], bn[32], ratio_s[32] = "-", change[32] = "-";
		double ratio;

		if (!r->a.n && !r->b.n)
			continue;
		if (!i || r->scope != l->row[i - 1].scope || r->name != l->row[i - 1].name)
			print_scope(l, i, sides, per_image, out);
		snprintf(head, sizeof(head), "%s%s%s", r->metric, *r->event.unit ? " " : "", r->event.unit);
		side_format(r, &r->a, a, sizeof(a), an, sizeof(an));
		side_format(r, &r->b, b, sizeof(b), bn, sizeof(bn));
		if (row_ratio(r, &ratio)) {
			snprintf(ratio_s, sizeof(ratio_s), "%.3f", ratio);
			snprintf(change, sizeof(change), "%+.2f%%", 100 * (ratio - 1));
		}
		fprintf(out, "   %-28s %15s %9s %15s %9s %8s %9s%s%s\n", head, a, an, b, bn, ratio_s, change,
			*row_noise(r) ? "  " : "", row_noise(r));
	}
}

static json_t *spread_json(const struct spread *sp)
{
	if (!sp->n)
		return json_null();
	return json_pack("{s:i, s:f, s:f, s:f, s:f}", "n", sp->n, "mean", sp->mean, "min", sp->min,
			 "max", sp->max, "stddev", sp->stddev);
}

static json_t *inputs_json(const struct side *sd)
{
	json_t *a = json_array();

	for (int k = 0; k < sd->n; k++)
		json_array_append_new(a, json_string(sd->paths[k]));
	return a;
}

static void print_json(const struct rows *l, const struct side *sides, bool per_image, FILE *out)
{
	static const char *const scope[] = { "total", "program", "region" };
	json_t *root = json_object(), *rows = json_array();

	json_object_set_new(root, "schema", json_string("pfshim.diff"));
	json_object_set_new(root, "version", json_integer(1));
	json_object_set_new(root, "pfshim_version", json_string(pfshim_version));
	json_object_set_new(root, "repeats", json_string(per_image ? "images" : "runs"));
	json_object_set_new(root, "a", inputs_json(&sides[0]));
	json_object_set_new(root, "b", inputs_json(&sides[1]));
	for (int i = 0; i < l->n; i++) {
		const struct row *r = &l->row[i];
		const char *noise = row_noise(r);
		double ratio;
		bool have = row_ratio(r, &ratio);

		if (!r->a.n && !r->b.n)
			continue;
		json_array_append_new(rows, json_pack("{s:s, s:o, s:s, s:s, s:f, s:o, s:o, s:o, s:o, s:o}",
			"scope", scope[r->scope], "name", r->name ? json_string(r->name) : json_null(),
			"event", r->metric, "unit", r->event.unit, "scale", r->event.scale,
			"a", spread_json(&r->a), "b", spread_json(&r->b),
			"ratio", have ? json_real(ratio) : json_null(),
			"change_percent", have ? json_real(100 * (ratio - 1)) : json_null(),
			"beyond_noise", *noise ? json_boolean(strcmp(noise, "beyond noise") == 0) : json_null()));
	}
	json_object_set_new(root, "rows", rows);
	json_dumpf(root, out, JSON_COMPACT | JSON_REAL_PRECISION(15));
	fputc('\n', out);
	json_decref(root);
}

/* Read each input of @sd into its own summary; -1 when one could not be read or held no report. */
static int side_read(struct side *sd, const char *label, const char *events, const char *regions,
		     bool any_owner, bool per_image)
{
	int ret = 0;

	sd->runs = xrealloc(NULL, (size_t)sd->n * sizeof(*sd->runs));
	for (int k = 0; k < sd->n; k++) {
		struct summary_options opt = { .by = BY_PROGRAM, .any_owner = any_owner,
					       .images = per_image };
		struct summary *s = &sd->runs[k];

		if (events)
			names_add_list(&opt.events, events);
		if (regions)
			names_add_list(&opt.regions, regions);
		summary_init(s, &opt);
		if (summary_add_path(s, sd->paths[k]) < 0) {
			fprintf(stderr, "pfshim diff: %s: %s could not be read\n", label, sd->paths[k]);
			ret = -1;
		} else if (!s->reports && !s->job) {
			summary_finish(s);
			fprintf(stderr, "pfshim diff: %s: no report in %s\n", label, sd->paths[k]);
			ret = -1;
		} else {
			summary_finish(s);
		}
	}
	return ret;
}

int cmd_diff(int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "events", required_argument, NULL, 'e' },
		{ "regions", required_argument, NULL, 'r' },
		{ "any-owner", no_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *events = NULL, *regions = NULL;
	struct side sides[2] = { 0 };
	struct rows l = { 0 };
	bool json = false, any_owner = false, per_image, separated;
	char **before = xrealloc(NULL, (size_t)argc * sizeof(*before));
	int c, n = 0, ret = 0;

	/* "-": operands in order, as code 1, so that those before -- are told from those after */
	while ((c = getopt_long(argc, argv, "-e:r:Ah", options, NULL)) != -1) {
		switch (c) {
		case 1: before[n++] = optarg; break;
		case 'j': json = true; break;
		case 'e': events = optarg; break;
		case 'r': regions = optarg; break;
		case 'A': any_owner = true; break;
		case 'h': fputs(usage_diff, stdout); free(before); return 0;
		default: fputs(usage_diff, stderr); free(before); return 2;
		}
	}
	separated = optind < argc || strcmp(argv[argc - 1], "--") == 0;
	if (separated) {
		sides[0] = (struct side){ .paths = before, .n = n };
		sides[1] = (struct side){ .paths = argv + optind, .n = argc - optind };
	} else if (n == 2) {
		sides[0] = (struct side){ .paths = before, .n = 1 };
		sides[1] = (struct side){ .paths = before + 1, .n = 1 };
	}
	if (!sides[0].n || !sides[1].n) {
		fprintf(stderr, "pfshim diff: give A B, or A1 A2... -- B1 B2... (pfshim diff --help)\n");
		free(before);
		return 2;
	}
	per_image = sides[0].n == 1 && sides[1].n == 1;
	if (side_read(&sides[0], "A", events, regions, any_owner, per_image) < 0)
		ret = 2;
	if (side_read(&sides[1], "B", events, regions, any_owner, per_image) < 0)
		ret = 2;
	if (ret == 0) {
		rows_build(&l, sides, per_image);
		if (json)
			print_json(&l, sides, per_image, stdout);
		else
			print_text(&l, sides, per_image, stdout);
		if (fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "pfshim diff: stdout: %s\n", strerror(errno ? errno : EIO));
			ret = 2;
		}
		rows_free(&l);
	}
	for (int side = 0; side < 2; side++) {
		for (int k = 0; k < sides[side].n; k++)
			summary_free(&sides[side].runs[k]);
		free(sides[side].runs);
	}
	free(before);
	return ret;
}
