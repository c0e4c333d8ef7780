/* SPDX-License-Identifier: MIT */
/*
 * test_fastread_arm64.c: fastread/ on a real (emulated) arm64 PMU. Checks that
 * reads are served from user space when they can be (nr_user_reads), agree
 * with read(2), count a known loop exactly for 64- and 32-bit counters, and
 * fall back to read(2) (nr_syscall_reads) with correct values when a counter
 * is multiplexed out or user access is off; also across a 32-bit overflow,
 * in preempted threads and as nobody. Compared against pmu_arm64.h, which
 * shares no code with fastread/.
 */
#include <pthread.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "fastread/arch.h"
#include "fastread/fastread.h"
#include "pmu_arm64.h"

#define NR_MAX FASTREAD_MAX_EVENTS
/* A user-only count moves by at most this between two reads with one
 * read(2) in between (user instructions of the reads themselves). */
#define BRACKET_MAX 3000
/* Instructions outside the loop body between two fastread reads. */
#define LOOP_OVERHEAD_MAX 1000

static struct perf_event_attr attr_hw(uint64_t config)
{
	struct perf_event_attr a;

	pmu_attr_init(&a, config, 0);
	return a;
}

/* The group's counts through our own read(2) of the leader, matched by ID. */
static int own_group_read(const struct fastread_group *g, uint64_t *values)
{
	uint64_t buf[3 + 2 * NR_MAX];
	ssize_t n = read(g->fd[0], buf, sizeof(buf));
	int i, j;

	if (n < (ssize_t)(3 * sizeof(uint64_t)) || buf[0] != (uint64_t)g->nr)
		return -EIO;
	for (i = 0; i < g->nr; i++) {
		for (j = 0; j < g->nr && buf[3 + 2 * j + 1] != g->id[i]; j++)
			;
		if (j == g->nr)
			return -EIO;
		values[i] = buf[3 + 2 * j];
	}
	return 0;
}

/* fastread, read(2), fastread: every event's read(2) value lies between. */
static bool bracket_ok(struct fastread_group *g, const char *what, bool quiet)
{
	struct fastread_count a[NR_MAX], b[NR_MAX];
	uint64_t r[NR_MAX];
	bool ok;
	int i;

	ok = fastread_group_read(g, a) == 0 && own_group_read(g, r) == 0 &&
	     fastread_group_read(g, b) == 0;
	for (i = 0; ok && i < g->nr; i++)
		ok = a[i].value <= r[i] && r[i] <= b[i].value && b[i].value - a[i].value < BRACKET_MAX;
	if (!ok || !quiet)
		for (i = 0; i < g->nr; i++)
			CHECK(ok, "%s: event %d: fastread %" PRIu64 " <= read(2) %" PRIu64
			      " <= fastread %" PRIu64, what, i, a[i].value, r[i], b[i].value);
	return ok;
}

/*
 * Every event counts the known loop as 2n + a constant: the same in every run
 * whose two reads were both served from fastread's cache. A run in which the
 * kernel rewrote a page (a timer tick in a 2-20 ms loop can) takes the full
 * pass in one of its reads (cache.full_passes moves), which costs more
 * instructions inside the bracket: such a run is held to at most
 * LOOP_FULL_EXTRA more (the group of 6 on cortex-a57: 409 more, 631 against
 * 222). At least one run must be all cached.
 */
#define LOOP_FULL_EXTRA 480

static void check_exact_loop(struct fastread_group *g, const char *what)
{
	static const uint64_t lengths[] = { 1000000, 10000000 };
	struct fastread_count a[NR_MAX], b[NR_MAX];
	int64_t cached[NR_MAX], o;
	bool same[NR_MAX], read_ok = true;
	int i, nr_cached = 0, nr_full = 0;

	for (i = 0; i < g->nr; i++) {
		same[i] = true;
		cached[i] = INT64_MIN;
	}
	for (int pass = 0; pass < 2; pass++) {
		/* Pass 0 finds the cached constants, pass 1 holds the full runs to them. */
		for (size_t l = 0; l < sizeof(lengths) / sizeof(lengths[0]); l++) {
			for (int run = 0; run < 3; run++) {
				uint64_t full = g->cache.full_passes;
				bool all_cached;

				read_ok &= fastread_group_read(g, a) == 0;
				pmu_loop(lengths[l]);
				read_ok &= fastread_group_read(g, b) == 0;
				all_cached = g->cache.full_passes == full;
				if (pass == 0) {
					nr_cached += all_cached;
					nr_full += !all_cached;
				}
				for (i = 0; i < g->nr; i++) {
					o = (int64_t)(b[i].value - a[i].value) -
					    (int64_t)(lengths[l] * PMU_LOOP_BODY_INSNS);
					if (all_cached && cached[i] == INT64_MIN)
						cached[i] = o;
					if (all_cached)
						same[i] &= o == cached[i];
					else if (pass == 1 && cached[i] != INT64_MIN)
						same[i] &= o >= cached[i] &&
							   o <= cached[i] + LOOP_FULL_EXTRA;
				}
			}
		}
	}
	CHECK(read_ok, "%s: every read of the loop succeeded", what);
	CHECK(nr_cached > 0, "%s: %d of 6 runs read only from the cache, %d took a full pass",
	      what, nr_cached, nr_full);
	for (i = 0; i < g->nr; i++)
		CHECK(same[i] && cached[i] > 0 && cached[i] <= LOOP_OVERHEAD_MAX,
		      "%s: event %d counts the known loop exactly: 2n + %" PRId64 " every cached "
		      "run, and runs with a full pass within +%d of it", what, i, cached[i],
		      LOOP_FULL_EXTRA);
}

