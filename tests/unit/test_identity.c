/* SPDX-License-Identifier: MIT */
/*
 * test_identity.c: preload/identity.c, the argument vector a report
 * carries: copied whole when it fits, cut at IDENTITY_ARGV_BYTES (at a
 * UTF-8 boundary) and IDENTITY_ARGV_MAX arguments, and said to be cut.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "preload/identity.h"

static char text[IDENTITY_ARGV_BYTES + 64];

static void test_whole(void **state)
{
	char *argv[] = { "cc1", "-o", "a\nb\"\x1b", "", NULL };
	static const char want[] = "cc1\0-o\0a\nb\"\x1b\0";
	int kept;
	bool truncated;

	(void)state;
	assert_int_equal(identity_argv_copy(text, 4, argv, &kept, &truncated), sizeof(want));
	assert_int_equal(kept, 4);
	assert_false(truncated);
	assert_memory_equal(text, want, sizeof(want));
	/* argc 0, a NULL argv, a NULL before argc: no argument, nothing cut. */
	assert_int_equal(identity_argv_copy(text, 0, argv, &kept, &truncated), 0);
	assert_int_equal(identity_argv_copy(text, 3, NULL, &kept, &truncated), 0);
	assert_int_equal(kept, 0);
	argv[1] = NULL;
	assert_int_equal(identity_argv_copy(text, 4, argv, &kept, &truncated), 4);
	assert_int_equal(kept, 1);
	assert_false(truncated);
}

/* A 10 KiB argument after a short one: cut to the bytes left, the rest left out. */
static void test_cut_by_bytes(void **state)
{
	static char big[10240 + 1];
	char *argv[] = { "prog", big, "after", NULL };
	int kept;
	bool truncated;

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	assert_int_equal(identity_argv_copy(text, 3, argv, &kept, &truncated),
			 IDENTITY_ARGV_BYTES);
	assert_int_equal(kept, 2);
	assert_true(truncated);
	assert_string_equal(text, "prog");
	assert_int_equal(strlen(text + 5), IDENTITY_ARGV_BYTES - 5 - 1);
	/* An argument that fills the text exactly is whole; the next is left out. */
	big[IDENTITY_ARGV_BYTES - 5 - 1] = '\0';
	assert_int_equal(identity_argv_copy(text, 2, argv, &kept, &truncated),
			 IDENTITY_ARGV_BYTES);
	assert_false(truncated);
	assert_int_equal(identity_argv_copy(text, 3, argv, &kept, &truncated),
			 IDENTITY_ARGV_BYTES);
	assert_int_equal(kept, 2);
	assert_true(truncated);
}

/* A cut never splits a UTF-8 character: "é" (2 bytes) across the end goes whole. */
static void test_cut_utf8(void **state)
{
	static char big[IDENTITY_ARGV_BYTES + 8];
	char *argv[] = { big, NULL };
	int kept;
	bool truncated;

	(void)state;
	memset(big, 'y', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	/* bytes 4094 and 4095 are é: only 4095 bytes and the NUL fit, so é would be split */
	memcpy(big + IDENTITY_ARGV_BYTES - 2, "\xc3\xa9", 2);
	assert_int_equal(identity_argv_copy(text, 1, argv, &kept, &truncated),
			 IDENTITY_ARGV_BYTES - 1);
	assert_true(truncated);
	assert_int_equal(strlen(text), IDENTITY_ARGV_BYTES - 2);
	assert_int_equal((unsigned char)text[IDENTITY_ARGV_BYTES - 3], 'y');
}

static void test_cut_by_count(void **state)
{
	char *argv[IDENTITY_ARGV_MAX + 2];
	int kept;
	bool truncated;

	(void)state;
	for (int i = 0; i < IDENTITY_ARGV_MAX + 1; i++)
		argv[i] = "a";
	argv[IDENTITY_ARGV_MAX + 1] = NULL;
	assert_int_equal(identity_argv_copy(text, IDENTITY_ARGV_MAX, argv, &kept, &truncated),
			 2 * IDENTITY_ARGV_MAX);
	assert_int_equal(kept, IDENTITY_ARGV_MAX);
	assert_false(truncated);
	assert_int_equal(identity_argv_copy(text, IDENTITY_ARGV_MAX + 1, argv, &kept, &truncated),
			 2 * IDENTITY_ARGV_MAX);
	assert_int_equal(kept, IDENTITY_ARGV_MAX);
	assert_true(truncated);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole),
		cmocka_unit_test(test_cut_by_bytes),
		cmocka_unit_test(test_cut_utf8),
		cmocka_unit_test(test_cut_by_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
