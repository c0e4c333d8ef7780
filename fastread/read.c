/* SPDX-License-Identifier: MIT */
/*
 * fastread/read.c: read a group's counters from user space, in ONE seqlock
 * pass over all its pages, or with ONE read(2) of the leader when any counter
 * is not on the PMU now. The loop is written once, with a lighter pass for a
 * group of one (the common case); the machine reads come from
 * fastread/arch/<arch>.h, or from the hooks a unit test passes. The times are
 * brought forward only when the ratio needs them (enabled != running), as
 * perf_event_open(2) does: see fastread_times_stale() (internal.h).
 *
 * ASYNC-SIGNAL-SAFE: everything in this file. Nothing here allocates, locks or
 * uses stdio; the only system call is the read(2) fallback, made without
 * libc's read() (sys_read.h), so errno is as it was and no read here is a
 * cancellation point.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "fastread/arch.h"
#include "fastread/internal.h"
#include "fastread/sys_read.h"

#define ALWAYS_INLINE FASTREAD_ALWAYS_INLINE
#define READ_ONCE(x) FASTREAD_READ_ONCE(x)

/* The sum of the pages' locks once the pass has read them. */
static ALWAYS_INLINE uint32_t locks_end(struct perf_event_mmap_page *const *pages, int nr)
{
	uint32_t sum = 0;
	int i;

	__asm__ volatile("" ::: "memory");
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	for (i = 0; i < nr; i++)
		sum += READ_ONCE(pages[i]->lock);
	return sum;
}

/*
 * One event inside a pass: count = offset + counter sign-extended from
 * pmc_width bits (bits above it are UNKNOWN on arm64), and the page's times
 * as the kernel last wrote them. Return: 0, or -EAGAIN when read(2) is needed.
 */
static ALWAYS_INLINE int page_take(const struct perf_event_mmap_page *pc,
				   const struct fastread_hooks *h, uint64_t *caps,
				   struct fastread_count *c, struct fastread_page_cache *fill)
{
	uint32_t index = READ_ONCE(pc->index);
	uint32_t width = READ_ONCE(pc->pmc_width);
	uint32_t slot = arch_counter_slot(index);
	uint64_t offset;

	*caps = READ_ONCE(pc->capabilities);
	/*
	 * Slot NONE: index 0, not on a counter now (multiplexed out, or a
	 * software event), or a register this architecture cannot name.
	 * 64 - width > 63: a pmc_width outside 1..64, tested as the shift the
	 * sign extension computes anyway.
	 */
	if (__builtin_expect((64 - width > 63) | (slot == FASTREAD_SLOT_NONE), 0))
		return -EAGAIN;
	if (__builtin_expect(!(*caps & FASTREAD_CAP_USER_RDPMC), 0))
		return -EAGAIN;
	offset = (uint64_t)READ_ONCE(pc->offset);
	c->value = offset + fastread_counter_extend(fastread_hooks_counter(h, index, slot), width);
	if (fill) {
		fill->index = index;
		fill->slot = slot;
		fill->shift = 64 - width;
		fill->offset = offset;
	}
	/*
	 * Plain loads: these two feed values, never a decision, so a pair torn
	 * by a writer is thrown away with the pass, and one ldp takes both.
	 */
	c->enabled = pc->time_enabled;
	c->running = pc->time_running;
	return 0;
}

/*
 * Where a pass puts what it read: @count[i] per event (with its times, or the
 * leader's times only), or (sample) @value[i] per event and the leader's times
 * into *@enabled and *@running: straight into the caller's own storage, so
 * that markers.c reads into a region's sample with no copy. Each entry point
 * builds one as a constant, and the tests on it fold away.
 */
enum read_out_form {
	READ_OUT_COUNTS,	/* count[i], each with its times */
	READ_OUT_LEADER_TIMES,	/* count[i].value, count[0]'s times */
	READ_OUT_SAMPLE,	/* value[i], the leader's times */
};

/* The form is a constant, not a test of @count: a caller may pass NULL pointers. */
struct read_out {
	enum read_out_form form;
	struct fastread_count *count;
	uint64_t *value, *enabled, *running;
};

