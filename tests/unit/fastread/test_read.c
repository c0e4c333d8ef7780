/* SPDX-License-Identifier: MIT */
/*
 * test_read.c: the user-space read path of fastread/read.c on
 * synthetic perf_event_mmap_pages, with the counter and timestamp hooks
 * replaced: sign extension, fallback decisions, time deltas, and a writer
 * thread that rewrites the pages under the seqlock while a reader checks
 * that no torn value ever comes back.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "fastread/internal.h"

/* The fake PMU: one register per index, as the hooks would read it. */
static uint64_t fake_counter[33];
static uint64_t fake_now;
static unsigned nr_counter_reads, nr_timestamp_reads;
static uint32_t last_index;

static uint64_t fake_read_counter(uint32_t index)
{
	nr_counter_reads++;
	last_index = index;
	return index < 33 ? __atomic_load_n(&fake_counter[index], __ATOMIC_RELAXED) : 0;
}

static uint64_t fake_read_timestamp(void)
{
	nr_timestamp_reads++;
	return fake_now;
}

/* The fake PMU by slot, as fastread/cached.h reads it: the index that has this slot. */
static uint64_t fake_read_slot(uint32_t slot)
{
	for (uint32_t index = 1; index < 33; index++)
		if (arch_counter_slot(index) == slot)
			return fake_read_counter(index);
	return 0;
}

static const struct fastread_hooks fake_hooks = {
	.read_counter = fake_read_counter, .read_timestamp = fake_read_timestamp,
};

static struct perf_event_mmap_page pages[5];

static int reset(void **state)
{
	(void)state;
	memset(pages, 0, sizeof(pages));
	memset(fake_counter, 0, sizeof(fake_counter));
	fake_now = 0;
	nr_counter_reads = nr_timestamp_reads = 0;
	last_index = 0;
	return 0;
}

/* A page whose counter is readable from user space, no time capability. */
static void page_set(struct perf_event_mmap_page *pc, uint32_t index, int64_t offset,
		     uint16_t width, uint64_t raw)
{
	pc->cap_user_rdpmc = 1;
	pc->index = index;
	pc->offset = offset;
	pc->pmc_width = width;
	pc->time_enabled = 1000;
	pc->time_running = 1000;
	fake_counter[index] = raw;
}

static int read_one(struct perf_event_mmap_page *pc, struct fastread_count *out)
{
	struct perf_event_mmap_page *list[1] = { pc };

	return fastread_pages_read(list, 1, &fake_hooks, out);
}

static uint64_t read_value(struct perf_event_mmap_page *pc)
{
	struct fastread_count c;

	assert_int_equal(read_one(pc, &c), 0);
	return c.value;
}

/* The masks in internal.h name the same bits as the header's bitfields. */
static void test_capability_masks_match_header(void **state)
{
	struct perf_event_mmap_page pc;

	(void)state;
	memset(&pc, 0, sizeof(pc));
	pc.cap_user_rdpmc = 1;
	assert_int_equal(pc.capabilities, FASTREAD_CAP_USER_RDPMC);
	memset(&pc, 0, sizeof(pc));
	pc.cap_user_time = 1;
	assert_int_equal(pc.capabilities, FASTREAD_CAP_USER_TIME);
	memset(&pc, 0, sizeof(pc));
	pc.cap_user_time_short = 1;
	assert_int_equal(pc.capabilities, FASTREAD_CAP_USER_TIME_SHORT);
}

/* Reference sign extension written differently: mask, then subtract 2^width. */
static uint64_t extend_reference(uint64_t raw, unsigned width)
{
	unsigned __int128 v, mask;

	mask = (((unsigned __int128)1) << width) - 1;
	v = raw & mask;
	if (v >> (width - 1))
		v -= mask + 1;
	return (uint64_t)v;
}

static void test_extend_known_values(void **state)
{
	static const struct { uint64_t raw; unsigned width; uint64_t want; } cases[] = {
		{ 0xffffffffULL, 32, UINT64_MAX },			/* -1 */
		{ 0x7fffffffULL, 32, 0x7fffffffULL },
		{ 0xffffffff80000000ULL, 32, 0xffffffff80000000ULL },
		{ 0x0000000080000000ULL, 32, 0xffffffff80000000ULL },	/* upper bits unknown */
		{ 0xdead00ffffffff00ULL, 40, 0xffffffffffffff00ULL },	/* -256 */
		{ 0x0000007fffffffffULL, 40, 0x7fffffffffULL },
		{ 0x0000ffffffffffffULL, 48, UINT64_MAX },
		{ 0xabcd800000000000ULL, 48, 0xffff800000000000ULL },
		{ 0x1234000000000010ULL, 48, 0x10 },
		{ 0xfffffffffffffff0ULL, 64, 0xfffffffffffffff0ULL },
		{ 0x8000000000000000ULL, 64, 0x8000000000000000ULL },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(fastread_counter_extend(cases[i].raw, cases[i].width), cases[i].want);
		assert_int_equal(extend_reference(cases[i].raw, cases[i].width), cases[i].want);
	}
}

static uint64_t rand64(void)
{
	return (uint64_t)random() << 62 ^ (uint64_t)random() << 31 ^ (uint64_t)random();
}

static void test_extend_against_reference(void **state)
{
	static const unsigned widths[] = { 1, 31, 32, 33, 40, 47, 48, 63, 64 };
	size_t w;
	int i;

	(void)state;
	srandom(1);
	for (w = 0; w < sizeof(widths) / sizeof(widths[0]); w++)
		for (i = 0; i < 20000; i++) {
			uint64_t raw = rand64();

			assert_int_equal(fastread_counter_extend(raw, widths[w]),
					 extend_reference(raw, widths[w]));
		}
}

/*
 * arm64: a 32-bit event on a 64-bit counter reads back as 0xffffffff8xxxxxxx
 * with offset 0x7fffffff (arm64-qemu.md); only extension to 32 bits gives the count.
 */
