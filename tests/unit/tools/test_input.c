/* SPDX-License-Identifier: MIT */
/*
 * test_input.c: tools/pfshim/read/input.c, the reader: a file is read in
 * pieces, and every object comes out whole and in order whatever piece
 * boundary it straddles (strings holding brackets, quotes and escapes;
 * objects over several lines; one longer than the first buffer), at most
 * BATCH_OBJECTS per batch; a malformed object stops the file with its line
 * named, after the objects before it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tools/pfshim/read/input.h"

#define OBJECTS 5000
#define LONG_AT 1234		/* this object holds a string of LONG_LEN bytes */
#define LONG_LEN (300 << 10)

static char *temp_file(FILE **f)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/test_input.XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	*f = fdopen(fd, "w");
	assert_non_null(*f);
	return path;
}

/* Object @i: {"i":i, "s":"<brackets, quotes, escapes>"}, every 7th over three lines. */
static void write_object(FILE *f, int i)
{
	if (i == LONG_AT) {
		fprintf(f, "{\"i\":%d,\"s\":\"", i);
		for (int k = 0; k < LONG_LEN; k++)
			fputc("{[}]ab"[k % 6], f);
		fprintf(f, "\"}\n");
	} else if (i % 7 == 0) {
		fprintf(f, "{\n  \"i\": %d,\n  \"s\": \"}]\\\"{[\\\\\"}\n", i);
	} else {
		fprintf(f, "{\"i\":%d,\"s\":\"a}b]c\\\"d{e[\\\\\",\"n\":[[{}],{\"x\":[]}]}\n", i);
	}
}

static void test_pieces_and_batches(void **state)
{
	struct input_rules rules = { 0 };
	struct batch b = { 0 };
	FILE *f;
	char *path = temp_file(&f);
	int next = 0, batches = 0;

	(void)state;
	for (int i = 0; i < OBJECTS; i++)
		write_object(f, i);
	fclose(f);
	b.path = path;
	batch_read(&b, path, &rules);
	do {
		batches++;
		assert_true(b.n <= BATCH_OBJECTS);
		assert_string_equal(b.error, "");
		assert_int_equal(b.read_errno, 0);
		for (int k = 0; k < b.n; k++, next++) {
			json_t *s = json_object_get(b.object[k], "s");

			assert_int_equal(json_integer_value(json_object_get(b.object[k], "i")), next);
			assert_true(json_is_string(s));
			if (next == LONG_AT)
				assert_int_equal(json_string_length(s), LONG_LEN);
			else
				assert_string_equal(json_string_value(s),
						    next % 7 ? "a}b]c\"d{e[\\" : "}]\"{[\\");
		}
	} while (batch_next(&b));
	assert_int_equal(next, OBJECTS);
	assert_true(batches >= OBJECTS / BATCH_OBJECTS);
	batch_free(&b);
	unlink(path);
}

static void test_malformed_stops_with_its_line(void **state)
{
	struct input_rules rules = { 0 };
	struct batch b = { 0 };
	FILE *f;
	char *path = temp_file(&f);
	int n = 0;

	(void)state;
	for (int i = 0; i < 600; i++)
		fprintf(f, "{\"i\":%d}\n", i);
	fprintf(f, "{\"i\":600,\"torn\n");	/* line 601: a report cut short */
	for (int i = 601; i < 700; i++)
		fprintf(f, "{\"i\":%d}\n", i);
	fclose(f);
	batch_read(&b, path, &rules);
	do
		n += b.n;
	while (!b.error[0] && batch_next(&b));
	assert_int_equal(n, 600);
	assert_non_null(strstr(b.error, "line 601:"));
	assert_false(batch_next(&b));
	batch_free(&b);
	unlink(path);
}

static void test_text_whole(void **state)
{
	const char text[] = " {\"a\":1}\n[2]\n{\"b\":\n4}\n3\n{}";
	struct batch b = { 0 };

	(void)state;
	batch_parse(&b, text, sizeof(text) - 1);	/* a number is no report: jansson stops there */
	assert_int_equal(b.n, 3);
	assert_non_null(strstr(b.error, "line 5:"));
	assert_int_equal(json_integer_value(json_object_get(b.object[2], "b")), 4);
	batch_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pieces_and_batches),
		cmocka_unit_test(test_malformed_stops_with_its_line),
		cmocka_unit_test(test_text_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
