/* SPDX-License-Identifier: MIT */
/*
 * fastread/cached.h: the cached read of a group (fastread/read.c, "the
 * cached read") as inline code, for a caller on a path where every
 * instruction counts and lands in what it measures (the markers' begin and
 * end): no call, no frame, and no check the cache already answers. Its
 * pieces are the ones read.c builds its own cached read from.
 *
 * ASYNC-SIGNAL-SAFE: loads, the counter instructions and stores only.
 */
#ifndef PFSHIM_FASTREAD_CACHED_H
#define PFSHIM_FASTREAD_CACHED_H

#include <stdbool.h>
#include <stdint.h>

#include "fastread/arch.h"
#include "fastread/fastread.h"

#define FASTREAD_ALWAYS_INLINE inline __attribute__((always_inline))
#define FASTREAD_READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))

/*
 * The architecture's read of several counters back to back, where it has
 * one (arch_read_slots()); elsewhere never called.
 */
#ifdef FASTREAD_ARCH_READ_SLOTS
#define fastread_arch_read_slots arch_read_slots
#else
#define FASTREAD_ARCH_READ_SLOTS 0
static FASTREAD_ALWAYS_INLINE void fastread_arch_read_slots(int nr, const uint32_t *slot,
							    uint64_t *v)
{
	(void)nr;
	(void)slot;
	(void)v;
}
#endif

/*
 * What a valid cache serves: the leader's times (and values), or every
 * page's; ONE: a group of one page, where the two are the same (one test
 * tells the reader both that the cache is valid and that it needs no loop).
 */
enum {
	FASTREAD_CACHE_NONE = 0,
	FASTREAD_CACHE_LEADER = 1,
	FASTREAD_CACHE_ALL = 2,
	FASTREAD_CACHE_ONE = 3,
	/*
	 * A flag beside LEADER or ALL (never ONE): every page's pmc_width is 64,
	 * so a value is the offset plus the counter, with no sign extension
	 * (64-bit counters: arm64 config1 "long", the cycle counter).
	 */
	FASTREAD_CACHE_WIDE = 4,
	/*
	 * A flag beside LEADER or ALL: a group of 2 to FASTREAD_UNROLLED_MAX
	 * events, whose number is the one bit set from FASTREAD_CACHE_NR_SHIFT
	 * (bit NR_SHIFT + nr - 2), which fastread_group_read_cached() reads as
	 * straight-line code of its size (no loop, no odd event to set up, the
	 * locks added in line). One bit a size and one a width, so that the
	 * reader picks its code with one bit test each (tbnz on arm64), not a
	 * mask and a comparison a shape.
	 */
	FASTREAD_CACHE_UNROLLED = 8,
	/*
	 * A flag beside UNROLLED (never with WIDE): every page's pmc_width is
	 * 32, so a value is the offset plus the counter's low word, sign
	 * extended (on arm64 one "add ..., sxtw": the event counters of a PMU
	 * before PMUv3p5, Cortex-A57/A72, Neoverse N1), with no shift to load.
	 */
	FASTREAD_CACHE_SEXT32 = 16,
	FASTREAD_CACHE_NR_SHIFT = 5,
};

#define FASTREAD_UNROLLED_MAX 4	/* fastread_group_read_cached_with() has a case for each size */
#if FASTREAD_ARCH_READ_SLOTS
_Static_assert(FASTREAD_UNROLLED_MAX <= FASTREAD_ARCH_READ_SLOTS_MAX,
	       "an unrolled size arch_read_slots() has no asm for");
#endif
#define FASTREAD_CACHE_LEVELS 3u	/* the bits of LEADER, ALL and ONE */

/*
 * The shape of an unrolled cache of @nr events whose counters are @width:
 * FASTREAD_CACHE_WIDE (all 64 bits), FASTREAD_CACHE_SEXT32 (all 32) or 0
 * (any other mix, each extended from its own width), beside its level.
 */
#define FASTREAD_CACHE_UNROLLED_SHAPE(nr, width)                                           \
	(FASTREAD_CACHE_UNROLLED | FASTREAD_CACHE_UNROLLED_NR(nr) | (uint32_t)(width))
#define FASTREAD_CACHE_UNROLLED_NR(nr) ((1u << (FASTREAD_CACHE_NR_SHIFT - 2)) << (nr))

/*
 * The narrow width this architecture's counters have, tested right after
 * WIDE: arm64's event counters are 32 or 64 bits wide; x86's 48 (or 40),
 * each extended from its own width.
 */
