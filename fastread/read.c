/*
 * fastread/read.c: read a group's counters from user space, in ONE seqlock
 * pass over all its pages, or with ONE read(2) of the leader when any counter
 * is not on the PMU now. The loop is written once; the machine reads come
 * from fastread/arch/<arch>.h, or from the hooks a unit test passes.
 *
 * ASYNC-SIGNAL-SAFE: everything in this file. Nothing here allocates, locks or
 * uses stdio; the only system call is the read(2) fallback, and errno is kept.
 */
#include <errno.h>
#include <unistd.h>

#include "fastread/arch.h"
#include "fastread/internal.h"

#define ALWAYS_INLINE inline __attribute__((always_inline))
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))

/*
 * The kernel rewrites a page only while its task is off the CPU or in an
 * interrupt on that CPU, so for self-monitoring a compiler barrier would do
 * (kernel-facts "The mmap page"). Acquire ordering costs nothing more on x86
 * (TSO) and an ldar plus one dmb ishld per pass on arm64, and keeps the loop
 * right against a writer on another CPU, which the unit tests' writer thread is.
 */
static ALWAYS_INLINE uint32_t lock_begin(const struct perf_event_mmap_page *pc)
{
	uint32_t seq = __atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE);

	__asm__ volatile("" ::: "memory");
	return seq;
}

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

/* The ns since @pc's times were written, for timestamp @cyc. */
static ALWAYS_INLINE uint64_t page_time_delta(const struct perf_event_mmap_page *pc,
					      uint64_t caps, uint64_t cyc)
{
	struct fastread_clock clock;

	clock.offset = READ_ONCE(pc->time_offset);
	clock.mult = READ_ONCE(pc->time_mult);
	clock.shift = READ_ONCE(pc->time_shift);
	clock.is_short = (caps & FASTREAD_CAP_USER_TIME_SHORT) != 0;
	clock.cycles = clock.is_short ? READ_ONCE(pc->time_cycles) : 0;
	clock.mask = clock.is_short ? READ_ONCE(pc->time_mask) : 0;
	return fastread_clock_delta(&clock, cyc);
}

/*
 * One event inside the pass: count = offset + counter sign-extended to
 * pmc_width; enabled/running advanced by the time since the page was written
 * (running only while on a counter: index != 0, the only case that gets this
 * far). Return: 0, or -EAGAIN when read(2) is needed.
 */
static ALWAYS_INLINE int page_take(const struct perf_event_mmap_page *pc,
				   const struct fastread_hooks *h, uint64_t *cyc,
				   int *have_cyc, struct fastread_count *out)
{
	uint64_t caps = READ_ONCE(pc->capabilities);
	uint32_t index = READ_ONCE(pc->index);
	uint32_t width = READ_ONCE(pc->pmc_width);
	uint64_t enabled, running, delta;

	/* index 0: not on a counter now (multiplexed out, or a software event). */
	if (__builtin_expect(!(caps & FASTREAD_CAP_USER_RDPMC) || index == 0 ||
			     width - 1 > 63, 0))
		return -EAGAIN;
	out->value = (uint64_t)READ_ONCE(pc->offset) +
		     fastread_counter_extend(h->read_counter(index), width);
	enabled = READ_ONCE(pc->time_enabled);
	running = READ_ONCE(pc->time_running);
	if (!(caps & FASTREAD_CAP_USER_TIME)) {
		out->enabled = enabled;
		out->running = running;
		return 0;
	}

	/*
	 * perf_event_open(2) skips this when enabled == running (the ratio is 1
	 * either way), but then the times are those of the last context switch:
	 * two reads in one time slice would show a region with running 0, "not
	 * counted". Times as current as read(2)'s cost the timestamp.
	 * One timestamp per pass: every event of the group at the same instant.
	 */
	if (!*have_cyc) {
		*cyc = h->read_timestamp();
		*have_cyc = 1;
	}
	delta = page_time_delta(pc, caps, *cyc);
	out->enabled = enabled + delta;
	out->running = running + delta;	/* index != 0 here, see above */
	return 0;
}

/*
 * A pass reads every page between its lock reads; if any lock was odd (a
 * write in progress) or moved, the whole pass is taken again, so the values
 * returned all come from one instant. The locks are compared as one sum: the
 * kernel only ever increments a lock, so the sum moves whenever one does
 * (short of 2^32 increments inside one pass), and no array of them is kept.
 */
static ALWAYS_INLINE int pages_read(struct perf_event_mmap_page *const *pages, int nr,
				    const struct fastread_hooks *h, struct fastread_count *out)
{
	uint32_t seq, begin, odd;
	uint64_t cyc = 0;
	int have_cyc, i;

	if (nr < 1 || nr > FASTREAD_MAX_EVENTS)
		return -EINVAL;
	do {
		have_cyc = 0;
		begin = 0;
		odd = 0;
		for (i = 0; i < nr; i++) {
			if (!pages[i])
				return -EAGAIN;
			seq = lock_begin(pages[i]);
			begin += seq;
			odd |= seq & 1;
			if (page_take(pages[i], h, &cyc, &have_cyc, &out[i]) < 0)
				return -EAGAIN;
		}
	} while (odd || locks_end(pages, nr) != begin);
	return 0;
}

int fastread_pages_read(struct perf_event_mmap_page *const *pages, int nr,
			const struct fastread_hooks *h, struct fastread_count *out)
{
	return pages_read(pages, nr, h, out);
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

int fastread_group_read_syscall(struct fastread_group *g, struct fastread_count *out)
{
	struct group_format buf;
	int saved = errno, err = 0, i;
	uint64_t j;
	ssize_t len;

	if (g->nr < 1 || g->nr > FASTREAD_MAX_EVENTS)
		return -EINVAL;
	g->nr_syscall_reads++;
	len = read(g->fd[0], &buf, sizeof(buf));
	if (len < 0)
		err = -errno;
	else if ((size_t)len < 3 * sizeof(uint64_t) ||
		 buf.nr > FASTREAD_MAX_EVENTS ||
		 (size_t)len < 3 * sizeof(uint64_t) + buf.nr * sizeof(buf.values[0]))
		err = -EIO;
	errno = saved;
	if (err)
		return err;

	/* The kernel lists the group in its own order: match each event by ID. */
	for (i = 0; i < g->nr; i++) {
		for (j = 0; j < buf.nr && buf.values[j].id != g->id[i]; j++)
			;
		if (j == buf.nr)
			return -EIO;
		out[i].value = buf.values[j].value;
		out[i].enabled = buf.time_enabled;
		out[i].running = buf.time_running;
	}
	return 0;
}

static ALWAYS_INLINE int group_read(struct fastread_group *g, const struct fastread_hooks *h,
				    struct fastread_count *out)
{
	if (pages_read(g->page, g->nr, h, out) == 0) {
		g->nr_user_reads++;
		return 0;
	}
	return fastread_group_read_syscall(g, out);
}

int fastread_group_read_hooked(struct fastread_group *g, const struct fastread_hooks *h,
			       struct fastread_count *out)
{
	return group_read(g, h, out);
}

int fastread_group_read(struct fastread_group *g, struct fastread_count *out)
{
#if FASTREAD_ARCH_USER_READ
	/* A constant table of inline functions: the compiler calls nothing through it. */
	static const struct fastread_hooks arch_hooks = {
		.read_counter = arch_read_counter,
		.read_timestamp = arch_read_timestamp,
	};

	return group_read(g, &arch_hooks, out);
#else
	return fastread_group_read_syscall(g, out);
#endif
}
