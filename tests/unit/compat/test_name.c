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
#include <sys/mman.h>
#include <unistd.h>
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

/*
 * compat_name_fits() reads the name a word at a time: every length from 0
 * to 80 at every alignment, against strlen(), with the NUL the last byte
 * before a page that cannot be read (a word that crossed into it would
 * crash the test), and in the middle of a page with the bytes around the
 * name non-zero and zero.
 */
static void test_fits_every_length_and_alignment(void **state)
{
	const size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)state;
	assert_true(map != MAP_FAILED);
	assert_int_equal(mprotect(map + page, page, PROT_NONE), 0);
	for (size_t len = 0; len <= 80; len++) {
		for (size_t align = 0; align < 8; align++) {
			/* At the page's end: the NUL is its last byte, moved back by align. */
			char *name = map + page - 1 - len - align;

			memset(map, 'x', page);
			name[len] = '\0';
			assert_int_equal(compat_name_fits(name), len < COMPAT_NAME_LEN);
			/* Mid-page, zero bytes before the name, non-zero after its NUL. */
			name = map + 256 + align;
			memset(map, 'y', page);
			memset(map, 0, 256 + align);
			name[len] = '\0';
			assert_int_equal(strlen(name), len);
			assert_int_equal(compat_name_fits(name), len < COMPAT_NAME_LEN);
			assert_true((compat_region_name(name, (char[COMPAT_NAME_LEN]){ 0 }) == name) ==
				    (len < COMPAT_NAME_LEN));
		}
	}
	munmap(map, 2 * page);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_name_as_is),
		cmocka_unit_test(test_fits_every_length_and_alignment),
		cmocka_unit_test(test_long_utf8_cut_between_characters),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