/* n reads, all from user space: nr_user_reads moves by n, nr_syscall_reads not. */
static void check_user_reads(struct fastread_group *g, const char *what)
{
	uint64_t user0 = g->nr_user_reads, sys0 = g->nr_syscall_reads;
	struct fastread_count c[NR_MAX];
	bool ok = true;

	for (int k = 0; k < 100; k++)
		ok &= fastread_group_read(g, c) == 0;
	CHECK(ok && g->nr_user_reads - user0 == 100 && g->nr_syscall_reads == sys0,
	      "%s: 100 reads served from user space (user +%" PRIu64 ", syscall +%" PRIu64 ")",
	      what, g->nr_user_reads - user0, g->nr_syscall_reads - sys0);
	for (int i = 0; i < g->nr; i++)
		CHECK(c[i].enabled > 0 && c[i].enabled == c[i].running,
		      "%s: event %d enabled %" PRIu64 " ns == running %" PRIu64 " ns (not multiplexed)",
		      what, i, c[i].enabled, c[i].running);
}

static void check_pages(struct fastread_group *g, const unsigned *widths, const char *what)
{
	for (int i = 0; i < g->nr; i++) {
		const struct perf_event_mmap_page *pc = g->page[i];

		if (!CHECK(pc != NULL, "%s: event %d page mapped", what, i))
			continue;
		CHECK(pc->cap_user_rdpmc && pc->index > 0 && pc->pmc_width == widths[i],
		      "%s: event %d index %u, pmc_width %u (want %u)", what, i, pc->index,
		      (unsigned)pc->pmc_width, widths[i]);
	}
}

/* The whole set of checks on a group fastread opened itself. */
static void check_group(const uint64_t *configs, const unsigned *widths, int nr, const char *what)
{
	struct perf_event_attr attrs[NR_MAX];
	struct fastread_group g;
	int err, i;

	for (i = 0; i < nr; i++)
		attrs[i] = attr_hw(configs[i]);
	err = fastread_group_open(&g, attrs, nr);
	if (!CHECK(err == 0, "%s: fastread_group_open: %s", what, err ? strerror(-err) : "ok"))
		return;
	check_pages(&g, widths, what);
	check_user_reads(&g, what);
	bracket_ok(&g, what, false);
	check_exact_loop(&g, what);
	fastread_group_close(&g);
}

/*
 * Through the 32-bit overflow: a 32-bit counter starts 2^31 below it, so
 * 2 x 1.1e9 instructions take it through the kernel's overflow interrupt
 * (offset folded, counter restarted). Both reads come from user space and
 * the difference is still 2n + the usual overhead. ~6 s of emulation, so
 * on -cpu max only.
 */
static void check_overflow(struct fastread_group *g, const char *what)
{
	const uint64_t n = 1100000000;
	struct fastread_count a[NR_MAX], b[NR_MAX];
	uint64_t user0 = g->nr_user_reads;
	int64_t o;

	fastread_group_read(g, a);
	pmu_loop(n);
	fastread_group_read(g, b);
	for (int i = 0; i < g->nr; i++) {
		o = (int64_t)(b[i].value - a[i].value) - (int64_t)(n * PMU_LOOP_BODY_INSNS);
		CHECK(o > 0 && o <= LOOP_OVERHEAD_MAX && g->nr_user_reads - user0 == 2,
		      "%s: event %d across the 32-bit overflow: 2 x %" PRIu64 " + %" PRId64
		      " (user reads +%" PRIu64 ")", what, i, n, o, g->nr_user_reads - user0);
	}
}

