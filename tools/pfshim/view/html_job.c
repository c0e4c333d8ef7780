/* SPDX-License-Identifier: MIT */
/*
 * html_job.c: the page's answers about the job as a whole and its processes:
 * the overview (elapsed, CPU use, every counted event's total, what was
 * lost), the costliest processes, a timeline of them, and the process tree
 * with subtree totals as nested <details> (collapsible without a script).
 * A process is (machine, pid namespace, pid): its images (exec chain) summed.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "tools/pfshim/view/html.h"

#define TOP_N 10		/* rows of the costliest processes */
#define TIMELINE_MAX 60		/* bars of the timeline: the costliest, said so */
#define TREE_MAX 2000		/* lines of the tree; the rest said, as in --tree */

/* A process: its images summed, from its first start to its last end. */
struct proc {
	int first;		/* its first image (by start) */
	int last;		/* its latest image: the program shown */
	int images;
	uint64_t start, end;	/* ns since the epoch */
	uint64_t *value;	/* [nr_events]; UINT64_MAX: no image counted it */
};

struct procs {
	int n;
	struct proc *p;
	uint64_t t0, t1;	/* the job's span: earliest start, latest end */
};

static uint64_t image_end(const struct summary_image *im)
{
	return im->wall_ns > UINT64_MAX - im->start_ns ? UINT64_MAX : im->start_ns + im->wall_ns;
}

/* The processes of the images read, and the span they cover (0, 0 without images). */
static void procs_build(const struct summary *s, struct procs *ps)
{
	int *by = summary_images_by_pid(s);

	memset(ps, 0, sizeof(*ps));
	ps->p = xrealloc(NULL, ((size_t)s->nr_images + 1) * sizeof(*ps->p));
	for (int i = 0; i < s->nr_images; i++) {
		const struct summary_image *im = &s->image_list[by[i]];
		const struct summary_image *prev = i ? &s->image_list[by[i - 1]] : NULL;
		struct proc *p;

		if (!prev || !summary_images_one_process(prev, im)) {
			p = &ps->p[ps->n++];
			*p = (struct proc){ .first = by[i], .start = im->start_ns, .end = 0 };
			p->value = xrealloc(NULL, ((size_t)s->nr_events + 1) * sizeof(uint64_t));
			for (int e = 0; e < s->nr_events; e++)
				p->value[e] = UINT64_MAX;
		}
		p = &ps->p[ps->n - 1];
		p->last = by[i];
		p->images++;
		if (image_end(im) > p->end)
			p->end = image_end(im);
		for (int e = 0; e < s->nr_events && e < im->nr_values; e++) {
			if (im->value[e] == UINT64_MAX)
				continue;
			if (p->value[e] == UINT64_MAX)
				p->value[e] = 0;
			count_add(&p->value[e], im->value[e]);
		}
		if (!ps->t0 || im->start_ns < ps->t0)
			ps->t0 = im->start_ns;
		if (image_end(im) > ps->t1)
			ps->t1 = image_end(im);
	}
	free(by);
}

static void procs_free(struct procs *ps)
{
	for (int i = 0; i < ps->n; i++)
		free(ps->p[i].value);
	free(ps->p);
}

static uint64_t cost_of(const struct proc *p, int cost)
{
	return cost < 0 || p->value[cost] == UINT64_MAX ? 0 : p->value[cost];
}

static const struct procs *cmp_ps;
static int cmp_cost;

/* The costliest first; among equals the earlier, then the lower pid: one order for every view. */
static int cost_cmp(const void *a, const void *b)
{
	const struct proc *x = &cmp_ps->p[*(const int *)a], *y = &cmp_ps->p[*(const int *)b];
	uint64_t cx = cost_of(x, cmp_cost), cy = cost_of(y, cmp_cost);

	if (cx != cy)
		return cx > cy ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return *(const int *)a - *(const int *)b;
}

static int start_cmp(const void *a, const void *b)
{
	const struct proc *x = &cmp_ps->p[*(const int *)a], *y = &cmp_ps->p[*(const int *)b];

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return *(const int *)a - *(const int *)b;
}

/* The processes' indices, costliest first. */
static int *procs_by_cost(const struct procs *ps, int cost)
{
	int *order = xrealloc(NULL, ((size_t)ps->n + 1) * sizeof(int));

	for (int i = 0; i < ps->n; i++)
		order[i] = i;
	cmp_ps = ps;
	cmp_cost = cost;
	qsort(order, (size_t)ps->n, sizeof(int), cost_cmp);
	return order;
}

