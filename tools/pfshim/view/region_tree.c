/* SPDX-License-Identifier: MIT */
/*
 * region_tree.c: the region tree view (view.h), in text and in the JSON
 * view: each nesting path with its calls, inclusive and exclusive counts
 * and their % of the total, as Caliper's runtime-report prints a tree.
 */
#include <inttypes.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "export/report.h"	/* REPORT_THREADS_LISTED */
#include "tools/pfshim/view/view.h"

uint64_t region_tree_whole(const struct summary *s, int metric)
{
	if (metric > 0)
		for (int i = 0; i < s->nr_events; i++)
			if (strcmp(s->events[i].name, s->metrics.name[metric]) == 0 &&
			    s->totals[i].counted)
				return s->totals[i].value;
	return region_tree_top_sum(&s->region_tree, metric);
}

/* Does any node count @metric? */
static bool metric_in_tree(const struct summary *s, int metric)
{
	for (int i = 0; i < s->region_tree.n; i++)
		if (region_tree_value(&s->region_tree, i, metric))
			return true;
	return false;
}

static double percent(int64_t v, uint64_t whole)
{
	return whole ? 100.0 * (double)v / (double)whole : 0.0;
}

/* A signed count in the metric's unit: an exclusive count is below 0 only after misuse. */
static void signed_format(const struct summary_event *e, int64_t v, char *out, size_t size)
{
	if (v >= 0) {
		summary_value_format(e, (uint64_t)v, out, size);
		return;
	}
	out[0] = '-';
	summary_value_format(e, (uint64_t)0 - (uint64_t)v, out + 1, size - 1);
}

#define PATH_WIDTH_MAX 48

void region_tree_print_text(const struct summary *s, FILE *out)
{
	const struct region_tree *t = &s->region_tree;
	int *order = region_tree_order(t);
	int width = 24;

	for (int k = 0; k < t->n; k++) {
		const struct region_node *n = &t->node[order[k]];
		int w = 2 * n->depth + (int)strlen(s->region_names.name[n->region]);

		if (w > width)
			width = w > PATH_WIDTH_MAX ? PATH_WIDTH_MAX : w;
	}
	fputs("\n pfshim: region tree, each path summed over every thread and image; inclusive\n"
	      " counts hold the regions begun inside, exclusive ones do not; % of the job's total\n"
	      " (wall time: of the top regions')\n", out);
	if (t->threads_unlisted)
		fprintf(out, " pfshim: %" PRIu64 " %s in no path: a process lists %d exited threads at"
			" most, and the regions of the others are in the sums by region above, not in"
			" this tree\n", t->threads_unlisted,
			t->threads_unlisted == 1 ? "thread is" : "threads are", REPORT_THREADS_LISTED);
	for (int m = 0; m < s->metrics.n; m++) {
		struct summary_event e = summary_metric_event(s, m);
		uint64_t whole = region_tree_whole(s, m);
		char head[96];

		if (!metric_in_tree(s, m))
			continue;
		snprintf(head, sizeof(head), "%s%s%s", e.name, *e.unit ? " " : "", e.unit);
		fprintf(out, "\n   %-*s %12s %14s %14s %7s %7s\n", width, head, "calls", "inclusive",
			"exclusive", "incl %", "excl %");
		for (int k = 0; k < t->n; k++) {
			const struct region_node *n = &t->node[order[k]];
			const struct region_node_value *v = region_tree_value(t, order[k], m);
			int64_t excl = region_tree_exclusive(t, order[k], m);
			char calls[48], incl[48], ex[48];

			summary_value_format(&(struct summary_event){ .scale = 1.0 }, n->calls, calls,
					     sizeof(calls));
			if (!v) {
				fprintf(out, "   %*s%-*.*s %12s %14s\n", 2 * n->depth, "",
					width - 2 * n->depth, width - 2 * n->depth,
					s->region_names.name[n->region], calls, "<not counted>");
				continue;
			}
			summary_value_format(&e, v->sum, incl, sizeof(incl));
			signed_format(&e, excl, ex, sizeof(ex));
			fprintf(out, "   %*s%-*.*s %12s %14s %14s %6.1f%% %6.1f%%\n", 2 * n->depth, "",
				width - 2 * n->depth < 1 ? 1 : width - 2 * n->depth,
				width - 2 * n->depth < 1 ? 1 : width - 2 * n->depth,
				s->region_names.name[n->region], calls, incl, ex,
				percent((int64_t)v->sum, whole), percent(excl, whole));
		}
	}
	if (s->misuse.unnested)
		fprintf(out, "\n   MISUSE: %" PRIu64 " regions ended while one begun inside them was open:"
			" their exclusive counts are short by the overlap\n", s->misuse.unnested);
	free(order);
}

json_t *region_tree_json(const struct summary *s)
{
	const struct region_tree *t = &s->region_tree;
	json_t *nodes = json_array();
	int *order = region_tree_order(t);
	int *index_of = calloc((size_t)t->n + 1, sizeof(int));

	/* Listed depth first: a node's parent is an earlier entry, as in the reports' paths. */
	for (int k = 0; k < t->n; k++)
		index_of[order[k]] = k;
	for (int k = 0; k < t->n; k++) {
		const struct region_node *n = &t->node[order[k]];
		json_t *path = json_array(), *metrics = json_array();

		for (int up = order[k]; up >= 0; up = t->node[up].parent)
			json_array_insert_new(path, 0,
					      json_string(s->region_names.name[t->node[up].region]));
		for (int m = 0; m < s->metrics.n; m++) {
			const struct region_node_value *v = region_tree_value(t, order[k], m);
			uint64_t whole = region_tree_whole(s, m);
			int64_t excl;

			if (!v)
				continue;
			excl = region_tree_exclusive(t, order[k], m);
			json_array_append_new(metrics, json_pack(
				"{s:s, s:I, s:I, s:f, s:f}", "name", s->metrics.name[m],
				"inclusive", (json_int_t)v->sum, "exclusive", (json_int_t)excl,
				"inclusive_percent", percent((int64_t)v->sum, whole),
				"exclusive_percent", percent(excl, whole)));
		}
		json_array_append_new(nodes, json_pack(
			"{s:s, s:i, s:i, s:o, s:I, s:I, s:o}",
			"name", s->region_names.name[n->region],
			"parent", n->parent >= 0 ? index_of[n->parent] : -1, "depth", n->depth,
			"path", path, "calls", (json_int_t)n->calls,
			"reentries", (json_int_t)n->reentries, "metrics", metrics));
	}
	free(index_of);
	free(order);
	return nodes;
}
