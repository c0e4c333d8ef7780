/*
 * arena.h: the allocator jansson uses while one report is parsed and
 * combined. Parsing a report makes a few hundred small nodes that all die
 * together a moment later; malloc and free of each were a quarter of
 * `pfshim report`'s time over 10,000 files. Here they come from one chunk
 * that is reset after each report. What must outlive its report (the
 * pending one of an image) is copied out with arena_keep().
 */
#ifndef PFSHIM_TOOLS_ARENA_H
#define PFSHIM_TOOLS_ARENA_H

#include <jansson.h>

void arena_install(void);	/* make jansson allocate through the arena (idempotent) */
void arena_begin(void);		/* from now on, jansson's nodes come from the arena */
void arena_end(void);		/* back to malloc; every arena node is dead: reuse it all */
json_t *arena_keep(json_t *v);	/* a deep copy of @v in malloc'd memory */

#endif
