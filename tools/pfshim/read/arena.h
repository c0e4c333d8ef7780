/* SPDX-License-Identifier: MIT */
/*
 * arena.h: the allocator jansson uses while reports are parsed and
 * combined. Parsing a report makes a few hundred small nodes that all die
 * together a moment later; malloc and free of each were a quarter of
 * `pfshim report`'s time over 10,000 files. Here they come from an arena
 * bound to the calling thread, reset when its reports are done with. What
 * must outlive them (the pending report of an image) is copied out with
 * arena_keep().
 */
#ifndef PFSHIM_TOOLS_ARENA_H
#define PFSHIM_TOOLS_ARENA_H

#include <jansson.h>

struct arena {
	struct arena_chunk *chunks;	/* the newest first */
};

void arena_install(void);	/* make jansson allocate through arenas (idempotent; done at start-up) */

/*
 * arena_bind - this thread's jansson nodes come from @a from now on (NULL:
 * from malloc). Return: the arena bound before. Freeing (json_decref) a
 * node of any arena is nothing, whatever is bound: its memory goes with
 * arena_reset(); a node from malloc is freed.
 */
struct arena *arena_bind(struct arena *a);

void arena_reset(struct arena *a);	/* every node of @a is dead: reuse its memory */
void arena_free_all(struct arena *a);
json_t *arena_keep(json_t *v);		/* a deep copy of @v in malloc'd memory */

#endif