/*
 * Every event counter the PMU has: the largest group of instructions events
 * that counts uses each of PMEVCNTR0..N-1 once, so each of those mrs cases
 * must count the loop exactly. One event more is refused with -ENOSPC (the
 * group would never be scheduled: check_group_validation).
 */
static void check_every_counter(void)
{
	struct perf_event_attr attrs[NR_MAX];
	struct fastread_count c[NR_MAX];
	struct fastread_group g;
	int nr, i, err = 0, err_above = 0;
	uint32_t seen = 0;

	for (i = 0; i < NR_MAX; i++)
		attrs[i] = attr_hw(PERF_COUNT_HW_INSTRUCTIONS);
	for (nr = NR_MAX; nr > 0; nr--) {
		err_above = err;
		err = fastread_group_open(&g, attrs, nr);
		if (err == 0)
			break;
	}
	if (!CHECK(nr == 6, "every counter: the largest group of instructions events that "
		   "opens has %d events (QEMU: 6 event counters)", nr) || nr == 0)
		return;
	CHECK(err_above == -ENOSPC, "every counter: %d events: fastread_group_open -> %s "
	      "(want ENOSPC)", nr + 1, strerror(-err_above));
	pmu_loop(1000);
	CHECK(fastread_group_read(&g, c) == 0 && c[0].running > 0,
	      "every counter: the group of %d runs (running %" PRIu64 " ns)", nr, c[0].running);
	for (i = 0; i < nr; i++)
		if (g.page[i] && g.page[i]->index >= 1 && g.page[i]->index <= 31)
			seen |= UINT32_C(1) << (g.page[i]->index - 1);
	CHECK(seen == (UINT32_C(1) << nr) - 1,
	      "every counter: the %d events sit on PMEVCNTR0..%d (index mask %#x)", nr, nr - 1,
	      seen);
	check_exact_loop(&g, "every counter");
	fastread_group_close(&g);
}

/*
 * arch_read_slots(): 2, 3 and 4 counters read back to back through chained
 * stub tables (the markers' begin), each into its own place. Four events
 * opened apart, each alone and 20,000 instructions after the one before,
 * hold counts at least that far apart, so a counter read into another's
 * place cannot pass: each value must lie between the test's own reads of
 * its counter (pmu_counter_read(), no code shared with fastread) just before
 * and just after. The low 32 bits only: above them a 32-bit counter's bits
 * are UNKNOWN.
 */
#define CHAIN_EVENTS 4
#define CHAIN_BRACKET_MAX 200

static void check_read_slots(void)
{
	const uint64_t config1 = PMU_CONFIG1_RDPMC |
				 (pmu_cpu_has_long_counters() ? PMU_CONFIG1_64BIT : 0);
	struct perf_event_mmap_page *pc[CHAIN_EVENTS] = { NULL };
	int fd[CHAIN_EVENTS];
	uint32_t slot[CHAIN_EVENTS];
	bool ready = true;

	for (int i = 0; i < CHAIN_EVENTS; i++) {
		struct perf_event_attr a;

		pmu_attr_init(&a, i % 2 ? PERF_COUNT_HW_CPU_CYCLES : PERF_COUNT_HW_INSTRUCTIONS,
			      config1);
		fd[i] = pmu_open(&a, -1);
		pc[i] = fd[i] >= 0 ? pmu_map(fd[i]) : NULL;
		pmu_loop(10000);
	}
	for (int i = 0; i < CHAIN_EVENTS; i++) {
		slot[i] = pc[i] ? arch_counter_slot(pc[i]->index) : FASTREAD_SLOT_NONE;
		ready &= CHECK(slot[i] != FASTREAD_SLOT_NONE, "read_slots: event %d opened, mapped "
			       "and on a counter (index %u)", i, pc[i] ? pc[i]->index : 0);
	}
	for (int nr = 2; ready && nr <= CHAIN_EVENTS; nr++) {
		uint64_t before[CHAIN_EVENTS], v[CHAIN_EVENTS], after[CHAIN_EVENTS];

		for (int i = 0; i < nr; i++)
			before[i] = pmu_counter_read(pc[i]->index);
		arch_read_slots(nr, slot, v);
		for (int i = 0; i < nr; i++)
			after[i] = pmu_counter_read(pc[i]->index);
		for (int i = 0; i < nr; i++) {
			uint32_t got = (uint32_t)(v[i] - before[i]);
			uint32_t span = (uint32_t)(after[i] - before[i]);

			CHECK(got <= span && span < CHAIN_BRACKET_MAX,
			      "read_slots: %d counters: counter %d (index %u) read into its own "
			      "place: %#" PRIx32 " between %#" PRIx32 " and %#" PRIx32, nr, i,
			      pc[i]->index, (uint32_t)v[i], (uint32_t)before[i], (uint32_t)after[i]);
		}
	}
	for (int i = 0; i < CHAIN_EVENTS; i++) {
		if (pc[i])
			pmu_unmap(pc[i]);
		if (fd[i] >= 0)
			close(fd[i]);
	}
}