/* Event @i's value, and its times when it is the leader or every event's are kept. */
static ALWAYS_INLINE void out_store(const struct read_out *o, int i, const struct fastread_count *c)
{
	if (o->form == READ_OUT_COUNTS) {
		o->count[i] = *c;
	} else if (o->form == READ_OUT_LEADER_TIMES) {
		o->count[i].value = c->value;
		if (i == 0) {
			o->count[0].enabled = c->enabled;
			o->count[0].running = c->running;
		}
	} else {
		o->value[i] = c->value;
		if (i == 0) {
			*o->enabled = c->enabled;
			*o->running = c->running;
		}
	}
}

/* Are this event's times kept? Else their loads and checks compile away. */
static ALWAYS_INLINE bool out_wants_times(const struct read_out *o, int i)
{
	return i == 0 || o->form == READ_OUT_COUNTS;
}

/*
 * The cache a full pass fills (NULL: none, and its code folds away): what
 * each page said, beside the lock it said it under. valid is cleared before
 * the first entry is written and set after the last, so that a signal
 * handler reading the same group never sees a half-written cache as valid.
 * CACHE_LEADER: the values and the leader's time; CACHE_ALL: every page's;
 * CACHE_ONE: a group of one (fastread/cached.h). A group of several has its
 * shape beside its level (fastread_cache_flags): FASTREAD_CACHE_WIDE when its
 * pages all say pmc_width 64, and for 2 to FASTREAD_UNROLLED_MAX events
 * FASTREAD_CACHE_UNROLLED and their number, with FASTREAD_CACHE_SEXT32 when
 * they all say 32.
 */
enum {
	CACHE_NONE = FASTREAD_CACHE_NONE,
	CACHE_LEADER = FASTREAD_CACHE_LEADER,
	CACHE_ALL = FASTREAD_CACHE_ALL,
	CACHE_ONE = FASTREAD_CACHE_ONE,
};

static ALWAYS_INLINE void cache_open(struct fastread_cache *cache)
{
	if (cache) {
		cache->valid = CACHE_NONE;
		__asm__ volatile("" ::: "memory");
	}
}

static ALWAYS_INLINE void cache_close(struct fastread_cache *cache, uint32_t lock_sum, int valid)
{
	if (cache) {
		cache->full_passes++;
		cache->lock_sum = lock_sum;
		__asm__ volatile("" ::: "memory");
		cache->valid = (uint32_t)valid;
	}
}

/*
 * May a page's reading be served from the cache until its lock moves? Only
 * when its times need no bringing forward: then they are the page's own,
 * equal, and as fixed as its other fields while the lock stands.
 */
static ALWAYS_INLINE bool times_cacheable(uint64_t caps, const struct fastread_count *c)
{
	return c->enabled == c->running && !fastread_times_stale(caps, c);
}

static ALWAYS_INLINE int cache_level(const struct read_out *o)
{
	return o->form == READ_OUT_COUNTS ? CACHE_ALL : CACHE_LEADER;
}

/*
 * A group of one, the common case: one lock, no sums. Return: 0 with @out
 * filled, -EAGAIN when read(2) is needed, or -EINPROGRESS when the lock was
 * odd (a write in progress: nothing read during it can be trusted, not even
 * to decide on the fallback) or moved: the caller takes the pass again.
 */
static ALWAYS_INLINE int page_pass(const struct perf_event_mmap_page *pc,
				   const struct fastread_hooks *h, struct fastread_cache *cache,
				   const struct read_out *out)
{
	struct fastread_count c;
	uint64_t caps;
	uint32_t seq;
	bool keep;

	cache_open(cache);
	if (!pc)
		return -EAGAIN;
	seq = fastread_lock_begin(pc);
	if (__builtin_expect(seq & 1, 0))
		return -EINPROGRESS;
	if (page_take(pc, h, &caps, &c, cache ? &cache->page[0] : NULL) < 0)
		return -EAGAIN;
	keep = times_cacheable(caps, &c);
	if (__builtin_expect(fastread_times_stale(caps, &c), 0))
		fastread_times_advance(pc, caps, h->read_timestamp(), &c);
	if (fastread_lock_end(pc) != seq)
		return -EINPROGRESS;
	if (cache) {
		cache->page[0].lock = seq;
		cache->page[0].time = c.enabled;
	}
	cache_close(cache, seq, keep ? CACHE_ONE : CACHE_NONE);
	out_store(out, 0, &c);
	return 0;
}

/*
 * A pass reads every page between its lock reads; if any lock was odd or
 * moved, the whole pass is taken again, so the values returned all come from
 * one instant. The locks are compared as one sum: the kernel only ever
 * increments a lock, so the sum moves whenever one does (short of 2^32
 * increments inside one pass), and no array of them is kept. One timestamp,
 * taken by the first event that needs it, serves the pass.
 * Return: 0, or -EAGAIN when read(2) is needed.
 */