#if defined(__aarch64__) && !defined(FASTREAD_FORCE_GENERIC)
#define FASTREAD_CACHE_ARCH_NARROW FASTREAD_CACHE_SEXT32
#define FASTREAD_CACHE_OTHER_NARROW 0
#else
#define FASTREAD_CACHE_ARCH_NARROW 0
#define FASTREAD_CACHE_OTHER_NARROW FASTREAD_CACHE_SEXT32
#endif

/* fastread_cache_level - what a valid cache serves (LEADER, ALL or ONE), its shape aside. */
static inline uint32_t fastread_cache_level(uint32_t valid)
{
	return valid & FASTREAD_CACHE_LEVELS;
}

/*
 * fastread_cache_flags - what a full pass over @nr pages, all 64 bits wide
 * when @wide, all 32 when @all32, gives its cache beside its level.
 */
static inline uint32_t fastread_cache_flags(int nr, bool wide, bool all32)
{
	/*
	 * Arithmetic, not a choice (the two are never both true): a choice
	 * here cost fastread_group_read()'s one-event path a register move
	 * (gcc 12, arm64: 31 instructions a read, not 30).
	 */
	const uint32_t width = (uint32_t)wide * FASTREAD_CACHE_WIDE +
			       (uint32_t)all32 * FASTREAD_CACHE_SEXT32;

	if (nr >= 2 && nr <= FASTREAD_UNROLLED_MAX)
		return FASTREAD_CACHE_UNROLLED | FASTREAD_CACHE_UNROLLED_NR(nr) | width;
	return width & FASTREAD_CACHE_WIDE;
}

/*
 * fastread_cache_value - the count of cached event @e for its raw counter
 * @raw: the page's offset plus the counter sign-extended from pmc_width bits
 * (bits above it are UNKNOWN on arm64), with the shift kept in the cache.
 */
static FASTREAD_ALWAYS_INLINE uint64_t fastread_cache_value(const struct fastread_page_cache *e,
							   uint64_t raw)
{
	/* Shift as unsigned (a signed left shift of a negative value is UB). */
	return e->offset + (uint64_t)((int64_t)(raw << e->shift) >> e->shift);
}

/*
 * fastread_cache_locks_hold - do the locks of @nr @pages (@nr >= 1: a valid
 * cache was filled over them) still add up to @sum, the sum the cache was
 * filled under? Called after the counters were read: the kernel only ever
 * increments a lock, so equal sums mean that no page was rewritten since
 * the fill (short of 2^32 writes), and the cached fields were the page's
 * throughout the read. A loop that runs at least once: no test before it.
 */
static FASTREAD_ALWAYS_INLINE bool fastread_cache_locks_hold(struct perf_event_mmap_page *const *pages,
							    int nr, uint32_t sum)
{
	struct perf_event_mmap_page *const *end = pages + nr;
	uint32_t now = 0;

	__asm__ volatile("" ::: "memory");
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	do
		now += FASTREAD_READ_ONCE((*pages)->lock);
	while (++pages < end);
	return now == sum;
}

/*
 * fastread_cache_locks_sum_many - the sum of the locks of a group's cache
 * of several pages (@nr, the group's, >= 2: fastread/read.c caches a
 * group of one as ONE; not for fastread_pages_read_cached(), whose callers
 * may pass fewer pages than the cache was filled over), read after the
 * counters, for the caller to compare as fastread_cache_locks_hold() does:
 * two pages a turn, the first alone when @nr is odd, so that the loop ends
 * exactly at the end with one test and step per two locks.
 */
static FASTREAD_ALWAYS_INLINE uint32_t
fastread_cache_locks_sum_many(struct perf_event_mmap_page *const *pages, int nr)
{
	struct perf_event_mmap_page *const *end = pages + nr;
	uint32_t now = 0;

	__asm__ volatile("" ::: "memory");
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (nr & 1)
		now = FASTREAD_READ_ONCE((*pages++)->lock);
	do {
		now += FASTREAD_READ_ONCE(pages[0]->lock) + FASTREAD_READ_ONCE(pages[1]->lock);
		pages += 2;
	} while (pages < end);
	return now;
}


/*
 * Where a cached read puts its counter instructions among its other work,
 * for a caller that measures an interval with two reads: what the first read
 * does after its counter instructions, and the second before its own, lands
 * inside the interval. LAST: the times stored and the page taken first, the
 * counters at the end (the first read); FIRST: the counters before anything
 * else (the second).
 */
enum fastread_counters_at { FASTREAD_COUNTERS_FIRST, FASTREAD_COUNTERS_LAST };

