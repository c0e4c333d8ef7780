/* SPDX-License-Identifier: MIT */
/*
 * region_tree.h: the job's region tree: one node per nesting path (a region
 * under a parent node), summed over every thread of every image read, with
 * each path's own calls and sums, as the reports' per-thread paths carry
 * them. Inclusive sums are the paths' own; exclusive ones are computed here
 * (a node's inclusive less its children's), once, for every view.
 */
#ifndef PFSHIM_TOOLS_REGION_TREE_H
#define PFSHIM_TOOLS_REGION_TREE_H

#include <stdbool.h>
#include <stdint.h>

#include "tools/pfshim/model/table.h"

/*
 * The deepest path the reader takes: a thread's table holds at most 64
 * nodes (preload/markers/regions.h), so only a crafted report nests deeper,
 * and views that print a node's path would print its depth again per node.
 */
#define REGION_TREE_DEPTH_MAX 256

/* One metric of one node: metric 0 is wall ns, the others region events (summary.metrics). */
struct region_node_value {
	bool counted;
	uint64_t sum;		/* inclusive: the regions begun inside included */
};

struct region_node {
	int parent;		/* a node's index, or -1: a top region */
	int region;		/* in summary.region_names */
	int depth;		/* 0 for a top region */
	int first_child, last_child, next_sibling;	/* -1: none; in the order first seen */
	uint64_t calls, reentries;
	int nr_values;		/* values[] grows with the metrics */
	struct region_node_value *values;
};

/* An empty tree is all zeros but its lists: region_tree_init(). */
struct region_tree {
	int n, cap;			/* nodes made, and room for (doubled when full) */
	struct region_node *node;	/* parents before their children */
	int first_top, last_top;	/* the top regions' list (next_sibling); -1: none */
	struct table_index index;	/* by (parent, region) */
	/*
	 * Threads the reports counted but did not list (a process lists so
	 * many exited threads): their regions are in the sums by name, their
	 * paths in no node.
	 */
	uint64_t threads_unlisted;
};

void region_tree_init(struct region_tree *t);

/* region_tree_node - the node of @region under @parent (-1: top), made when new. */
int region_tree_node(struct region_tree *t, int parent, int region);

/* region_tree_add - @v into metric @metric of node @node (counts saturate). */
void region_tree_add(struct region_tree *t, int node, int metric, uint64_t v);

/* region_tree_value - metric @metric of node @node: NULL when never counted. */
const struct region_node_value *region_tree_value(const struct region_tree *t, int node,
						  int metric);

/*
 * region_tree_exclusive - node @node's @metric less its children's, the
 * count spent in the region itself. Negative only when a region ended
 * while one begun inside it was open (the reports' unnested misuse): the
 * child then counted past its parent's end.
 */
int64_t region_tree_exclusive(const struct region_tree *t, int node, int metric);

/* region_tree_top_sum - @metric summed over the top regions: the tree's whole. */
uint64_t region_tree_top_sum(const struct region_tree *t, int metric);

/*
 * region_tree_order - the nodes depth first, each node's children in the
 * order they were first seen (an array of n, the caller's to free).
 */
int *region_tree_order(const struct region_tree *t);

void region_tree_free(struct region_tree *t);

#endif