/* A duration for a person: "1.234 s", "12.35 ms", "850 us". */
static void duration_format(uint64_t ns, char *out, size_t size)
{
	if (ns >= 1000000000u)
		snprintf(out, size, "%.3f s", (double)ns / 1e9);
	else if (ns >= 1000000u)
		snprintf(out, size, "%.2f ms", (double)ns / 1e6);
	else
		snprintf(out, size, "%.0f us", (double)ns / 1e3);
}

/* A value and its unit, as a table shows it: "9.89 msec", "2,011". */
static void value_unit(FILE *out, const struct summary_event *e, uint64_t v)
{
	char text[64];

	summary_value_format(e, v, text, sizeof(text));
	fputs(text, out);
	if (*e->unit) {
		fputc(' ', out);
		html_text(out, e->unit);
	}
}

/* The sums the page calls the job's totals: the kernel's count of the whole job when read. */
static const struct summary_sum *job_totals(const struct summary *s)
{
	return s->job ? s->job->total_sums : s->totals;
}

static int event_named(const struct summary *s, const char *name)
{
	for (int i = 0; i < s->nr_events; i++)
		if (!strcmp(s->events[i].name, name))
			return i;
	return -1;
}

int html_cost_event(const struct summary *s)
{
	int tc = event_named(s, "task-clock");

	if (tc >= 0 && s->totals[tc].counted)
		return tc;
	for (int i = 0; i < s->nr_events; i++)
		if (s->totals[i].counted)
			return i;
	return -1;
}

/* Who left no report, and what a report was written at instead of an exit, each said. */
static void overview_lost(const struct summary *s, FILE *out)
{
	const struct summary_job *job = s->job;
	uint64_t closed = 0;
	int lines = 0;

	fputs("<h3>What was lost</h3>\n<ul class=\"lost\">\n", out);
	for (int k = 0; job && k < KINDS; k++) {
		if (!job->kind_count[k])
			continue;
		fprintf(out, "<li class=\"unreported\">%" PRIu64 " %s %s (", job->kind_count[k],
			html_plural(job->kind_count[k], "process", "processes"),
			summary_kind_what[k]);
		for (int n = 0; n < job->unreported_programs[k].n; n++) {
			fputs(n ? ", " : "", out);
			html_text(out, job->unreported_programs[k].name[n]);
			if (job->unreported_count[k][n] > 1)
				fprintf(out, " &times;%" PRIu64, job->unreported_count[k][n]);
		}
		fprintf(out, "): %s; %s.</li>\n", summary_kind_why[k], summary_kind_counts[k]);
		lines++;
	}
	if (job && job->outlived) {
		fprintf(out, "<li class=\"outlived\">%" PRIu64 " %s reported after the command ended (",
			job->outlived, html_plural(job->outlived, "image", "images"));
		for (int n = 0; n < job->outlived_programs.n; n++) {
			fputs(n ? ", " : "", out);
			html_text(out, job->outlived_programs.name[n]);
		}
		fputs("): the totals hold them up to the command's end, their rows whole, so what no "
		      "row holds is not known; pfshim's own share holds their loading and set-up.</li>\n",
		      out);
		lines++;
	}
	if (job && job->uncounted_reported) {
		fprintf(out, "<li class=\"uncounted\">%" PRIu64 " %s the kernel stopped counting at an exec"
			" reported all the same (", job->uncounted_reported,
			html_plural(job->uncounted_reported, "process", "processes"));
		for (int n = 0; n < job->uncounted_programs.n; n++) {
			fputs(n ? ", " : "", out);
			html_text(out, job->uncounted_programs.name[n]);
		}
		fputs("): a program its user may run but not read; their rows hold what the totals do "
		      "not, so what no row holds is not known.</li>\n", out);
		lines++;
	}
	if (job && job->unnamed) {
		fputs("<li>The kernel could not name the job's processes: those without a report are "
		      "in the totals, unnamed.</li>\n", out);
		lines++;
	}
	if (job && job->lost_records) {
		fprintf(out, "<li>The kernel lost %" PRIu64 " records naming processes: some without a "
			"report may be unnamed.</li>\n", job->lost_records);
		lines++;
	}
	if (job && job->ledger_malformed) {
		fprintf(out, "<li>%" PRIu64 " lines of the reports' ledger could not be read and were "
			"skipped: a process whose report was lost may be counted as leaving no "
			"report.</li>\n", job->ledger_malformed);
		lines++;
	}
	for (int i = 0; i < s->signal_ends.n; i++) {
		size_t len = strcspn(s->signal_ends.name[i], "\t");
		char *sig = xrealloc(NULL, len + 1);

		memcpy(sig, s->signal_ends.name[i], len);
		sig[len] = '\0';
		fprintf(out, "<li>%" PRIu64 " %s killed by ", s->signal_end_count[i],
			html_plural(s->signal_end_count[i], "process", "processes"));
		html_text(out, sig);
		fputs(" (", out);
		html_text(out, s->signal_ends.name[i] + len + (s->signal_ends.name[i][len] != '\0'));
		fputs("): the report written at the signal is in the rows.</li>\n", out);
		free(sig);
		lines++;
	}
	if (s->images_unended) {
		fprintf(out, "<li>%" PRIu64 " process %s whose last report read is not its end "
			"(an interval or explicit report: still running, or killed after it): counted "
			"up to that report.</li>\n", s->images_unended,
			html_plural(s->images_unended, "image", "images"));
		lines++;
	}
	for (int k = 0; k < s->nr_events; k++)
		closed = s->totals[k].closed > closed ? s->totals[k].closed : closed;
	if (closed) {
		fprintf(out, "<li class=\"closed\">%" PRIu64 " %s closed pfshim's counters: what %s"
			" counted is in no row%s.</li>\n", closed,
			closed == 1 ? "image's program" : "images' programs",
			closed == 1 ? "it" : "they", job ? " (the totals hold it)" : "");
		lines++;
	}
	if (s->skipped) {
		fprintf(out, "<li>%" PRIu64 " %s skipped (named on stderr).</li>\n", s->skipped,
			html_plural(s->skipped, "input", "inputs"));
		lines++;
	}
	if (!job)
		fputs("<li>No job count was read (<code>pfshim run</code>'s "
		      "<code>pfshim-job.jsonl</code>): a process that left no report is not known "
		      "here.</li>\n", out);
	else if (!lines)
		fprintf(out, "<li class=\"none\">Nothing: each of the %d processes the kernel counted "
			"left its report.</li>\n", job->nr_processes);
	fputs("</ul>\n", out);
}

