/* SPDX-License-Identifier: MIT */
/*
 * markers_target_arm64.c: a dynamically linked program with pfshim markers,
 * run under the shim by `test_shim_arm64 markers` with PFSHIM_EVENTS starting
 * with instructions:u. From the inside it checks that pfshim_read() brackets
 * a known loop exactly, enters region "loop" LOOP_CALLS times around the same
 * loop (the caller checks the report), and counts with a counter of its own
 * (pmu_arm64.h, not the shim's) what a begin/end pair and a read cost.
 * With MARKERS_COSTS_ONLY=1 in its environment it measures the costs only,
 * with the shim's process-wide counters disabled first (see totals_disable).
 */
#include <dirent.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <time.h>

#include "pfshim.h"
#include "pmu_arm64.h"

#define LOOP_CALLS 5
#define LOOP_N 1000000
#define REPS 1000
#define TRIALS 8
/* pfshim_read's own instructions between the two samples, and the loop's setup. */
#define READ_OVERHEAD_MAX 5000

static struct perf_event_mmap_page *own_pc;
static pfshim_region_t pair_region;
static struct pfshim_counts sink;

static __attribute__((noinline)) void op_nothing(void)
{
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noinline)) void op_pair(void)
{
	pfshim_begin(pair_region);
	pfshim_end(pair_region);
}

/*
 * By name: up to 7 bytes, one word to compare; 8 to 15, two; 16 to 23,
 * three; 24 to 31, four; 63, the longest a name is kept, eight.
 */
static __attribute__((noinline)) void op_pair_name(void)
{
	pfshim_region_begin("byname");
	pfshim_region_end("byname");
}

static __attribute__((noinline)) void op_pair_name2(void)
{
	pfshim_region_begin("by_name_2w");
	pfshim_region_end("by_name_2w");
}

static __attribute__((noinline)) void op_pair_name3(void)
{
	pfshim_region_begin("by_name_three_words");
	pfshim_region_end("by_name_three_words");
}

static __attribute__((noinline)) void op_pair_name4(void)
{
	pfshim_region_begin("by_name_of_four_words_long");
	pfshim_region_end("by_name_of_four_words_long");
}

static __attribute__((noinline)) void op_pair_name8(void)
{
	pfshim_region_begin("by_name_of_eight_words_the_longest_a_region_name_can_have_here_");
	pfshim_region_end("by_name_of_eight_words_the_longest_a_region_name_can_have_here_");
}

static __attribute__((noinline)) void op_read(void)
{
	pfshim_read(&sink);
}

/* What CLOCK_MONOTONIC costs through glibc and the vDSO: a part of a pair's price. */
static __attribute__((noinline)) void op_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	__asm__ volatile("" : : "r"(&ts) : "memory");
}

/* Fewest user instructions REPS calls of @fn took over TRIALS tries
 * (UINT64_MAX if our counter was never on the PMU for a whole try). */
static uint64_t reps_cost(void (*fn)(void))
{
	struct pmu_snapshot a, b;
	uint64_t best = UINT64_MAX;

	for (int t = 0; t < TRIALS; t++) {
		if (pmu_read_user(own_pc, &a) < 0)
			continue;
		for (int i = 0; i < REPS; i++)
			fn();
		if (pmu_read_user(own_pc, &b) == 0 && b.count - a.count < best)
			best = b.count - a.count;
	}
	return best;
}

/*
 * pfshim_read before and after the loop: 2n + a constant. Two constants, in
 * fact: a read is served from fastread's cache of the page's fields until
 * the kernel rewrites the page (a timer tick inside a 2-20 ms loop can:
 * fastread/read.c, "the cached read"), and the read after that takes the
 * full pass, which refills the cache. So every run is the cached constant,
 * or at most READ_FULL_EXTRA more, and the cached one is seen.
 */
#define READ_FULL_EXTRA 250

static void check_read_exact(void)
{
	static const uint64_t lengths[] = { 1000000, 10000000 };
	static struct pfshim_counts a, b;
	int64_t o[6], least = INT64_MAX, most = INT64_MIN;
	bool ok = true;
	int k = 0;

	for (size_t l = 0; l < sizeof(lengths) / sizeof(lengths[0]); l++) {
		for (int run = 0; run < 3; run++, k++) {
			ok &= pfshim_read(&a) == 0;
			pmu_loop(lengths[l]);
			ok &= pfshim_read(&b) == 0;
			o[k] = (int64_t)(b.value[0] - a.value[0]) - (int64_t)(lengths[l] * 2);
			least = o[k] < least ? o[k] : least;
			most = o[k] > most ? o[k] : most;
		}
	}
	printf("  pfshim_read brackets: 2n + %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
	       " %" PRId64 " %" PRId64 "\n", o[0], o[1], o[2], o[3], o[4], o[5]);
	CHECK(ok && a.nr >= 1 && a.running[0] > 0 && a.running[0] == a.enabled[0],
	      "pfshim_read: %d events, the first counted and never multiplexed", a.nr);
	CHECK(least > 0 && least < READ_OVERHEAD_MAX && most - least <= READ_FULL_EXTRA,
	      "pfshim_read brackets the known loop exactly: 2n + %" PRId64 " (cached reads), at "
	      "most 2n + %" PRId64 " (a full read after the kernel rewrote the page)", least, most);
}

