/* SPDX-License-Identifier: MIT */
/*
 * name_cache.h: each thread's cache of the regions it named, so that
 * pfshim_region_begin("solve") costs about what pfshim_begin(handle) does:
 * keyed by the name's address (a program names a region by the same
 * literal every time), checked against the interned name word by word
 * (region_names_match), never trusted on the address alone: a buffer freed
 * and reused for another string, or changed in place, is a miss, and the
 * lookup in the names' table (regions.c) decides. Owner thread only, and
 * its signal handlers: a handler's fill between two loads of an entry can
 * pair an address with another name's row, or with the row an entry never
 * filled holds (name_cache_no_row: the compiler may load the row first),
 * and the word check refuses both.
 */
#ifndef PFSHIM_PRELOAD_MARKERS_NAME_CACHE_H
#define PFSHIM_PRELOAD_MARKERS_NAME_CACHE_H

#include <stdint.h>

#include "preload/markers/regions.h"

#define NAME_CACHE_SIZE 8	/* direct-mapped by the address's bits 3-5 */

struct name_cache {
	struct name_cache_entry {
		const char *name;	/* NAME_CACHE_NONE, or a name aligned to 8 */
		const struct region_name *row;	/* its interned name; name_cache_no_row before */
	} e[NAME_CACHE_SIZE];
};

/* What no name's address can be (odd): an entry never filled. */
#define NAME_CACHE_NONE ((const char *)1)

/*
 * The row of an entry never filled: one word whose mask keeps no byte of
 * the string and whose value is not 0, so that no string matches it
 * (region_names_match), whatever address it is found beside.
 */
static const struct region_name name_cache_no_row = {
	.name = { 1 },
	.nul_word = REGION_NAME_WORD_BIT(0),
	.id = UINT32_MAX,
	.tail_mask = 0,
};

static inline void name_cache_init(struct name_cache *c)
{
	for (int i = 0; i < NAME_CACHE_SIZE; i++)
		c->e[i] = (struct name_cache_entry){ NAME_CACHE_NONE, &name_cache_no_row };
}

static inline struct name_cache_entry *name_cache_at(struct name_cache *c, const char *name)
{
	return &c->e[((uintptr_t)name >> 3) & (NAME_CACHE_SIZE - 1)];
}

/*
 * name_cache_find - whether the string at @name is an interned name, found
 * in @name's entry (which holds that address, and the string is still that
 * name), and then its id in @id; false when not cached, another string is
 * there now, or @name is NULL.
 */
static inline __attribute__((always_inline)) REGION_NAMES_WORDS_UNCHECKED bool
name_cache_find(struct name_cache *c, const char *name, uint32_t *id)
{
	struct name_cache_entry e = *name_cache_at(c, name);

	REGION_NAMES_LOAD_PAIR(e.name, e.row);
	return e.name == name && region_names_match(e.row, name, id);
}

/*
 * name_cache_fill - remember that the string at @name is the interned @n.
 * Only an address that is a multiple of 8 (string literals on arm64,
 * malloc's strings): region_names_match() reads aligned words. The row
 * before the address, so that whoever finds the address finds a row.
 */
static inline void name_cache_fill(struct name_cache *c, const char *name,
				   const struct region_name *n)
{
	struct name_cache_entry *e = name_cache_at(c, name);

	if ((uintptr_t)name & 7)
		return;
	e->row = n;
	__asm__ volatile("" ::: "memory");
	e->name = name;
}

#endif