static ALWAYS_INLINE int pages_read_many(struct perf_event_mmap_page *const *pages, int nr,
					 const struct fastread_hooks *h,
					 struct fastread_cache *cache, const struct read_out *out)
{
	struct fastread_count c;
	uint32_t seq, begin;
	uint64_t caps, cyc;
	bool have_cyc, keep, wide, all32;
	int i;

again:
	cache_open(cache);
	begin = 0;
	cyc = 0;
	have_cyc = false;
	keep = true;
	wide = true;
	all32 = true;
	for (i = 0; i < nr; i++) {
		const struct perf_event_mmap_page *pc = pages[i];

		if (!pc)
			return -EAGAIN;
		seq = fastread_lock_begin(pc);
		if (__builtin_expect(seq & 1, 0))
			goto again;
		begin += seq;
		if (page_take(pc, h, &caps, &c, cache ? &cache->page[i] : NULL) < 0)
			return -EAGAIN;
		if (cache) {
			cache->page[i].lock = seq;
			wide &= cache->page[i].shift == 0;
			all32 &= cache->page[i].shift == 32;
		}
		if (!out_wants_times(out, i)) {
			out_store(out, i, &c);
			continue;
		}
		keep &= times_cacheable(caps, &c);
		if (cache)
			cache->page[i].time = c.enabled;
		if (__builtin_expect(fastread_times_stale(caps, &c), 0)) {
			if (!have_cyc) {
				cyc = h->read_timestamp();
				have_cyc = true;
			}
			fastread_times_advance(pc, caps, cyc, &c);
		}
		out_store(out, i, &c);
	}
	if (locks_end(pages, nr) != begin)
		goto again;
	cache_close(cache, begin, keep ? cache_level(out) | fastread_cache_flags(nr, wide, all32) : CACHE_NONE);
	return 0;
}

/*
 * The cached read: while every page's lock still holds the value the cache
 * was filled under (even: no write was in progress), the page's index,
 * offset, width and times are the cached ones, so a read is the counter
 * instruction per event and one re-check of the locks after them. No lock is
 * read before the counters: the kernel only ever increments a lock, and the
 * cached values were seen before this read began, so locks that equal them
 * after the counters were read (their sum does: each lock can only have
 * grown) held them throughout (the torn-read unit test fails without the
 * re-check). The sum is the one loaded at the start, never reloaded: a
 * signal handler that refills the cache in between refills it under the same
 * locks, or the re-check fails. The number of pages is loaded from @nr_at
 * past the one-event case, which needs none: a group's count, loaded by the
 * caller, would be loaded ahead of everything (the barrier below keeps it
 * there) on the path where nothing uses it.
 * Return: 0, or -ESTALE when the full pass must be taken.
 */
static ALWAYS_INLINE int pages_read_cached(struct perf_event_mmap_page *const *pages,
					   const int *nr_at, const struct fastread_hooks *h,
					   const struct fastread_cache *cache,
					   const struct read_out *out)
{
	uint32_t sum = FASTREAD_READ_ONCE(cache->lock_sum);
	int i, nr;

	__asm__ volatile("" ::: "memory");
	if (__builtin_expect(cache->valid == CACHE_ONE, 1)) {
		/* The common case, one event, without the loop: straight-line code. */
		const struct fastread_page_cache *e = &cache->page[0];
		struct fastread_count c;

		c.value = fastread_cache_value(e, fastread_hooks_counter(h, e->index, e->slot));
		c.enabled = c.running = e->time;
		out_store(out, 0, &c);
		return fastread_lock_end(pages[0]) == sum ? 0 : -ESTALE;
	}
	if (__builtin_expect(fastread_cache_level(cache->valid) < (uint32_t)cache_level(out), 0))
		return -ESTALE;
	nr = *nr_at;
	const bool wide = cache->valid & FASTREAD_CACHE_WIDE;

	for (i = 0; i < nr; i++) {
		const struct fastread_page_cache *e = &cache->page[i];
		const uint64_t raw = fastread_hooks_counter(h, e->index, e->slot);
		struct fastread_count c;

		/* 64-bit counters: nothing to sign-extend (fastread/cached.h). */
		c.value = wide ? e->offset + raw : fastread_cache_value(e, raw);
		if (out_wants_times(out, i))
			c.enabled = c.running = e->time;
		out_store(out, i, &c);
	}
	if (__builtin_expect(!fastread_cache_locks_hold(pages, nr, sum), 0))
		return -ESTALE;
	return 0;
}

