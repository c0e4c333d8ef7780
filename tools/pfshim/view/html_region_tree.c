/* SPDX-License-Identifier: MIT */
/*
 * html_region_tree.c: the page's region tree (html.h): each nesting path a
 * line of nested <details> (collapsible without a script, as the process
 * tree), with its calls and, per metric, inclusive, exclusive and % of the
 * total, the numbers of the JSON view's region_tree (view/region_tree.c).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "export/report.h"	/* REPORT_THREADS_LISTED */
#include "tools/pfshim/view/html.h"
#include "tools/pfshim/view/view.h"

#define REGION_TREE_MAX 2000	/* lines; the rest said, as the process tree does */

/* A metric's value as the page shows one: "9.89 msec", "2,011"; "-" before a negative one. */
static void value_shown(FILE *out, const struct summary_event *e, int64_t v)
{
	char text[64];

	summary_value_format(e, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, text,
			     sizeof(text));
	if (v < 0)
		fputc('-', out);
	fputs(text, out);
	if (*e->unit) {
		fputc(' ', out);
		html_text(out, e->unit);
	}
}

/* One node's line: its name, calls, and each metric's inclusive (exclusive, % of the total). */
static void node_line(const struct summary *s, int node, FILE *out)
{
	const struct region_tree *t = &s->region_tree;
	const struct region_node *n = &t->node[node];

	fputs("<b>", out);
	html_text(out, s->region_names.name[n->region]);
	fprintf(out, "</b> &middot; <span data-calls=\"%" PRIu64 "\">%" PRIu64 " %s</span>",
		n->calls, n->calls, n->calls == 1 ? "call" : "calls");
	for (int m = 0; m < s->metrics.n; m++) {
		const struct region_node_value *v = region_tree_value(t, node, m);
		struct summary_event e = summary_metric_event(s, m);
		uint64_t whole = region_tree_whole(s, m);
		int64_t excl;

		if (!v)
			continue;
		excl = region_tree_exclusive(t, node, m);
		fputs(" &middot; <span class=\"m\" data-metric=\"", out);
		html_text(out, s->metrics.name[m]);
		fprintf(out, "\" data-inclusive=\"%" PRIu64 "\" data-exclusive=\"%" PRId64 "\">",
			v->sum, excl);
		value_shown(out, &e, (int64_t)v->sum);
		fputc(' ', out);
		html_text(out, e.name);
		fputs(" <span class=\"own\">(", out);
		value_shown(out, &e, excl);
		fprintf(out, " own; %.1f%% of the total)</span></span>",
			whole ? 100.0 * (double)v->sum / (double)whole : 0.0);
	}
}

void html_region_tree(const struct summary *s, FILE *out)
{
	const struct region_tree *t = &s->region_tree;
	int *order, shown, open = 0;

	if (!t->n)
		return;
	order = region_tree_order(t);
	shown = t->n < REGION_TREE_MAX ? t->n : REGION_TREE_MAX;
	fputs("<h2>Region tree</h2>\n<p>Each line is one nesting path, summed over every thread "
	      "and process: its calls, then per metric its inclusive count (the regions begun "
	      "inside it included), in parentheses its own (exclusive: inclusive less the lines "
	      "below it) and the inclusive count's share of the job's total (for wall time: of "
	      "the top regions'). A line with regions inside opens and closes.</p>\n"
	      "<div class=\"tree rtree\">\n", out);
	for (int k = 0; k < shown; k++) {
		const struct region_node *n = &t->node[order[k]];
		bool parent = k + 1 < shown && t->node[order[k + 1]].depth > n->depth;

		/* Close the lines this one is not inside: one per level it climbs. */
		for (; open > n->depth; open--)
			fputs("</details>\n", out);
		if (parent) {
			fprintf(out, "<details%s class=\"rnode\"><summary>", n->depth < 2 ? " open" : "");
			open++;
		} else {
			fputs("<div class=\"leaf rnode\">", out);
		}
		node_line(s, order[k], out);
		fputs(parent ? "</summary>\n" : "</div>\n", out);
	}
	for (; open; open--)
		fputs("</details>\n", out);
	fputs("</div>\n", out);
	if (s->misuse.unnested)
		fprintf(out, "<p class=\"note\"><b>misuse</b>: %" PRIu64 " regions ended while one "
			"begun inside them was open: their own counts are short by the overlap.</p>\n",
			s->misuse.unnested);
	if (t->threads_unlisted)
		fprintf(out, "<p class=\"note\">%" PRIu64 " %s in no path: a process lists %d exited "
			"threads at most, and the regions of the others are in the regions' sums, not "
			"in this tree.</p>\n", t->threads_unlisted,
			html_plural(t->threads_unlisted, "thread is", "threads are"), REPORT_THREADS_LISTED);
	if (shown < t->n)
		fprintf(out, "<p class=\"note\">The first %d of %d paths shown; <code>pfshim report"
			"</code> has them all.</p>\n", shown, t->n);
	free(order);
}