/*
 * A group opened by our own code with config1 = rdpmc only (a 32-bit
 * counter, which fastread never picks where 64-bit ones exist), handed to
 * fastread_group_read: the sign extension by pmc_width must make it right
 * (a 32-bit event on a 64-bit counter reads 0xffffffff8xxxxxxx).
 */
static void check_forced_32bit(void)
{
	static const uint64_t configs[] = { PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CPU_CYCLES };
	static const unsigned widths[] = { 32, 32 };
	const char *what = "forced 32-bit {instructions,cycles}";
	struct perf_event_attr a;
	struct fastread_group g;
	int i, fd;

	memset(&g, 0, sizeof(g));
	for (i = 0; i < 2; i++) {
		pmu_attr_init(&a, configs[i], PMU_CONFIG1_RDPMC);
		a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING;
		a.disabled = i == 0;
		fd = pmu_open(&a, i == 0 ? -1 : g.fd[0]);
		if (!CHECK(fd >= 0, "%s: event %d opened by hand", what, i))
			goto out;
		g.fd[i] = fd;
		g.nr = i + 1;
		g.page[i] = pmu_map(fd);
		if (!CHECK(g.page[i] && ioctl(fd, PERF_EVENT_IOC_ID, &g.id[i]) == 0,
			   "%s: event %d mapped, ID known", what, i))
			goto out;
	}
	ioctl(g.fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	check_pages(&g, widths, what);
	check_user_reads(&g, what);
	bracket_ok(&g, what, false);
	check_exact_loop(&g, what);
	if (pmu_cpu_has_long_counters())
		check_overflow(&g, what);
out:
	fastread_group_close(&g);
}

/*
 * A counter rescheduled to another index between two reads. A group of one
 * instructions beside two groups of 4 (6 event counters): the kernel rotates
 * the groups, and the one-event group lands on PMEVCNTR0 when it is
 * scheduled first, on PMEVCNTR4 after a group of 4, or is off the PMU. Its
 * page's lock moves with the index, so the first read after a move must take
 * the full pass: a cache that read the old register would be far from the
 * kernel's count. Each round: fastread, a loop, fastread, read(2) at once;
 * the read(2) must exceed the second fastread by no more than the few
 * instructions between them (user space only), whatever moved.
 */
static void check_index_moves(void)
{
	enum { ROUNDS = 200, N = 200000, GAP_MAX = 1000 };
	struct perf_event_attr one = attr_hw(PERF_COUNT_HW_INSTRUCTIONS), four[4];
	struct fastread_group g, other[2];
	struct fastread_count a, b;
	uint64_t r[1], gap_max = 0;
	int moved = 0, k, opened = 0;
	uint32_t seen = 0;
	bool ok = true;

	for (k = 0; k < 4; k++)
		four[k] = attr_hw(PERF_COUNT_HW_INSTRUCTIONS);
	if (!CHECK(fastread_group_open(&g, &one, 1) == 0, "index moves: group of one opened"))
		return;
	for (k = 0; k < 2; k++, opened++)
		if (!CHECK(fastread_group_open(&other[k], four, 4) == 0,
			   "index moves: group %d of 4 opened", k))
			goto out;
	for (int round = 0; round < ROUNDS; round++) {
		uint32_t before = g.page[0]->index, after;
		uint64_t gap;

		ok &= fastread_group_read(&g, &a) == 0;
		pmu_loop(N);
		ok &= fastread_group_read(&g, &b) == 0;
		after = g.page[0]->index;
		ok &= own_group_read(&g, r) == 0;
		seen |= 1u << (before & 31) | 1u << (after & 31);
		moved += before != after && before != 0 && after != 0;
		gap = r[0] - b.value;
		ok &= gap <= GAP_MAX && b.value >= a.value;
		gap_max = gap > gap_max ? gap : gap_max;
		/* Let the rotation (every 4 ms of guest time) move it. */
		pmu_loop(1000000);
	}
	CHECK(moved > 0 && (seen & 0x3e) != (seen & -(seen & 0x3e)),
	      "index moves: the group of one sat on indexes (mask 0x%x), and moved from one "
	      "counter to another between the two reads of %d of %d rounds", seen, moved, ROUNDS);
	CHECK(ok, "index moves: every read after the loop within %" PRIu64 " (at most %d) of the "
	      "kernel's read(2) just after it", gap_max, GAP_MAX);
	CHECK(g.nr_user_reads > 0 && g.cache.full_passes > (uint64_t)moved,
	      "index moves: %" PRIu64 " reads from user space, %" PRIu64 " full passes (at least "
	      "one per move; a group that takes turns has enabled != running, whose times are "
	      "never cached)", g.nr_user_reads, g.cache.full_passes);
out:
	for (k = 0; k < opened; k++)
		fastread_group_close(&other[k]);
	fastread_group_close(&g);
}

/*
 * More groups than the PMU has counters: the kernel rotates them (every
 * perf_event_mux_interval_ms, 4 ms), so each group is on the PMU part of
 * the time. A read while a group is off must take read(2) and still be
 * right; its extrapolation is held to a pinned cycles counter (always on
 * the cycle counter; under -icount shift=0 a user cycle is a user instruction).
 */
static void check_multiplexed_groups(void)
{
	enum { GROUPS = 3, PER_GROUP = 4, ROUNDS = 300 };
	struct fastread_group g[GROUPS];
	struct perf_event_attr attrs[PER_GROUP], ref;
	struct fastread_count c[PER_GROUP];
	struct pmu_snapshot r0, r1;
	struct perf_event_mmap_page *ref_pc;
	uint64_t scaled;
	bool brackets = true;
	uint64_t spread = 0;
	int i, k, err, opened = 0, ref_fd;

	pmu_attr_init(&ref, PERF_COUNT_HW_CPU_CYCLES, PMU_CONFIG1_RDPMC | PMU_CONFIG1_64BIT);
	ref.pinned = 1;
	ref_fd = pmu_open(&ref, -1);
	ref_pc = ref_fd >= 0 ? pmu_map(ref_fd) : NULL;
	if (!CHECK(ref_pc && pmu_read_user(ref_pc, &r0) == 0, "multiplex: pinned cycles reference"))
		return;
	for (i = 0; i < PER_GROUP; i++)
		attrs[i] = attr_hw(PERF_COUNT_HW_INSTRUCTIONS);
	for (k = 0; k < GROUPS; k++) {
		err = fastread_group_open(&g[k], attrs, PER_GROUP);
		if (!CHECK(err == 0, "multiplex: group %d of 4 instructions opened (%s)", k,
			   err ? strerror(-err) : "ok"))
			goto out;
		opened++;
	}
	for (int round = 0; round < ROUNDS; round++) {
		for (k = 0; k < GROUPS; k++) {
			brackets &= bracket_ok(&g[k], "multiplex", true);
			/* The 4 counters of a group run together: equal up to the
			 * instructions between their reads inside one pass (about
			 * 70 per event from user space, none through read(2)). */
			fastread_group_read(&g[k], c);
			for (i = 1; i < PER_GROUP; i++)
				if (c[i].value - c[0].value > spread)
					spread = c[i].value - c[0].value;
		}
		pmu_loop(250000);
	}
	pmu_read_user(ref_pc, &r1);
	CHECK(brackets, "multiplex: every read, user or read(2), agreed with our read(2)");
	CHECK(spread < 400, "multiplex: the 4 events of a group always read alike (spread %" PRIu64 ")",
	      spread);
	for (k = 0; k < GROUPS; k++) {
		fastread_group_read(&g[k], c);
		err = fastread_scale(&c[0], &scaled);
		printf("    group %d: user reads %" PRIu64 ", read(2) fallbacks %" PRIu64
		       ", running/enabled %.3f, scaled %" PRIu64 " vs reference %" PRIu64 "\n", k,
		       g[k].nr_user_reads, g[k].nr_syscall_reads,
		       (double)c[0].running / (double)c[0].enabled, scaled, r1.count - r0.count);
		CHECK(g[k].nr_user_reads > 0 && g[k].nr_syscall_reads > 0,
		      "multiplex: group %d read both ways (user %" PRIu64 ", read(2) %" PRIu64 ")", k,
		      g[k].nr_user_reads, g[k].nr_syscall_reads);
		CHECK(c[0].running < c[0].enabled, "multiplex: group %d running < enabled", k);
		/* The reference also counts before the groups were opened and the
		 * reads' own instructions: compare loosely, within 10%. */
		CHECK(err == 0 && scaled > (r1.count - r0.count) * 9 / 10 &&
			      scaled < (r1.count - r0.count) * 11 / 10,
		      "multiplex: group %d extrapolated %" PRIu64 " within 10%% of %" PRIu64, k,
		      scaled, r1.count - r0.count);
	}
out:
	for (k = 0; k < opened; k++)
		fastread_group_close(&g[k]);
	pmu_unmap(ref_pc);
	close(ref_fd);
}

/*
 * Two single-event groups of cycles. With 64-bit event counters (-cpu max)
 * both are 64-bit and stay on the PMU. Without (cortex-a57) a 64-bit cycles
 * could sit only on the cycle counter, so the two would take turns and a
 * read of the one that is out would fall back to read(2) (test_probe_arm64
 * asserts that kernel fact with its own reader); fastread opens cycles at 32
 * bits there, and both stay on the PMU too: every read from user space.
 */
static void check_cycles_pair(void)
{
	struct perf_event_attr a = attr_hw(PERF_COUNT_HW_CPU_CYCLES);
	struct fastread_group g[2];
	bool brackets = true;
	int k, err;

	for (k = 0; k < 2; k++) {
		err = fastread_group_open(&g[k], &a, 1);
		if (!CHECK(err == 0, "cycles pair: group %d opened", k)) {
			if (k == 1)
				fastread_group_close(&g[0]);
			return;
		}
	}
	for (int round = 0; round < 200; round++) {
		for (k = 0; k < 2; k++)
			brackets &= bracket_ok(&g[k], "cycles pair", true);
		pmu_loop(500000);
	}
	CHECK(brackets, "cycles pair: every read agreed with our read(2)");
	for (k = 0; k < 2; k++) {
		unsigned want = pmu_cpu_has_long_counters() ? 64 : 32;

		CHECK(g[k].page[0]->pmc_width == want, "cycles pair: group %d is %u-bit (want %u)",
		      k, (unsigned)g[k].page[0]->pmc_width, want);
		CHECK(g[k].nr_user_reads == 400 && g[k].nr_syscall_reads == 0,
		      "cycles pair: group %d always from user space (user %" PRIu64 ", read(2) %"
		      PRIu64 ")", k, g[k].nr_user_reads, g[k].nr_syscall_reads);
		fastread_group_close(&g[k]);
	}
}

/*
 * With /proc/sys/kernel/perf_user_access = 0 the kernel still says
 * cap_user_rdpmc = 1 but index = 0: fastread must say why and use read(2).
 */
static void check_user_access_off(void)
{
	struct perf_event_attr a = attr_hw(PERF_COUNT_HW_INSTRUCTIONS);
	const char *problem;
	struct fastread_group g;
	int err;

	CHECK(fastread_user_access_problem() == NULL, "user access on: no problem reported");
	if (!CHECK(pmu_sysctl_write("/proc/sys/kernel/perf_user_access", "0") == 0,
		   "perf_user_access set to 0"))
		return;
	problem = fastread_user_access_problem();
	CHECK(problem && strstr(problem, "perf_user_access"), "user access off: problem \"%s\"",
	      problem ? problem : "(none)");
	err = fastread_group_open(&g, &a, 1);
	if (CHECK(err == 0, "user access off: group opened")) {
		bracket_ok(&g, "user access off", false);
		CHECK(g.nr_user_reads == 0 && g.nr_syscall_reads == 2,
		      "user access off: every read took read(2) (user %" PRIu64 ", read(2) %" PRIu64
		      ")", g.nr_user_reads, g.nr_syscall_reads);
		fastread_group_close(&g);
	}
	CHECK(pmu_sysctl_write("/proc/sys/kernel/perf_user_access", "1") == 0,
	      "perf_user_access back to 1");
}

/*
 * Two threads on one vCPU, each with its own group, each reading around the
 * known loop while the other runs: the kernel preempts them (timer tick) and
 * rewrites each page at every switch. Each thread must count exactly its own
 * loop (the other thread's 20 M instructions would show) and read from user
 * space.
 */
struct thread_result {
	int64_t overhead[3];
	long involuntary_switches;
	uint64_t user_reads, syscall_reads;
	int err;
};

static void *thread_loop(void *arg)
{
	struct thread_result *r = arg;
	struct perf_event_attr a = attr_hw(PERF_COUNT_HW_INSTRUCTIONS);
	struct fastread_count c0, c1;
	struct fastread_group g;
	struct rusage u0, u1;

	r->err = fastread_group_open(&g, &a, 1);
	if (r->err)
		return NULL;
	getrusage(RUSAGE_THREAD, &u0);
	for (int run = 0; run < 3; run++) {
		fastread_group_read(&g, &c0);
		pmu_loop(10000000);
		fastread_group_read(&g, &c1);
		r->overhead[run] = (int64_t)(c1.value - c0.value) - 20000000;
	}
	getrusage(RUSAGE_THREAD, &u1);
	r->involuntary_switches = u1.ru_nivcsw - u0.ru_nivcsw;
	r->user_reads = g.nr_user_reads;
	r->syscall_reads = g.nr_syscall_reads;
	fastread_group_close(&g);
	return NULL;
}

static void check_threads(void)
{
	struct thread_result r[2];
	pthread_t t[2];
	int i;

	memset(r, 0, sizeof(r));
	for (i = 0; i < 2; i++)
		if (!CHECK(pthread_create(&t[i], NULL, thread_loop, &r[i]) == 0,
			   "threads: thread %d started", i))
			return;
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < 2; i++) {
		CHECK(r[i].err == 0 && r[i].overhead[0] > 0 &&
			      r[i].overhead[0] <= LOOP_OVERHEAD_MAX &&
			      r[i].overhead[1] == r[i].overhead[0] && r[i].overhead[2] == r[i].overhead[0],
		      "threads: thread %d counts only its own loop: 2n + %" PRId64 ", %" PRId64
		      ", %" PRId64 " (%ld involuntary switches)", i, r[i].overhead[0],
		      r[i].overhead[1], r[i].overhead[2], r[i].involuntary_switches);
		CHECK(r[i].syscall_reads == 0 && r[i].user_reads == 6,
		      "threads: thread %d read from user space (%" PRIu64 " of 6)", i, r[i].user_reads);
	}
	/* Otherwise the test proved nothing about switches. */
	CHECK(r[0].involuntary_switches + r[1].involuntary_switches > 0,
	      "threads: the loops were preempted (%ld + %ld times)", r[0].involuntary_switches,
	      r[1].involuntary_switches);
}