static void test_read_arm64_32bit_event(void **state)
{
	(void)state;
	page_set(&pages[0], 3, 0x7fffffff, 32, 0xffffffff80000001ULL + 41);
	assert_int_equal(read_value(&pages[0]), 41);
	assert_int_equal(last_index, 3);
	fake_counter[3] = 0x0000000080000001ULL + 41;	/* the upper half is UNKNOWN */
	assert_int_equal(read_value(&pages[0]), 41);
	pages[0].pmc_width = 64;	/* what ignoring pmc_width would give */
	assert_int_equal(read_value(&pages[0]), 0x100000029ULL);
}

/* A counter that wrapped past its width since offset was written. */
static void test_read_wrapped_counters(void **state)
{
	(void)state;
	/* 48 bits: the kernel wrote offset 1000 + 2^47 when the counter was at -2^47. */
	page_set(&pages[0], 1, 1000 + (INT64_C(1) << 47), 48, 0x0000000000000005ULL);
	assert_int_equal(read_value(&pages[0]), 1000 + (UINT64_C(1) << 47) + 5);
	/* Counter read just below the wrap: -16 at 48 bits, garbage above. */
	page_set(&pages[0], 1, 5016, 48, 0xabcdfffffffffff0ULL);
	assert_int_equal(read_value(&pages[0]), 5000);
	/* 40 bits, -256 + offset. */
	page_set(&pages[0], 2, 356, 40, 0x000000ffffffff00ULL);
	assert_int_equal(read_value(&pages[0]), 100);
	/* 64 bits: the sum wraps modulo 2^64 as the kernel's does. */
	page_set(&pages[0], 32, 11, 64, UINT64_MAX);
	assert_int_equal(read_value(&pages[0]), 10);
	assert_int_equal(last_index, 32);
	/* 32 bits, a plain positive counter with a negative offset. */
	page_set(&pages[0], 4, -100, 32, 0x00000000000003e8ULL);
	assert_int_equal(read_value(&pages[0]), 900);
}

/* No time capability: enabled/running are the page's, no timestamp is taken. */
static void test_read_without_time(void **state)
{
	struct fastread_count c;

	(void)state;
	page_set(&pages[0], 1, 0, 48, 77);
	pages[0].time_enabled = 5000;
	pages[0].time_running = 4000;
	assert_int_equal(read_one(&pages[0], &c), 0);
	assert_int_equal(c.value, 77);
	assert_int_equal(c.enabled, 5000);
	assert_int_equal(c.running, 4000);
	assert_int_equal(nr_timestamp_reads, 0);
}

static void test_index_zero_falls_back(void **state)
{
	struct fastread_count c;

	(void)state;
	page_set(&pages[0], 0, 0, 32, 0);
	/* arm64 with perf_user_access 0: cap_user_rdpmc 1, width 32, index 0. */
	assert_int_equal(read_one(&pages[0], &c), -EAGAIN);
	assert_int_equal(nr_counter_reads, 0);
}

static void test_capability_off_falls_back(void **state)
{
	struct fastread_count c;

	(void)state;
	page_set(&pages[0], 1, 0, 48, 5);
	pages[0].cap_user_rdpmc = 0;
	pages[0].cap_user_time = 1;
	assert_int_equal(read_one(&pages[0], &c), -EAGAIN);
	assert_int_equal(nr_counter_reads, 0);
	pages[0].cap_user_rdpmc = 1;
	pages[0].pmc_width = 0;		/* a width that cannot be used */
	assert_int_equal(read_one(&pages[0], &c), -EAGAIN);
	pages[0].pmc_width = 65;
	assert_int_equal(read_one(&pages[0], &c), -EAGAIN);
	assert_int_equal(read_one(NULL, &c), -EAGAIN);	/* page not mapped */
}

/* One unreadable event sends the whole group to read(2). */
static void test_group_any_unreadable_falls_back(void **state)
{
	struct perf_event_mmap_page *list[3] = { &pages[0], &pages[1], &pages[2] };
	struct fastread_count c[3];

	(void)state;
	page_set(&pages[0], 1, 0, 48, 10);
	page_set(&pages[1], 2, 0, 48, 20);
	page_set(&pages[2], 3, 0, 48, 30);
	assert_int_equal(fastread_pages_read(list, 3, &fake_hooks, c), 0);
	assert_int_equal(c[0].value, 10);
	assert_int_equal(c[1].value, 20);
	assert_int_equal(c[2].value, 30);
	pages[2].index = 0;
	assert_int_equal(fastread_pages_read(list, 3, &fake_hooks, c), -EAGAIN);
	pages[2].index = 3;
	pages[1].cap_user_rdpmc = 0;
	assert_int_equal(fastread_pages_read(list, 3, &fake_hooks, c), -EAGAIN);
	assert_int_equal(fastread_pages_read(list, 0, &fake_hooks, c), -EINVAL);
	assert_int_equal(fastread_pages_read(list, FASTREAD_MAX_EVENTS + 1, &fake_hooks, c),
			 -EINVAL);
}

/* The delta of linux/perf_event.h, computed in 128 bits. */
static uint64_t delta_reference(const struct fastread_clock *c, uint64_t cyc)
{
	unsigned __int128 elapsed;

	if (c->is_short) {
		/* The hardware clock is mask + 1 wide and may have wrapped once. */
		unsigned __int128 period = (unsigned __int128)c->mask + 1;
		unsigned __int128 now = cyc & c->mask, then = c->cycles & c->mask;

		elapsed = now >= then ? now - then : now + period - then;
		cyc = c->cycles + (uint64_t)elapsed;
	}
	return c->offset + (uint64_t)(((unsigned __int128)cyc * c->mult) >> c->shift);
}

static void test_time_delta_known_values(void **state)
{
	/* arm64 under QEMU: 62.5 MHz cntvct, 16 ns per tick. */
	struct fastread_clock c = { .offset = 0, .mult = 33554432, .shift = 21 };

	(void)state;
	assert_int_equal(fastread_clock_delta(&c, 1000), 16000);
	c.offset = (uint64_t)-5000;	/* time_offset is typically "minus now" */
	assert_int_equal(fastread_clock_delta(&c, 1000), 11000);
	/* x86-like: mult/2^shift = 0.5 ns per cycle. */
	c = (struct fastread_clock){ .offset = 7, .mult = 1U << 30, .shift = 31 };
	assert_int_equal(fastread_clock_delta(&c, 3000000001ULL), 7 + 1500000000ULL);
	/* time_short: a 57-bit clock that wrapped 10 ticks after time_cycles. */
	c = (struct fastread_clock){ .offset = 0, .mult = 33554432, .shift = 21, .is_short = true,
				     .cycles = 0x1fffffffffffffaULL, .mask = 0x1ffffffffffffffULL };
	assert_int_equal(fastread_clock_delta(&c, 4), (0x1fffffffffffffaULL + 10) * 16);
}

