/* SPDX-License-Identifier: MIT */
/*
 * fastread.h: read a perf event group of the calling thread without a system call.
 *
 * Each event of a group opened here has its metadata page mapped; a read takes
 * every counter from user space (rdpmc on x86_64, mrs on arm64) inside the
 * seqlock loop of perf_event_open(2), and falls back to ONE read(2) of the
 * leader (PERF_FORMAT_GROUP) when any page says its counter is not readable
 * now (index == 0, cap_user_rdpmc == 0). Usable without the rest of pfshim.
 *
 * Groups are per thread: the kernel refuses to mmap inherited events, and a
 * page describes the counter of the thread that opened it, so a group must be
 * opened, read and closed by one thread.
 */
#ifndef PFSHIM_FASTREAD_H
#define PFSHIM_FASTREAD_H

#include <stdint.h>
#include <linux/perf_event.h>

#define FASTREAD_MAX_EVENTS 16

/*
 * One event's reading: the raw count and its times, not scaled. The times of
 * a user-space read are exact only for their ratio when the counter ran all
 * its enabled time (see fastread_group_read()).
 */
struct fastread_count {
	uint64_t value;
	uint64_t enabled;	/* ns */
	uint64_t running;	/* ns */
};

/*
 * What one page said at its last full read, kept beside the lock value it was
 * read under (fastread/read.c, "the cached read"). Private to fastread.
 */
struct fastread_page_cache {
	uint64_t offset;
	uint32_t slot;		/* what the counter instruction takes (fastread/arch/<arch>.h) */
	uint32_t shift;		/* 64 - pmc_width */
	uint32_t lock;		/* even: the page's lock while these held */
	uint32_t index;		/* 1-based counter index, never 0 */
	uint64_t time;		/* time_enabled == time_running then */
};

/*
 * What fastread/topdown.c keeps of a group with Intel's top-down metric
 * events (docs/fastread.md "Top-down groups (Intel)"), in the place of the
 * cache such a group never has. Private to fastread.
 */
enum { FASTREAD_TOPDOWN_OTHER = -1, FASTREAD_TOPDOWN_SLOTS = -2 };	/* else a metric's byte */

struct fastread_topdown {
	uint8_t based;		/* base[] holds: a user-space read may serve */
	int8_t kind[FASTREAD_MAX_EVENTS];	/* OTHER, SLOTS, or the PERF_METRICS byte, 0..7 */
	uint64_t slots;		/* the slots register at the last user-space read */
	uint64_t base[FASTREAD_MAX_EVENTS];	/* count = base + the registers' share */
	uint64_t last[FASTREAD_MAX_EVENTS];	/* the last value returned: none goes back */
};

struct fastread_cache {
	uint32_t valid;		/* 0: take the full read */
	uint32_t lock_sum;	/* the sum of page[i].lock */
	uint64_t full_passes;	/* reads that took the full pass (tests tell the paths apart) */
	union {
		struct fastread_page_cache page[FASTREAD_MAX_EVENTS];
		struct fastread_topdown topdown;	/* a top-down group's: valid is always 0 */
	};
};

struct fastread_group {
	int nr;
	int fd[FASTREAD_MAX_EVENTS];
	/*
	 * Nonzero: Intel's slots and a topdown-* event, read by fastread/topdown.c
	 * from cache.topdown (in the padding before page[]: no other field moves).
	 */
	uint32_t topdown;
	struct perf_event_mmap_page *page[FASTREAD_MAX_EVENTS];	/* NULL: not mapped */
	uint64_t id[FASTREAD_MAX_EVENTS];	/* PERF_EVENT_IOC_ID: matches read(2) values */
	uint64_t nr_user_reads;		/* reads served from user space */
	uint64_t nr_syscall_reads;	/* reads that fell back to read(2) */
	struct fastread_cache cache;	/* fastread/read.c: the cached read */
	/*
	 * Nonzero: no event of the group can ever be read from user space
	 * (software, tracepoint and breakpoint events: their pages' index is
	 * always 0), so a read goes to read(2) without trying the pages.
	 */
	uint32_t kernel_only;
};

