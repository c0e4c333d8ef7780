/* SPDX-License-Identifier: MIT */
/*
 * arena.c: a bump allocator for jansson, one arena per batch of reports,
 * bound to the thread that parses or frees them; malloc when none is bound.
 * free() of a node of the bound arena is nothing; of any other, free().
 * Chunks are 1 MiB (a report is a few KiB; a bigger one gets a chunk of its
 * size); a reset keeps the oldest chunk.
 */
#include "tools/pfshim/arena.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tools/pfshim/table.h"

#define CHUNK (1u << 20)

struct arena_chunk {
	struct arena_chunk *next;
	size_t size, used;
	_Alignas(16) char data[];
};

static __thread struct arena *bound;

static void *arena_malloc(size_t n)
{
	struct arena_chunk *c;

	if (!bound)
		return malloc(n);
	c = bound->chunks;
	n = (n + 15) & ~(size_t)15;
	if (!c || c->size - c->used < n) {
		size_t size = n > CHUNK ? n : CHUNK;

		c = xrealloc(NULL, sizeof(*c) + size);
		c->size = size;
		c->used = 0;
		c->next = bound->chunks;
		bound->chunks = c;
	}
	c->used += n;
	return c->data + c->used - n;
}

static bool in_arena(const struct arena *a, const void *p)
{
	for (const struct arena_chunk *c = a->chunks; c; c = c->next)
		if ((uintptr_t)p >= (uintptr_t)c->data && (uintptr_t)p < (uintptr_t)c->data + c->size)
			return true;
	return false;
}

static void arena_free(void *p)
{
	if (p && !(bound && in_arena(bound, p)))
		free(p);
}

void arena_install(void)
{
	static bool installed;

	if (!installed)	/* before any thread parses: the first summary_init() */
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