/*
 * The full passes, which fill @cache (NULL: none).
 * Return: 0, -EAGAIN (use read(2)), or -EINVAL for a group size out of range.
 * The one-event pass retries through this loop rather than a loop of its own,
 * so that the compiler lays its path out straight, without the alignment
 * padding and register set-up it puts before an inner loop (docs/performance.md
 * "Figures behind the code").
 */
static ALWAYS_INLINE int pages_read_full(struct perf_event_mmap_page *const *pages, int nr,
					 const struct fastread_hooks *h,
					 struct fastread_cache *cache, const struct read_out *out)
{
	int err;

	if (nr < 1 || nr > FASTREAD_MAX_EVENTS)
		return -EINVAL;
	do {
		if (nr != 1)
			return pages_read_many(pages, nr, h, cache, out);
		err = page_pass(pages[0], h, cache, out);
	} while (__builtin_expect(err == -EINPROGRESS, 0));
	return err;
}

/*
 * The cached read when @cache serves it (a valid cache was filled over these
 * nr pages), else the full passes.
 */
static ALWAYS_INLINE int pages_read(struct perf_event_mmap_page *const *pages, int nr,
				    const struct fastread_hooks *h, struct fastread_cache *cache,
				    const struct read_out *out)
{
	if (cache && __builtin_expect(pages_read_cached(pages, &nr, h, cache, out) == 0, 1))
		return 0;
	return pages_read_full(pages, nr, h, cache, out);
}

int fastread_pages_read(struct perf_event_mmap_page *const *pages, int nr,
			const struct fastread_hooks *h, struct fastread_count *out)
{
	const struct read_out o = { .form = READ_OUT_COUNTS, .count = out };

	return pages_read(pages, nr, h, NULL, &o);
}

int fastread_pages_read_leader_times(struct perf_event_mmap_page *const *pages, int nr,
				     const struct fastread_hooks *h, struct fastread_count *out)
{
	const struct read_out o = { .form = READ_OUT_LEADER_TIMES, .count = out };

	return pages_read(pages, nr, h, NULL, &o);
}

int fastread_pages_read_sample(struct perf_event_mmap_page *const *pages, int nr,
			       const struct fastread_hooks *h, uint64_t *value,
			       uint64_t *enabled, uint64_t *running)
{
	const struct read_out o = {
		.form = READ_OUT_SAMPLE, .value = value, .enabled = enabled, .running = running
	};

	return pages_read(pages, nr, h, NULL, &o);
}

int fastread_pages_read_cached(struct perf_event_mmap_page *const *pages, int nr,
			       const struct fastread_hooks *h, struct fastread_cache *cache,
			       struct fastread_count *out)
{
	const struct read_out o = { .form = READ_OUT_COUNTS, .count = out };

	return pages_read(pages, nr, h, cache, &o);
}

int fastread_pages_read_sample_cached(struct perf_event_mmap_page *const *pages, int nr,
				      const struct fastread_hooks *h,
				      struct fastread_cache *cache, uint64_t *value,
				      uint64_t *enabled, uint64_t *running)
{
	const struct read_out o = {
		.form = READ_OUT_SAMPLE, .value = value, .enabled = enabled, .running = running
	};

	return pages_read(pages, nr, h, cache, &o);
}

/* What read(2) of a PERF_FORMAT_GROUP leader returns (with ID and both times). */
struct group_format {
	uint64_t nr;
	uint64_t time_enabled;
	uint64_t time_running;
	struct {
		uint64_t value;
		uint64_t id;
	} values[FASTREAD_MAX_EVENTS];
};

/*
 * read(2) of @g's leader into @buf, checked: 0, or -errno (-EIO for a
 * reply too short for what it says it holds). errno as it was (sys_read()).
 */
static ALWAYS_INLINE int group_buf_read(struct fastread_group *g, struct group_format *buf)
{
	long len;

	if (g->nr < 1 || g->nr > FASTREAD_MAX_EVENTS)
		return -EINVAL;
	g->nr_syscall_reads++;
	len = sys_read(g->fd[0], buf, sizeof(*buf));
	if (len < 0)
		return (int)len;
	if ((size_t)len < 3 * sizeof(uint64_t) || buf->nr > FASTREAD_MAX_EVENTS ||
	    (size_t)len < 3 * sizeof(uint64_t) + buf->nr * sizeof(buf->values[0]))
		return -EIO;
	return 0;
}

