/* SPDX-License-Identifier: MIT */
/*
 * test_topdown.c: fastread/topdown.c, Intel's top-down group read from
 * user space, on synthetic pages and a fake slots counter and PERF_METRICS
 * register (no Intel PMU here); the read(2) fallback reads a pipe that holds
 * what the kernel would answer. Each count is checked against the kernel's
 * formula written out again here, slots * byte / 0xff rounded down.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fastread/internal.h"

#if FASTREAD_ARCH_TOPDOWN && FASTREAD_ARCH_USER_READ

/* The fake PMU: the two registers, and one other counter at index 5. */
static uint64_t slots_reg, metrics_reg, other_reg;
static unsigned nr_counter_reads;

static uint64_t fake_read_counter(uint32_t index)
{
	nr_counter_reads++;
	if (index == FASTREAD_TOPDOWN_SLOTS_INDEX)
		return slots_reg;
	if (index == FASTREAD_TOPDOWN_METRICS_INDEX)
		return metrics_reg;
	return index == 5 ? other_reg : 0;
}

static uint64_t fake_read_timestamp(void)
{
	return 0;
}

/* The fake PMU by slot, as fastread/cached.h's inline read takes it. */
static uint64_t fake_read_slot(uint32_t slot)
{
	return fake_read_counter(slot + 1);
}

static const struct fastread_hooks hooks = {
	.read_counter = fake_read_counter, .read_timestamp = fake_read_timestamp,
};

/* The group pfshim's TopdownL1 opens: slots, retiring, bad-spec, fe-bound, be-bound. */
#define NR 5
static struct perf_event_mmap_page pages[NR + 1];
static struct fastread_group g;
static int pipe_fd[2] = { -1, -1 };

static void attr_raw(struct perf_event_attr *a, uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_RAW;
	a->config = config;
}

/* A page of the PMU: readable from user space, 48-bit counters, a count the kernel kept. */
static void page_set(struct perf_event_mmap_page *pc, uint32_t index, int64_t offset)
{
	pc->cap_user_rdpmc = 1;
	pc->index = index;
	pc->offset = offset;
	pc->pmc_width = 48;
	pc->time_enabled = 1000;
	pc->time_running = 1000;
}

/* The pages' offsets: counts the kernel kept, which a top-down read must not add. */
#define STALE_OFFSET 777777

static int setup(void **state)
{
	struct perf_event_attr attrs[NR];

	(void)state;
	memset(pages, 0, sizeof(pages));
	memset(&g, 0, sizeof(g));
	slots_reg = metrics_reg = other_reg = 0;
	nr_counter_reads = 0;
	attr_raw(&attrs[0], 0x0400);
	for (int i = 1; i < NR; i++)
		attr_raw(&attrs[i], 0x8000 + (uint64_t)(i - 1) * 0x100);
	g.nr = NR;
	for (int i = 0; i < NR; i++) {
		g.page[i] = &pages[i];
		g.id[i] = 100 + (uint64_t)i;
		page_set(&pages[i], i ? FASTREAD_TOPDOWN_METRICS_INDEX : FASTREAD_TOPDOWN_SLOTS_INDEX,
			 STALE_OFFSET);
	}
	fastread_topdown_setup(&g, attrs, NR);
	assert_int_equal(pipe(pipe_fd), 0);
	g.fd[0] = pipe_fd[0];
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	close(pipe_fd[0]);
	close(pipe_fd[1]);
	return 0;
}

/* The PERF_METRICS register of four level-1 bytes. */
static uint64_t metrics_of(unsigned retiring, unsigned bad_spec, unsigned fe_bound,
			   unsigned be_bound)
{
	return (uint64_t)retiring | (uint64_t)bad_spec << 8 | (uint64_t)fe_bound << 16 |
	       (uint64_t)be_bound << 24;
}

/*
 * The kernel's icl_get_metrics_event_value(), written out again:
 * mul_u64_u32_div(slots, byte, 0xff), here as quotient and remainder of
 * slots by 0xff so that nothing in it is the code under test's.
 */
static uint64_t kernel_share(uint64_t slots, uint64_t metrics, int byte)
{
	uint64_t b = (metrics >> (8 * byte)) & 0xff;

	return slots / 0xff * b + slots % 0xff * b / 0xff;
}

