/* SPDX-License-Identifier: MIT */
/*
 * html.c: the combined picture as ONE self-contained HTML page: inline CSS,
 * charts drawn here as inline SVG, no script, no font, nothing fetched. The
 * job's overview and processes first (html_job.c), the metrics of
 * PFSHIM_GROUP (html_metrics.c), then the tables, a bar
 * chart per counted event (one bar per group), a table per region metric
 * (regions by groups, coloured), a line chart per event of the interval
 * series, and the process tree. Every string from a report (program names,
 * hosts, regions, events: all chosen by whoever ran the job) goes through
 * html_text(), so a program named <script> is shown, never run.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/pfshim/view/html.h"

#define CHART_W HTML_CHART_W
#define MAX_BARS 60		/* more groups than this: the first ones, said so */
#define MAX_LINES 8		/* lines per series chart beside the total */

static const char *const palette[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};

/* Text or attribute content: the five characters HTML gives a meaning. */
void html_text(FILE *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default: fputc(*s, out);
		}
	}
}

/*
 * No libm here: it was the command's one use of it, and loading libm.so
 * cost every `pfshim run` 0.06 ms (docs/performance.md).
 */

/* x rounded half away from zero, as lround() for the pixel and tick counts of a chart. */
static long round_half(double x)
{
	if (!(x > -1e15 && x < 1e15))	/* an inf or a NaN from a report's scale: no pixel count */
		return x == x ? (x < 0 ? -1000000000000000L : 1000000000000000L) : 0;
	return x < 0 ? -(long)(-x + 0.5) : (long)(x + 0.5);
}

/*
 * ceil(@x) for a chart's axis: its whole number of steps. Above 2^52 every
 * double is whole already; NaN gives 0. (gcc -O2 inlined libm's ceil(), but
 * -O0 called it, and the command did not link at -O0.)
 */
double html_whole_up(double x)
{
	double w;

	if (!(x > -0x1p52 && x < 0x1p52))
		return x == x ? x : 0;
	w = x < 0 ? -(double)(uint64_t)-x : (double)(uint64_t)x;
	return w < x ? w + 1 : w;
}

/*
 * The ticks of an axis up to @max in steps of @step: about 5 to 10, never
 * more than 20 (a report's scale of 1e308 made the axis infinite, and a
 * page of 10^15 ticks).
 */
int html_ticks_of(double max, double step)
{
	long n = round_half(max / step);

	return n < 0 ? 0 : n > 20 ? 20 : (int)n;
}

/* A bar's width: @x, or 0 when negative or NaN (as fmax(0, x)). */
static double bar_width(double x)
{
	return x > 0 ? x : 0;
}

/* The largest power of ten not above @x (finite, > 0), as pow(10, floor(log10(x))). */
static double decade_below(double x)
{
	double p = 1;

	while (p * 10 <= x)
		p *= 10;
	while (p > x)
		p /= 10;
	return p;
}

/* A tick step of 1, 2 or 5 times a power of ten giving about @n ticks up to @max. */
double html_tick_step(double max, int n)
{
	double raw = max / n, p;

	if (!(raw > 0) || !isfinite(raw))
		return max > 0 && isfinite(max) ? max : 1;	/* one tick: at the end */
	p = decade_below(raw);
	if (!(p > 0))
		return max > 0 && isfinite(max) ? max : 1;
	return raw / p <= 1 ? p : raw / p <= 2 ? 2 * p : raw / p <= 5 ? 5 * p : 10 * p;
}

/* The decimals that show a step below 1: ceil(-log10(@step)). */
static int step_decimals(double step)
{
	int d = 0;

	for (double s = step; s > 0 && s < 1 - 1e-9 && d < 17; s *= 10)
		d++;
	return d;
}

/* A tick label: 0.25, 500; on an axis reaching @max >= 10,000 in k, M or G: 5k, 1.5M. */
void html_tick_format(double v, double step, double max, char *out, size_t size)
{
	if (v == 0)
		snprintf(out, size, "0");
	else if (max >= 1e10 && step >= 1e8)
		snprintf(out, size, "%gG", v / 1e9);
	else if (max >= 1e7 && step >= 1e5)
		snprintf(out, size, "%gM", v / 1e6);
	else if (max >= 1e4 && step >= 1e2)
		snprintf(out, size, "%gk", v / 1e3);
	else if (step >= 1)
		snprintf(out, size, "%.0f", v);
	else
		snprintf(out, size, "%.*f", step_decimals(step), v);
}

