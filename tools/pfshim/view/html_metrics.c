/* SPDX-License-Identifier: MIT */
/*
 * html_metrics.c: the page's metrics of PFSHIM_GROUP: per group file one
 * table of the reports' totals and one per marker region, a row for the
 * job and each --by group, a column per metric. Every
 * value is the model's (model/metrics.c: the formula over the summed
 * events, written as the text view writes it); this file only lays the
 * rows out. When the group
 * has LIKWID's top-down level 1 metrics (its TMA groups' names), each row
 * gets a stacked bar of the four.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/pfshim/view/html.h"
#include "tools/pfshim/model/metrics.h"

#define ROWS_MAX 500		/* groups shown, as the per-group table */
#define BAR_W 200		/* a top-down bar's width in px */

/* LIKWID's TMA groups' level 1, in the method's order, in percent; the bar's colours. */
static const struct {
	const char *name, *color;
} topdown[] = {
	{ "Front End", "#1f77b4" },
	{ "Speculation", "#d62728" },
	{ "Retiring", "#2ca02c" },
	{ "Back End", "#ff7f0e" },
};

#define NR_TOPDOWN (sizeof(topdown) / sizeof(topdown[0]))

struct rows {
	int n;
	struct metric_row *row;
};

static void row_keep(const struct metric_row *row, void *ctx)
{
	struct rows *r = ctx;

	r->row = xrealloc(r->row, ((size_t)r->n + 1) * sizeof(*r->row));
	r->row[r->n++] = *row;
}

/* The value's tooltip: its formula, or why it has none; the images that did not count it. */
static void cell_title(FILE *out, const struct metric_row *row)
{
	char text[64];

	if (row->status == METRIC_ROW_UNUSABLE) {
		html_text(out, row->why);
		return;
	}
	if (row->status == METRIC_ROW_UNDEFINED)
		html_text(out, "undefined: its formula divides by zero, ");
	html_text(out, row->formula);
	if (row->counted < row->images) {
		snprintf(text, sizeof(text), " in %" PRIu64 " of %" PRIu64 " images",
			 row->images - row->counted, row->images);
		html_text(out, "; ");
		html_text(out, row->missing ? row->missing : "?");
		html_text(out, ": ");
		html_text(out, row->why ? row->why : "not counted");
		html_text(out, text);
		html_text(out, row->counted ? "; the value is the others'" : "");
	}
	else if (row->status == METRIC_ROW_NOT_COUNTED)
		html_text(out, "; a name of the formula has no value");
	if (row->scaled && row->status == METRIC_ROW_COMPUTED)
		html_text(out, "; from scaled (multiplexed) counts");
}

static void cell(FILE *out, const struct metric_row *row)
{
	char text[64];

	metric_row_text(row, text, sizeof(text));
	fputs("<td class=\"", out);
	fputs(row->status == METRIC_ROW_COMPUTED ? "num" : "num na", out);
	if (row->status == METRIC_ROW_COMPUTED && row->counted < row->images)
		fputs(" partial", out);
	fputs("\" data-metric=\"", out);
	html_text(out, row->name);
	if (row->status == METRIC_ROW_COMPUTED)
		fprintf(out, "\" data-value=\"%.17g", row->value);
	fputs("\" title=\"", out);
	cell_title(out, row);
	fputs("\">", out);
	html_text(out, text);
	fputs("</td>", out);
}

/*
 * A row's top-down bar: each of the four as its share of their sum (a
 * negative one, which a measured split can give, as 0); none when one of
 * them has no value.
 */
