/* SPDX-License-Identifier: MIT */
/*
 * test_views.c: the views (tools/pfshim/view/) of a model built here by
 * hand, with no report read: what each prints follows from the model alone.
 * Text, CSV and JSON of the same two groups and one region, the groups in
 * the order the model gives them, a name with a comma, a quote and a
 * leading '=' escaped for each view, and a count past 32 bits exact.
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
#include "tools/pfshim/view/view.h"

#define BIG 6000000000ULL	/* past 32 bits */

/* Two programs (cc: 2 images; "=x,\"y\"": 1) of one event, cc in region "solve". */
static void model(struct summary *s)
{
	struct summary_options opt = { .by = BY_PROGRAM };
	int e, cc, odd;
	struct summary_cell *c;

	summary_init(s, &opt);
	e = summary_event_index(s, "page-faults", "", 1.0);
	cc = summary_group_get(s, "cc", 0);
	odd = summary_group_get(s, "=x,\"y\"", 0);
	s->groups[cc].sums[e] = (struct summary_sum){ .value = BIG, .counted = 2 };
	s->groups[cc].images = s->groups[cc].reports = 2;
	s->groups[odd].sums[e] = (struct summary_sum){ .value = 7, .counted = 1 };
	s->groups[odd].images = s->groups[odd].reports = 1;
	s->totals[e] = (struct summary_sum){ .value = BIG + 7, .counted = 3 };
	s->images = s->reports = s->processes = 3;

	names_add(&s->region_names, "solve");
	c = summary_cell_get(s, 0, cc, 0);	/* wall: metric 0 */
	*c = (struct summary_cell){ .region = 0, .group = cc, .metric = 0, .counted = true,
				    .sum = 1000, .thread_min = 400, .thread_max = 600, .threads = 2,
				    .calls = 4 };
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

static void text_view(const struct summary *s, FILE *out)
{
	summary_print_text(s, "make", NULL, out);
}

static void test_text(void **state)
{
	struct summary s;
	char *t;

	(void)state;
	model(&s);
	t = printed(&s, text_view);
	assert_non_null(strstr(t, "Performance counter stats for 'make' (3 processes, 3 images, "
				  "3 reports, 2 programs)"));
	assert_non_null(strstr(t, "6,000,000,007       page-faults"));
	/* The model's order: the largest first event first, whatever the order made. */
	assert_true(strstr(t, "\n cc ") < strstr(t, "\n =x,\"y\" "));
	assert_non_null(strstr(t, "6,000,000,000"));
	assert_non_null(strstr(t, "solve"));
	free(t);
	summary_free(&s);
}

static void test_csv(void **state)
{
	struct summary s;
	char *t;

	(void)state;
	model(&s);
	t = printed(&s, summary_print_csv);
	assert_non_null(strstr(t, "scope,program,reports,images,event,value,counted,not_supported,unit,scale\n"
				  "total,,3,3,page-faults,6000000007,3,0,,1\n"
				  "program,cc,2,2,page-faults,6000000000,2,0,,1\n"
				  "program,\"'=x,\"\"y\"\"\",1,1,page-faults,7,1,0,,1\n"));
	free(t);
	summary_free(&s);
}

static void test_json(void **state)
{
	struct summary s;
	json_error_t err;
	json_t *o, *g;
	char *t;

	(void)state;
	model(&s);
	t = printed(&s, summary_print_json);
	o = json_loads(t, 0, &err);
	assert_non_null(o);
	assert_string_equal(json_string_value(json_object_get(o, "schema")), "pfshim.summary");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(
		json_object_get(o, "events"), 0), "value")), BIG + 7);
	g = json_object_get(o, "groups");
	assert_int_equal(json_array_size(g), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(g, 0), "group")), "cc");
	assert_string_equal(json_string_value(json_object_get(json_array_get(g, 1), "group")),
			    "=x,\"y\"");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(
		json_array_get(g, 0), "events"), 0), "value")), BIG);
	json_decref(o);
	free(t);
	summary_free(&s);
}

static void html_view(const struct summary *s, FILE *out)
{
	summary_print_html(s, "<make>", out);
}

static void test_html(void **state)
{
	struct summary s;
	char *t;

	(void)state;
	model(&s);
	t = printed(&s, html_view);
	assert_non_null(strstr(t, "&lt;make&gt;"));
	assert_null(strstr(t, "<make>"));
	assert_non_null(strstr(t, "=x,&quot;y&quot;"));
	assert_non_null(strstr(t, "6,000,000,007"));
	free(t);
	summary_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_html),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