/* What the kernel's read(2) of the group answers: @values in event order, IDs 100.. */
static void kernel_answers(const uint64_t *values, int nr)
{
	uint64_t buf[3 + 2 * FASTREAD_MAX_EVENTS];

	buf[0] = (uint64_t)nr;
	buf[1] = buf[2] = 5000;
	for (int i = 0; i < nr; i++) {
		/* Listed in reverse: the read path matches by ID. */
		buf[3 + 2 * i] = values[nr - 1 - i];
		buf[3 + 2 * i + 1] = 100 + (uint64_t)(nr - 1 - i);
	}
	assert_int_equal(write(pipe_fd[1], buf, (size_t)(3 + 2 * nr) * 8), (3 + 2 * nr) * 8);
}

static void group_read(struct fastread_count *c)
{
	assert_int_equal(fastread_group_read_hooked(&g, &hooks, c), 0);
}

/* The attrs tell the kinds; a group is top-down with slots and a metric event only. */
static void test_setup_kinds(void **state)
{
	struct perf_event_attr attrs[4];
	struct fastread_group h;

	(void)state;
	assert_int_equal(g.topdown, 1);
	assert_int_equal(g.cache.topdown.kind[0], FASTREAD_TOPDOWN_SLOTS);
	for (int i = 1; i < NR; i++)
		assert_int_equal(g.cache.topdown.kind[i], i - 1);

	attr_raw(&attrs[0], 0x0400);
	attr_raw(&attrs[1], 0x8700);	/* topdown-mem-bound: byte 7 */
	attr_raw(&attrs[2], 0x00c0);	/* instructions: another event */
	attr_raw(&attrs[3], 0x8001);	/* event 0x01: not a metric */
	memset(&h, 0, sizeof(h));
	fastread_topdown_setup(&h, attrs, 4);
	assert_int_equal(h.topdown, 1);
	assert_int_equal(h.cache.topdown.kind[1], 7);
	assert_int_equal(h.cache.topdown.kind[2], FASTREAD_TOPDOWN_OTHER);
	assert_int_equal(h.cache.topdown.kind[3], FASTREAD_TOPDOWN_OTHER);

	/* Slots alone: the kernel counts it as any fixed counter, and so do we. */
	fastread_topdown_setup(&h, attrs, 1);
	assert_int_equal(h.topdown, 0);
	/* The same configs on a software PMU are no top-down events. */
	attrs[0].type = attrs[1].type = PERF_TYPE_SOFTWARE;
	fastread_topdown_setup(&h, attrs, 2);
	assert_int_equal(h.topdown, 0);
	assert_int_equal(h.cache.topdown.kind[0], FASTREAD_TOPDOWN_OTHER);
}

/*
 * A region: begin and end see known slots and bytes; each count is the
 * kernel's share, the pages' offsets unused, and the level-1 split from
 * the differences is the one computed here from the same registers.
 */
static void test_region_split(void **state)
{
	const uint64_t m0 = metrics_of(128, 16, 48, 63), m1 = metrics_of(96, 32, 64, 63);
	struct fastread_count begin[NR], end[NR];
	uint64_t delta[NR], sum = 0;
	double want_sum = 0;

	(void)state;
	slots_reg = 1000000;
	metrics_reg = m0;
	group_read(begin);
	assert_int_equal(begin[0].value, 1000000);
	for (int i = 1; i < NR; i++)
		assert_int_equal(begin[i].value, kernel_share(1000000, m0, i - 1));
	assert_int_equal(begin[1].value, 501960);	/* 1,000,000 * 128 / 255 */
	assert_int_equal(begin[0].enabled, 1000);

	slots_reg = 3000000;
	metrics_reg = m1;
	group_read(end);
	for (int i = 0; i < NR; i++) {
		delta[i] = end[i].value - begin[i].value;
		if (i)
			sum += delta[i];
	}
	assert_int_equal(delta[0], 2000000);
	for (int i = 1; i < NR; i++) {
		uint64_t want = kernel_share(3000000, m1, i - 1) - kernel_share(1000000, m0, i - 1);

		assert_int_equal(delta[i], want);
		want_sum += (double)want;
	}
	assert_int_equal(delta[1], 627451);	/* 1,129,411 - 501,960 */
	/* Four bytes of 0xff: the shares add up to the slots within their rounding. */
	assert_true(sum <= 2000000 && sum >= 2000000 - 4);
	/* Level 1 as docs/metrics.md's formulas take it: each over the four's sum. */
	for (int i = 1; i < NR; i++) {
		double pct = (double)delta[i] / (double)sum * 100;
		double want = (double)(kernel_share(3000000, m1, i - 1) -
				       kernel_share(1000000, m0, i - 1)) / want_sum * 100;

		assert_true(pct == want);
	}
	/* Retiring 31.37 %, bad speculation 15.69, front end 28.24, back end 24.71. */
	assert_int_equal(sum, 2000000);
	assert_int_equal((int)((double)delta[1] / (double)sum * 10000 + 0.5), 3137);
	assert_int_equal((int)((double)delta[2] / (double)sum * 10000 + 0.5), 1569);
	assert_int_equal((int)((double)delta[3] / (double)sum * 10000 + 0.5), 2824);
	assert_int_equal((int)((double)delta[4] / (double)sum * 10000 + 0.5), 2471);
	assert_int_equal(g.nr_user_reads, 2);
	assert_int_equal(g.nr_syscall_reads, 0);
	/* One rdpmc for slots, one for the register every metric shares. */
	assert_int_equal(nr_counter_reads, 4);
	/* Nothing to cache: every read computes, and the inline read never serves one. */
	fastread_group_cache_fill_hooked(&g, &hooks);
	assert_int_equal(g.cache.valid, FASTREAD_CACHE_NONE);
	for (int at = FASTREAD_COUNTERS_FIRST; at <= FASTREAD_COUNTERS_LAST; at++) {
		uint64_t sample[NR + 2];

		assert_false(fastread_group_read_cached_with(&g, sample, (enum fastread_counters_at)at,
							     fake_read_slot));
	}
}

