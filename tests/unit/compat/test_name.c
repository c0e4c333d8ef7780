/* SPDX-License-Identifier: MIT */
/*
 * test_name.c: compat/name.c, long LIKWID tags and PAPI region names
 * shortened to pfshim's limit: short names as they are, long ones cut to
 * 54 bytes, '~' and 8 hex digits of the whole name's hash, never inside a
 * UTF-8 character (a report must stay valid text).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "compat/name.h"

static void test_short_name_as_is(void **state)
{
	char buf[COMPAT_NAME_LEN];
	const char *name = "a region";

	(void)state;
	assert_ptr_equal(compat_region_name(name, buf), name);
}

/* "é" (c3 a9) at bytes 53 and 54: the cut at 54 would split it, so 53 are kept. */
static void test_long_utf8_cut_between_characters(void **state)
{
	char name[128], buf[COMPAT_NAME_LEN];
	const char *out;

	(void)state;
	memset(name, 'a', 53);
	memcpy(name + 53, "\xc3\xa9", 2);
	memset(name + 55, 'b', 60);
	name[115] = '\0';
	out = compat_region_name(name, buf);
	assert_int_equal(strlen(out), 53 + 1 + 8);
	assert_memory_equal(out, name, 53);
	assert_int_equal(out[53], '~');
	/* the same name, the same short one; another tail, another hash */
	assert_string_equal(compat_region_name(name, (char[COMPAT_NAME_LEN]){ 0 }), out);
	name[100] = 'c';
	assert_string_not_equal(compat_region_name(name, (char[COMPAT_NAME_LEN]){ 0 }), out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_name_as_is),
		cmocka_unit_test(test_long_utf8_cut_between_characters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