/*
 * fastread_perf_event_open - perf_event_open(2) of @attr for the calling
 * thread on any CPU (pid 0, cpu -1), in group @group_fd (-1: a leader),
 * close-on-exec: the one wrapper of the system call in pfshim.
 *
 * Return: the descriptor, or -errno. Async-signal-safe.
 */
int fastread_perf_event_open(struct perf_event_attr *attr, int group_fd);

/*
 * fastread_group_open - open @nr events as one group of the calling thread
 * (pid 0, cpu -1, not inherited, PERF_FLAG_FD_CLOEXEC), leader first, map one
 * metadata page per event, and enable the group.
 * @attrs are copied and adjusted: read_format, disabled, inherit, and on
 * arm64 the user-access bits of config1 (64-bit counter first, 32-bit on
 * EOPNOTSUPP) for events of the core PMU.
 *
 * Return: 0, or a negative errno of the first event that could not be opened
 * (the group is then closed); -ENOSPC when every event opens on its own but
 * the PMU cannot hold them all as one group (more events than counters, or
 * two that need the same counter, at every counter width tried): such a group
 * would never be scheduled, so split it and open the parts as groups of their
 * own (they then take turns). Must be called by the thread that will read it.
 * A page that cannot be mapped is left NULL: that group is read with read(2).
 */
int fastread_group_open(struct fastread_group *g, const struct perf_event_attr *attrs, int nr);

/*
 * fastread_group_settle - fill @g's cache again, as fastread_group_open()
 * leaves it (with a disable and re-enable of the group when the pass cannot
 * cache its times), so that the next read is a cached one. For a caller that
 * makes system calls between the open and its first read (a context switch
 * in them rewrites the pages and empties the cache: that read would take the
 * full pass, whose longer tail lands inside whatever interval it begins).
 * Must be called by the thread that reads @g, with no read in progress.
 *
 * Return: 0, or -errno of the re-enable (the group may then be disabled:
 * close it).
 */
int fastread_group_settle(struct fastread_group *g);

/*
 * fastread_group_read - read every event of @g into @out[0..nr-1].
 * No allocation, lock or system call when all counters are readable from
 * user space; otherwise exactly one read(2). Async-signal-safe.
 * Must be called by the thread that opened @g.
 *
 * Times: read(2) returns them as of now. A user-space read brings them
 * forward to now only when the metadata page has enabled != running
 * (multiplexed), or running 0, as perf_event_open(2) does. While a counter
 * has run all its enabled time, it returns the page's times as the kernel
 * last wrote them (at a context switch or a counter interrupt): equal, so
 * their ratio, 1, is exact, but they lag the clock, and two reads between
 * two page updates return the same times. A difference of two such reads
 * can therefore be 0 ns enabled and 0 ns running with a count that moved:
 * an exact count, which fastread_scale() returns unchanged. Times never go
 * backwards, and a counter on the PMU reads running 0 only where the page
 * offers no clock (cap_user_time 0).
 *
 * Return: 0, or a negative errno: read(2)'s, -EIO for a reply that does
 * not hold every event of @g (some of @out may then be written), -EINVAL
 * for a group of no events or more than FASTREAD_MAX_EVENTS. errno is as
 * it was, and no read is a cancellation point.
 */
int fastread_group_read(struct fastread_group *g, struct fastread_count *out);

/*
 * fastread_group_read_leader_times - fastread_group_read() for a caller that
 * scales every count of @g by the leader's times (the kernel schedules a
 * group as one, so its events' times differ only by when each page was
 * last written): @out[i].value of every event, @out[0].enabled and
 * @out[0].running as fastread_group_read() gives them; the other events'
 * times are left as they were (a read(2) fallback fills them too). Saves
 * each member's time loads, checks and stores. Same return values and rules.
 * For a caller that keeps an array of struct fastread_count; the markers,
 * which keep a sample, use fastread_group_read_sample().
 */
int fastread_group_read_leader_times(struct fastread_group *g, struct fastread_count *out);

