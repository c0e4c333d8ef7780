/*
 * arena.c: a bump allocator for jansson between arena_begin() and
 * arena_end(), malloc outside. free() of an arena node is nothing; of any
 * other, free(). Chunks are 1 MiB (a report is a few KiB; a bigger one gets
 * a chunk of its size); after arena_end() only the first chunk is kept.
 */
#include "tools/pfshim/arena.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "tools/pfshim/table.h"

#define CHUNK (1u << 20)

struct chunk {
	struct chunk *next;
	size_t size, used;
	_Alignas(16) char data[];
};

static struct chunk *chunks;	/* the newest first */
static bool active;

static void *arena_malloc(size_t n)
{
	struct chunk *c = chunks;

	if (!active)
		return malloc(n);
	n = (n + 15) & ~(size_t)15;
	if (!c || c->size - c->used < n) {
		size_t size = n > CHUNK ? n : CHUNK;

		c = xrealloc(NULL, sizeof(*c) + size);
		c->size = size;
		c->used = 0;
		c->next = chunks;
		chunks = c;
	}
	c->used += n;
	return c->data + c->used - n;
}

static bool in_arena(const void *p)
{
	for (const struct chunk *c = chunks; c; c = c->next)
		if ((uintptr_t)p >= (uintptr_t)c->data && (uintptr_t)p < (uintptr_t)c->data + c->size)
			return true;
	return false;
}

static void arena_free(void *p)
{
	if (p && !in_arena(p))
		free(p);
}

void arena_install(void)
{
	static bool installed;

	if (!installed)
		json_set_alloc_funcs(arena_malloc, arena_free);
	installed = true;
}

void arena_begin(void)
{
	active = true;
}

void arena_end(void)
{
	active = false;
	while (chunks && chunks->next) {	/* keep the oldest, whatever its size */
		struct chunk *c = chunks;

		chunks = c->next;
		free(c);
	}
	if (chunks)
		chunks->used = 0;
}

json_t *arena_keep(json_t *v)
{
	bool was = active;
	json_t *copy;

	active = false;
	copy = json_deep_copy(v);
	active = was;
	if (!copy) {
		fprintf(stderr, "pfshim: out of memory\n");
		exit(1);
	}
	return copy;
}