static void test_time_delta_against_reference(void **state)
{
	struct fastread_clock c;
	int i;

	(void)state;
	srandom(2);
	for (i = 0; i < 200000; i++) {
		uint64_t cyc = rand64();
		unsigned mask_bits = 40 + (unsigned)(random() % 25);	/* 40..64 */

		/* The kernel keeps shift <= 32 and mult < 2^32: rem * mult fits. */
		c.offset = rand64();
		c.mult = (uint32_t)rand64();
		c.shift = (uint16_t)(random() % 33);
		c.is_short = i & 1;
		c.mask = mask_bits == 64 ? UINT64_MAX : (UINT64_C(1) << mask_bits) - 1;
		c.cycles = rand64() & c.mask;
		if (c.is_short)
			cyc &= c.mask;
		else if (i % 4 == 0)
			cyc >>= random() % 64;
		assert_int_equal(fastread_clock_delta(&c, cyc), delta_reference(&c, cyc));
	}
}

/* A page that says the counter ran all its enabled time, written at timestamp 100. */
static void page_set_timed(struct perf_event_mmap_page *pc, uint32_t index, uint64_t raw,
			   uint64_t enabled, uint64_t running)
{
	page_set(pc, index, 0, 48, raw);
	pc->cap_user_time = 1;
	pc->time_enabled = enabled;
	pc->time_running = running;
	pc->time_mult = 1;
	pc->time_offset = (uint64_t)-100;
}

/*
 * Equal times are returned as the page has them, without a timestamp: the
 * ratio is 1 whatever the time since the page was written (perf_event_open(2)
 * skips the update then too). Two reads in one time slice see the same times.
 */
static void test_read_equal_times_not_advanced(void **state)
{
	struct perf_event_mmap_page *list[3] = { &pages[0], &pages[1], &pages[2] };
	struct fastread_count a, b, c[3];
	int i;

	(void)state;
	page_set_timed(&pages[0], 1, 77, 3000, 3000);
	fake_now = 100;
	assert_int_equal(read_one(&pages[0], &a), 0);
	fake_now = 350;
	fake_counter[1] = 90;
	assert_int_equal(read_one(&pages[0], &b), 0);
	assert_int_equal(a.value, 77);
	assert_int_equal(b.value, 90);
	assert_int_equal(a.enabled, 3000);
	assert_int_equal(a.running, 3000);
	assert_int_equal(b.enabled, 3000);
	assert_int_equal(b.running, 3000);
	assert_int_equal(nr_timestamp_reads, 0);

	for (i = 0; i < 3; i++)
		page_set_timed(&pages[i], (uint32_t)i + 1, 10 * (uint64_t)i, 5000, 5000);
	assert_int_equal(fastread_pages_read(list, 3, &fake_hooks, c), 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(c[i].value, 10 * (uint64_t)i);
		assert_int_equal(c[i].enabled, 5000);
		assert_int_equal(c[i].running, 5000);
	}
	assert_int_equal(nr_timestamp_reads, 0);
}

/*
 * running 0 on a page whose counter is on the PMU (written as the event was
 * enabled) is brought forward, equal to enabled or not: a counted event
 * never reads running 0, which callers take for "not counted".
 */
static void test_read_running_zero_advances(void **state)
{
	struct perf_event_mmap_page *list[2] = { &pages[0], &pages[1] };
	struct fastread_count c[2];

	(void)state;
	page_set_timed(&pages[0], 1, 5, 0, 0);
	fake_now = 160;
	assert_int_equal(read_one(&pages[0], &c[0]), 0);
	assert_int_equal(c[0].enabled, 60);
	assert_int_equal(c[0].running, 60);
	assert_int_equal(nr_timestamp_reads, 1);

	/* In a group: only the page that needs it is advanced, with one timestamp. */
	page_set_timed(&pages[1], 2, 6, 400, 400);
	fake_now = 170;
	assert_int_equal(fastread_pages_read(list, 2, &fake_hooks, c), 0);
	assert_int_equal(c[0].enabled, 70);
	assert_int_equal(c[0].running, 70);
	assert_int_equal(c[1].enabled, 400);
	assert_int_equal(c[1].running, 400);
	assert_int_equal(nr_timestamp_reads, 2);

	/* Without cap_user_time there is no clock to advance by: the page's 0 stays. */
	pages[0].cap_user_time = 0;
	assert_int_equal(read_one(&pages[0], &c[0]), 0);
	assert_int_equal(c[0].running, 0);
	assert_int_equal(nr_timestamp_reads, 2);
}

/* Multiplexed (enabled != running), a group of one: both advance by the delta. */
static void test_read_one_advances_times(void **state)
{
	struct fastread_count c;

	(void)state;
	page_set_timed(&pages[0], 7, 123, 2000, 1500);
	fake_now = 350;
	assert_int_equal(read_one(&pages[0], &c), 0);
	assert_int_equal(c.value, 123);
	assert_int_equal(c.enabled, 2250);
	assert_int_equal(c.running, 1750);
	assert_int_equal(last_index, 7);
	assert_int_equal(nr_timestamp_reads, 1);
}