/*
 * fastread_group_read_sample - fastread_group_read_leader_times() written
 * straight into the caller's storage: @value[i] for each event of @g, the
 * leader's times into *@enabled and *@running; no struct to copy out of.
 * Return: 0 with all of them from one instant; on a failure (negative
 * errno, as fastread_group_read()), @value may hold part of a user-space
 * pass that gave up, or of a read(2) reply: the caller must overwrite it
 * from a copy of its own.
 */
int fastread_group_read_sample(struct fastread_group *g, uint64_t *value, uint64_t *enabled,
			       uint64_t *running);

/*
 * fastread_group_read_sample_syscall - fastread_group_read_sample() by its
 * read(2) alone, no page looked at: for a group whose kernel_only is set
 * (never a top-down one, whose counts are computed from its reply), which
 * a caller that reads it often can test once (the markers do). Same return
 * values and rules.
 */
int fastread_group_read_sample_syscall(struct fastread_group *g, uint64_t *value,
				       uint64_t *enabled, uint64_t *running);

/*
 * A clock of ns from the timestamp counter the pages' times come from
 * (cntvct_el0 on arm64, the TSC on x86). It counts from an arbitrary
 * origin: only differences mean something. Not NTP-slewed, unlike
 * CLOCK_MONOTONIC, which reads the same counter: the two agree on an
 * interval to the clock's frequency error (parts per million).
 */
struct fastread_timer {
	uint32_t mult;		/* 0: not usable */
	uint16_t shift;
};

/*
 * fastread_timer_init - the conversion of @g's first page, for
 * fastread_timer_ns(). Return: 0, or -ENODATA when the page offers no clock
 * (cap_user_time 0: software events, or no user-space read on this
 * architecture); @t is then unusable.
 */
int fastread_timer_init(struct fastread_timer *t, const struct fastread_group *g);

/* fastread_timer_ns - ns now, on a clock set up by fastread_timer_init() returning 0. */
uint64_t fastread_timer_ns(const struct fastread_timer *t);

/*
 * fastread_cycles_to_ns - @cyc timestamp cycles in ns with a page's time_mult
 * and time_shift (@shift < 64), as fastread_timer_ns() converts them: the
 * formula of linux/perf_event.h, split so that it cannot overflow.
 */
static inline uint64_t fastread_cycles_to_ns(uint64_t cyc, uint32_t mult, uint16_t shift)
{
	uint64_t quot = cyc >> shift, rem = cyc & ((UINT64_C(1) << shift) - 1);

	return quot * mult + ((rem * mult) >> shift);
}

/*
 * fastread_group_shed - close the descriptors of @g's members whose page is
 * mapped: they count on, in the group, read from user space or through the
 * leader's read(2), which keeps its descriptor (as does a member without a
 * page). Their fd[] entries read -1; fastread_group_close() still ends them
 * (the unmap releases them). After fork() the child has the leader's
 * descriptor and none of the pages (VM_DONTCOPY): the members are the
 * parent's alone.
 * Return: how many descriptors were closed.
 */
int fastread_group_shed(struct fastread_group *g);

/* fastread_group_close - unmap every page and close every fd of @g. */
void fastread_group_close(struct fastread_group *g);

/*
 * fastread_scale - extrapolate @c->value to the whole enabled time.
 * @out receives value * enabled / running, computed without 64-bit overflow.
 * Equal times, 0 and 0 included, give the value unchanged: the counter ran
 * all its enabled time (e.g. the difference of two reads between two page
 * updates, see fastread_group_read()).
 *
 * Return: 0 when counted; -ENODATA when running == 0 < enabled (never
 * counted: there is nothing to scale, and nothing is divided by zero; @out
 * is 0); -EOVERFLOW when the result needs more than 64 bits (@out is UINT64_MAX).
 */
int fastread_scale(const struct fastread_count *c, uint64_t *out);

/*
 * fastread_user_access_problem - why user-space reads are off on this
 * machine, in one sentence, or NULL when nothing is known to stop them
 * (e.g. "/proc/sys/kernel/perf_user_access is 0" on arm64).
 */
const char *fastread_user_access_problem(void);

#endif