/*
 * As nobody, at perf_event_paranoid 2 (user space only: the attrs here all
 * exclude the kernel): the same user-space reads must work. The checks run
 * in a child that drops its privileges; its exit status carries them back.
 */
static void check_unprivileged(void)
{
	static const uint64_t two[] = { PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CPU_CYCLES };
	const unsigned ev_w = pmu_cpu_has_long_counters() ? 64 : 32;
	const unsigned two_w[] = { ev_w, ev_w };
	int status = -1;
	pid_t pid;

	if (!CHECK(pmu_sysctl_write("/proc/sys/kernel/perf_event_paranoid", "2") == 0,
		   "unprivileged: perf_event_paranoid 2"))
		return;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		pmu_failures = 0;	/* the child reports its own checks only */
		if (!CHECK(pmu_drop_privileges() == 0, "unprivileged: now uid %d", (int)getuid()))
			_exit(1);
		check_group(two, two_w, 2, "unprivileged {instructions,cycles}");
		fflush(stdout);
		_exit(pmu_exit_status());
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	CHECK(pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "unprivileged: every check of the child passed");
	pmu_sysctl_write("/proc/sys/kernel/perf_event_paranoid", "3");
}

/*
 * cortex-a57 has no 64-bit event counters, so a second 64-bit cycles event in
 * a group could not have the cycle counter (the kernel refused it with
 * EINVAL). fastread opens cycles at 32 bits there: the first takes the cycle
 * counter, the second an event counter. Both must count the loop, read from
 * user space.
 */
