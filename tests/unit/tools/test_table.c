/* SPDX-License-Identifier: MIT */
/*
 * test_table.c: tools/pfshim/model/table.c, the lookups of `pfshim report`:
 * strings numbered in first-appearance order and found again after the
 * index grew many times; comma lists without empty items; hashes that keep
 * "a","b" apart from "ab","".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "tools/pfshim/model/table.h"

static void test_names_many(void **state)
{
	struct names s = { 0 };
	char name[32];

	(void)state;
	for (int i = 0; i < 20000; i++) {
		snprintf(name, sizeof(name), "prog%d", i);
		assert_int_equal(names_add(&s, name), i);
	}
	assert_int_equal(s.n, 20000);
	for (int i = 0; i < 20000; i += 7) {
		snprintf(name, sizeof(name), "prog%d", i);
		assert_int_equal(names_find(&s, name), i);
		assert_int_equal(names_add(&s, name), i);	/* no duplicate */
	}
	assert_int_equal(names_find(&s, "prog20000"), -1);
	assert_int_equal(names_find(&s, ""), -1);
	assert_int_equal(s.n, 20000);
	names_free(&s);
	assert_int_equal(s.n, 0);
	assert_int_equal(names_find(&s, "prog1"), -1);	/* usable after free */
}

static void test_names_list(void **state)
{
	struct names s = { 0 };

	(void)state;
	names_add_list(&s, ",page-faults,,task-clock,page-faults,");
	assert_int_equal(s.n, 2);
	assert_string_equal(s.name[0], "page-faults");
	assert_string_equal(s.name[1], "task-clock");
	names_add_list(&s, "");
	assert_int_equal(s.n, 2);
	names_free(&s);
}

static void test_hash_boundaries(void **state)
{
	(void)state;
	assert_int_not_equal(hash_string(hash_string(HASH_SEED, "a"), "b"),
			     hash_string(hash_string(HASH_SEED, "ab"), ""));
	assert_int_equal(hash_string(HASH_SEED, "x"), hash_bytes(HASH_SEED, "x", 2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_many),
		cmocka_unit_test(test_names_list),
		cmocka_unit_test(test_hash_boundaries),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