/* Where @buf holds event @i of @g, found by ID, or -1. */
static int group_buf_find(const struct fastread_group *g, const struct group_format *buf, int i)
{
	for (uint64_t j = 0; j < buf->nr; j++)
		if (buf->values[j].id == g->id[i])
			return (int)j;
	return -1;
}

/*
 * Where the readers below put event i's value: @at + i * @stride bytes, in
 * the caller's array (a sample's values, or the value fields of an array of
 * struct fastread_count).
 */
struct buf_out {
	char *at;
	size_t stride;
};

static ALWAYS_INLINE void buf_out_store(struct buf_out o, int i, uint64_t value)
{
	*(uint64_t *)(o.at + (size_t)i * o.stride) = value;
}

/* @buf's values into @o, each event found by ID: 0, or -EIO when one is missing. */
static __attribute__((noinline)) int group_buf_values_by_id(const struct fastread_group *g,
							    const struct group_format *buf,
							    struct buf_out o)
{
	for (int i = 0; i < g->nr; i++) {
		int j = group_buf_find(g, buf, i);

		if (j < 0)
			return -EIO;
		buf_out_store(o, i, buf->values[j].value);
	}
	return 0;
}

/*
 * @buf's values into @o in @g's order: 0, or -EIO when an event is missing
 * (part of them may then be written). The kernel lists a group as it was
 * opened, the leader's and then its siblings', so event i is taken at place
 * i, and looked for by ID only when it is not there.
 */
static ALWAYS_INLINE int group_buf_values(const struct fastread_group *g,
					  const struct group_format *buf, struct buf_out o)
{
	const int nr = g->nr;

	if (__builtin_expect(buf->nr != (uint64_t)nr, 0))
		return group_buf_values_by_id(g, buf, o);
	for (int i = 0; i < nr; i++) {
		if (__builtin_expect(buf->values[i].id != g->id[i], 0))
			return group_buf_values_by_id(g, buf, o);
		buf_out_store(o, i, buf->values[i].value);
	}
	return 0;
}

int fastread_group_read_syscall(struct fastread_group *g, struct fastread_count *out)
{
	const struct buf_out o = {
		(char *)out + offsetof(struct fastread_count, value), sizeof(*out)
	};
	struct group_format buf;
	int err = group_buf_read(g, &buf);

	if (!err)
		err = group_buf_values(g, &buf, o);
	if (err)
		return err;
	for (int i = 0; i < g->nr; i++) {
		out[i].enabled = buf.time_enabled;
		out[i].running = buf.time_running;
	}
	return 0;
}

/*
 * The read(2) fallback into a sample (a user-space pass that gave up may
 * have written part of @value already: on a failure here too, the caller
 * replaces it). Its buffer in a function of its own, so that the fast path
 * has no frame to set up; a caller that knows the group is kernel_only
 * calls it straight.
 */
int fastread_group_read_sample_syscall(struct fastread_group *g, uint64_t *value,
				       uint64_t *enabled, uint64_t *running)
{
	const struct buf_out o = { (char *)value, sizeof(*value) };
	struct group_format buf;
	int err = group_buf_read(g, &buf);

	if (!err)
		err = group_buf_values(g, &buf, o);
	if (err)
		return err;
	*enabled = buf.time_enabled;
	*running = buf.time_running;
	return 0;
}

static ALWAYS_INLINE int group_read_syscall(struct fastread_group *g, const struct read_out *out)
{
	if (out->form == READ_OUT_SAMPLE)
		return fastread_group_read_sample_syscall(g, out->value, out->enabled,
							  out->running);
	return fastread_group_read_syscall(g, out->count);
}

/*
 * A group with Intel's top-down metric events (fastread/topdown.c): each of
 * its reads is a pass of that file's (the metrics' counts are computed from
 * the registers, never cached) or its read(2), into @out's form.
 */
static __attribute__((noinline)) int group_read_topdown(struct fastread_group *g,
							const struct fastread_hooks *h,
							const struct read_out *out)
{
	struct fastread_count c[FASTREAD_MAX_EVENTS];
	int err = fastread_topdown_read(g, h, c);

	if (err < 0)
		return err;
	for (int i = 0; i < g->nr; i++)
		out_store(out, i, &c[i]);
	return 0;
}

