/* SPDX-License-Identifier: MIT */
/*
 * test_probe_arm64.c: proves, with code that shares nothing with fastread/,
 * that the guest's PMU can be read from user space at all: pages say
 * cap_user_rdpmc = 1 and index > 0, mrs agrees with read(2), and a loop of a
 * known number of instructions is counted exactly (icount makes it repeatable).
 */
#include <stdbool.h>

#include "pmu_arm64.h"

/* Instructions retired outside the loop body between the two reads of
 * loop_measure(): the end of one read, the loop setup and the start of the
 * next. Deterministic for one build; the probe asserts it is the same for
 * every loop length and every run, and small. */
#define LOOP_OVERHEAD_MAX 200

struct event_case {
	const char *name;
	uint64_t config;
};

static const struct event_case events[] = {
	{ "instructions", PERF_COUNT_HW_INSTRUCTIONS },
	{ "cycles", PERF_COUNT_HW_CPU_CYCLES },
};

/* Return: (count after - count before) - 2n, or INT64_MIN if a read failed. */
static __attribute__((noinline)) int64_t loop_measure(struct perf_event_mmap_page *pc, uint64_t n)
{
	struct pmu_snapshot a, b;

	if (pmu_read_user(pc, &a))
		return INT64_MIN;
	pmu_loop(n);
	if (pmu_read_user(pc, &b))
		return INT64_MIN;
	return (int64_t)(b.count - a.count) - (int64_t)(n * PMU_LOOP_BODY_INSNS);
}

/* The known loop, 2 lengths x 3 runs: every overhead must be the same. */
static void check_exact_loop(struct perf_event_mmap_page *pc, const char *what)
{
	static const uint64_t lengths[] = { 1000000, 10000000 };
	int64_t first = INT64_MIN, o;
	bool same = true;

	for (size_t l = 0; l < sizeof(lengths) / sizeof(lengths[0]); l++) {
		for (int run = 0; run < 3; run++) {
			o = loop_measure(pc, lengths[l]);
			printf("    %s: loop %" PRIu64 " x %d insns counted %" PRId64 " = +%" PRId64 "\n",
			       what, lengths[l], PMU_LOOP_BODY_INSNS,
			       (int64_t)(lengths[l] * PMU_LOOP_BODY_INSNS) + o, o);
			if (first == INT64_MIN)
				first = o;
			same &= (o == first);
		}
	}
	CHECK(same && first > 0 && first <= LOOP_OVERHEAD_MAX,
	      "%s: known loop counted exactly, loop*2 + %" PRId64 " %s", what, first,
	      same ? "every time" : "the first time only");
}

/*
 * A 32-bit counter is started 2^31 below its overflow (offset 0x7fffffff):
 * 2 x 1.1e9 instructions take it through the overflow interrupt, where the
 * kernel folds the count into offset and restarts the counter. A read on
 * either side must still give 2n + the usual overhead.
 */
static void check_overflow(struct perf_event_mmap_page *pc, const char *what)
{
	const uint64_t n = 1100000000;
	struct pmu_snapshot a, b;
	int64_t o;

	pmu_read_user(pc, &a);
	pmu_loop(n);
	pmu_read_user(pc, &b);
	o = (int64_t)(b.count - a.count) - (int64_t)(n * PMU_LOOP_BODY_INSNS);
	CHECK(o > 0 && o <= LOOP_OVERHEAD_MAX && a.offset != b.offset,
	      "%s: across the 32-bit overflow (offset %#" PRIx64 " -> %#" PRIx64
	      "): 2 x %" PRIu64 " + %" PRId64, what, (uint64_t)a.offset, (uint64_t)b.offset, n, o);
}

/* mrs before and after one read(2) must bracket it, closely: user space only
 * is counted, and a read(2) costs only a few user instructions. */