/*
 * The count of a cached event from its @raw counter, its @offset and, for
 * neither flag, its @shift, by @width (a constant where this is inlined):
 * the WIDE and SEXT32 caches need no shift.
 */
static FASTREAD_ALWAYS_INLINE uint64_t fastread_cached_extend(uint64_t raw, uint64_t offset,
							     uint32_t shift, const uint32_t width)
{
	if (width == FASTREAD_CACHE_WIDE)
		return offset + raw;
	if (width == FASTREAD_CACHE_SEXT32)
		return offset + (uint64_t)(int64_t)(int32_t)raw;
	return offset + (uint64_t)((int64_t)(raw << shift) >> shift);
}

/*
 * Is the vector @sample at a fixed distance from the group @g where this is
 * inlined (the markers' end sample follows its group)? Then a read that
 * closes an interval addresses it from the group after its first counter.
 */
#define FASTREAD_SAMPLE_BESIDE(g, sample)                                                  \
	__builtin_constant_p((uintptr_t)(sample) - (uintptr_t)(g))

/*
 * fastread_cached_after - for a read that closes an interval, right after
 * its first counter: the group and its cache's pages addressed anew, and the
 * vector @sample too where it lies beside the group, so that the compiler
 * computes none of their addresses ahead of the counter, inside the interval
 * (GCC 12 took two adds and a move there in the markers' end).
 */
static FASTREAD_ALWAYS_INLINE void fastread_cached_after(const struct fastread_group **g,
							const struct fastread_page_cache **e,
							uint64_t **sample)
{
	const struct fastread_group *after = *g;
	const uintptr_t distance = (uintptr_t)*sample - (uintptr_t)*g;

	__asm__ volatile("" : "+r"(after));
	if (FASTREAD_SAMPLE_BESIDE(*g, *sample))
		*sample = (uint64_t *)((uintptr_t)after + distance);
	*g = after;
	*e = after->cache.page;
}

/*
 * An UNROLLED cache of @nr events, 2 <= @nr <= FASTREAD_UNROLLED_MAX, with
 * @width its WIDE or SEXT32 flag (or 0), both constants where this is
 * inlined: each counter's offset and slot (and shift, for neither flag), its
 * counter and the add, event after event, then the sum of the locks, added in
 * line, for the caller to compare (one comparison for every path of several
 * events, so that GCC does not merge the paths' results into a flag to test).
 * The rest as fastread_group_read_cached_with().
 */