static void check_second_cycles_in_group(void)
{
	struct perf_event_attr attrs[2] = { attr_hw(PERF_COUNT_HW_CPU_CYCLES),
					    attr_hw(PERF_COUNT_HW_CPU_CYCLES) };
	struct fastread_group g;
	int err = fastread_group_open(&g, attrs, 2);

	if (!CHECK(err == 0, "{cycles,cycles}: fastread_group_open -> %s", strerror(-err)))
		return;
	CHECK(g.page[0] && g.page[1] && g.page[0]->index == 32 && g.page[0]->pmc_width == 32 &&
	      g.page[1]->index >= 1 && g.page[1]->index <= 31 && g.page[1]->pmc_width == 32,
	      "{cycles,cycles}: the first on the cycle counter (index %u, %u bits), the second "
	      "on an event counter (index %u, %u bits)", g.page[0] ? g.page[0]->index : 0,
	      g.page[0] ? (unsigned)g.page[0]->pmc_width : 0, g.page[1] ? g.page[1]->index : 0,
	      g.page[1] ? (unsigned)g.page[1]->pmc_width : 0);
	check_user_reads(&g, "{cycles,cycles}");
	bracket_ok(&g, "{cycles,cycles}", false);
	check_exact_loop(&g, "{cycles,cycles}");
	fastread_group_close(&g);
}