/*
 * A read the cache did not serve. A top-down group's cache is never valid
 * (fastread_group_cache_fill_hooked), so its reads miss the cached read at
 * its first test and take the one test of the flag here, which no other
 * group's cached read reaches.
 */
static ALWAYS_INLINE int group_read_uncached(struct fastread_group *g,
					     const struct fastread_hooks *h,
					     const struct read_out *out)
{
	if (__builtin_expect(g->topdown, 0))
		return group_read_topdown(g, h, out);
	if (pages_read_full(g->page, g->nr, h, &g->cache, out) == 0) {
		g->nr_user_reads++;
		return 0;
	}
	return group_read_syscall(g, out);
}

#if FASTREAD_ARCH_USER_READ
/* A constant table of inline functions: the compiler calls nothing through it. */
static const struct fastread_hooks arch_hooks = {
	.read_counter = NULL,
	.read_timestamp = arch_read_timestamp,
	.read_slot = arch_read_slot,
};

/*
 * The uncached read with this architecture's hooks, out of line, @out
 * passed as its fields: its calls take the address of a read_out, and one
 * built in the caller's frame gave the cached read a frame of its own (the
 * one-event library read 30 -> 41 instructions on arm64).
 */
static __attribute__((noinline)) int group_read_uncached_arch(struct fastread_group *g,
							       enum read_out_form form,
							       struct fastread_count *count,
							       uint64_t *value, uint64_t *enabled,
							       uint64_t *running)
{
	const struct read_out o = {
		.form = form, .count = count, .value = value, .enabled = enabled, .running = running
	};

	return group_read_uncached(g, &arch_hooks, &o);
}
#endif

static ALWAYS_INLINE int group_read(struct fastread_group *g, const struct fastread_hooks *h,
				    const struct read_out *out)
{
	if (__builtin_expect(pages_read_cached(g->page, &g->nr, h, &g->cache, out) == 0, 1)) {
		g->nr_user_reads++;
		return 0;
	}
	/* read(2) at once, in line: its calls take the read_out's fields, not its address. */
	if (g->kernel_only)
		return group_read_syscall(g, out);
#if FASTREAD_ARCH_USER_READ
	if (h == &arch_hooks)
		return group_read_uncached_arch(g, out->form, out->count, out->value, out->enabled,
						out->running);
#endif
	return group_read_uncached(g, h, out);
}

void fastread_group_cache_fill_hooked(struct fastread_group *g, const struct fastread_hooks *h)
{
	struct fastread_count scratch[FASTREAD_MAX_EVENTS];
	const struct read_out o = { .form = READ_OUT_COUNTS, .count = scratch };

	g->cache.valid = CACHE_NONE;
	if (g->topdown)
		return;		/* its counts are computed at each read: nothing to cache */
	if (g->kernel_only)
		return;		/* no page can serve a read */
	(void)pages_read(g->page, g->nr, h, &g->cache, &o);
}

int fastread_group_read_hooked(struct fastread_group *g, const struct fastread_hooks *h,
			       struct fastread_count *out)
{
	const struct read_out o = { .form = READ_OUT_COUNTS, .count = out };

	return group_read(g, h, &o);
}

void fastread_group_cache_fill(struct fastread_group *g)
{
#if FASTREAD_ARCH_USER_READ
	fastread_group_cache_fill_hooked(g, &arch_hooks);
#else
	(void)g;
#endif
}

int fastread_group_read(struct fastread_group *g, struct fastread_count *out)
{
	const struct read_out o = { .form = READ_OUT_COUNTS, .count = out };

#if FASTREAD_ARCH_USER_READ
	return group_read(g, &arch_hooks, &o);
#else
	return group_read_syscall(g, &o);
#endif
}

int fastread_group_read_leader_times(struct fastread_group *g, struct fastread_count *out)
{
	const struct read_out o = { .form = READ_OUT_LEADER_TIMES, .count = out };

#if FASTREAD_ARCH_USER_READ
	return group_read(g, &arch_hooks, &o);
#else
	return group_read_syscall(g, &o);
#endif
}

int fastread_group_read_sample(struct fastread_group *g, uint64_t *value, uint64_t *enabled,
			       uint64_t *running)
{
	const struct read_out o = {
		.form = READ_OUT_SAMPLE, .value = value, .enabled = enabled, .running = running
	};

#if FASTREAD_ARCH_USER_READ
	return group_read(g, &arch_hooks, &o);
#else
	return group_read_syscall(g, &o);
#endif
}