static FASTREAD_ALWAYS_INLINE uint32_t
fastread_cached_unrolled(const struct fastread_group *g, uint64_t *sample,
			 enum fastread_counters_at at, uint64_t (*read_slot)(uint32_t slot),
			 const int nr, const uint32_t width)
{
	const struct fastread_page_cache *e = g->cache.page;
	const bool hoist = at == FASTREAD_COUNTERS_LAST && nr <= FASTREAD_ARCH_HOIST_EVENTS;
	/*
	 * A read that opens an interval takes its counters back to back where
	 * the architecture can (arch_read_slots()); a test's synthetic
	 * counters, a counter at a time. The comparison folds away where
	 * this is inlined with a constant @read_slot; at -O0 it is taken at
	 * run time, and either way reads the same counters.
	 */
	const bool chain = FASTREAD_ARCH_READ_SLOTS && at == FASTREAD_COUNTERS_LAST &&
			   read_slot == arch_read_slot;
	struct perf_event_mmap_page *pc[FASTREAD_UNROLLED_MAX];
	uint64_t *times, offset[FASTREAD_UNROLLED_MAX];
	uint32_t now, slot[FASTREAD_UNROLLED_MAX], shift[FASTREAD_UNROLLED_MAX];

	/*
	 * A read that closes an interval next to its group: what follows
	 * the first counter addressed anew after it (fastread_cached_after()).
	 */
	const bool anew = at == FASTREAD_COUNTERS_FIRST && FASTREAD_SAMPLE_BESIDE(g, sample);

	/*
	 * Every size is compiled wherever this is inlined, for a vector that
	 * holds one of them: hidden from GCC's bounds warnings, at no cost.
	 */
	if (!anew) {
		__asm__("" : "+r"(sample));
		times = sample + nr;
	}
	if (at == FASTREAD_COUNTERS_LAST)
		times[0] = times[1] = e[0].time;
	/*
	 * Each counter's slot, offset, shift and page in registers before the
	 * first counter when that one opens an interval (LAST), so that none of
	 * their loads lands inside it; where the reads close one (FIRST), only
	 * the slot comes before its counter, the rest after it.
	 * The shift only where the width needs it.
	 */
	if (hoist) {
#pragma GCC unroll 4
		for (int i = 0; i < nr; i++) {
			slot[i] = e[i].slot;
			offset[i] = e[i].offset;
			pc[i] = g->page[i];
			__asm__("" : "+r"(pc[i]));
			if (width) {
				__asm__("" : "+r"(slot[i]), "+r"(offset[i]));
			} else {
				shift[i] = e[i].shift;
				__asm__("" : "+r"(slot[i]), "+r"(offset[i]), "+r"(shift[i]));
			}
		}
	}
	if (chain) {
		uint64_t raw[FASTREAD_UNROLLED_MAX];

		if (!hoist) {
#pragma GCC unroll 4
			for (int i = 0; i < nr; i++)
				slot[i] = e[i].slot;
		}
		fastread_arch_read_slots(nr, slot, raw);
#pragma GCC unroll 4
		for (int i = 0; i < nr; i++) {
			uint64_t value;

			if (!hoist) {
				offset[i] = e[i].offset;
				shift[i] = e[i].shift;
			}
			/*
			 * Each value in a register of its own: from the array,
			 * GCC 12 took two 32-bit values into a vector to
			 * extend and add them (7 instructions, not 3).
			 */
			value = fastread_cached_extend(raw[i], offset[i], shift[i], width);
			__asm__("" : "+r"(value));
			sample[i] = value;
		}
	} else {
#pragma GCC unroll 4
		for (int i = 0; i < nr; i++) {
			uint64_t raw;

			if (!hoist)
				slot[i] = e[i].slot;
			raw = read_slot(slot[i]);
			if (anew && i == 0)
				fastread_cached_after(&g, &e, &sample);
			if (!hoist) {
				offset[i] = e[i].offset;
				shift[i] = e[i].shift;
			}
			sample[i] = fastread_cached_extend(raw, offset[i], shift[i], width);
		}
	}
	if (anew)
		times = sample + nr;
	if (at == FASTREAD_COUNTERS_FIRST)
		times[0] = times[1] = g->cache.page[0].time;
	if (!hoist) {
#pragma GCC unroll 4
		for (int i = 0; i < nr; i++)
			pc[i] = g->page[i];
	}
	__asm__ volatile("" ::: "memory");
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	now = FASTREAD_READ_ONCE(pc[0]->lock);
#pragma GCC unroll 4
	for (int i = 1; i < nr; i++)
		now += FASTREAD_READ_ONCE(pc[i]->lock);
	return now;
}

/*
 * fastread_group_read_cached - fastread_group_read_sample() served from @g's
 * cache only, into one vector: @sample[i] for each event i < nr, then the
 * leader's times, enabled at @sample[nr] and running at @sample[nr + 1]
 * (equal: a cached page's times need no bringing forward), with the counter
 * instructions placed @at. Every load is written where it is needed: the
 * counter instruction clobbers memory (fastread/arch/<arch>.h), so the
 * compiler keeps what follows it in the source after it.
 * Return: true when the cache served it; false when the caller must take
 * fastread_group_read_sample() (which refills the cache, or reads through
 * read(2)): what was written then is worth nothing. nr_user_reads is the
 * caller's to count. Must be called by the thread that opened @g, whose
 * cache only ever a pass over all @g->nr pages fills (the fastread_group_*
 * reads do): an unrolled cache's shape then says @g->nr, which this reads
 * from the shape alone.
 * fastread_group_read_cached_with() is the same with the counter read by
 * @read_slot (the unit tests' synthetic counters); the arch's folds away.
 */
static FASTREAD_ALWAYS_INLINE bool
fastread_group_read_cached_with(const struct fastread_group *g, uint64_t *sample,
				enum fastread_counters_at at, uint64_t (*read_slot)(uint32_t slot))
{
	const struct fastread_cache *cache = &g->cache;
	const uint32_t sum = FASTREAD_READ_ONCE(cache->lock_sum);