/*
 * Disable every perf event this process holds: before the first marker call
 * these are the shim's process-wide (totals) counters. QEMU's PMU has 6 event
 * counters and the cycle counter; 4 events in the totals, 4 in the thread's
 * marker group and our own counter would not fit together, and the groups
 * would take turns (a pair then reads through read(2) part of the time).
 * A disabled event takes no counter; the cost of a pair does not depend on
 * the totals, which are read only at exit. Return: how many were disabled.
 */
static int totals_disable(void)
{
	char path[64], target[64];
	struct dirent *d;
	DIR *dir = opendir("/proc/self/fd");
	int n = 0;

	if (!dir)
		return -errno;
	while ((d = readdir(dir)) != NULL) {
		int fd = atoi(d->d_name);
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", d->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (strcmp(target, "anon_inode:[perf_event]") == 0 &&
		    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0) == 0)
			n++;
	}
	closedir(dir);
	return n;
}

/* The costs: our own instructions counter around REPS pairs and reads. */
static void costs_print(void)
{
	struct perf_event_attr attr;
	struct pfshim_counts c;
	static const struct {
		int words;
		void (*op)(void);
	} by_name[] = {
		{ 1, op_pair_name }, { 2, op_pair_name2 }, { 3, op_pair_name3 },
		{ 4, op_pair_name4 }, { 8, op_pair_name8 },
	};
	uint64_t empty, pair, named[sizeof(by_name) / sizeof(by_name[0])], read, clock;
	bool named_ok = true;
	int fd;

	/* 64-bit where event counters have it (-cpu max), else 32 (cortex-a57). */
	pmu_attr_init(&attr, PERF_COUNT_HW_INSTRUCTIONS, PMU_CONFIG1_RDPMC | PMU_CONFIG1_64BIT);
	fd = pmu_open(&attr, -1);
	if (fd == -EOPNOTSUPP) {
		attr.config1 = PMU_CONFIG1_RDPMC;
		fd = pmu_open(&attr, -1);
	}
	own_pc = fd >= 0 ? pmu_map(fd) : NULL;
	pair_region = pfshim_region("pair");
	if (CHECK(own_pc != NULL, "own instructions counter for the costs") && pfshim_read(&c) == 0) {
		empty = reps_cost(op_nothing);
		pair = reps_cost(op_pair);
		for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
			named[i] = reps_cost(by_name[i].op);
			named_ok = named_ok && named[i] != UINT64_MAX;
		}
		read = reps_cost(op_read);
		clock = reps_cost(op_clock);
		if (CHECK(empty != UINT64_MAX && pair != UINT64_MAX && named_ok &&
			  read != UINT64_MAX && clock != UINT64_MAX,
			  "own counter stayed on the PMU for the costs")) {
			printf("ARM64-BENCH cpu=%s markers events=%d begin_end_pair insns=%.1f\n",
			       pmu_cpu_model(), c.nr, (double)(pair - empty) / REPS);
			for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
				printf("ARM64-BENCH cpu=%s markers events=%d begin_end_pair_by_name "
				       "words=%d insns=%.1f (%.3fx by handle; goal <= 1.2x: %s)\n",
				       pmu_cpu_model(), c.nr, by_name[i].words,
				       (double)(named[i] - empty) / REPS,
				       (double)(named[i] - empty) / (double)(pair - empty),
				       named[i] - empty <= 1.2 * (double)(pair - empty) ? "met"
											: "NOT met");
			printf("ARM64-BENCH cpu=%s markers events=%d pfshim_read insns=%.1f\n",
			       pmu_cpu_model(), c.nr, (double)(read - empty) / REPS);
			printf("ARM64-BENCH cpu=%s clock_gettime_monotonic insns=%.1f\n",
			       pmu_cpu_model(), (double)(clock - empty) / REPS);
		}
	}
}

/* Costs only: no region is checked, and the shim's totals are not counting. */
static int costs_only(void)
{
	int n = totals_disable();

	CHECK(n > 0, "costs only: the shim's %d process-wide counters disabled", n);
	costs_print();
	fflush(stdout);
	return pmu_exit_status();
}

int main(void)
{
	pfshim_region_t loop;
	bool ok = true;

	if (!CHECK(pfshim_active(), "libpfshim.so is loaded and counting"))
		return 1;
	if (getenv("MARKERS_COSTS_ONLY"))
		return costs_only();
	check_read_exact();

	loop = pfshim_region("loop");
	for (int i = 0; i < LOOP_CALLS; i++) {
		ok &= pfshim_begin(loop) == 0;
		pmu_loop(LOOP_N);
		ok &= pfshim_end(loop) == 0;
	}
	CHECK(ok && loop != 0, "region \"loop\" entered and left %d times", LOOP_CALLS);

	costs_print();
	fflush(stdout);
	return pmu_exit_status();
}