static void check_agrees_with_read(int fd, struct perf_event_mmap_page *pc, const char *what)
{
	struct pmu_snapshot a, b;
	int64_t r;

	pmu_read_user(pc, &a);
	r = pmu_read_syscall(fd);
	pmu_read_user(pc, &b);
	CHECK(r >= 0 && a.count <= (uint64_t)r && (uint64_t)r <= b.count && b.count - a.count < 1000,
	      "%s: mrs %" PRIu64 " <= read(2) %" PRId64 " <= mrs %" PRIu64, what, a.count, r, b.count);
}

static void probe_event(const struct event_case *ev, uint64_t config1)
{
	struct perf_event_mmap_page *pc;
	struct perf_event_attr attr;
	struct pmu_snapshot s;
	char what[64];
	unsigned expect_width = (config1 & PMU_CONFIG1_64BIT) ? 64 : 32;
	int fd;

	snprintf(what, sizeof(what), "%s config1=%#" PRIx64, ev->name, config1);
	pmu_attr_init(&attr, ev->config, config1);
	fd = pmu_open(&attr, -1);
	/* Before PMUv3p5 only the cycle counter is 64 bits wide: asking for a
	 * 64-bit event counter is refused with EOPNOTSUPP. */
	if (!pmu_cpu_has_long_counters() && (config1 & PMU_CONFIG1_64BIT) &&
	    ev->config != PERF_COUNT_HW_CPU_CYCLES) {
		CHECK(fd == -EOPNOTSUPP, "%s: refused with EOPNOTSUPP on %s (got %s)", what,
		      pmu_cpu_model(), fd < 0 ? strerror(-fd) : "an fd");
		if (fd >= 0)
			close(fd);
		return;
	}
	if (!CHECK(fd >= 0, "%s: opened (%s)", what, fd < 0 ? strerror(-fd) : "fd"))
		return;
	pc = pmu_map(fd);
	if (CHECK(pc != NULL, "%s: page mapped", what)) {
		CHECK(pc->cap_user_rdpmc == 1, "%s: cap_user_rdpmc = %u", what,
		      (unsigned)pc->cap_user_rdpmc);
		CHECK(pmu_read_user(pc, &s) == 0 && s.index > 0,
		      "%s: index = %u (> 0), pmc_width = %u, offset = %#" PRIx64, what, pc->index,
		      (unsigned)pc->pmc_width, (uint64_t)pc->offset);
		CHECK(pc->pmc_width == expect_width, "%s: pmc_width %u == %u", what,
		      (unsigned)pc->pmc_width, expect_width);
		if (ev->config == PERF_COUNT_HW_CPU_CYCLES)
			CHECK(pc->index == 32, "%s: on the cycle counter (index %u == 32)", what,
			      pc->index);
		check_agrees_with_read(fd, pc, what);
		/* Under -icount shift=0 a cycle is an instruction: both are exact. */
		check_exact_loop(pc, what);
		if (!(config1 & PMU_CONFIG1_64BIT) && ev->config == PERF_COUNT_HW_INSTRUCTIONS)
			check_overflow(pc, what);
		pmu_unmap(pc);
	}
	close(fd);
}

/*
 * Two 64-bit cycles events: with 64-bit event counters (-cpu max) the second
 * goes on an event counter and both stay readable; without (cortex-a57) both
 * want the one cycle counter and the kernel rotates them, so each page's
 * index flips between 32 and 0 — the fixture fastread's fallback needs.
 */
