/* SPDX-License-Identifier: MIT */
/*
 * test_jsonread.c: tools/pfshim/read/jsonread.c. What the fast path accepts
 * (objects and arrays of ASCII strings with the short escapes, integers,
 * reals, literals, a key given twice) parses to jansson's own tree, ending
 * at the same byte; what it leaves to jansson (non-ASCII, \u escapes, an
 * integer past int64, deep nesting, malformed text, a bare number) comes
 * back from json_read() as jansson gives it, its message included.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tools/pfshim/read/jsonread.h"

/* json_read() of @text equals json_loadb()'s, and the fast path took it (@fast) or not. */
static void same(const char *text, bool fast)
{
	json_error_t a, b;
	size_t used = 0;
	bool plain, plain_r;
	json_t *f = json_read_fast(text, strlen(text), &used, &plain);
	json_t *r = json_read(text, strlen(text), &a, &plain_r);
	json_t *j = json_loadb(text, strlen(text), JSON_DISABLE_EOF_CHECK, &b);

	if (fast != !!f)
		fail_msg("fast path %s '%s'", f ? "took" : "left", text);
	if (!j) {
		assert_null(r);
		assert_string_equal(a.text, b.text);
		assert_int_equal(a.line, b.line);
	} else {
		assert_non_null(r);
		assert_true(json_equal(r, j));
		assert_int_equal(a.position, b.position);
		if (f)
			assert_int_equal(used, (size_t)b.position);
	}
	json_decref(f);
	json_decref(r);
	json_decref(j);
}

static void test_fast_path_equals_jansson(void **state)
{
	(void)state;
	same("{}", true);
	same(" \n\t[ ]", true);
	same("{\"a\":\"x\\ty\\\"z\\\\\\/\\b\\f\\n\\r\",\"b\":[1,-0,0,0.5,1e-06,2E+3,-1.5e300,"
	     "9223372036854775807,-9223372036854775808],\"c\":{\"d\":null,\"e\":true,\"f\":false}}", true);
	same("{\"k\":1,\"k\":2}", true);			/* the last one, as jansson keeps */
	same("{\"a\":1}\n{\"b\":2}\n", true);			/* the first value: where it ends */
	same("[[[[[[[[[[1]]]]]]]]]]", true);
}

static void test_left_to_jansson(void **state)
{
	char deep[300];

	(void)state;
	same("{\"name\":\"caf\xc3\xa9\"}", false);		/* non-ASCII: jansson checks the UTF-8 */
	same("{\"name\":\"bad\xff\"}", false);
	same("{\"name\":\"\\u001b]0;x\\u0007\"}", false);
	same("{\"v\":9223372036854775808}", false);		/* past int64: jansson's error */
	same("{\"v\":1e999}", false);
	same("{\"v\":01}", false);
	same("{\"v\":1.}", false);
	same("{\"v\":tru}", false);
	same("{\"v\":\"cut", false);
	same("{\"a\":1,}", false);
	same("[1 2]", false);
	same("42", false);					/* not a document */
	same("", false);
	memset(deep, '[', 100);
	memset(deep + 100, ']', 100);
	deep[200] = '\0';
	same(deep, false);					/* deeper than the fast path goes */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fast_path_equals_jansson),
		cmocka_unit_test(test_left_to_jansson),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
