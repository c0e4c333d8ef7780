/* SPDX-License-Identifier: MIT */
/*
 * arena.c: a bump allocator for jansson, one arena per batch of reports,
 * bound to the thread that parses them; malloc when none is bound. Every
 * block jansson gets carries a 16-byte head naming where it came from, so
 * that free() knows in constant time: a node of an arena is nothing to
 * free, one from malloc is freed. (It used to search the bound arena's
 * chunks for the address: a walk of the chunk list per node freed, which
 * made one JSON Lines file of 80,000 reports take 78 s.) Chunks are 1 MiB
 * (a report is a few KiB; a bigger one gets a chunk of its size); a reset
 * keeps the oldest chunk.
 */
#include "tools/pfshim/read/arena.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tools/pfshim/model/table.h"

#define CHUNK (1u << 20)

struct arena_chunk {
	struct arena_chunk *next;
	size_t size, used;
	_Alignas(16) char data[];
};

/* Before every block: its arena, or NULL (malloc). 16 bytes keep the block aligned as malloc's. */
struct head {
	_Alignas(16) const struct arena *arena;
};

static __thread struct arena *bound;

static void *arena_malloc(size_t n)
{
	struct arena_chunk *c;
	struct head *h;

	if (n > SIZE_MAX / 2)
		return NULL;
	n = sizeof(*h) + ((n + 15) & ~(size_t)15);
	if (!bound) {
		h = malloc(n);
		if (h)
			h->arena = NULL;
		return h ? h + 1 : NULL;
	}
	c = bound->chunks;
	if (!c || c->size - c->used < n) {
		size_t size = n > CHUNK ? n : CHUNK;

		c = xrealloc(NULL, sizeof(*c) + size);
		c->size = size;
		c->used = 0;
		c->next = bound->chunks;
		bound->chunks = c;
	}
	h = (struct head *)(c->data + c->used);
	c->used += n;
	h->arena = bound;
	return h + 1;
}

static void arena_free(void *p)
{
	struct head *h = (struct head *)p - 1;

	if (p && !h->arena)
		free(h);
}

/*
 * At start-up, before any jansson node exists: a node made by plain malloc
 * has no head, and freeing it here would read one (pfshim run builds its
 * job's JSON before it reads a report).
 */
__attribute__((constructor)) void arena_install(void)
{
	static bool installed;

	if (!installed)
		json_set_alloc_funcs(arena_malloc, arena_free);
	installed = true;
}

struct arena *arena_bind(struct arena *a)
{
	struct arena *before = bound;

	bound = a;
	return before;
}

void arena_reset(struct arena *a)
{
	while (a->chunks && a->chunks->next) {	/* keep the oldest, whatever its size */
		struct arena_chunk *c = a->chunks;

		a->chunks = c->next;
		free(c);
	}
	if (a->chunks)
		a->chunks->used = 0;
}

void arena_free_all(struct arena *a)
{
	arena_reset(a);
	free(a->chunks);
	a->chunks = NULL;
}

json_t *arena_keep(json_t *v)
{
	struct arena *was = arena_bind(NULL);
	json_t *copy = json_deep_copy(v);

	arena_bind(was);
	if (!copy) {
		fprintf(stderr, "pfshim: out of memory\n");
		exit(1);
	}
	return copy;
}
