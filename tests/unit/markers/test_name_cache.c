/* SPDX-License-Identifier: MIT */
/*
 * test_name_cache.c: preload/markers/name_cache.h and region_names_match():
 * a region named by the string at an address, found again only while that
 * address still holds that string. The same string at two addresses is one
 * region; another string at an address freed and reused (or written over
 * in place), even one that shares the first 8 or 16 bytes, is never the old
 * region; a string at the very end of a readable page is compared without a
 * fault; an address that is not a multiple of 8 is never cached.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "preload/markers/name_cache.h"
#include "preload/markers/probe.h"
#include "preload/markers/regions.h"

static struct region_names names;
static struct name_cache cache;

static int setup(void **state)
{
	(void)state;
	memset(&names, 0, sizeof(names));
	name_cache_init(&cache);
	return 0;
}

/* What markers.c does on a miss: the table's lookup, then the fill. */
static int resolve(const char *name)
{
	uint32_t found;
	int id;

	if (name_cache_find(&cache, name, &found))
		return (int)found;
	id = region_names_intern(&names, name);
	if (id >= 0)
		name_cache_fill(&cache, name, region_names_row(&names, id));
	return id;
}

/* Found in the cache (no lookup), as region @id. */
static void assert_cached(const char *name, int id)
{
	uint32_t found = UINT32_MAX;

	assert_true(name_cache_find(&cache, name, &found));
	assert_int_equal(found, id);
}

/* Not found in the cache. */
static void assert_not_cached(const char *name)
{
	uint32_t found;

	assert_false(name_cache_find(&cache, name, &found));
}

static char *aligned_copy(const char *s)
{
	char *p = aligned_alloc(16, 80);

	assert_non_null(p);
	memset(p, 0x5a, 80);	/* bytes after the NUL that are not zero */
	strcpy(p, s);
	return p;
}

static void test_same_string_two_addresses(void **state)
{
	char *a = aligned_copy("solve"), *b = aligned_copy("solve");
	int id = resolve(a);

	(void)state;
	assert_true(id >= 0);
	assert_cached(a, id);
	/* b may take a's entry (8 entries, by address): each is found again all the same. */
	assert_int_equal(resolve(b), id);
	assert_cached(b, id);
	assert_int_equal(resolve(a), id);
	assert_cached(a, id);
	assert_int_equal(atomic_load(&names.nr), 1);
	free(a);
	free(b);
}