/* enabled and running both advance by the delta while the event is on a counter. */
static void test_read_advances_times(void **state)
{
	struct perf_event_mmap_page *list[3] = { &pages[0], &pages[1], &pages[2] };
	struct fastread_count c[3];
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		page_set(&pages[i], (uint32_t)i + 1, 0, 64, 100 * (uint64_t)i);
		pages[i].cap_user_time = 1;
		pages[i].cap_user_time_short = 1;
		pages[i].time_enabled = 2000;
		pages[i].time_running = 1500;
		pages[i].time_mult = 33554432;
		pages[i].time_shift = 21;
		pages[i].time_offset = (uint64_t)-(16 * 1000);	/* written at tick 1000 */
		pages[i].time_cycles = 1000;
		pages[i].time_mask = 0x1ffffffffffffffULL;
	}
	fake_now = 1250;	/* 250 ticks later: 4000 ns */
	assert_int_equal(fastread_pages_read(list, 3, &fake_hooks, c), 0);
	for (i = 0; i < 3; i++) {
		assert_int_equal(c[i].enabled, 6000);
		assert_int_equal(c[i].running, 5500);
		assert_int_equal(c[i].value, 100 * (uint64_t)i);
	}
	/* One timestamp for the whole group: the events share one instant. */
	assert_int_equal(nr_timestamp_reads, 1);
}

/*
 * The leader's times only: the members' values as a full read gives them,
 * their times untouched, the leader's brought forward with one timestamp;
 * and a member that cannot be read from user space still means read(2).
 */
static void test_read_leader_times_only(void **state)
{
	struct perf_event_mmap_page *list[3] = { &pages[0], &pages[1], &pages[2] };
	struct fastread_count c[3];
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		page_set(&pages[i], (uint32_t)i + 1, 10, 64, 100 * (uint64_t)i);
		pages[i].cap_user_time = 1;
		pages[i].time_enabled = 2000;
		pages[i].time_running = 1500;
		pages[i].time_mult = 1;
		pages[i].time_shift = 0;
		pages[i].time_offset = 500;
		c[i].enabled = c[i].running = 77;
	}
	fake_now = 4000;
	assert_int_equal(fastread_pages_read_leader_times(list, 3, &fake_hooks, c), 0);
	assert_int_equal(c[0].enabled, 6500);
	assert_int_equal(c[0].running, 6000);
	for (i = 0; i < 3; i++)
		assert_int_equal(c[i].value, 10 + 100 * (uint64_t)i);
	for (i = 1; i < 3; i++) {
		assert_int_equal(c[i].enabled, 77);
		assert_int_equal(c[i].running, 77);
	}
	assert_int_equal(nr_timestamp_reads, 1);
	assert_int_equal(nr_counter_reads, 3);
	pages[2].index = 0;
	assert_int_equal(fastread_pages_read_leader_times(list, 3, &fake_hooks, c), -EAGAIN);
}

/*
 * The sample form: the same values and leader's times, straight into the
 * caller's arrays, nothing written past the group; and read(2) asked for
 * when a member cannot be read from user space.
 */
