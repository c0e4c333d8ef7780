/* SPDX-License-Identifier: MIT */
/*
 * region_tree.c: the job's region tree (region_tree.h): nodes found by
 * (parent, region) in O(1), so that a job of many threads and images adds
 * its paths in time linear in their number.
 */
#include "tools/pfshim/model/region_tree.h"

#include <stdlib.h>
#include <string.h>

#include "tools/pfshim/model/summary.h"

struct node_key {
	const struct region_tree *t;
	int parent, region;
};

static uint64_t node_hash(int parent, int region)
{
	uint64_t h = hash_bytes(HASH_SEED, &parent, sizeof(parent));

	return hash_bytes(h, &region, sizeof(region));
}

static uint64_t node_hash_at(const void *ctx, int pos)
{
	const struct region_tree *t = ctx;

	return node_hash(t->node[pos].parent, t->node[pos].region);
}

static bool node_match(const void *ctx, int pos)
{
	const struct node_key *k = ctx;

	return k->t->node[pos].parent == k->parent && k->t->node[pos].region == k->region;
}

void region_tree_init(struct region_tree *t)
{
	memset(t, 0, sizeof(*t));
	t->first_top = t->last_top = -1;
}

int region_tree_node(struct region_tree *t, int parent, int region)
{
	struct node_key k = { t, parent, region };
	uint64_t h = node_hash(parent, region);
	int i = table_find(&t->index, h, node_match, &k);

	if (i >= 0)
		return i;
	if (t->n == t->cap) {
		/* doubled: a node at a time copied the whole array each time (100,000 nodes: minutes) */
		t->cap = t->cap ? 2 * t->cap : 16;
		t->node = xrealloc(t->node, (size_t)t->cap * sizeof(*t->node));
	}
	t->node[t->n] = (struct region_node){
		.parent = parent, .region = region,
		.depth = parent >= 0 ? t->node[parent].depth + 1 : 0,
		.first_child = -1, .last_child = -1, .next_sibling = -1,
	};
	if (parent < 0) {
		if (t->last_top >= 0)
			t->node[t->last_top].next_sibling = t->n;
		else
			t->first_top = t->n;
		t->last_top = t->n;
	} else {
		if (t->node[parent].last_child >= 0)
			t->node[t->node[parent].last_child].next_sibling = t->n;
		else
			t->node[parent].first_child = t->n;
		t->node[parent].last_child = t->n;
	}
	table_add(&t->index, h, t->n, node_hash_at, t);
	return t->n++;
}

void region_tree_add(struct region_tree *t, int node, int metric, uint64_t v)
{
	struct region_node *n = &t->node[node];

	if (metric >= n->nr_values) {
		n->values = xrealloc(n->values, (size_t)(metric + 1) * sizeof(*n->values));
		memset(n->values + n->nr_values, 0,
		       (size_t)(metric + 1 - n->nr_values) * sizeof(*n->values));
		n->nr_values = metric + 1;
	}
	n->values[metric].counted = true;
	count_add(&n->values[metric].sum, v);
}

const struct region_node_value *region_tree_value(const struct region_tree *t, int node,
						  int metric)
{
	const struct region_node *n = &t->node[node];

	return metric < n->nr_values && n->values[metric].counted ? &n->values[metric] : NULL;
}

int64_t region_tree_exclusive(const struct region_tree *t, int node, int metric)
{
	const struct region_node_value *v = region_tree_value(t, node, metric);
	uint64_t mine = v ? v->sum : 0, below = 0;

	/* Sums saturate at SUMMARY_COUNT_MAX (INT64_MAX): their difference fits an int64_t. */
	for (int c = t->node[node].first_child; c >= 0; c = t->node[c].next_sibling) {
		const struct region_node_value *cv = region_tree_value(t, c, metric);

		if (cv)
			count_add(&below, cv->sum);
	}
	return mine >= below ? (int64_t)(mine - below) : -(int64_t)(below - mine);
}

uint64_t region_tree_top_sum(const struct region_tree *t, int metric)
{
	uint64_t sum = 0;

	for (int i = t->first_top; i >= 0; i = t->node[i].next_sibling) {
		const struct region_node_value *v = region_tree_value(t, i, metric);

		if (v)
			count_add(&sum, v->sum);
	}
	return sum;
}

/* Depth first without recursion: a crafted report may nest as deep as it has nodes. */
int *region_tree_order(const struct region_tree *t)
{
	int *order = xrealloc(NULL, (size_t)(t->n + 1) * sizeof(*order));
	int at = 0, i = t->first_top;

	while (i >= 0) {
		order[at++] = i;
		if (t->node[i].first_child >= 0) {
			i = t->node[i].first_child;
			continue;
		}
		/* Up until a node with a next sibling. */
		while (i >= 0 && t->node[i].next_sibling < 0)
			i = t->node[i].parent;
		if (i >= 0)
			i = t->node[i].next_sibling;
	}
	return order;
}

void region_tree_free(struct region_tree *t)
{
	for (int i = 0; i < t->n; i++)
		free(t->node[i].values);
	free(t->node);
	table_free(&t->index);
	memset(t, 0, sizeof(*t));
}