/* The buffer freed and allocated again for another name: usually the same address. */
static void test_reused_buffer_never_the_old_region(void **state)
{
	static const char *const pairs[][2] = {
		{ "alpha", "beta" },
		{ "region_1", "region_2" },			/* 8 bytes in common */
		{ "loop_iteration_A", "loop_iteration_B" },	/* 15 */
		{ "abcdefgh_and_more_words_here_0", "abcdefgh_and_more_words_here_1" },
		{ "abcdefg", "abcdefgh" },			/* the old NUL now a letter */
		{ "abcdefgh", "abcdefg" },			/* shorter: one word, not two */
		{ "x", "xy" },
		{ "xy", "x" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		char *p = aligned_copy(pairs[i][0]);
		int old = resolve(p), now;

		assert_true(old >= 0);
		assert_cached(p, old);
		free(p);
		char *q = aligned_copy(pairs[i][1]);

		/* Whether or not malloc gave the same address: never the old region. */
		now = resolve(q);
		assert_true(now >= 0);
		assert_int_not_equal(now, old);
		assert_string_equal(region_names_get(&names, now), pairs[i][1]);
		/* And written over in place, at the very address that was cached. */
		strcpy(q, pairs[i][0]);
		assert_int_equal(resolve(q), old);
		strcpy(q, pairs[i][1]);
		assert_not_cached(q);
		assert_int_equal(resolve(q), now);
		free(q);
	}
}

/*
 * A name cached at the end of a page, then a shorter string there: no word
 * past the one holding its NUL is read (the next page is PROT_NONE).
 */
static void test_no_read_past_the_string(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	char *map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	char *end, *p;
	int id;

	(void)state;
	assert_true(map != MAP_FAILED);
	assert_int_equal(mprotect(map + page, page, PROT_NONE), 0);
	end = map + page;
	/* A 23-byte name in the last 24 bytes, cached at that address. */
	p = end - 24;
	strcpy(p, "twenty_three_bytes_long");
	id = resolve(p);
	assert_true(id >= 0);
	assert_cached(p, id);
	/* A 7-byte string at the same address: a miss at its first word. */
	strcpy(p, "seven_b");
	assert_not_cached(p);
	/* A string that ends at the page's last byte. */
	p = end - 8;
	strcpy(p, "last_7b");
	id = resolve(p);
	assert_cached(p, id);
	strcpy(p, "other_7");
	assert_not_cached(p);
	/*
	 * The 23-byte name's row for the string in the page's last word:
	 * a compare that read on past the word that differs would fault.
	 */
	name_cache_fill(&cache, p, region_names_row(&names, resolve("twenty_three_bytes_long")));
	assert_not_cached(p);
	munmap(map, 2 * page);
}

static void test_unaligned_never_cached(void **state)
{
	char *buf = aligned_copy("_solve"), *p = buf + 1;
	int id = resolve(p);

	(void)state;
	assert_true(id >= 0);
	assert_not_cached(p);
	assert_int_equal(resolve(p), id);
	free(buf);
}

static void test_refused_and_null(void **state)
{
	/* As a program passes it: not a constant the compiler follows into the match. */
	const char *volatile null_name = NULL;
	char *empty = aligned_copy("");

	(void)state;
	assert_not_cached(null_name);
	assert_int_equal(resolve(null_name), -EINVAL);
	assert_int_equal(resolve(empty), -EINVAL);
	assert_not_cached(empty);
	free(empty);
}

/*
 * A signal handler's fill between the two loads of an entry can pair the
 * address of one name with the row of another, or with the row of an entry
 * never filled (the compiler may load the row first): refused by the word
 * check, for every string, the empty one included.
 */
static void test_entry_mixed_by_a_handler(void **state)
{
	char *a = aligned_copy("alpha"), *b = aligned_copy("beta"), *empty = aligned_copy("");
	int ia = resolve(a), ib = resolve(b);
	struct name_cache_entry *e = name_cache_at(&cache, a);
	struct name_cache fresh;

	(void)state;
	assert_true(ia >= 0 && ib >= 0 && ia != ib);
	e->name = a;
	e->row = region_names_row(&names, ib);
	assert_not_cached(a);
	/* An entry never filled, its address written by a handler's fill, not yet its row. */
	name_cache_init(&fresh);
	name_cache_at(&fresh, a)->name = a;
	name_cache_at(&fresh, empty)->name = empty;
	assert_false(name_cache_find(&fresh, a, &(uint32_t){ 0 }));
	assert_false(name_cache_find(&fresh, empty, &(uint32_t){ 0 }));
	free(a);
	free(b);
	free(empty);
}

/* The probe's nameless row (probe.c) matches no string, the empty one included. */
static void test_probe_row_matches_nothing(void **state)
{
	char *a = aligned_copy("alpha"), *empty = aligned_copy(""), *probe = aligned_copy("probe");
	uint32_t id;

	(void)state;
	probe_reserve(&names);
	assert_false(region_names_match(&names.row[PROBE_REGION_ID], a, &id));
	assert_false(region_names_match(&names.row[PROBE_REGION_ID], probe, &id));
	/* "" is the probe's name, which no lookup gives: refused before any cache. */
	assert_true(region_names_match(&names.row[PROBE_REGION_ID], empty, &id));
	assert_int_equal(region_names_lookup(&names, ""), -ENOENT);
	free(a);
	free(empty);
	free(probe);
}

/* Every name length the table takes: each word boundary, both sides of it. */
static void test_every_length(void **state)
{
	char name[REGIONS_NAME_LEN];

	(void)state;
	for (int len = 1; len < REGIONS_NAME_LEN; len++) {
		char *p, *q;
		int id;

		memset(name, 'a' + len % 26, (size_t)len);
		name[len] = '\0';
		p = aligned_copy(name);
		id = resolve(p);
		assert_true(id >= 0);
		assert_cached(p, id);
		/* each byte changed in turn, the NUL included: a miss */
		for (int k = 0; k <= len; k++) {
			q = aligned_copy(name);
			q[k] = k == len ? 'z' : '#';
			if (k == len)
				q[k + 1] = '\0';
			name_cache_fill(&cache, q, region_names_row(&names, id));
			assert_not_cached(q);
			free(q);
		}
		free(p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_same_string_two_addresses, setup),
		cmocka_unit_test_setup(test_reused_buffer_never_the_old_region, setup),
		cmocka_unit_test_setup(test_no_read_past_the_string, setup),
		cmocka_unit_test_setup(test_unaligned_never_cached, setup),
		cmocka_unit_test_setup(test_refused_and_null, setup),
		cmocka_unit_test_setup(test_entry_mixed_by_a_handler, setup),
		cmocka_unit_test_setup(test_probe_row_matches_nothing, setup),
		cmocka_unit_test_setup(test_every_length, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