/* A value in its unit: counts exact with commas, times with the digits that matter. */
static void value_label(const struct summary_event *e, double v, char *out, size_t size)
{
	if (e->scale != 1.0)
		snprintf(out, size, fabs(v) >= 1 || v == 0 ? "%.2f" : "%.3g", v);
	else
		summary_value_format(e, v < 0 ? 0 : (uint64_t)(v + 0.5), out, size);
}

/* An axis title: "page-faults (count)", "task-clock (msec)". */
static void axis_title(FILE *out, const struct summary_event *e)
{
	html_text(out, e->name);
	fputs(" (", out);
	html_text(out, *e->unit ? e->unit : "count");
	fputc(')', out);
}

#define LABEL_MAX 40	/* characters of a bar's label; the rest is in its tooltip */

/* Characters (not bytes) of a UTF-8 label, at most @max. */
static int label_chars(const char *s, int max)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n > max ? max : n;
}

void html_label(FILE *out, const char *s, int max)
{
	size_t len = strlen(s), head, tail;
	char *cut;

	if (label_chars(s, max) < max || len <= (size_t)max) {
		html_text(out, s);
		return;
	}
	head = (size_t)max / 2 - 2;
	tail = (size_t)max / 2 - 1;
	while (head && ((unsigned char)s[head] & 0xc0) == 0x80)	/* no cut inside a character */
		head--;
	while (tail < len && ((unsigned char)s[len - tail] & 0xc0) == 0x80)
		tail++;
	cut = xrealloc(NULL, head + 4 + tail + 1);
	memcpy(cut, s, head);
	memcpy(cut + head, "...", 3);
	memcpy(cut + head + 3, s + len - tail, tail + 1);
	html_text(out, cut);
	free(cut);
}

struct bars {
	const char *kind;		/* class: "bars" or "region" */
	const struct summary_event *e;	/* unit and scale of the values */
	int n, total;			/* bars drawn, groups there were */
	const char **label;
	double *value;			/* in the event's unit; NAN: not counted */
};