static void topdown_bar(FILE *out, const struct metric_row *const *td)
{
	double sum = 0, x = 0;
	char text[64];

	for (size_t i = 0; i < NR_TOPDOWN; i++) {
		if (!td[i] || td[i]->status != METRIC_ROW_COMPUTED) {
			fputs("<td class=\"na\" title=\"", out);
			html_text(out, topdown[i].name);
			html_text(out, td[i] ? " has no value" : " is not in this row");
			fputs("\">&ndash;</td>", out);
			return;
		}
		sum += td[i]->value > 0 ? td[i]->value : 0;
	}
	if (!(sum > 0)) {
		fputs("<td class=\"na\" title=\"the four are 0\">&ndash;</td>", out);
		return;
	}
	fprintf(out, "<td class=\"topdown\"><svg class=\"topdown\" viewBox=\"0 0 %d 14\" width=\"%d\" "
		"height=\"14\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">", BAR_W, BAR_W);
	for (size_t i = 0; i < NR_TOPDOWN; i++) {
		double w = (td[i]->value > 0 ? td[i]->value : 0) / sum * BAR_W;

		metric_row_text(td[i], text, sizeof(text));
		fprintf(out, "<rect class=\"seg\" data-metric=\"%s\" x=\"%.3f\" y=\"0\" width=\"%.3f\" "
			"height=\"14\" fill=\"%s\"><title>%s: ", topdown[i].name, x, w, topdown[i].color,
			topdown[i].name);
		html_text(out, text);
		fputs(" %</title></rect>", out);
		x += w;
	}
	fputs("</svg></td>", out);
}

/* The top-down metrics' rows among @row[0..n), NULL where absent; true when all four are there. */
static bool topdown_find(const struct metric_row *row, int n, const struct metric_row **td)
{
	bool all = true;

	for (size_t t = 0; t < NR_TOPDOWN; t++) {
		td[t] = NULL;
		for (int i = 0; i < n && !td[t]; i++)
			if (!strcmp(row[i].name, topdown[t].name) && !strcmp(row[i].unit, "%"))
				td[t] = &row[i];
		all &= td[t] != NULL;
	}
	return all;
}

/*
 * One table of a group file, the reports' totals or one region's: its rows
 * are @row[0..n), the job's first, a --by group's next.
 */
static void group_table(FILE *out, const struct summary *s, const struct metric_row *row, int n)
{
	const char *by = summary_by_name(s->opt.by);
	const struct metric_row *td[NR_TOPDOWN];
	int nc, groups = 0;
	bool bars;
	char name[300];

	/* the columns: the job's row, which has every metric of the group file */
	for (nc = 0; nc < n && row[nc].group == row[0].group; nc++)
		;
	bars = topdown_find(row, nc, td);
	fputs("<h3>", out);
	html_text(out, row[0].metric_group);
	if (row[0].region) {
		fputs(", region ", out);
		html_text(out, row[0].region);
	}
	fputs("</h3>\n", out);
	if (bars) {
		fputs("<p class=\"legend\">Top-down level 1, each bar the four's shares of their sum:", out);
		for (size_t t = 0; t < NR_TOPDOWN; t++)
			fprintf(out, " <span class=\"swatch\" style=\"background:%s\"></span> %s",
				topdown[t].color, topdown[t].name);
		fputs("</p>\n", out);
	}
	fputs("<div class=\"wide\"><table class=\"metrics\" data-metric-group=\"", out);
	html_text(out, row[0].metric_group);
	fputs("\" data-region=\"", out);
	html_text(out, row[0].region ? row[0].region : "");
	fprintf(out, "\"><tr><th>%s</th>", by);
	if (bars)
		fputs("<th>top-down</th>", out);
	for (int c = 0; c < nc; c++) {
		fputs("<th data-metric=\"", out);
		html_text(out, row[c].name);
		fputs("\" title=\"", out);
		html_text(out, row[c].formula);
		fputs("\">", out);
		html_text(out, row[c].name);
		if (*row[c].unit) {
			fputs("<br><span class=\"unit\">[", out);
			html_text(out, row[c].unit);
			fputs("]</span>", out);
		}
		fputs("</th>", out);
	}
	fputs("</tr>\n", out);
	for (int i = 0, end; i < n; i = end) {
		for (end = i; end < n && row[end].group == row[i].group; end++)
			;
		if (row[i].group >= 0 && groups++ >= ROWS_MAX)
			continue;
		if (row[i].group < 0)
			snprintf(name, sizeof(name), "all");
		else
			html_group_name(s, row[i].group, name, sizeof(name));
		fputs("<tr class=\"metric-row\" data-group=\"", out);
		html_text(out, row[i].group < 0 ? "" : s->groups[row[i].group].name);
		fputs("\"><td title=\"", out);
		html_text(out, name);
		fputs("\">", out);
		html_label(out, name, HTML_NAME_CHARS);
		fputs("</td>", out);
		if (bars) {
			topdown_find(row + i, end - i, td);
			topdown_bar(out, td);
		}
		for (int c = 0; c < nc; c++) {
			int k = i;

			while (k < end && row[k].column != row[c].column)
				k++;
			if (k < end)
				cell(out, &row[k]);
			else
				fputs("<td class=\"num na\" title=\"no report of this row has it\">&ndash;</td>",
				      out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table></div>\n", out);
	if (groups > ROWS_MAX)
		fprintf(out, "<p class=\"note\">The job and the first %d of %d %ss shown; "
			"<code>pfshim report --metrics --csv</code> has them all.</p>\n", ROWS_MAX, groups,
			by);
}

static bool same_region(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

void html_metrics(const struct summary *s, FILE *out)
{
	struct rows r = { 0, NULL };
	const char *by = summary_by_name(s->opt.by);

	metric_sums_each(s, row_keep, &r);
	if (!r.n)
		return;
	fprintf(out, "<h2>Metrics</h2>\n<p>The metrics of <code>PFSHIM_GROUP</code> (or "
		"<code>PFSHIM_METRICS</code>) for the job and each %s, over the reports' totals "
		"and then over each marker region: each metric's events summed over the process "
		"images, then its formula "
		"computed once from the sums (never a mean of ratios), as <code>pfshim report "
		"--metrics</code> prints them. A grey cell has no value: its tooltip says why; a "
		"value's tooltip gives its formula.</p>\n", by);
	/*
	 * The rows come a group file at a time, its totals then each region,
	 * each the job's first: one table each.
	 */
	for (int i = 0, end; i < r.n; i = end) {
		for (end = i; end < r.n && !strcmp(r.row[end].metric_group, r.row[i].metric_group) &&
			      same_region(r.row[end].region, r.row[i].region); end++)
			;
		group_table(out, s, r.row + i, end - i);
	}
	free(r.row);
}