static void check_cycles_pair(void)
{
	struct perf_event_mmap_page *pc[2] = { NULL, NULL };
	int fd[2], on[2] = { 0, 0 }, off[2] = { 0, 0 }, i, round;
	struct perf_event_attr attr;
	struct pmu_snapshot s;
	const int rounds = 200;

	pmu_attr_init(&attr, PERF_COUNT_HW_CPU_CYCLES, PMU_CONFIG1_RDPMC | PMU_CONFIG1_64BIT);
	for (i = 0; i < 2; i++) {
		fd[i] = pmu_open(&attr, -1);
		if (!CHECK(fd[i] >= 0, "cycles pair: event %d opened", i))
			return;
		pc[i] = pmu_map(fd[i]);
		if (!CHECK(pc[i] != NULL, "cycles pair: event %d mapped", i))
			return;
	}
	/* 200 rounds of 1 ms of guest time; the kernel rotates every 4 ms. */
	for (round = 0; round < rounds; round++) {
		for (i = 0; i < 2; i++) {
			if (pmu_read_user(pc[i], &s) == 0)
				on[i]++;
			else
				off[i]++;
		}
		pmu_loop(500000);
	}
	for (i = 0; i < 2; i++) {
		printf("    cycles pair: event %d readable in %d of %d rounds\n", i, on[i], rounds);
		if (strcmp(pmu_cpu_model(), "cortex-a57") == 0)
			CHECK(on[i] > 0 && off[i] > 0,
			      "cycles pair: event %d multiplexed (index 32 %d times, 0 %d times)", i,
			      on[i], off[i]);
		else
			CHECK(off[i] == 0, "cycles pair: event %d always on a counter", i);
		pmu_unmap(pc[i]);
		close(fd[i]);
	}
}

/*
 * A group {cycles, cycles}, both 64-bit: the second has no cycle counter
 * left; where event counters are 64-bit it takes one, where they are not
 * (cortex-a57) the kernel refuses the group with EINVAL, not EOPNOTSUPP.
 * With the second at 32 bits the group opens on an event counter. But with
 * a DISABLED leader arm_pmu's validate_group() skips the leader, the open
 * succeeds, and the group can never be scheduled.
 */
static void check_cycles_group(void)
{
	struct perf_event_attr attr;
	struct perf_event_mmap_page *pc;
	int leader, fd;

	pmu_attr_init(&attr, PERF_COUNT_HW_CPU_CYCLES, PMU_CONFIG1_RDPMC | PMU_CONFIG1_64BIT);
	leader = pmu_open(&attr, -1);
	if (!CHECK(leader >= 0, "cycles group: 64-bit leader opened"))
		return;
	fd = pmu_open(&attr, leader);
	if (pmu_cpu_has_long_counters()) {
		CHECK(fd >= 0, "cycles group: second 64-bit cycles opened (%s)",
		      fd < 0 ? strerror(-fd) : "ok");
	} else {
		CHECK(fd == -EINVAL, "cycles group: second 64-bit cycles refused with EINVAL (%s)",
		      fd < 0 ? strerror(-fd) : "opened");
		attr.config1 = PMU_CONFIG1_RDPMC;
		fd = pmu_open(&attr, leader);
		pc = fd >= 0 ? pmu_map(fd) : NULL;
		CHECK(pc && pc->index > 0 && pc->index < 32 && pc->pmc_width == 32,
		      "cycles group: second cycles at 32 bits opened on an event counter (index %u)",
		      pc ? pc->index : 0);
		pmu_unmap(pc);
		if (fd >= 0)
			close(fd);
		close(leader);
		attr.config1 = PMU_CONFIG1_RDPMC | PMU_CONFIG1_64BIT;
		attr.disabled = 1;
		leader = pmu_open(&attr, -1);
		attr.disabled = 0;
		fd = leader >= 0 ? pmu_open(&attr, leader) : -EBADF;
		CHECK(fd >= 0, "cycles group: with a disabled leader the second 64-bit cycles "
		      "is accepted (%s) although the group can never be scheduled",
		      fd < 0 ? strerror(-fd) : "opened");
	}
	if (fd >= 0)
		close(fd);
	if (leader >= 0)
		close(leader);
}

int main(void)
{
	printf("  probe on cpu %s\n", pmu_cpu_model());
	for (size_t e = 0; e < sizeof(events) / sizeof(events[0]); e++) {
		probe_event(&events[e], PMU_CONFIG1_RDPMC | PMU_CONFIG1_64BIT);
		probe_event(&events[e], PMU_CONFIG1_RDPMC);
	}
	check_cycles_pair();
	check_cycles_group();
	return pmu_exit_status();
}