/* A horizontal bar chart: one row per group, value at the bar's end, x axis below. */
static void chart_bars(FILE *out, const struct bars *b)
{
	const int right = 90, top = 20, row = 20, axis = 42;
	int left = 60, h = top + b->n * row + axis, w, ticks;
	double max = 0, step;
	char v[64];

	/* room for the longest label, at about 7 px a character; longer ones are cut */
	for (int i = 0; i < b->n; i++)
		if (label_chars(b->label[i], LABEL_MAX) * 7 + 12 > left)
			left = label_chars(b->label[i], LABEL_MAX) * 7 + 12;
	if (left > 12 + LABEL_MAX * 7)
		left = 12 + LABEL_MAX * 7;
	w = CHART_W - left - right;

	for (int i = 0; i < b->n; i++)
		if (isfinite(b->value[i]) && b->value[i] > max)
			max = b->value[i];
	step = html_tick_step(max > 0 ? max : 1, 5);
	max = html_whole_up((max > 0 ? max : 1) / step) * step;
	ticks = html_ticks_of(max, step);
	fprintf(out, "<svg class=\"chart %s\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
		"role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">\n", b->kind, CHART_W, h, CHART_W, h);
	for (int i = 0; i <= ticks; i++) {
		double t = i * step;
		int x = left + (int)round_half(t / max * w);

		html_tick_format(t, step, max, v, sizeof(v));
		fprintf(out, "<line class=\"grid\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
			"<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			x, top, x, top + b->n * row, x, top + b->n * row + 14, v);
	}
	fprintf(out, "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">", left + w / 2,
		h - 6);
	axis_title(out, b->e);
	fputs("</text>\n", out);
	for (int i = 0; i < b->n; i++) {
		int y = top + i * row;

		fprintf(out, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 6,
			y + 14);
		html_label(out, b->label[i], LABEL_MAX);
		fputs("</text>", out);
		if (!isfinite(b->value[i])) {
			fprintf(out, "<text class=\"value\" x=\"%d\" y=\"%d\">not counted</text>\n",
				left + 4, y + 14);
			continue;
		}
		value_label(b->e, b->value[i], v, sizeof(v));
		fprintf(out, "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
			"fill=\"%s\"><title>", left, y + 3, bar_width(b->value[i] / max * w), row - 6,
			palette[0]);	/* one colour: the bars are one quantity, not categories */
		html_text(out, b->label[i]);
		fprintf(out, ": %s ", v);
		html_text(out, b->e->unit);	/* a report's string, like the label: never markup */
		fprintf(out, "</title></rect><text class=\"value\" x=\"%.1f\" y=\"%d\">%s</text>\n",
			left + bar_width(b->value[i] / max * w) + 4, y + 14, v);
	}
	fputs("</svg>\n", out);
	if (b->n < b->total)
		fprintf(out, "<p class=\"note\">The first %d of %d shown (the order of the table).</p>\n",
			b->n, b->total);
}

void html_group_name(const struct summary *s, int g, char *out, size_t size)
{
	const struct summary_group *gr = &s->groups[g];

	if (s->opt.by == BY_PROCESS)
		snprintf(out, size, "%s %s", gr->name, gr->program ? gr->program : "");
	else if (s->opt.by == BY_RANK)
		snprintf(out, size, gr->order < 0 ? "no rank" : "rank %s", gr->name);
	else
		snprintf(out, size, "%s", gr->name);
}

static void section_events(FILE *out, const struct summary *s, const int *sorted)
{
	const char *by = summary_by_name(s->opt.by);
	const char **label = xrealloc(NULL, MAX_BARS * sizeof(*label));
	double *value = xrealloc(NULL, MAX_BARS * sizeof(*value));
	char (*text)[300] = xrealloc(NULL, MAX_BARS * sizeof(*text));
	int n = 0;

	for (int k = 0; k < s->nr_groups && n < MAX_BARS; k++) {
		const struct summary_group *g = &s->groups[sorted[k]];

		if (!g->images)
			continue;
		html_group_name(s, sorted[k], text[n], sizeof(text[n]));
		label[n] = text[n];
		n++;
	}
	if (s->opt.by == BY_PROCESS)
		fputs("<h2>Events per process</h2>\n<p>Each event's count per process: the sum over "
		      "its images (an exec starts a new one), each image's last report.</p>\n", out);
	else
		fprintf(out, "<h2>Events per %s</h2>\n<p>Each event's count summed over the processes "
			"of each %s (each process image's last report).</p>\n", by, by);
	for (int i = 0; i < s->nr_events; i++) {
		struct bars b = { "bars", &s->events[i], n, 0, label, value };
		int m = 0;

		if (!s->totals[i].counted)	/* <not supported> everywhere: said in the overview, not drawn */
			continue;

		for (int k = 0; k < s->nr_groups; k++) {
			const struct summary_group *g = &s->groups[sorted[k]];

			if (!g->images)
				continue;
			b.total++;
			if (m < n) {
				value[m] = g->sums[i].counted ? (double)g->sums[i].value * s->events[i].scale
							      : NAN;
				m++;
			}
		}
		fputs("<figure><figcaption>", out);
		html_text(out, s->events[i].name);
		fprintf(out, " per %s</figcaption>\n", by);
		chart_bars(out, &b);
		fputs("</figure>\n", out);
	}
	free(label);
	free(value);
	free(text);
}

static struct summary_event metric_of(const struct summary *s, int metric)
{
	if (metric == 0)
		return (struct summary_event){ "wall time", "msec", 1e-6 };
	for (int i = 0; i < s->nr_events; i++)
		if (strcmp(s->events[i].name, s->metrics.name[metric]) == 0)
			return s->events[i];
	return (struct summary_event){ s->metrics.name[metric], "", 1.0 };
}

#define HEAT_GROUPS 24	/* columns of a region table; more groups: the first ones, said so */

static const struct summary *heat_s;	/* qsort has no context argument */
static int heat_metric;

/* Regions by their sum of the metric, largest first. */
static int region_cmp(const void *a, const void *b)
{
	struct summary_stats x, y;

	summary_region_stats(heat_s, *(const int *)a, heat_metric, &x);
	summary_region_stats(heat_s, *(const int *)b, heat_metric, &y);
	if (x.sum != y.sum)
		return x.sum > y.sum ? -1 : 1;
	return *(const int *)a - *(const int *)b;
}

/*
 * A cell's background by its distance from the row's mean: white at the
 * mean, red above it (full at twice the mean: the rank the others wait for),
 * blue below (full at 0); the text turns white on the darkest.
 */
static void heat_cell(FILE *out, double value, double mean, const char *text)
{
	double t = mean > 0 ? value / mean - 1 : 0;
	int pale;

	if (!(t > -1))
		t = -1;
	if (t > 1)
		t = 1;
	pale = (int)(255 - 200 * (t < 0 ? -t : t) + 0.5);
	fprintf(out, "<td class=\"num heat\" style=\"background:#%02x%02x%02x%s\">%s</td>",
		t < 0 ? pale : 255, pale, t < 0 ? 255 : pale, t > 0.75 || t < -0.75 ? ";color:#fff" : "",
		text);
}

/* One region metric as a table: a row per region, a column per group, coloured by the row's max. */
static void region_table(FILE *out, const struct summary *s, int m, const int *groups, int ng,
			 int nr_groups_with)
{
	struct summary_event e = metric_of(s, m);
	int *regions = xrealloc(NULL, ((size_t)s->region_names.n + 1) * sizeof(int)), nr = 0;
	const char *by = summary_by_name(s->opt.by);
	int total_event = -1;
	char v[64], mean[64], text[300];

	for (int r = 0; r < s->region_names.n; r++) {
		struct summary_stats st;

		summary_region_stats(s, r, m, &st);
		if (st.counted)
			regions[nr++] = r;
	}
	if (!nr) {
		free(regions);
		return;
	}
	for (int i = 0; m && i < s->nr_events; i++)
		if (!strcmp(s->events[i].name, e.name) && s->totals[i].counted && s->totals[i].value)
			total_event = i;
	heat_s = s;
	heat_metric = m;
	qsort(regions, (size_t)nr, sizeof(int), region_cmp);
	fputs("<h3>", out);
	axis_title(out, &e);
	fputs("</h3>\n<div class=\"wide\"><table class=\"heat\" data-metric=\"", out);
	html_text(out, s->metrics.name[m]);	/* as --json names it: "wall", an event */
	fputs("\"><tr><th>region</th>", out);
	for (int k = 0; k < ng; k++) {
		html_group_name(s, groups[k], text, sizeof(text));
		fputs("<th>", out);
		html_label(out, text, 16);
		fputs("</th>", out);
	}
	fputs("<th>sum</th><th>% of total</th><th>max</th><th>mean</th><th>max / mean</th></tr>\n",
	      out);
	for (int i = 0; i < nr; i++) {
		struct summary_stats st;

		summary_region_stats(s, regions[i], m, &st);
		fputs("<tr class=\"region\" data-region=\"", out);
		html_text(out, s->region_names.name[regions[i]]);
		fputs("\"><td>", out);
		html_text(out, s->region_names.name[regions[i]]);
		fputs("</td>", out);
		for (int k = 0; k < ng; k++) {
			const struct summary_cell *c = summary_cell(s, regions[i], groups[k], m);

			if (!c || !c->counted) {
				fprintf(out, "<td class=\"num\">%s</td>", c ? "not counted" : "&ndash;");
				continue;
			}
			summary_value_format(&e, c->sum, v, sizeof(v));
			heat_cell(out, (double)c->sum, st.mean, v);
		}
		summary_value_format(&e, st.sum, v, sizeof(v));
		fprintf(out, "<td class=\"num\" data-value=\"%" PRIu64 "\">%s</td>", st.sum, v);
		if (total_event >= 0)
			fprintf(out, "<td class=\"num\">%.1f %%</td>",
				100.0 * (double)st.sum / (double)s->totals[total_event].value);
		else
			fputs("<td class=\"num\">&ndash;</td>", out);
		/* the max and mean as every view prints them: the one over the other gives the imbalance */
		summary_value_format(&e, st.max, v, sizeof(v));
		summary_mean_format(&e, st.mean, mean, sizeof(mean));
		fprintf(out, "<td class=\"num\">%s</td><td class=\"num\">%s</td>"
			"<td class=\"num imbalance\">%.2f</td></tr>\n", v, mean, st.imbalance);
	}
	fputs("</table></div>\n", out);
	if (ng < nr_groups_with)
		fprintf(out, "<p class=\"note\">The first %d of %d %ss (the order of the tables); "
			"<b>sum</b> and <b>max / mean</b> are over all of them.</p>\n", ng,
			nr_groups_with, by);
	free(regions);
}

static void section_regions(FILE *out, const struct summary *s, const int *sorted)
{
	const char *by = summary_by_name(s->opt.by);
	int *groups = xrealloc(NULL, ((size_t)s->nr_groups + 1) * sizeof(int)), ng = 0, with = 0;

	/* the groups that ran some region, in table order */
	for (int k = 0; k < s->nr_groups; k++) {
		bool has = false;

		for (int r = 0; r < s->region_names.n && !has; r++)
			has = summary_cell(s, r, sorted[k], 0) != NULL;
		if (!has)
			continue;
		with++;
		if (ng < HEAT_GROUPS)
			groups[ng++] = sorted[k];
	}
	fprintf(out, "<h2>Regions per %s</h2>\n<p>One table per metric: a row per region (the "
		"largest sum first), a column per %s with its sum over its threads and processes: "
		"white at the row's mean, redder above it (full red at twice the mean), bluer below. "
		"<b>max / mean</b> is the imbalance over "
		"the %ss that ran the region (1.00: balanced; 2.00: the slowest took twice the mean, "
		"and the others waited). <b>%% of total</b>: of the event's total over the reports. "
		"Counts are inclusive (a region holds the regions begun inside it), so the "
		"percentages may add to more than 100: the region tree below gives each nesting "
		"path's exclusive counts.</p>\n", by, by, by);
	for (int r = 0; r < s->region_names.n; r++) {
		struct summary_stats st;

		summary_region_stats(s, r, 0, &st);
		if (!st.unclosed && !st.reentries)
			continue;
		fputs("<p>region <code>", out);
		html_text(out, s->region_names.name[r]);
		fputs("</code>:", out);
		if (st.unclosed)
			fprintf(out, " <b>misuse</b>: left open %" PRIu64 " times;", st.unclosed);
		if (st.reentries)
			fprintf(out, " %" PRIu64 " re-entries counted once;", st.reentries);
		fputs(" see the text report.</p>\n", out);
	}
	{
		char calls[48];
		struct summary_stats st;

		fputs("<div class=\"wide\"><table class=\"calls\"><tr><th>region</th><th>calls</th>"
		      "<th>threads</th></tr>\n", out);
		for (int r = 0; r < s->region_names.n; r++) {
			summary_region_stats(s, r, 0, &st);
			summary_value_format(&(struct summary_event){ .scale = 1.0 }, st.calls, calls,
					     sizeof(calls));
			fputs("<tr><td>", out);
			html_text(out, s->region_names.name[r]);
			fprintf(out, "</td><td class=\"num\">%s</td><td class=\"num\">%" PRIu64
				"</td></tr>\n", calls, st.threads);
		}
		fputs("</table></div>\n", out);
	}
	for (int m = 0; m < s->metrics.n; m++)
		region_table(out, s, m, groups, ng, with);
	if (s->misuse.end_without_begin || s->misuse.bad_handle || s->misuse.table_full ||
	    s->misuse.names_refused)
		fprintf(out, "<p><b>Marker misuse</b>: %" PRIu64 " end without begin, %" PRIu64
			" bad region handles, %" PRIu64 " begins refused (table full), %" PRIu64
			" region names refused.</p>\n", s->misuse.end_without_begin,
			s->misuse.bad_handle, s->misuse.table_full, s->misuse.names_refused);
	free(groups);
}

struct line {
	const char *name;
	int n;
	double *x, *y;		/* seconds; the event's unit */
};

static void chart_lines(FILE *out, const struct summary_event *e, const struct line *l, int nl,
			double step_s)
{
	const int left = 80, right = 20, top = 10, plot_h = 220, axis = 44, legend_row = 18;
	int legend_rows = (nl + 3) / 4, h = top + plot_h + axis + legend_rows * legend_row;
	int w = CHART_W - left - right;
	double xmax = step_s, ymax = 0, xs, ys;
	char v[64];

	for (int i = 0; i < nl; i++)
		for (int p = 0; p < l[i].n; p++) {
			if (l[i].x[p] > xmax)
				xmax = l[i].x[p];
			if (l[i].y[p] > ymax)
				ymax = l[i].y[p];
		}
	if (!isfinite(ymax))
		ymax = 1;
	ymax *= 1.05;	/* a line at the maximum stays clear of the frame */
	xs = html_tick_step(xmax, 8);
	ys = html_tick_step(ymax > 0 ? ymax : 1, 5);
	xmax = html_whole_up(xmax / xs) * xs;
	ymax = html_whole_up((ymax > 0 ? ymax : 1) / ys) * ys;
	fprintf(out, "<svg class=\"chart series\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
		"role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">\n", CHART_W, h, CHART_W, h);
	for (int i = 0, n = html_ticks_of(ymax, ys); i <= n; i++) {
		double t = i * ys, y = top + plot_h - t / ymax * plot_h;

		html_tick_format(t, ys, ymax, v, sizeof(v));
		fprintf(out, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>"
			"<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
			left, y, left + w, y, left - 6, y + 4, v);
	}
	for (int i = 0, n = html_ticks_of(xmax, xs); i <= n; i++) {
		double t = i * xs, x = left + t / xmax * w;

		html_tick_format(t, xs, xmax, v, sizeof(v));
		fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>"
			"<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			x, top, x, top + plot_h, x, top + plot_h + 14, v);
	}
	fprintf(out, "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">time since the "
		"job started (s)</text>\n", left + w / 2, top + plot_h + 32);
	fprintf(out, "<text class=\"axis\" transform=\"translate(14 %d) rotate(-90)\" "
		"text-anchor=\"middle\">", top + plot_h / 2);
	axis_title(out, e);
	fputs(" per step</text>\n", out);
	for (int i = 0; i < nl; i++) {
		const char *color = i ? palette[(i - 1) % 10] : "#000";

		fprintf(out, "<polyline class=\"line\" fill=\"none\" stroke=\"%s\" stroke-width=\"%s\" "
			"points=\"", color, i ? "1.5" : "2.5");
		for (int p = 0; p < l[i].n; p++)
			fprintf(out, "%.1f,%.1f ", left + l[i].x[p] / xmax * w,
				top + plot_h - l[i].y[p] / ymax * plot_h);
		fputs("\"/>\n", out);
		fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"4\" fill=\"%s\"/>"
			"<text class=\"legend\" x=\"%d\" y=\"%d\">", left + (i % 4) * 170,
			top + plot_h + axis + (i / 4) * legend_row + 2, color, left + (i % 4) * 170 + 18,
			top + plot_h + axis + (i / 4) * legend_row + 8);
		html_text(out, l[i].name);
		fputs("</text>\n", out);
	}
	fputs("</svg>\n", out);
}

static void section_series(FILE *out, const struct summary *s, const int *sorted)
{
	struct summary_point *p = summary_points_sorted(s);
	const char *by = summary_by_name(s->opt.by);
	int *line_of = xrealloc(NULL, (size_t)s->nr_groups * sizeof(*line_of));
	struct line l[MAX_LINES + 1];
	char names[MAX_LINES + 1][300];

	fprintf(out, "<h2>Interval series</h2>\n<p>Each event's change per step of %.3f s (the "
		"interval reports' <code>delta</code>, put at the nearest step), summed over all %ss "
		"(black) and for each of the first %d %ss.</p>\n", (double)s->bucket_ns / 1e9, by,
		MAX_LINES, by);
	for (int e = 0, at = 0; e < s->nr_events; e++) {
		int nl = 1, shown = 0;

		for (int g = 0; g < s->nr_groups; g++)
			line_of[g] = -1;
		for (int i = at; i < s->nr_points && p[i].event == e; i++)
			line_of[p[i].group] = 0;	/* has points of this event */
		for (int k = 0; k < s->nr_groups && s->nr_groups > 1; k++)
			if (line_of[sorted[k]] == 0 && shown++ < MAX_LINES)
				line_of[sorted[k]] = nl++;
		for (int i = 0; i < nl; i++)
			l[i] = (struct line){ "total", 0, NULL, NULL };
		for (int g = 0; g < s->nr_groups; g++)
			if (line_of[g] > 0) {
				html_group_name(s, g, names[line_of[g]], sizeof(names[0]));
				l[line_of[g]].name = names[line_of[g]];
			}
		for (; at < s->nr_points && p[at].event == e; at++) {
			double x = (double)summary_bucket_time(s, p[at].bucket) / 1e9;
			double y = (double)p[at].delta * s->events[e].scale;
			int targets[2] = { 0, line_of[p[at].group] };

			if (!isfinite(y) || y < 0)	/* a report's own scale: not drawn when absurd */
				continue;

			for (int t = 0; t < 2; t++) {
				struct line *ln;

				if (t && targets[t] <= 0)
					continue;
				ln = &l[targets[t]];
				if (ln->n && ln->x[ln->n - 1] == x) {	/* same step: add */
					ln->y[ln->n - 1] += y;
					continue;
				}
				ln->x = xrealloc(ln->x, (size_t)(ln->n + 1) * sizeof(double));
				ln->y = xrealloc(ln->y, (size_t)(ln->n + 1) * sizeof(double));
				ln->x[ln->n] = x;
				ln->y[ln->n++] = y;
			}
		}
		if (l[0].n) {
			fputs("<figure><figcaption>", out);
			html_text(out, s->events[e].name);
			fputs(" over time", out);
			if (shown > MAX_LINES)
				fprintf(out, " (total, and the first %d of %d %ss)", MAX_LINES, shown, by);
			fputs("</figcaption>\n", out);
			chart_lines(out, &s->events[e], l, nl, (double)s->bucket_ns / 1e9);
			fputs("</figure>\n", out);
		}
		for (int i = 0; i < nl; i++) {
			free(l[i].x);
			free(l[i].y);
		}
	}
	free(line_of);
	free(p);
}

/* A sum as a table cell: its value in its unit, or why there is none. */
static void sum_cell(const struct summary_event *e, const struct summary_sum *v, char *out, size_t size)
{
	if (v->counted)
		summary_value_format(e, v->value, out, size);
	else
		snprintf(out, size, v->not_supported ? "not supported" :
			 v->closed ? "closed by program" : "not counted");
}

/* pfshim's own share of an event: one it cannot measure of itself is said so. */
static void share_cell(const struct summary_event *e, const struct summary_sum *v, char *out,
		       size_t size)
{
	if (v->counted)
		sum_cell(e, v, out, size);
	else
		snprintf(out, size, "not measured");
}

static void section_tables(FILE *out, const struct summary *s, const int *sorted)
{
	char v[64], *name;
	int shown = 0;

	fputs("<h2>Every event</h2>\n<div class=\"wide\"><table><tr><th>event</th><th>total</th><th>unit</th>"
	      "<th>images counted</th><th>not supported in</th>", out);
	if (s->job)	/* the kernel's count of the whole job (pfshim run): the rows are its breakdown */
		fputs("<th>the reports' sum</th><th>in no row</th><th>pfshim's own share</th>"
		      "<th>less pfshim's share</th>", out);
	fputs("</tr>\n", out);
	for (int i = 0; i < s->nr_events; i++) {
		const struct summary_sum *total = s->job ? &s->job->total_sums[i] : &s->totals[i];

		fputs("<tr><td>", out);
		html_text(out, s->events[i].name);
		sum_cell(&s->events[i], total, v, sizeof(v));
		fprintf(out, "</td><td class=\"num\">%s</td><td>", v);
		html_text(out, s->events[i].unit);
		fprintf(out, "</td><td class=\"num\">%" PRIu64 "</td><td class=\"num\">%" PRIu64
			"</td>", s->totals[i].counted, s->totals[i].not_supported);
		if (s->job) {
			sum_cell(&s->events[i], &s->totals[i], v, sizeof(v));
			fprintf(out, "<td class=\"num\">%s</td>", v);
			if (s->job->rest_unknown && !s->job->rest_sums[i].not_supported)	/* print_outlived() */
				snprintf(v, sizeof(v), "not known");
			else
				sum_cell(&s->events[i], &s->job->rest_sums[i], v, sizeof(v));
			fprintf(out, "<td class=\"num\">%s</td>", v);
			share_cell(&s->events[i], &s->job->share_sums[i], v, sizeof(v));
			fprintf(out, "<td class=\"num\">%s</td>", v);
			share_cell(&s->events[i], &s->job->less_share_sums[i], v, sizeof(v));
			fprintf(out, "<td class=\"num\">%s</td>", v);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table></div>\n", out);
	fprintf(out, "<h2>Per %s</h2>\n<div class=\"wide\"><table><tr><th>%s</th><th>images</th>",
		summary_by_name(s->opt.by), summary_by_name(s->opt.by));
	for (int i = 0; i < s->nr_events; i++) {
		fputs("<th>", out);
		html_text(out, s->events[i].name);
		if (*s->events[i].unit) {
			fputs(" (", out);
			html_text(out, s->events[i].unit);
			fputc(')', out);
		}
		fputs("</th>", out);
	}
	fputs("</tr>\n", out);
	for (int k = 0; k < s->nr_groups && shown < 500; k++) {
		const struct summary_group *g = &s->groups[sorted[k]];

		if (!g->images)
			continue;
		shown++;
		name = xrealloc(NULL, strlen(g->name) + (g->program ? strlen(g->program) : 0) + 2);
		sprintf(name, "%s%s%s", g->name, g->program ? " " : "", g->program ? g->program : "");
		fputs("<tr><td title=\"", out);	/* a long name whole in its tooltip */
		html_text(out, name);
		fputs("\">", out);
		html_label(out, name, HTML_NAME_CHARS);
		free(name);
		fprintf(out, "</td><td class=\"num\">%" PRIu64 "</td>", g->images);
		for (int i = 0; i < s->nr_events; i++) {
			if (g->sums[i].counted)
				summary_value_format(&s->events[i], g->sums[i].value, v, sizeof(v));
			else
				snprintf(v, sizeof(v), "&ndash;");
			fprintf(out, "<td class=\"num\">%s</td>", v);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table></div>\n", out);
	if (shown == 500)
		fputs("<p class=\"note\">The first 500 rows shown; <code>pfshim report --csv</code> "
		      "has them all.</p>\n", out);
}

static const char style[] =
	"body{font-family:sans-serif;max-width:1000px;margin:1em auto;padding:0 1em;color:#222;"
	"overflow-wrap:anywhere}"
	"h1{font-size:1.5em}h2{margin-top:1.6em;border-bottom:1px solid #ccc}"
	"figure{margin:1.2em 0}figcaption{font-weight:bold;margin-bottom:.3em}"
	"svg.chart{max-width:100%;height:auto;font-size:12px}"
	"svg .grid{stroke:#ddd;stroke-width:1}svg .tick{fill:#555;font-size:11px}"
	"svg .axis{fill:#222;font-size:12px}svg .label{fill:#222}svg .value{fill:#444;font-size:11px}"
	"svg .legend{font-size:11px}"
	"table{border-collapse:collapse;margin:.5em 0;overflow-wrap:normal}td,th{border:1px solid #ccc;padding:2px 8px}"
	"td.num{text-align:right;font-variant-numeric:tabular-nums}td:first-child{white-space:nowrap}"
	".meta{color:#444}.note{color:#666;font-size:.9em}div.wide{overflow-x:auto;max-width:100%}"
	"table.overview th{text-align:left}ul.lost li.unreported{color:#a00}"
	"td.heat{min-width:4em}svg .label{font-size:11px}"
	"div.tree{font-size:13px;overflow-x:auto}div.tree details>*:not(summary),div.tree .leaf"
	"{margin-left:1.2em}div.tree .leaf{padding-left:1em}summary{cursor:pointer}"
	".own{color:#777}"
	".rtree b{display:inline-block;min-width:6em}.rtree .m{font-variant-numeric:tabular-nums}"
	"td.na{color:#999}th .unit{font-weight:normal;color:#555}svg.topdown{display:block}"
	".swatch{display:inline-block;width:.9em;height:.9em;vertical-align:middle}";

void summary_print_html(const struct summary *s, const char *title, FILE *out)
{
	const char *name = title ? title : s->title ? s->title : "(no reports)";
	int *sorted = summary_groups_sorted(s);
	time_t start = (time_t)(s->first_start_ns / 1000000000u);
	char when[64] = "unknown";
	struct tm tm;

	if (s->first_start_ns && gmtime_r(&start, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>pfshim report: ", out);
	html_text(out, name);
	fprintf(out, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>pfshim report: <code>", style);
	html_text(out, name);
	fprintf(out, "</code></h1>\n<p class=\"meta\">Started %s &middot; %" PRIu64 " %s, %"
		PRIu64 " process %s, %" PRIu64 " %s read", when, s->processes,
		html_plural(s->processes, "process", "processes"), s->images,
		html_plural(s->images, "image", "images"), s->reports,
		html_plural(s->reports, "report", "reports"));
	if (s->skipped)
		fprintf(out, ", %" PRIu64 " %s skipped", s->skipped,
			html_plural(s->skipped, "input", "inputs"));
	fprintf(out, " &middot; grouped by %s (<code>--by</code>).</p>\n<p class=\"note\">Counts "
		"from Linux perf events, read by libpfshim in each process; a process image's last "
		"report holds its whole count. Clocks (task-clock, cpu-clock) are in msec of CPU "
		"time.</p>\n", summary_by_name(s->opt.by));
	html_overview(s, out);
	html_processes(s, out);
	html_metrics(s, out);
	section_tables(out, s, sorted);
	section_events(out, s, sorted);
	if (s->region_names.n)
		section_regions(out, s, sorted);
	html_region_tree(s, out);
	if (s->nr_points)
		section_series(out, s, sorted);
	html_tree(s, out);
	fputs("<p class=\"note\">Written by <code>pfshim report --html</code>.</p>\n</body>\n</html>\n",
	      out);
	free(sorted);
}
