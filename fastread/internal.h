/* SPDX-License-Identifier: MIT */
/*
 * fastread/internal.h: what fastread's files share and what unit tests reach
 * behind the public API: the hook seam of the read path, the pieces of its
 * arithmetic, and the sysfs/procfs probes with a replaceable root.
 */
#ifndef PFSHIM_FASTREAD_INTERNAL_H
#define PFSHIM_FASTREAD_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include "fastread/cached.h"
#include "fastread/fastread.h"

/*
 * The two machine reads of the read path. Production passes the inline arch
 * hooks as a constant, so the compiler folds the pointers away: read_counter
 * NULL, and each counter read by the slot arch_counter_slot() gave for its
 * index (computed once per full pass, kept in the cache). Unit tests pass
 * their own read_counter, by index, to feed synthetic counters and timestamps.
 */
struct fastread_hooks {
	uint64_t (*read_counter)(uint32_t index);	/* the page's index, 1-based; or NULL */
	uint64_t (*read_timestamp)(void);
	uint64_t (*read_slot)(uint32_t slot);		/* when read_counter is NULL */
};

static FASTREAD_ALWAYS_INLINE uint64_t fastread_hooks_counter(const struct fastread_hooks *h,
							     uint32_t index, uint32_t slot)
{
	return h->read_counter ? h->read_counter(index) : h->read_slot(slot);
}

/* The sysfs root of the PMUs: the only spelling of it in fastread/. */
#define FASTREAD_SYSFS_PMUS "/sys/bus/event_source/devices"

/* Bits of perf_event_mmap_page.capabilities (linux/perf_event.h bitfields). */
#define FASTREAD_CAP_USER_RDPMC		(1ULL << 2)
#define FASTREAD_CAP_USER_TIME		(1ULL << 3)
#define FASTREAD_CAP_USER_TIME_SHORT	(1ULL << 5)

/* The time fields of a page, taken together inside one seqlock pass. */
struct fastread_clock {
	uint64_t offset;	/* time_offset */
	uint32_t mult;		/* time_mult */
	uint16_t shift;		/* time_shift */
	bool is_short;		/* cap_user_time_short */
	uint64_t cycles;	/* time_cycles */
	uint64_t mask;		/* time_mask */
};

/*
 * The seqlock of a metadata page, written once for read.c and timer.c: a pass
 * is fastread_lock_begin(), the loads, fastread_lock_end(); it is consistent
 * when both returned the same even value.
 * The kernel rewrites a page only while its task is off the CPU or in an
 * interrupt on that CPU, so for self-monitoring a compiler barrier would do
 * (docs/kernel-notes.md "The mmap page"). Acquire ordering costs nothing
 * more on x86 (TSO) and an ldar plus one dmb ishld per pass on arm64, and
 * keeps the loop right against a writer on another CPU, which the unit tests'
 * writer thread is.
 */
static FASTREAD_ALWAYS_INLINE uint32_t fastread_lock_begin(const struct perf_event_mmap_page *pc)
{
	uint32_t seq = __atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE);

	__asm__ volatile("" ::: "memory");
	return seq;
}

/* The lock once the pass has read everything it needs from @pc. */
static FASTREAD_ALWAYS_INLINE uint32_t fastread_lock_end(const struct perf_event_mmap_page *pc)
{
	__asm__ volatile("" ::: "memory");
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return FASTREAD_READ_ONCE(pc->lock);
}

/*
 * fastread_counter_extend - sign-extend a raw counter of @width bits (1..64):
 * bits above the width are UNKNOWN on arm64 and must not reach the sum.
 */
static inline uint64_t fastread_counter_extend(uint64_t raw, unsigned width)
{
	unsigned shift = 64 - width;

	/* Shift as unsigned (a signed left shift of a negative value is UB). */
	return (uint64_t)((int64_t)(raw << shift) >> shift);
}

/*
 * fastread_clock_delta - ns elapsed since the page's times were written, for a
 * timestamp @cyc; the formula of linux/perf_event.h, 64-bit wrap-around included.
 */
static inline uint64_t fastread_clock_delta(const struct fastread_clock *c, uint64_t cyc)
{
	if (c->is_short)
		cyc = c->cycles + ((cyc - c->cycles) & c->mask);
	if (c->shift >= 64)
		return c->offset;	/* a page this odd carries no usable clock */
	return c->offset + fastread_cycles_to_ns(cyc, c->mult, c->shift);
}

/*
 * Must the page's times be brought forward? perf_event_open(2) does it only
 * when enabled != running: otherwise the ratio is 1 whatever the time since
 * the page was written, and the timestamp and its arithmetic would be half
 * of a read. Also when running is 0 on a page whose counter is on the PMU
 * (written as the event was enabled), so that a counted event never reads
 * running 0, which callers take for "not counted". The times are compared
 * first: when they are equal, the capabilities need not be looked at.
 */
static FASTREAD_ALWAYS_INLINE bool fastread_times_stale(uint64_t caps, const struct fastread_count *c)
{
	return (c->enabled != c->running || c->running == 0) && (caps & FASTREAD_CAP_USER_TIME);
}

/*
 * enabled and running plus the ns since @pc was written, for timestamp @cyc;
 * running too, as the event is on a counter (index != 0) to get this far.
 */