	/* The sum before the fields it vouches for (a signal handler may refill them). */
	__asm__ volatile("" ::: "memory");
	if (__builtin_expect(cache->valid == FASTREAD_CACHE_ONE, 1)) {
		/* One event: straight-line code, no loop to set up. */
		const struct fastread_page_cache *e = &cache->page[0];
		struct perf_event_mmap_page *pc;
		uint64_t offset, raw;
		uint32_t shift;

		if (at == FASTREAD_COUNTERS_LAST) {
			sample[1] = sample[2] = e->time;
			/* Everything but the arithmetic in registers before the counter. */
			pc = g->page[0];
			offset = e->offset;
			shift = e->shift;
			__asm__ volatile("" : "+r"(pc), "+r"(offset), "+r"(shift));
			raw = read_slot(e->slot);
		} else {
			raw = read_slot(e->slot);
			fastread_cached_after(&g, &e, &sample);
			pc = g->page[0];
			offset = e->offset;
			shift = e->shift;
			sample[1] = sample[2] = e->time;
		}
		sample[0] = offset + (uint64_t)((int64_t)(raw << shift) >> shift);
		return fastread_cache_locks_hold(&pc, 1, sum);
	}
	const uint32_t valid = cache->valid;
	uint32_t now;

	/*
	 * The unrolled sizes, 4 events first, each a bit test; within a size
	 * 64-bit counters (arm64 PMUv3.5), then this architecture's narrower
	 * ones (the 32-bit event counters of most arm64 servers, x86's 48
	 * bits), then the other narrow kind. A cache that is not valid has no
	 * bit set, and reaches the loop's test below.
	 */
#define FASTREAD_CACHED_SIZE(nr)                                                           \
	if (valid & FASTREAD_CACHE_UNROLLED_NR(nr)) {                                       \
		if (valid & FASTREAD_CACHE_WIDE)                                            \
			now = fastread_cached_unrolled(g, sample, at, read_slot, nr,        \
						       FASTREAD_CACHE_WIDE);                \
		else if ((valid & FASTREAD_CACHE_SEXT32) ==                                 \
			 (FASTREAD_CACHE_ARCH_NARROW & FASTREAD_CACHE_SEXT32))              \
			now = fastread_cached_unrolled(g, sample, at, read_slot, nr,        \
						       FASTREAD_CACHE_ARCH_NARROW);         \
		else                                                                        \
			now = fastread_cached_unrolled(g, sample, at, read_slot, nr,        \
						       FASTREAD_CACHE_OTHER_NARROW);        \
	} else
	FASTREAD_CACHED_SIZE(4)
	FASTREAD_CACHED_SIZE(2)
	FASTREAD_CACHED_SIZE(3)
		goto loop;	/* to the loop, which comes back here */
#undef FASTREAD_CACHED_SIZE
	/*
	 * One comparison for the unrolled sizes and the loop alike: a return
	 * of its own in each made GCC 12 join them into a flag (cset) for the
	 * caller to test, one instruction more after every read.
	 */
check:
	return now == sum;
loop:
	if (__builtin_expect(cache->valid < FASTREAD_CACHE_LEADER, 0))
		return false;
	/* Several events: the loop's bounds in registers (the counter clobbers memory). */
	const int nr = g->nr;
	const struct fastread_page_cache *e = cache->page, *end = e + nr;
	uint64_t *value = sample;

	if (at == FASTREAD_COUNTERS_LAST) {
		uint64_t *times = sample + nr;
		const uint64_t time = e->time;

		times[0] = times[1] = time;
	}
	if (cache->valid & FASTREAD_CACHE_WIDE) {
		/*
		 * 64-bit counters, more of them than are unrolled: no shift to
		 * load, no sign extension (3 instructions an event). Two events
		 * a turn, the first alone when their number is odd: one loop
		 * test and pointer step per two counters, and the loop ends
		 * exactly at the end (no remainder for the compiler to work out).
		 */
		if (nr & 1) {
			*value++ = e->offset + read_slot(e->slot);
			e++;
		}
		do {
			const uint64_t a = e[0].offset + read_slot(e[0].slot);
			const uint64_t b = e[1].offset + read_slot(e[1].slot);

			value[0] = a;
			value[1] = b;
			value += 2;
			e += 2;
		} while (e < end);
	} else {
		do {
			*value++ = fastread_cache_value(e, read_slot(e->slot));
		} while (++e < end);
	}
	if (at == FASTREAD_COUNTERS_FIRST) {
		uint64_t *times = sample + nr;
		const uint64_t time = cache->page[0].time;

		times[0] = times[1] = time;
	}
	now = fastread_cache_locks_sum_many(g->page, nr);
	goto check;
}

static FASTREAD_ALWAYS_INLINE bool fastread_group_read_cached(const struct fastread_group *g,
							     uint64_t *sample,
							     enum fastread_counters_at at)
{
#if FASTREAD_ARCH_USER_READ
	return fastread_group_read_cached_with(g, sample, at, arch_read_slot);
#else
	(void)g;
	(void)sample;
	(void)at;
	return false;
#endif
}

#endif