/*
 * A context switch between begin and end: the kernel saves the registers,
 * writes them back at the switch in and rewrites the pages (lock and
 * offset). The registers go on from where they were: the region counts
 * as without the switch, the new offsets unused.
 */
static void test_context_switch_keeps_the_registers(void **state)
{
	const uint64_t m = metrics_of(51, 25, 102, 77);
	struct fastread_count begin[NR], end[NR];

	(void)state;
	slots_reg = 255000;
	metrics_reg = m;
	group_read(begin);
	for (int i = 0; i < NR; i++) {
		pages[i].lock += 2;
		pages[i].offset = STALE_OFFSET + 255000;	/* the saved share, counted by the kernel */
	}
	slots_reg = 510000;
	group_read(end);
	assert_int_equal(end[0].value - begin[0].value, 255000);
	assert_int_equal(end[1].value - begin[1].value, 51000);	/* 20 % of the slots */
	assert_int_equal(end[2].value - begin[2].value, 25000);
	assert_int_equal(end[3].value - begin[3].value, 102000);
	assert_int_equal(end[4].value - begin[4].value, 77000);
	assert_int_equal(g.nr_syscall_reads, 0);
}

/*
 * The reset case: the registers cleared under us (the kernel's PERF_METRICS
 * overflow interrupt clears them without a page update). Slots below the
 * last read's send the read to read(2), whose counts come back as they
 * are, and the pass after it is the new base: the next user-space read is
 * that count plus what the registers gained since.
 */
static void test_registers_cleared_under_us(void **state)
{
	const uint64_t m0 = metrics_of(128, 16, 48, 63), m1 = metrics_of(100, 20, 60, 75);
	const uint64_t kernel[NR] = { 5000000, 2400000, 400000, 1200000, 1000000 };
	struct fastread_count c[NR], d[NR];

	(void)state;
	slots_reg = 4000000;
	metrics_reg = m0;
	group_read(c);
	/* Cleared, and 1,000 slots since, when the next read comes. */
	slots_reg = 1000;
	metrics_reg = m1;
	kernel_answers(kernel, NR);
	group_read(c);
	for (int i = 0; i < NR; i++)
		assert_int_equal(c[i].value, kernel[i]);
	assert_int_equal(c[0].enabled, 5000);
	assert_int_equal(g.nr_syscall_reads, 1);
	assert_int_equal(g.cache.topdown.based, 1);

	slots_reg = 256000;
	group_read(d);
	assert_int_equal(g.nr_syscall_reads, 1);
	assert_int_equal(d[0].value, kernel[0] + 255000);
	for (int i = 1; i < NR; i++)
		assert_int_equal(d[i].value, kernel[i] + kernel_share(256000, m1, i - 1) -
						     kernel_share(1000, m1, i - 1));
}

/*
 * The fallback case: the group not on the PMU (index 0: multiplexed out,
 * or a hybrid's E-core). read(2) then clears nothing (the kernel reads a
 * counter only while it is on the PMU); no pass can rebase, so the next
 * read takes read(2) too; once on the PMU again, that read(2) clears the
 * registers and the pass after it rebases.
 */
