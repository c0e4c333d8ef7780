/* SPDX-License-Identifier: MIT */
/*
 * test_long_name.c: preload/markers/long_name.c, region names of 64 bytes
 * or more shortened to pfshim's limit: short names as they are, long ones
 * cut to 54 bytes, '~' and 8 hex digits of the whole name's hash, never
 * inside a UTF-8 character (a report must stay valid text); and the names
 * table keeps every long name so (regions.c).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "preload/markers/long_name.h"

static void test_short_name_as_is(void **state)
{
	char buf[REGIONS_NAME_LEN], name[REGIONS_NAME_LEN];

	(void)state;
	assert_ptr_equal(region_name_key("a region", buf), "a region");
	memset(name, 'x', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';	/* 63 bytes: the longest kept as it is */
	assert_ptr_equal(region_name_key(name, buf), name);
}

/* "é" (c3 a9) at bytes 53 and 54: the cut at 54 would split it, so 53 are kept. */
static void test_long_utf8_cut_between_characters(void **state)
{
	char name[128], buf[REGIONS_NAME_LEN];
	const char *out;

	(void)state;
	memset(name, 'a', 53);
	memcpy(name + 53, "\xc3\xa9", 2);
	memset(name + 55, 'b', 60);
	name[115] = '\0';
	out = region_name_key(name, buf);
	assert_ptr_equal(out, buf);
	assert_int_equal(strlen(out), 53 + 1 + 8);
	assert_memory_equal(out, name, 53);
	assert_int_equal(out[53], '~');
	/* the same name, the same short one; another tail, another hash */
	assert_string_equal(region_name_key(name, (char[REGIONS_NAME_LEN]){ 0 }), out);
	name[100] = 'c';
	assert_string_not_equal(region_name_key(name, (char[REGIONS_NAME_LEN]){ 0 }), out);
}

/* 64 bytes, the shortest shortened: 54 kept, and the hash of FNV-1a over all 64 bytes. */
static void test_hash_of_the_whole_name(void **state)
{
	char name[65], buf[REGIONS_NAME_LEN];
	uint32_t h = 2166136261u;
	char want[REGIONS_NAME_LEN];

	(void)state;
	memset(name, 'y', 64);
	name[64] = '\0';
	for (int i = 0; i < 64; i++)
		h = (h ^ 'y') * 16777619u;
	memset(want, 'y', 54);
	want[54] = '~';
	for (int i = 0; i < 8; i++)
		want[55 + i] = "0123456789abcdef"[(h >> (28 - 4 * i)) & 0xf];
	want[63] = '\0';
	assert_string_equal(region_name_key(name, buf), want);
}

/*
 * The names table interns and looks up a long name as its short one: one
 * id for the long name and for the short one written out, another for a
 * long name that differs past byte 54.
 */
static void test_names_table_keeps_long_names(void **state)
{
	static struct region_names names;
	char a[100], b[100], buf[REGIONS_NAME_LEN];
	int id;

	(void)state;
	memset(a, 'z', 99);
	a[99] = '\0';
	memcpy(b, a, sizeof(b));
	b[90] = 'w';
	id = region_names_intern(&names, a);
	assert_int_equal(id, 0);
	assert_int_equal(region_names_lookup(&names, a), 0);
	assert_string_equal(region_names_get(&names, 0), region_name_shorten(a, buf));
	assert_int_equal(region_names_lookup(&names, buf), 0);
	assert_int_equal(region_names_lookup(&names, b), -ENOENT);
	assert_int_equal(region_names_intern(&names, b), 1);
	assert_int_equal(region_names_intern(&names, a), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_name_as_is),
		cmocka_unit_test(test_long_utf8_cut_between_characters),
		cmocka_unit_test(test_hash_of_the_whole_name),
		cmocka_unit_test(test_names_table_keeps_long_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