/*
 * What fastread's -ENOSPC rests on, with groups opened by our own code: a
 * disabled leader is left out of arm_pmu's validate_group() unless it has
 * enable_on_exec, so 7 instructions events on 6 counters open and never run;
 * with the flag the 7th is refused (EINVAL). And why a time_running of 0
 * right after the enable is no test of "cannot be scheduled": a group of 4
 * that fits reads 0 too while another group of 4 holds the counters, and
 * runs once the kernel rotates them.
 */
static int raw_group_open(int *fd, int nr, bool enable_on_exec)
{
	struct perf_event_attr a;
	int i, err;

	for (i = 0; i < nr; i++) {
		pmu_attr_init(&a, PERF_COUNT_HW_INSTRUCTIONS, 0);
		a.disabled = i == 0;
		a.enable_on_exec = enable_on_exec && i == 0;
		a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING;
		fd[i] = pmu_open(&a, i ? fd[0] : -1);
		if (fd[i] < 0) {
			err = fd[i];
			while (i-- > 0)
				close(fd[i]);
			return err;
		}
	}
	return 0;
}

static void raw_group_close(int *fd, int nr)
{
	for (int i = 0; i < nr; i++)
		close(fd[i]);
}

/* time_running of a group, read(2) of its leader now; UINT64_MAX on error. */
static uint64_t raw_group_running(int leader)
{
	uint64_t buf[3 + NR_MAX];

	if (read(leader, buf, sizeof(buf)) < (ssize_t)(3 * sizeof(uint64_t)) || buf[1] == 0)
		return UINT64_MAX;
	return buf[2];
}

