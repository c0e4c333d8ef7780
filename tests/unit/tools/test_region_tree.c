/* SPDX-License-Identifier: MIT */
/*
 * test_region_tree.c: tools/pfshim/model/region_tree.c, the job's region
 * tree, and its views (view/region_tree.c, the page's html_region_tree.c)
 * on a tree built by hand: nodes found by (parent, region), exclusive
 * counts, depth-first order (a deep chain included, without recursion),
 * and what the text and JSON views print of it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <jansson.h>

#include "tools/pfshim/model/summary.h"
#include "tools/pfshim/view/html.h"
#include "tools/pfshim/view/view.h"

/*
 * setup > kernel, solve > kernel (kernel: two nodes of one region), of
 * page-faults (metric 1): setup 450 (kernel 300), solve 990 (kernel 900),
 * and a job total of 2000 page-faults.
 */
static void model(struct summary *s)
{
	struct summary_options opt = { .by = BY_PROGRAM };
	int pf, setup, solve, kernel, n;
	struct region_tree *t = &s->region_tree;

	summary_init(s, &opt);
	pf = summary_event_index(s, "page-faults", "", 1.0);
	s->totals[pf] = (struct summary_sum){ .value = 2000, .counted = 1 };
	setup = names_add(&s->region_names, "setup");
	kernel = names_add(&s->region_names, "kernel");
	solve = names_add(&s->region_names, "solve");
	assert_int_equal(names_add(&s->metrics, "page-faults"), 1);
	n = region_tree_node(t, -1, setup);
	t->node[n].calls = 3;
	region_tree_add(t, n, 1, 450);
	n = region_tree_node(t, n, kernel);
	t->node[n].calls = 3;
	region_tree_add(t, n, 1, 300);
	n = region_tree_node(t, -1, solve);
	t->node[n].calls = 3;
	region_tree_add(t, n, 1, 990);
	n = region_tree_node(t, n, kernel);
	t->node[n].calls = 3;
	region_tree_add(t, n, 1, 900);
}

static void test_nodes_and_exclusive(void **state)
{
	struct summary s;
	const struct region_tree *t = &s.region_tree;
	int *order;

	(void)state;
	model(&s);
	assert_int_equal(t->n, 4);
	/* The same (parent, region) is the same node; kernel under each parent its own. */
	assert_int_equal(region_tree_node(&s.region_tree, -1, 0), 0);
	assert_int_equal(region_tree_node(&s.region_tree, 0, 1), 1);
	assert_int_equal(region_tree_node(&s.region_tree, 2, 1), 3);
	assert_int_equal(t->n, 4);
	assert_int_equal(t->node[3].depth, 1);
	assert_int_equal(region_tree_exclusive(t, 0, 1), 150);
	assert_int_equal(region_tree_exclusive(t, 2, 1), 90);
	assert_int_equal(region_tree_exclusive(t, 3, 1), 900);
	assert_null(region_tree_value(t, 0, 0));	/* no wall time given */
	assert_int_equal(region_tree_exclusive(t, 0, 0), 0);
	assert_int_equal(region_tree_top_sum(t, 1), 1440);
	assert_int_equal(region_tree_whole(&s, 1), 2000);
	order = region_tree_order(t);
	assert_int_equal(order[0], 0);
	assert_int_equal(order[1], 1);
	assert_int_equal(order[2], 2);
	assert_int_equal(order[3], 3);
	free(order);
	summary_free(&s);
}

/* A child added after a later top region still comes right under its parent. */
static void test_order_depth_first(void **state)
{
	struct region_tree t;
	int a, b, c, *order;

	(void)state;
	region_tree_init(&t);
	a = region_tree_node(&t, -1, 0);
	b = region_tree_node(&t, -1, 1);
	c = region_tree_node(&t, a, 2);
	region_tree_node(&t, c, 3);
	order = region_tree_order(&t);
	assert_int_equal(order[0], a);
	assert_int_equal(order[1], c);
	assert_int_equal(order[2], 3);
	assert_int_equal(order[3], b);
	free(order);
	region_tree_free(&t);
	/* 100,000 deep (a crafted report may nest that deep): walked without recursion. */
	region_tree_init(&t);
	for (int i = 0, parent = -1; i < 100000; i++)
		parent = region_tree_node(&t, parent, i);
	order = region_tree_order(&t);
	assert_int_equal(order[99999], 99999);
	assert_int_equal(t.node[99999].depth, 99999);
	free(order);
	region_tree_free(&t);
}

static char *printed(const struct summary *s, void (*view)(const struct summary *, FILE *))
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	view(s, out);
	fclose(out);
	return text;
}

static void test_text(void **state)
{
	struct summary s;
	char *t;

	(void)state;
	model(&s);
	t = printed(&s, region_tree_print_text);
	/* Indented by depth: calls, inclusive, exclusive, % of the job's 2,000. */
	assert_non_null(strstr(t, "\n   setup                               3            450            150   22.5%    7.5%\n"));
	assert_non_null(strstr(t, "\n     kernel                            3            300            300   15.0%   15.0%\n"));
	assert_non_null(strstr(t, "\n   solve                               3            990             90   49.5%    4.5%\n"));
	assert_null(strstr(t, "MISUSE"));
	free(t);
	/* A child counted past its parent's end: a negative exclusive, and the misuse said. */
	s.region_tree.node[3].values[1].sum = 1000;
	s.misuse.unnested = 1;
	t = printed(&s, region_tree_print_text);
	assert_non_null(strstr(t, "\n   solve                               3            990            -10 "));
	assert_non_null(strstr(t, "MISUSE: 1 regions ended while one begun inside them was open"));
	free(t);
	summary_free(&s);
}

static void test_json(void **state)
{
	struct summary s;
	json_t *j, *n;

	(void)state;
	model(&s);
	j = region_tree_json(&s);
	assert_int_equal(json_array_size(j), 4);
	n = json_array_get(j, 3);
	assert_string_equal(json_string_value(json_object_get(n, "name")), "kernel");
	assert_int_equal(json_integer_value(json_object_get(n, "parent")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(n, "path"), 0)), "solve");
	n = json_array_get(json_object_get(json_array_get(j, 2), "metrics"), 0);
	assert_string_equal(json_string_value(json_object_get(n, "name")), "page-faults");
	assert_int_equal(json_integer_value(json_object_get(n, "inclusive")), 990);
	assert_int_equal(json_integer_value(json_object_get(n, "exclusive")), 90);
	assert_true(json_real_value(json_object_get(n, "inclusive_percent")) == 49.5);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(j, 0), "parent")), -1);
	json_decref(j);
	summary_free(&s);
}

/* The page's lines: nested details for the two parents, leaves for the kernels, names escaped. */
static void test_html(void **state)
{
	struct summary s;
	char *t;

	(void)state;
	model(&s);
	free(s.region_names.name[2]);
	s.region_names.name[2] = strdup("<solve>");
	t = printed(&s, html_region_tree);
	assert_non_null(strstr(t, "<b>&lt;solve&gt;</b>"));
	assert_null(strstr(t, "<solve>"));
	assert_non_null(strstr(t, "data-metric=\"page-faults\" data-inclusive=\"990\" data-exclusive=\"90\""));
	assert_int_equal(strstr(t, "<details open class=\"rnode\">") != NULL, 1);
	free(t);
	summary_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nodes_and_exclusive),
		cmocka_unit_test(test_order_depth_first),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_html),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