static void test_index_zero_falls_back_and_rebases(void **state)
{
	const uint64_t m = metrics_of(51, 25, 102, 77);
	const uint64_t k1[NR] = { 300000, 60000, 30000, 120000, 90000 };
	const uint64_t k2[NR] = { 400000, 80000, 40000, 160000, 120000 };
	struct fastread_count c[NR];

	(void)state;
	pages[0].index = 0;
	kernel_answers(k1, NR);
	group_read(c);
	assert_int_equal(c[3].value, 120000);
	assert_int_equal(g.cache.topdown.based, 0);

	/* On the PMU again: read(2) (clearing), then a pass of what counted since. */
	pages[0].index = FASTREAD_TOPDOWN_SLOTS_INDEX;
	slots_reg = 0;
	metrics_reg = 0;
	kernel_answers(k2, NR);
	group_read(c);
	assert_int_equal(c[0].value, 400000);
	assert_int_equal(g.nr_syscall_reads, 2);
	assert_int_equal(g.nr_user_reads, 0);

	slots_reg = 510000;
	metrics_reg = m;
	group_read(c);
	assert_int_equal(g.nr_user_reads, 1);
	assert_int_equal(c[0].value, 400000 + 510000);
	assert_int_equal(c[1].value, 80000 + 102000);
	assert_int_equal(c[4].value, 120000 + 154000);
}

/* A metric page that names another register, or a page without rdpmc: read(2). */
static void test_pages_that_disagree_fall_back(void **state)
{
	const uint64_t k[NR] = { 10, 2, 3, 4, 1 };
	struct fastread_count c[NR];

	(void)state;
	pages[2].index = 7;
	kernel_answers(k, NR);
	group_read(c);
	assert_int_equal(c[2].value, 3);
	pages[2].index = FASTREAD_TOPDOWN_METRICS_INDEX;
	pages[4].cap_user_rdpmc = 0;
	kernel_answers(k, NR);
	group_read(c);
	assert_int_equal(g.nr_syscall_reads, 2);
	assert_int_equal(g.nr_user_reads, 0);
}

/* A byte that shrinks while slots grow holds its count: no region goes below 0. */
static void test_values_never_go_back(void **state)
{
	struct fastread_count a[NR], b[NR];

	(void)state;
	slots_reg = 255000;
	metrics_reg = metrics_of(200, 20, 20, 15);
	group_read(a);
	slots_reg = 256000;
	metrics_reg = metrics_of(190, 25, 25, 15);
	group_read(b);
	assert_int_equal(a[1].value, 200000);
	assert_int_equal(b[1].value, 200000);	/* 256,000 * 190 / 255 = 190,745: held */
	assert_int_equal(b[2].value, kernel_share(256000, metrics_of(190, 25, 25, 15), 1));
}

/*
 * The other bytes: a level-2 metric (bytes 4 to 7, above the pages' 48-bit
 * width) and another event in the group, read as any counter is.
 */
static void test_level2_byte_and_other_event(void **state)
{
	struct perf_event_attr attrs[3];
	struct fastread_count c[3];

	(void)state;
	attr_raw(&attrs[0], 0x0400);
	attr_raw(&attrs[1], 0x8700);	/* topdown-mem-bound */
	attr_raw(&attrs[2], 0x00c0);
	fastread_topdown_setup(&g, attrs, 3);
	g.nr = 3;
	page_set(&pages[2], 5, 40);
	other_reg = 0xffff000000000002ULL;	/* 48 bits: sign-extended 2 */
	slots_reg = 510;
	metrics_reg = 0x7fULL << 56;
	group_read(c);
	assert_int_equal(c[0].value, 510);
	assert_int_equal(c[1].value, 254);	/* 510 * 0x7f / 0xff */
	assert_int_equal(c[2].value, 42);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_setup_kinds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_region_split, setup, teardown),
		cmocka_unit_test_setup_teardown(test_context_switch_keeps_the_registers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_registers_cleared_under_us, setup, teardown),
		cmocka_unit_test_setup_teardown(test_index_zero_falls_back_and_rebases, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pages_that_disagree_fall_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_values_never_go_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_level2_byte_and_other_event, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}

#else

int main(void)
{
	/* No top-down registers on this architecture: nothing to test. */
	return 0;
}

#endif