static void check_group_validation(void)
{
	int a[NR_MAX], b[NR_MAX], err;
	uint64_t run[2];

	err = raw_group_open(a, 7, false);
	if (CHECK(err == 0, "kernel: 7 instructions, plain disabled leader: the group opens (%d)",
		  err)) {
		ioctl(a[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
		pmu_loop(10000000);
		run[0] = raw_group_running(a[0]);
		CHECK(run[0] == 0, "kernel: ... and never runs (running %" PRIu64 " after 2 x 10M)",
		      run[0]);
		raw_group_close(a, 7);
	}
	err = raw_group_open(a, 7, true);
	CHECK(err == -EINVAL, "kernel: 7 instructions, leader with enable_on_exec: the 7th is "
	      "refused (%s)", strerror(-err));
	if (err == 0)
		raw_group_close(a, 7);
	if (!CHECK(raw_group_open(a, 4, true) == 0 && raw_group_open(b, 4, true) == 0,
		   "kernel: two groups of 4 instructions open"))
		return;
	ioctl(a[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	ioctl(b[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	run[0] = raw_group_running(b[0]);
	pmu_loop(10000000);
	run[1] = raw_group_running(b[0]);
	CHECK(run[0] == 0 && run[1] > 0 && run[1] != UINT64_MAX,
	      "kernel: a group of 4 enabled while another holds the counters: running %" PRIu64
	      " right after the enable, %" PRIu64 " ns after 2 x 10M (it fits: running 0 is no "
	      "test)", run[0], run[1]);
	raw_group_close(a, 4);
	raw_group_close(b, 4);
}

int main(void)
{
	static const uint64_t two[] = { PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CPU_CYCLES };
	/* fastread asks for 64 bits first; event counters have them only from
	 * PMUv3p5 (-cpu max). Without them (cortex-a57) every event is 32-bit,
	 * cycles included (fastread/group.c cycles_narrow()), so two cycles fit. */
	bool wide = pmu_cpu_has_long_counters();
	const uint64_t four[] = { PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CPU_CYCLES,
				  PERF_COUNT_HW_INSTRUCTIONS, PERF_COUNT_HW_CPU_CYCLES };
	const unsigned ev_w = wide ? 64 : 32;
	const unsigned two_w[] = { ev_w, ev_w };
	const unsigned four_w[] = { ev_w, ev_w, ev_w, ev_w };

	printf("  fastread on cpu %s\n", pmu_cpu_model());
	check_group(two, two_w, 2, "{instructions,cycles}");
	check_group(four, four_w, 4, "{instructions,cycles,instructions,cycles}");
	check_forced_32bit();
	check_group_validation();
	check_every_counter();
	check_read_slots();
	check_cycles_pair();
	check_multiplexed_groups();
	check_index_moves();
	check_user_access_off();
	check_threads();
	check_unprivileged();
	if (!wide)
		check_second_cycles_in_group();
	return pmu_exit_status();
}
