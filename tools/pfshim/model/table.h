/* SPDX-License-Identifier: MIT */
/*
 * table.h: the two lookups `pfshim report` needs at every report, kept
 * O(1) so that 10,000 processes combine as fast as ten: an index from a
 * 64-bit hash to positions in the caller's own array (open addressing; the
 * caller says which candidate matches), and a list of distinct strings
 * (program, host, rank, event and region names) built on it.
 */
#ifndef PFSHIM_TOOLS_TABLE_H
#define PFSHIM_TOOLS_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void *xrealloc(void *p, size_t n);	/* exits with a message when memory runs out */
/*
 * xgrow - the array @p of @n elements of @size, with room for one more:
 * grown by doubling (at n = 0, 1, 2, 4, ...), so that an array of one
 * element per report is not copied whole at every report.
 */
void *xgrow(void *p, size_t n, size_t size);
char *xstrdup(const char *s);

uint64_t hash_bytes(uint64_t h, const void *p, size_t n);	/* FNV-1a, chained from @h */
uint64_t hash_string(uint64_t h, const char *s);	/* includes the NUL: "a","b" != "ab","" */
#define HASH_SEED 1469598103934665603ULL

/* Positions (0..n-1) of the caller's array, found by hash. */
struct table_index {
	int *slots;		/* position + 1; 0: empty */
	size_t cap;
	size_t n;
};

/* Does position @pos hold the key the caller looks for? */
typedef bool (*table_match_fn)(const void *ctx, int pos);

/* table_find - the position whose hash is @hash and that @match accepts, or -1. */
int table_find(const struct table_index *t, uint64_t hash, table_match_fn match, const void *ctx);

/*
 * table_add - record @pos under @hash (no check for a duplicate: find first).
 * @hash_of gives the hash of any recorded position, to grow the table.
 */
void table_add(struct table_index *t, uint64_t hash, int pos,
	       uint64_t (*hash_of)(const void *ctx, int pos), const void *ctx);

void table_free(struct table_index *t);

/* Records whose first member is a 64-bit key, found by it: @ctx of table_key_at and _match. */
struct table_key_probe {
	const void *base;
	size_t stride;
	uint64_t key;
};
uint64_t table_key_at(const void *ctx, int pos);
bool table_key_match(const void *ctx, int pos);

/* Distinct strings, numbered in order of first appearance. */
struct names {
	char **name;
	int n;
	struct table_index index;
};

int names_find(const struct names *s, const char *name);	/* its number, or -1 */
int names_add(struct names *s, const char *name);		/* its number, added if new */
void names_free(struct names *s);

/* A comma list ("a,b,,c") as names; empty items are dropped. */
void names_add_list(struct names *s, const char *list);

#endif