static FASTREAD_ALWAYS_INLINE void fastread_times_advance(const struct perf_event_mmap_page *pc,
						   uint64_t caps, uint64_t cyc,
						   struct fastread_count *c)
{
	struct fastread_clock clock;
	uint64_t delta;

	clock.offset = FASTREAD_READ_ONCE(pc->time_offset);
	clock.mult = FASTREAD_READ_ONCE(pc->time_mult);
	clock.shift = FASTREAD_READ_ONCE(pc->time_shift);
	clock.is_short = (caps & FASTREAD_CAP_USER_TIME_SHORT) != 0;
	clock.cycles = clock.is_short ? FASTREAD_READ_ONCE(pc->time_cycles) : 0;
	clock.mask = clock.is_short ? FASTREAD_READ_ONCE(pc->time_mask) : 0;
	delta = fastread_clock_delta(&clock, cyc);
	c->enabled += delta;
	c->running += delta;
}

/*
 * fastread_pages_read - one consistent user-space read of @nr pages.
 * Return: 0 with @out filled; -EAGAIN when some counter cannot be read from
 * user space now (NULL page, index 0, cap_user_rdpmc 0, bad pmc_width): the
 * caller must use read(2).
 */
int fastread_pages_read(struct perf_event_mmap_page *const *pages, int nr,
			const struct fastread_hooks *h, struct fastread_count *out);

/* fastread_pages_read() with the times of pages[0] only (fastread_group_read_leader_times). */
int fastread_pages_read_leader_times(struct perf_event_mmap_page *const *pages, int nr,
				     const struct fastread_hooks *h, struct fastread_count *out);

/* fastread_pages_read() into a sample, as fastread_group_read_sample() writes it. */
int fastread_pages_read_sample(struct perf_event_mmap_page *const *pages, int nr,
			       const struct fastread_hooks *h, uint64_t *value,
			       uint64_t *enabled, uint64_t *running);

/*
 * fastread_pages_read() and fastread_pages_read_sample() through @cache, as
 * a group's reads go (fastread/read.c, "the cached read"): the cache is
 * used while every page's lock holds the value it was filled under, and
 * refilled by a full pass otherwise. A zeroed cache is empty.
 */
int fastread_pages_read_cached(struct perf_event_mmap_page *const *pages, int nr,
			       const struct fastread_hooks *h, struct fastread_cache *cache,
			       struct fastread_count *out);
int fastread_pages_read_sample_cached(struct perf_event_mmap_page *const *pages, int nr,
				      const struct fastread_hooks *h,
				      struct fastread_cache *cache, uint64_t *value,
				      uint64_t *enabled, uint64_t *running);

/*
 * fastread_group_cache_fill - one full pass over @g's pages into its cache,
 * counted nowhere and returning nothing, so that the group's first read is
 * a cached one like the others (fastread_group_open() calls it last).
 */
void fastread_group_cache_fill(struct fastread_group *g);
void fastread_group_cache_fill_hooked(struct fastread_group *g, const struct fastread_hooks *h);

/*
 * fastread_topdown_setup - mark @g a top-down group when @attrs (its @nr
 * events) hold Intel's slots event and a topdown-* metric event, with each
 * event's kind; otherwise leave g->topdown all 0 (every other architecture
 * too). fastread_group_open() calls it; tests call it on a group of
 * synthetic pages.
 */
void fastread_topdown_setup(struct fastread_group *g, const struct perf_event_attr *attrs, int nr);

/*
 * fastread_topdown_read - read the top-down group @g into @out[0..nr-1]
 * (values and every event's times): from user space while the bases hold
 * and the slots register has not gone back, else one read(2) and a rebase
 * (fastread/topdown.c). Counts the read in nr_user_reads or
 * nr_syscall_reads. Return: 0, or a negative errno from read(2).
 */
int fastread_topdown_read(struct fastread_group *g, const struct fastread_hooks *h,
			  struct fastread_count *out);

/* fastread_group_read() with other hooks: the seam the unit tests use. */
int fastread_group_read_hooked(struct fastread_group *g, const struct fastread_hooks *h,
			       struct fastread_count *out);

/* The read(2) fallback alone: one PERF_FORMAT_GROUP read, matched by ID. */
int fastread_group_read_syscall(struct fastread_group *g, struct fastread_count *out);

/*
 * fastread_mul_div - @a * @b / @c rounded down, without 64-bit overflow.
 * Return: 0, or -EOVERFLOW with UINT64_MAX when the quotient needs > 64 bits.
 * @c must not be 0. The portable variant is what targets without __int128
 * use; it is built everywhere so the unit tests can hold it to the other.
 */
int fastread_mul_div(uint64_t a, uint64_t b, uint64_t c, uint64_t *out);
int fastread_mul_div_portable(uint64_t a, uint64_t b, uint64_t c, uint64_t *out);

/*
 * fastread_pmu_takes_user_bit - does the PMU of @type take arm64's user-access
 * bit (config1 bit 1)? True for the generic hardware types and for any PMU
 * under @devices (normally /sys/bus/event_source/devices) whose format/ lists
 * "rdpmc". Compiled everywhere so it can be tested against a fake sysfs tree.
 */
bool fastread_pmu_takes_user_bit(uint32_t type, const char *devices);

/* fastread_user_access_problem() with / replaced by @root (tests). */
const char *fastread_user_access_problem_at(const char *root);

#endif
