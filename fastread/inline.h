/* SPDX-License-Identifier: MIT */
/*
 * fastread/inline.h: fastread_group_read_inline(), a group read in the
 * caller's own code, with no library call while the group's cache holds
 * (fastread/cached.h, the read the markers inline); a library call, which
 * refills the cache or reads through read(2), when it does not.
 *
 * ASYNC-SIGNAL-SAFE as fastread_group_read_sample().
 */
#ifndef PFSHIM_FASTREAD_INLINE_H
#define PFSHIM_FASTREAD_INLINE_H

#include <stdint.h>

#include "fastread/cached.h"
#include "fastread/fastread.h"

/*
 * fastread_group_read_inline - fastread_group_read_sample() into one
 * vector: @sample[i] the value of each event i < @g->nr, @sample[nr] and
 * @sample[nr + 1] the leader's enabled and running times (nr + 2 entries).
 * Served inline from @g's cache (the page's index, offset, width and times
 * as its last full read saw them, used only while every page's lock still
 * says so); the first read after the group opens or after the kernel
 * rewrote a page (multiplexing, a migration) calls fastread_group_read_sample().
 * Return: 0, or a negative errno as fastread_group_read_sample(). Counts
 * the read in @g->nr_user_reads as the library does. Must be called by the
 * thread that opened @g. The read's code (on arm64 a table of 32 counter
 * stubs, 256 bytes) is copied into each place that calls it.
 */
static inline __attribute__((always_inline)) int
fastread_group_read_inline(struct fastread_group *g, uint64_t *sample)
{
	if (__builtin_expect(fastread_group_read_cached(g, sample, FASTREAD_COUNTERS_FIRST), 1)) {
		g->nr_user_reads++;
		return 0;
	}
	return fastread_group_read_sample(g, sample, &sample[g->nr], &sample[g->nr + 1]);
}

#endif