static void test_read_sample(void **state)
{
	struct perf_event_mmap_page *list[3] = { &pages[0], &pages[1], &pages[2] };
	uint64_t value[4] = { 1, 1, 1, 99 }, enabled = 0, running = 0;
	int i;

	(void)state;
	for (i = 0; i < 3; i++) {
		page_set(&pages[i], (uint32_t)i + 1, 10, 64, 100 * (uint64_t)i);
		pages[i].cap_user_time = 1;
		pages[i].time_enabled = 2000 + (uint64_t)i;
		pages[i].time_running = 1500;
		pages[i].time_mult = 1;
		pages[i].time_shift = 0;
		pages[i].time_offset = 500;
	}
	fake_now = 4000;
	assert_int_equal(fastread_pages_read_sample(list, 3, &fake_hooks, value, &enabled,
						    &running), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(value[i], 10 + 100 * (uint64_t)i);
	assert_int_equal(value[3], 99);
	assert_int_equal(enabled, 6500);	/* the leader's: 2000 + 500 + 4000 */
	assert_int_equal(running, 6000);
	assert_int_equal(nr_timestamp_reads, 1);
	/* A group of one takes its own pass. */
	assert_int_equal(fastread_pages_read_sample(&list[1], 1, &fake_hooks, value, &enabled,
						    &running), 0);
	assert_int_equal(value[0], 110);
	assert_int_equal(enabled, 6501);
	pages[2].index = 0;
	assert_int_equal(fastread_pages_read_sample(list, 3, &fake_hooks, value, &enabled,
						    &running), -EAGAIN);
}

/*
 * The torn-read test. Snapshot k of a page encodes k in every field, so a
 * value mixed from two snapshots fails the check; the two pages are rewritten
 * inside overlapping write sections, so a pass that mixes their snapshots is
 * caught as well ("a group read returns all events from the same instant").
 */
/*
 * The cached read: once a full pass has filled the cache, a read whose page
 * locks still hold their values takes index, offset, width and times from
 * the cache (one counter read, no capability or width checks); any lock
 * that moved sends it to the full pass, which refills the cache.
 */
static void test_cached_read_follows_the_lock(void **state)
{
	struct perf_event_mmap_page *list[2] = { &pages[0], &pages[1] };
	struct fastread_cache cache;
	struct fastread_count c[2];

	(void)state;
	memset(&cache, 0, sizeof(cache));
	page_set(&pages[0], 3, 100, 48, 0xffff000000000005ULL);	/* sign-extended: 5 */
	page_set(&pages[1], 7, -10, 64, 50);
	pages[0].lock = pages[1].lock = 2;
	assert_int_equal(fastread_pages_read_cached(list, 2, &fake_hooks, &cache, c), 0);
	assert_int_equal(c[0].value, 105);
	assert_int_equal(c[1].value, 40);
	assert_int_equal(cache.valid, FASTREAD_CACHE_ALL | FASTREAD_CACHE_UNROLLED_SHAPE(2, 0));

	/* The lock stands: the cache is used, even where the page now lies. */
	pages[0].cap_user_rdpmc = 0;
	pages[1].pmc_width = 0;
	fake_counter[3] = 0xffff000000000009ULL;
	fake_counter[7] = 60;
	nr_counter_reads = 0;
	assert_int_equal(fastread_pages_read_cached(list, 2, &fake_hooks, &cache, c), 0);
	assert_int_equal(c[0].value, 109);
	assert_int_equal(c[1].value, 50);
	assert_int_equal(c[0].enabled, 1000);
	assert_int_equal(c[1].running, 1000);
	assert_int_equal(nr_counter_reads, 2);

	/* Page 1 moved to another index and offset (its lock moved): never the cache. */
	page_set(&pages[0], 3, 100, 48, 0xffff000000000009ULL);
	page_set(&pages[1], 12, 1000, 64, 70);
	pages[1].time_enabled = pages[1].time_running = 2000;
	pages[1].lock += 2;
	assert_int_equal(fastread_pages_read_cached(list, 2, &fake_hooks, &cache, c), 0);
	assert_int_equal(c[0].value, 109);
	assert_int_equal(c[1].value, 1070);
	assert_int_equal(c[1].enabled, 2000);
	assert_int_equal(last_index, 12);
	assert_int_equal(cache.page[1].index, 12);

	/* A page that says index 0 now: read(2), and the cache stays empty. */
	pages[0].index = 0;
	pages[0].lock += 2;
	assert_int_equal(fastread_pages_read_cached(list, 2, &fake_hooks, &cache, c), -EAGAIN);
	assert_int_equal(cache.valid, 0);
	assert_int_equal(fastread_pages_read_cached(list, 2, &fake_hooks, &cache, c), -EAGAIN);
}

/* Times that must be brought forward are never cached: each read advances them. */
static void test_cached_read_multiplexed_not_cached(void **state)
{
	struct perf_event_mmap_page *list[1] = { &pages[0] };
	struct fastread_cache cache;
	struct fastread_count c;

	(void)state;
	memset(&cache, 0, sizeof(cache));
	page_set(&pages[0], 1, 0, 64, 10);
	pages[0].cap_user_time = 1;
	pages[0].time_mult = 1;
	pages[0].time_running = 500;	/* multiplexed: enabled 1000 */
	fake_now = 100;
	assert_int_equal(fastread_pages_read_cached(list, 1, &fake_hooks, &cache, &c), 0);
	assert_int_equal(c.enabled, 1100);
	assert_int_equal(cache.valid, 0);
	fake_now = 200;
	assert_int_equal(fastread_pages_read_cached(list, 1, &fake_hooks, &cache, &c), 0);
	assert_int_equal(c.enabled, 1200);
	assert_int_equal(c.running, 700);
	assert_int_equal(nr_timestamp_reads, 2);
}

/* A cache filled for the leader's times only does not serve a read of every event's. */
static void test_cached_sample_then_counts(void **state)
{
	struct perf_event_mmap_page *list[2] = { &pages[0], &pages[1] };
	struct fastread_cache cache;
	struct fastread_count c[2];
	uint64_t value[2], enabled = 0, running = 0;

	(void)state;
	memset(&cache, 0, sizeof(cache));
	page_set(&pages[0], 1, 0, 64, 10);
	page_set(&pages[1], 2, 0, 64, 20);
	pages[1].time_enabled = pages[1].time_running = 3000;
	assert_int_equal(fastread_pages_read_sample_cached(list, 2, &fake_hooks, &cache, value,
							   &enabled, &running), 0);
	assert_int_equal(cache.valid,
			 FASTREAD_CACHE_LEADER | FASTREAD_CACHE_UNROLLED_SHAPE(2, FASTREAD_CACHE_WIDE));
	assert_int_equal(fastread_pages_read_sample_cached(list, 2, &fake_hooks, &cache, value,
							   &enabled, &running), 0);
	assert_int_equal(value[1], 20);
	assert_int_equal(enabled, 1000);
	assert_int_equal(fastread_pages_read_cached(list, 2, &fake_hooks, &cache, c), 0);
	assert_int_equal(c[1].enabled, 3000);
	assert_int_equal(cache.valid,
			 FASTREAD_CACHE_ALL | FASTREAD_CACHE_UNROLLED_SHAPE(2, FASTREAD_CACHE_WIDE));
}

/*
 * The inlined cached read of fastread/cached.h: a group whose pages all say
 * pmc_width 64 is cached WIDE, and its values are offset + counter with the
 * upper bits kept; one narrower page and every value is sign-extended from
 * its own width, as long as the locks stand (the cache then says so).
 */
static void test_cached_inline_wide_and_narrow(void **state)
{
	struct fastread_group group = { .nr = 2, .page = { &pages[0], &pages[1] } };
	uint64_t vector[4];

	(void)state;
	page_set(&pages[0], 3, 100, 64, 0x8000000000000005ULL);
	page_set(&pages[1], 7, -10, 64, 50);
	assert_int_equal(fastread_pages_read_sample_cached(group.page, 2, &fake_hooks, &group.cache,
							   vector, &vector[2], &vector[3]), 0);
	assert_int_equal(group.cache.valid,
			 FASTREAD_CACHE_LEADER | FASTREAD_CACHE_UNROLLED_SHAPE(2, FASTREAD_CACHE_WIDE));
	fake_counter[3] = 0x8000000000000009ULL;
	fake_counter[7] = 60;
	for (int at = FASTREAD_COUNTERS_FIRST; at <= FASTREAD_COUNTERS_LAST; at++) {
		memset(vector, 0, sizeof(vector));
		assert_true(fastread_group_read_cached_with(&group, vector, at, fake_read_slot));
		assert_int_equal(vector[0], 0x8000000000000009ULL + 100);
		assert_int_equal(vector[1], 50);
		assert_int_equal(vector[2], 1000);
		assert_int_equal(vector[3], 1000);
	}

	/* Page 0 narrows to 48 bits (its lock moves): the full pass, then sign extension. */
	page_set(&pages[0], 3, 100, 48, 0xffff000000000005ULL);
	pages[0].lock += 2;
	assert_false(fastread_group_read_cached_with(&group, vector, FASTREAD_COUNTERS_FIRST,
						     fake_read_slot));
	assert_int_equal(fastread_pages_read_sample_cached(group.page, 2, &fake_hooks, &group.cache,
							   vector, &vector[2], &vector[3]), 0);
	assert_int_equal(group.cache.valid,
			 FASTREAD_CACHE_LEADER | FASTREAD_CACHE_UNROLLED_SHAPE(2, 0));
	fake_counter[3] = 0xabcdfffffffffff9ULL;	/* 48 bits: -7 */
	assert_true(fastread_group_read_cached_with(&group, vector, FASTREAD_COUNTERS_LAST,
						    fake_read_slot));
	assert_int_equal(vector[0], 93);
	assert_int_equal(vector[1], 50);

	/* Three events, all 64 bits: the odd one read alone, then a pair. */
	struct fastread_group three = { .nr = 3, .page = { &pages[0], &pages[1], &pages[2] } };
	uint64_t v3[5];

	page_set(&pages[0], 3, 100, 64, 1000);
	pages[0].lock += 2;
	page_set(&pages[2], 9, 7, 64, 70);
	assert_int_equal(fastread_pages_read_sample_cached(three.page, 3, &fake_hooks, &three.cache,
							   v3, &v3[3], &v3[4]), 0);
	assert_int_equal(three.cache.valid,
			 FASTREAD_CACHE_LEADER | FASTREAD_CACHE_UNROLLED_SHAPE(3, FASTREAD_CACHE_WIDE));
	fake_counter[3] = 2000;
	fake_counter[7] = 61;
	fake_counter[9] = 71;
	for (int at = FASTREAD_COUNTERS_FIRST; at <= FASTREAD_COUNTERS_LAST; at++) {
		memset(v3, 0, sizeof(v3));
		assert_true(fastread_group_read_cached_with(&three, v3, at, fake_read_slot));
		assert_int_equal(v3[0], 2100);
		assert_int_equal(v3[1], 51);
		assert_int_equal(v3[2], 78);
		assert_int_equal(v3[3], 1000);
		assert_int_equal(v3[4], 1000);
	}
	/* Any of the three pages rewritten: not served. */
	pages[2].lock += 2;
	assert_false(fastread_group_read_cached_with(&three, v3, FASTREAD_COUNTERS_LAST,
						     fake_read_slot));
}

/*
 * One event, the common case (CACHE_ONE, straight-line code of its own):
 * served from the cache while the page's lock stands, both placements, its
 * counter sign-extended from 48 bits; never once the lock moved.
 */
static void test_cached_inline_one_event(void **state)
{
	struct fastread_group one = { .nr = 1, .page = { &pages[0] } };
	uint64_t v[3];

	(void)state;
	page_set(&pages[0], 3, 100, 48, 0xffff000000000005ULL);
	pages[0].lock = 4;
	assert_int_equal(fastread_pages_read_sample_cached(one.page, 1, &fake_hooks, &one.cache,
							   v, &v[1], &v[2]), 0);
	assert_int_equal(one.cache.valid, FASTREAD_CACHE_ONE);
	fake_counter[3] = 0xabcdfffffffffff9ULL;	/* 48 bits: -7 */
	for (int at = FASTREAD_COUNTERS_FIRST; at <= FASTREAD_COUNTERS_LAST; at++) {
		memset(v, 0, sizeof(v));
		assert_true(fastread_group_read_cached_with(&one, v, at, fake_read_slot));
		assert_int_equal(v[0], 93);
		assert_int_equal(v[1], 1000);
		assert_int_equal(v[2], 1000);
	}
	/* The page rewritten (the event moved to another counter): not served. */
	pages[0].lock += 2;
	for (int at = FASTREAD_COUNTERS_FIRST; at <= FASTREAD_COUNTERS_LAST; at++)
		assert_false(fastread_group_read_cached_with(&one, v, at, fake_read_slot));
}

/*
 * Groups of 2 to 5 events: up to FASTREAD_UNROLLED_MAX the cache says
 * UNROLLED and fastread/cached.h reads each size as straight-line code of its
 * own, beyond it a loop; with 64-bit counters WIDE (offset + counter), with
 * 32-bit ones only (arm64 event counters without 64-bit support) SEXT32 (the
 * low word sign-extended), with 32- and 48-bit ones (x86: 48) each value
 * sign-extended from its own width. Every size and width, both placements:
 * the values and the leader's times; and a cache none of whose pages may
 * move: page p's lock moved, for each p, and the read is not served.
 */
static void test_cached_inline_unrolled_sizes(void **state)
{
	(void)state;
	/* narrow: 0, 64 bits; 1, 32 and 48 in turn; 2, all 32. */
	for (int narrow = 0; narrow <= 2; narrow++) {
		for (int nr = 2; nr <= 5; nr++) {
			struct fastread_group g = { .nr = nr };
			uint64_t v[5 + 2];
			const uint32_t kind = narrow == 0   ? FASTREAD_CACHE_WIDE
					       : narrow == 2 ? FASTREAD_CACHE_SEXT32
							     : 0;
			const uint32_t flags = nr <= FASTREAD_UNROLLED_MAX
						       ? FASTREAD_CACHE_UNROLLED_SHAPE(nr, kind)
					       : narrow ? 0 : FASTREAD_CACHE_WIDE;
			for (int p = 0; p < nr; p++) {
				const uint16_t width = narrow ? (p % 2 && narrow == 1 ? 48 : 32) : 64;

				g.page[p] = &pages[p];
				page_set(&pages[p], 2 + 3 * (uint32_t)p, 100 * (p + 1), width,
					 10 * (p + 1));
			}
			assert_int_equal(fastread_pages_read_sample_cached(
						 g.page, nr, &fake_hooks, &g.cache, v, &v[nr],
						 &v[nr + 1]), 0);
			assert_int_equal(g.cache.valid, FASTREAD_CACHE_LEADER | flags);
			/*
			 * Narrow: the counter's top bit set, the bits above it
			 * UNKNOWN: -1000 (p + 1), and 2^40 less on a 48-bit one
			 * (past 32 bits, so that another page's shift shows).
			 */
			for (int p = 0; p < nr; p++)
				fake_counter[2 + 3 * p] =
					narrow ? (p % 2 && narrow == 1
							  ? 0xdead000000000000ULL | (0x1000000000000ULL -
										  (1ULL << 40) -
										  1000u * (p + 1))
							: 0xfeedbeef00000000ULL | (0x100000000ULL -
										   1000u * (p + 1)))
					       : 0x8000000000000000ULL + 1000u * (p + 1);
			for (int at = FASTREAD_COUNTERS_FIRST; at <= FASTREAD_COUNTERS_LAST; at++) {
				memset(v, 0, sizeof(v));
				assert_true(fastread_group_read_cached_with(&g, v, at,
									    fake_read_slot));
				for (int p = 0; p < nr; p++) {
					const uint64_t far = narrow == 1 && p % 2 ? 1ULL << 40 : 0;

					assert_int_equal(v[p], narrow ? (uint64_t)(-900 * (p + 1)) - far
								      : 0x8000000000000000ULL +
									1100u * (p + 1));
				}
				assert_int_equal(v[nr], 1000);
				assert_int_equal(v[nr + 1], 1000);
			}
			for (int p = 0; p < nr; p++) {
				assert_int_equal(fastread_pages_read_sample_cached(
							 g.page, nr, &fake_hooks, &g.cache, v,
							 &v[nr], &v[nr + 1]), 0);
				pages[p].lock += 2;
				assert_false(fastread_group_read_cached_with(
					&g, v, FASTREAD_COUNTERS_FIRST, fake_read_slot));
				assert_false(fastread_group_read_cached_with(
					&g, v, FASTREAD_COUNTERS_LAST, fake_read_slot));
			}
		}
	}
}

#define TORN_OFFSET_STEP	1000003ULL
#define TORN_NOW		1000ULL

static int torn_stop;		/* atomic: the main thread stops the writer */
static uint64_t torn_writes;

static void store64(volatile void *p, uint64_t v)
{
	__atomic_store_n((uint64_t *)p, v, __ATOMIC_RELAXED);
}

static void torn_page_fill(struct perf_event_mmap_page *pc, int p, uint64_t k)
{
	/* Alternate counters so a stale index reads a stale register. */
	uint32_t index = 1 + 2 * (uint32_t)p + (uint32_t)(k & 1);
	uint16_t width = k & 2 ? 48 : 64;
	uint64_t raw = width == 48 ? 0xabcd000000000000ULL | k : k;

	__atomic_store_n(&fake_counter[index], raw, __ATOMIC_RELAXED);
	__atomic_store_n(&pc->index, index, __ATOMIC_RELAXED);
	__atomic_store_n(&pc->pmc_width, width, __ATOMIC_RELAXED);
	store64(&pc->offset, k * TORN_OFFSET_STEP);
	store64(&pc->time_enabled, k * 7 + 3);
	/* Every third snapshot ran all the time: its times are not advanced. */
	store64(&pc->time_running, k % 3 == 0 ? k * 7 + 3 : k * 5 + 1);
	store64(&pc->time_offset, k * 11);
}

/*
 * Does @c come whole from snapshot k, for the k its value encodes?
 * value = k * step + k; advanced (k % 3 != 0): enabled = 7k + 3 + 11k + now,
 * running = 5k + 1 + 11k + now; not advanced: both 7k + 3.
 */
static uint64_t torn_check(const struct fastread_count *c)
{
	uint64_t k = c->value / (TORN_OFFSET_STEP + 1);

	assert_int_equal(c->value, k * (TORN_OFFSET_STEP + 1));
	if (k % 3 == 0) {
		assert_int_equal(c->enabled, 7 * k + 3);
		assert_int_equal(c->running, 7 * k + 3);
	} else {
		assert_int_equal(c->enabled, 18 * k + 3 + TORN_NOW);
		assert_int_equal(c->running, 16 * k + 1 + TORN_NOW);
	}
	return k;
}

/* The kernel's protocol: lock odd, barrier, fields, barrier, lock even. */
static void *torn_writer(void *arg)
{
	uint64_t k;
	int p;

	(void)arg;
	for (k = 1; !__atomic_load_n(&torn_stop, __ATOMIC_RELAXED); k++) {
		for (p = 0; p < 2; p++) {
			__atomic_store_n(&pages[p].lock, pages[p].lock + 1, __ATOMIC_RELAXED);
			__atomic_thread_fence(__ATOMIC_RELEASE);
		}
		torn_page_fill(&pages[0], 0, k);
		/* A writer switched out mid-write, as a single CPU will see it. */
		if (k % 64 == 0)
			sched_yield();
		torn_page_fill(&pages[1], 1, k);
		for (p = 0; p < 2; p++) {
			__atomic_thread_fence(__ATOMIC_RELEASE);
			__atomic_store_n(&pages[p].lock, pages[p].lock + 1, __ATOMIC_RELAXED);
		}
		torn_writes = k;
		/*
		 * Hold each snapshot for a varying while, so reads also complete and
		 * see many snapshots; yield now and then so that on a single CPU (QEMU
		 * runs one) the reader gets to run between writes too.
		 */
		for (p = 0; p < (int)(k % 512); p++)
			__asm__ volatile("" ::: "memory");
		if (k % 64 == 32)
			sched_yield();
	}
	return NULL;
}

static int cpus_usable(void)
{
	cpu_set_t set;

	return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
}

/*
 * Reads rotate between the group of two (one pass over both pages, one lock
 * sum; per-event times, the leader's only, or into a sample) and each page
 * alone (the one-event pass): all are raced.
 */
static void test_writer_never_tears_a_read(void **state)
{
	struct perf_event_mmap_page *list[2] = { &pages[0], &pages[1] };
	uint64_t reads = 0, changes = 0, last_k = 0, k, want = cpus_usable() > 1 ? 1000 : 50;
	struct fastread_count c[2];
	struct fastread_cache cache[3];
	struct fastread_group group = { .nr = 2, .page = { &pages[0], &pages[1] } };
	uint64_t sample[2], vector[4], served = 0;
	struct timespec start, now;
	long elapsed_ms;
	pthread_t writer;
	int p;

	(void)state;
	for (p = 0; p < 2; p++) {
		pages[p].cap_user_rdpmc = 1;
		pages[p].cap_user_time = 1;
		pages[p].time_mult = 1;
		pages[p].time_shift = 0;
		torn_page_fill(&pages[p], p, 0);
	}
	fake_now = TORN_NOW;
	memset(cache, 0, sizeof(cache));
	torn_stop = 0;
	assert_int_equal(pthread_create(&writer, NULL, torn_writer, NULL), 0);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		switch (reads++ % 10) {
		case 8:
		case 9:
			/*
			 * The inlined cached read of the markers (fastread/cached.h), both
			 * placements; when it declines, the full read the markers then take.
			 */
			if (fastread_group_read_cached_with(&group, vector, reads % 2 ?
							    FASTREAD_COUNTERS_FIRST :
							    FASTREAD_COUNTERS_LAST, fake_read_slot))
				served++;
			else
				assert_int_equal(fastread_pages_read_sample_cached(
							 group.page, 2, &fake_hooks, &group.cache,
							 vector, &vector[2], &vector[3]), 0);
			c[0].value = vector[0];
			c[0].enabled = vector[2];
			c[0].running = vector[3];
			k = torn_check(&c[0]);
			assert_int_equal(vector[1], k * (TORN_OFFSET_STEP + 1));
			break;
		case 5:
			/* Cached, the group: a stale cache would mix snapshots. */
			assert_int_equal(fastread_pages_read_cached(list, 2, &fake_hooks, &cache[0],
								    c), 0);
			k = torn_check(&c[0]);
			assert_int_equal(torn_check(&c[1]), k);
			break;
		case 6:
			assert_int_equal(fastread_pages_read_sample_cached(list, 2, &fake_hooks,
									   &cache[1], sample,
									   &c[0].enabled,
									   &c[0].running), 0);
			c[0].value = sample[0];
			k = torn_check(&c[0]);
			assert_int_equal(sample[1], k * (TORN_OFFSET_STEP + 1));
			break;
		case 7:
			/* Cached, one page: its index and offset change with every write. */
			assert_int_equal(fastread_pages_read_cached(&list[1], 1, &fake_hooks,
								    &cache[2], c), 0);
			k = torn_check(&c[0]);
			break;
		case 0:
			assert_int_equal(fastread_pages_read(list, 2, &fake_hooks, c), 0);
			k = torn_check(&c[0]);
			/* The same snapshot in both pages: one instant. */
			assert_int_equal(torn_check(&c[1]), k);
			break;
		case 3:
			/* The leader's times only: the member's value from the same instant. */
			assert_int_equal(fastread_pages_read_leader_times(list, 2, &fake_hooks, c), 0);
			k = torn_check(&c[0]);
			assert_int_equal(c[1].value, k * (TORN_OFFSET_STEP + 1));
			break;
		case 4:
			/* The sample form: values and the leader's times of one instant. */
			assert_int_equal(fastread_pages_read_sample(list, 2, &fake_hooks, sample,
								    &c[0].enabled, &c[0].running), 0);
			c[0].value = sample[0];
			k = torn_check(&c[0]);
			assert_int_equal(sample[1], k * (TORN_OFFSET_STEP + 1));
			break;
		default:
			p = (int)(reads % 3) == 2 ? 0 : 1;
			assert_int_equal(fastread_pages_read(&list[p], 1, &fake_hooks, c), 0);
			k = torn_check(&c[0]);
			break;
		}
		assert_true(k >= last_k);	/* time never runs backwards */
		changes += k != last_k;
		last_k = k;
		clock_gettime(CLOCK_MONOTONIC, &now);
		elapsed_ms = (now.tv_sec - start.tv_sec) * 1000L +
			     (now.tv_nsec - start.tv_nsec) / 1000000L;
		/* 2 s, or up to 20 s on a machine so busy the writer hardly ran. */
	} while (elapsed_ms < 2000 || (changes <= want && elapsed_ms < 20000));
	__atomic_store_n(&torn_stop, 1, __ATOMIC_RELAXED);
	assert_int_equal(pthread_join(writer, NULL), 0);
	print_message("torn-read test: %llu reads, %llu distinct snapshots seen, "
		      "%llu writes, %u counter reads (retries included), %llu served by "
		      "fastread/cached.h\n",
		      (unsigned long long)reads, (unsigned long long)changes,
		      (unsigned long long)torn_writes, nr_counter_reads,
		      (unsigned long long)served);
	/*
	 * The test means something only if the reader really raced the writer;
	 * on one CPU the two only meet at context switches. On a machine so
	 * busy that the writer hardly ran in 20 s (seen once in make unit
	 * beside 8 other builds on 2 cores), it is not judged: a skip, not a
	 * failure of the code.
	 */
	if (torn_writes <= 1000 || changes <= want) {
		print_message("torn-read test: the writer ran too little to race the reader "
			      "(a busy machine): not judged\n");
		skip();
	}
	assert_true(served > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_capability_masks_match_header, reset),
		cmocka_unit_test_setup(test_cached_inline_unrolled_sizes, reset),
		cmocka_unit_test_setup(test_extend_known_values, reset),
		cmocka_unit_test_setup(test_extend_against_reference, reset),
		cmocka_unit_test_setup(test_read_arm64_32bit_event, reset),
		cmocka_unit_test_setup(test_read_wrapped_counters, reset),
		cmocka_unit_test_setup(test_read_without_time, reset),
		cmocka_unit_test_setup(test_index_zero_falls_back, reset),
		cmocka_unit_test_setup(test_capability_off_falls_back, reset),
		cmocka_unit_test_setup(test_group_any_unreadable_falls_back, reset),
		cmocka_unit_test_setup(test_time_delta_known_values, reset),
		cmocka_unit_test_setup(test_time_delta_against_reference, reset),
		cmocka_unit_test_setup(test_read_equal_times_not_advanced, reset),
		cmocka_unit_test_setup(test_read_running_zero_advances, reset),
		cmocka_unit_test_setup(test_read_one_advances_times, reset),
		cmocka_unit_test_setup(test_read_advances_times, reset),
		cmocka_unit_test_setup(test_read_leader_times_only, reset),
		cmocka_unit_test_setup(test_read_sample, reset),
		cmocka_unit_test_setup(test_cached_read_follows_the_lock, reset),
		cmocka_unit_test_setup(test_cached_read_multiplexed_not_cached, reset),
		cmocka_unit_test_setup(test_cached_sample_then_counts, reset),
		cmocka_unit_test_setup(test_cached_inline_wide_and_narrow, reset),
		cmocka_unit_test_setup(test_cached_inline_one_event, reset),
		cmocka_unit_test_setup(test_writer_never_tears_a_read, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