void html_overview(const struct summary *s, FILE *out)
{
	const struct summary_sum *totals = job_totals(s);
	struct procs ps;
	int tc = event_named(s, "task-clock"), uncounted = 0;
	uint64_t elapsed = 0;
	const char *span = "";
	char d[64];

	procs_build(s, &ps);
	/* A job's totals span its count, from the counters' open to the command's end: as the text's */
	if (s->job && s->job->elapsed_ns) {
		elapsed = s->job->elapsed_ns;
		span = "from the job's counters' open to the command's end (<code>pfshim run</code>'s "
		       "count, which the totals are)";
	} else if (ps.t1 > ps.t0) {
		elapsed = ps.t1 - ps.t0;
		span = "from the earliest report's start to the latest one's end "
		       "(<code>start_ns + wall_ns</code>)";
	}
	fputs("<h2>Overview</h2>\n<table class=\"overview\">\n", out);
	if (elapsed) {
		duration_format(elapsed, d, sizeof(d));
		fprintf(out, "<tr><th>elapsed</th><td class=\"num\" id=\"elapsed\" data-ns=\"%" PRIu64
			"\">%s</td><td>%s</td></tr>\n", elapsed, d, span);
		if (tc >= 0 && totals[tc].counted)
			fprintf(out, "<tr><th>CPU utilisation</th><td class=\"num\" id=\"cpus\">%.2f CPUs"
				"</td><td>task-clock total / elapsed: the CPUs kept busy on average"
				"</td></tr>\n", (double)totals[tc].value / (double)elapsed);
	}
	if (s->job)
		fprintf(out, "<tr><th>processes</th><td class=\"num\">%d</td><td>counted by the kernel "
			"(<code>pfshim run</code>); %" PRIu64 " with a report of any of their programs, %"
			PRIu64 " whose last program left none (either may have reported as an earlier "
			"program)</td></tr>\n", s->job->nr_processes, s->processes, s->job->unreported);
	else
		fprintf(out, "<tr><th>processes</th><td class=\"num\">%" PRIu64 "</td><td>with a report"
			"</td></tr>\n", s->processes);
	fputs("</table>\n<h3>Totals</h3>\n<p>", out);
	fputs(s->job ? "The kernel's count of the whole job (every process, reported or not)."
		     : "The reports' sum (each process image's last report).", out);
	fputs("</p>\n<div class=\"wide\"><table class=\"totals\"><tr><th>event</th><th>total</th><th>unit</th></tr>\n",
	      out);
	for (int i = 0; i < s->nr_events; i++) {
		if (!totals[i].counted) {
			uncounted++;
			continue;
		}
		summary_value_format(&s->events[i], totals[i].value, d, sizeof(d));
		fputs("<tr class=\"total\" data-event=\"", out);
		html_text(out, s->events[i].name);
		fputs("\"><td>", out);
		html_text(out, s->events[i].name);
		fprintf(out, "</td><td class=\"num\" data-value=\"%" PRIu64 "\">%s</td><td>",
			totals[i].value, d);
		html_text(out, s->events[i].unit);
		fputs("</td></tr>\n", out);
	}
	fputs("</table></div>\n", out);
	if (uncounted) {
		fputs("<p class=\"uncounted\">Not counted, so not drawn: ", out);
		for (int i = 0, n = 0; i < s->nr_events; i++) {
			if (totals[i].counted)
				continue;
			fputs(n++ ? ", " : "", out);
			html_text(out, s->events[i].name);
			if (s->totals[i].not_supported)
				fputs(" (not supported)", out);
		}
		fputs(". A hardware event is not supported where the machine (a virtual one, often) "
		      "has no PMU the kernel can use.</p>\n", out);
	}
	overview_lost(s, out);
	procs_free(&ps);
}

/* The costliest processes, with their share of the reports' sum of the cost event. */
static void section_top(const struct summary *s, const struct procs *ps, const int *by_cost,
			int cost, FILE *out)
{
	int n = ps->n < TOP_N ? ps->n : TOP_N;
	char d[64];

	fputs("<h2>Costliest processes</h2>\n<p>", out);
	if (n < ps->n)
		fprintf(out, "The %d costliest of %d processes", n, ps->n);
	else
		fprintf(out, "All %d %s", ps->n,
			html_plural((uint64_t)ps->n, "process", "processes"));
	fputs(" by ", out);
	html_text(out, s->events[cost].name);
	fputs(" (each process's images summed: an exec starts a new image); <b>share</b>: of the "
	      "reports' sum.</p>\n<div class=\"wide\"><table class=\"top\"><tr><th>#</th><th>pid</th><th>program</th>"
	      "<th>", out);
	html_text(out, s->events[cost].name);
	fputs("</th><th>share</th><th>wall</th>", out);
	for (int e = 0; e < s->nr_events; e++) {
		if (e == cost || !s->totals[e].counted)
			continue;
		fputs("<th>", out);
		html_text(out, s->events[e].name);
		fputs("</th>", out);
	}
	fputs("</tr>\n", out);
	for (int k = 0; k < n; k++) {
		const struct proc *p = &ps->p[by_cost[k]];
		const struct summary_image *im = &s->image_list[p->last];
		uint64_t total = s->totals[cost].value;

		fprintf(out, "<tr class=\"top\" data-pid=\"%d\"><td class=\"num\">%d</td><td class=\"num\">",
			im->pid, k + 1);
		if (s->hosts.n > 1) {
			html_text(out, s->hosts.name[im->host]);
			fputc(':', out);
		}
		fprintf(out, "%d</td><td title=\"", im->pid);	/* a long name whole in its tooltip */
		html_text(out, s->programs.name[im->program]);
		fputs("\">", out);
		html_label(out, s->programs.name[im->program], HTML_NAME_CHARS);
		if (p->images > 1)
			fprintf(out, " <span class=\"note\">(%d images)</span>", p->images);
		fprintf(out, "</td><td class=\"num\" data-value=\"%" PRIu64 "\">", cost_of(p, cost));
		value_unit(out, &s->events[cost], cost_of(p, cost));
		duration_format(p->end - p->start, d, sizeof(d));
		fprintf(out, "</td><td class=\"num\">%.1f %%</td><td class=\"num\">%s</td>",
			total ? 100.0 * (double)cost_of(p, cost) / (double)total : 0.0, d);
		for (int e = 0; e < s->nr_events; e++) {
			if (e == cost || !s->totals[e].counted)
				continue;
			if (p->value[e] == UINT64_MAX)
				snprintf(d, sizeof(d), "&ndash;");
			else
				summary_value_format(&s->events[e], p->value[e], d, sizeof(d));
			fprintf(out, "<td class=\"num\">%s</td>", d);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table></div>\n", out);
}

/* A colour from light (0) to dark blue (1): the cost of a bar. */
static void heat_color(double t, char *out, size_t size)
{
	static const int lo[3] = { 0xc6, 0xdb, 0xef }, hi[3] = { 0x08, 0x30, 0x6b };
	int c[3];

	if (!(t > 0))
		t = 0;
	if (t > 1)
		t = 1;
	for (int i = 0; i < 3; i++)
		c[i] = lo[i] + (int)((hi[i] - lo[i]) * t + (hi[i] > lo[i] ? 0.5 : -0.5));
	snprintf(out, size, "#%02x%02x%02x", c[0], c[1], c[2]);
}

/* One bar per process from its start to its end: the costliest TIMELINE_MAX, in start order. */
static void section_timeline(const struct summary *s, const struct procs *ps, const int *by_cost,
			     int cost, FILE *out)
{
	const int left = 180, right = 20, top = 8, row = 16, axis = 36;
	int n = ps->n < TIMELINE_MAX ? ps->n : TIMELINE_MAX, w = HTML_CHART_W - left - right;
	int *shown = xrealloc(NULL, ((size_t)n + 1) * sizeof(int)), h = top + n * row + axis, ticks;
	double span = (double)(ps->t1 - ps->t0) / 1e9, step, max;
	uint64_t most = n ? cost_of(&ps->p[by_cost[0]], cost) : 0;
	char v[64];

	memcpy(shown, by_cost, (size_t)n * sizeof(int));
	cmp_ps = ps;
	qsort(shown, (size_t)n, sizeof(int), start_cmp);
	step = html_tick_step(span > 0 ? span : 1e-3, 8);
	max = html_whole_up((span > 0 ? span : 1e-3) / step) * step;
	ticks = html_ticks_of(max, step);
	fputs("<h2>Timeline</h2>\n<p>One bar per process, from its first image's start to its last "
	      "one's end, in start order; darker: more ", out);
	html_text(out, s->events[cost].name);
	fputs(".", out);
	if (n < ps->n)
		fprintf(out, " The %d costliest of %d processes shown.", n, ps->n);
	fprintf(out, "</p>\n<svg class=\"chart timeline\" viewBox=\"0 0 %d %d\" width=\"%d\" "
		"height=\"%d\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\">\n", HTML_CHART_W, h,
		HTML_CHART_W, h);
	for (int i = 0; i <= ticks; i++) {
		double t = i * step;
		int x = left + (int)(t / max * w + 0.5);

		html_tick_format(t, step, max, v, sizeof(v));
		fprintf(out, "<line class=\"grid\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
			"<text class=\"tick\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
			x, top, x, top + n * row, x, top + n * row + 14, v);
	}
	fprintf(out, "<text class=\"axis\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">time since the "
		"first process started (s)</text>\n", left + w / 2, h - 4);
	for (int k = 0; k < n; k++) {
		const struct proc *p = &ps->p[shown[k]];
		const struct summary_image *im = &s->image_list[p->last];
		double x0 = (double)(p->start - ps->t0) / 1e9 / max * w;
		double bw = (double)(p->end - p->start) / 1e9 / max * w;
		char color[16], label[320], d[64];
		int y = top + k * row;

		heat_color(most ? (double)cost_of(p, cost) / (double)most : 0, color, sizeof(color));
		snprintf(label, sizeof(label), "%s %d", s->programs.name[im->program], im->pid);
		fprintf(out, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 6,
			y + 12);
		html_label(out, label, 24);
		duration_format(p->end - p->start, d, sizeof(d));
		fprintf(out, "</text><rect class=\"span\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
			"height=\"%d\" fill=\"%s\"><title>", left + x0, y + 2, bw < 1 ? 1 : bw, row - 4,
			color);
		html_text(out, label);
		fprintf(out, ": %s from %.3f s, ", d, (double)(p->start - ps->t0) / 1e9);
		value_unit(out, &s->events[cost], cost_of(p, cost));
		fputc(' ', out);
		html_text(out, s->events[cost].name);
		fputs("</title></rect>\n", out);
	}
	fputs("</svg>\n", out);
	free(shown);
}

/*
 * The tree as nested <details>: a process image with children is a summary
 * line that opens (the first two levels open already), each with the totals
 * of its subtree; an exec'd image follows the one it replaced (">").
 */
static void section_tree(const struct summary *s, int cost, FILE *out)
{
	int *order, *depth, n = summary_tree(s, &order, &depth), shown = n < TREE_MAX ? n : TREE_MAX;
	int ne = s->nr_events, *stack = xrealloc(NULL, ((size_t)n + 1) * sizeof(int)), sp = 0, open = 0;
	uint64_t *sub = xrealloc(NULL, ((size_t)n * (size_t)ne + 1) * sizeof(uint64_t));

	/* subtree sums: a popped image adds its sum to its parent, the one below it on the stack */
	for (int k = 0; k <= n; k++) {
		while (sp && (k == n || depth[stack[sp - 1]] >= depth[k])) {
			int c = stack[--sp];

			for (int e = 0; sp && e < ne; e++)
				count_add(&sub[(size_t)stack[sp - 1] * ne + e], sub[(size_t)c * ne + e]);
		}
		if (k == n)
			break;
		for (int e = 0; e < ne; e++) {
			const struct summary_image *im = &s->image_list[order[k]];

			sub[(size_t)k * ne + e] = e < im->nr_values && im->value[e] != UINT64_MAX
						  ? im->value[e] : 0;
		}
		stack[sp++] = k;
	}
	fputs("<h2>Process tree</h2>\n<p>Each line is one process image and its last report: "
	      "children under the image that forked them, <code>&gt;</code> an image that "
	      "replaced the one above it (exec, same pid). A line with children opens and closes; "
	      "its numbers are its subtree's totals (its own in parentheses).</p>\n"
	      "<div class=\"tree\">\n", out);
	for (int k = 0; k < shown; k++) {
		const struct summary_image *im = &s->image_list[order[k]];
		bool exec = k && summary_images_one_process(&s->image_list[order[k - 1]], im);
		bool parent = k + 1 < shown && depth[k + 1] > depth[k];

		for (; open && depth[stack[open - 1]] >= depth[k]; open--)
			fputs("</details>\n", out);
		if (parent) {
			fprintf(out, "<details%s data-subtree=\"%" PRIu64 "\"><summary>",
				depth[k] < 2 ? " open" : "", cost < 0 ? 0 : sub[(size_t)k * ne + cost]);
			stack[open++] = k;
		} else {
			fputs("<div class=\"leaf\">", out);
		}
		fputs(exec ? "&gt; " : "", out);
		if (s->hosts.n > 1) {
			html_text(out, s->hosts.name[im->host]);
			fputc(':', out);
		} else {
			fputs("pid ", out);
		}
		fprintf(out, "%d <b>", im->pid);
		html_text(out, s->programs.name[im->program]);
		fputs("</b> [", out);
		html_text(out, im->reason);
		fputc(']', out);
		for (int e = 0, first = 1; e < ne; e++) {
			uint64_t own = e < im->nr_values ? im->value[e] : UINT64_MAX;

			if (!s->totals[e].counted || (!parent && own == UINT64_MAX))
				continue;
			fputs(first ? " &middot; " : ", ", out);
			first = 0;
			value_unit(out, &s->events[e], sub[(size_t)k * ne + e]);
			fputc(' ', out);
			html_text(out, s->events[e].name);
			if (parent) {
				fputs(" <span class=\"own\">(", out);
				if (own == UINT64_MAX)
					fputs("&ndash;", out);
				else
					value_unit(out, &s->events[e], own);
				fputs(")</span>", out);
			}
		}
		fputs(parent ? "</summary>\n" : "</div>\n", out);
	}
	for (; open; open--)
		fputs("</details>\n", out);
	fputs("</div>\n", out);
	if (shown < n)
		fprintf(out, "<p class=\"note\">The first %d of %d images shown; <code>pfshim report "
			"--tree</code> has them all.</p>\n", shown, n);
	free(sub);
	free(stack);
	free(order);
	free(depth);
}

void html_processes(const struct summary *s, FILE *out)
{
	int cost = html_cost_event(s), *by_cost;
	struct procs ps;

	if (!s->opt.images || !s->nr_images)
		return;
	procs_build(s, &ps);
	by_cost = procs_by_cost(&ps, cost);
	if (cost >= 0) {
		section_top(s, &ps, by_cost, cost, out);
		section_timeline(s, &ps, by_cost, cost, out);
	}
	free(by_cost);
	procs_free(&ps);
}

void html_tree(const struct summary *s, FILE *out)
{
	if (s->opt.images && s->nr_images)
		section_tree(s, html_cost_event(s), out);
}
