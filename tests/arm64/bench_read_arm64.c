/* SPDX-License-Identifier: MIT */
/*
 * bench_read_arm64.c: how many instructions one read of a counter costs, from
 * user space (fastread, and our own minimal read) and through read(2), counted
 * by the guest PMU itself. Under -icount shift=0 the counts are repeatable but
 * emulated: the ratios mean something, the absolute numbers are this build's.
 * A benchmark: it asserts only that the user-space path was taken.
 */
#include <stdbool.h>

#include "fastread/fastread.h"
#include "fastread/inline.h"
#include "pmu_arm64.h"

#define REPS 1000
#define TRIALS 8

/* Counts user AND kernel instructions: read(2) spends most of its in the kernel. */
static struct perf_event_mmap_page *ref_pc;

struct op {
	struct fastread_group *g;
	struct fastread_count out[4];
	uint64_t sample[4 + 2];
	struct perf_event_mmap_page *pc;
	int fd;
	int err;
};

/*
 * Each op returns what its read returned, and reps_cost() ORs it into o->err:
 * an op is then the read's call and nothing else (a tail call, with no frame
 * of its own), and op_nothing() the same shape calling nothing, so that
 * what a row costs minus op_nothing() is what the read costs the program
 * that calls it: its call and return included.
 */
static __attribute__((noinline)) int op_nothing(struct op *o)
{
	__asm__ volatile("" : : "r"(o) : "memory");
	return 0;
}

static __attribute__((noinline)) int op_fastread(struct op *o)
{
	return fastread_group_read(o->g, o->out);
}

/* The same read inlined into the caller (fastread/inline.h): no library call. */
static __attribute__((noinline)) int op_fastread_inline(struct op *o)
{
	return fastread_group_read_inline(o->g, o->sample);
}

static __attribute__((noinline)) int op_own_user(struct op *o)
{
	struct pmu_snapshot s;

	return pmu_read_user(o->pc, &s);
}

static __attribute__((noinline)) int op_read_syscall(struct op *o)
{
	uint64_t buf[3 + 2 * FASTREAD_MAX_EVENTS];

	return read(o->fd, buf, sizeof(buf)) > 0 ? 0 : -errno;
}

/* Fewest instructions REPS calls of @fn took over TRIALS tries: a timer
 * interrupt inside one try only makes that try longer. */
static uint64_t reps_cost(int (*fn)(struct op *), struct op *o)
{
	struct pmu_snapshot a, b;
	uint64_t best = UINT64_MAX;
	int err = 0;

	for (int t = 0; t < TRIALS; t++) {
		pmu_read_user(ref_pc, &a);
		for (int i = 0; i < REPS; i++)
			err |= fn(o);
		pmu_read_user(ref_pc, &b);
		if (b.count - a.count < best)
			best = b.count - a.count;
	}
	o->err |= err;
	return best;
}

static double per_op(int (*fn)(struct op *), struct op *o, uint64_t empty)
{
	return (double)(reps_cost(fn, o) - empty) / REPS;
}

static int group_open_n(struct fastread_group *g, int nr)
{
	struct perf_event_attr attrs[4];

	for (int i = 0; i < nr; i++)
		pmu_attr_init(&attrs[i], i % 2 ? PERF_COUNT_HW_CPU_CYCLES : PERF_COUNT_HW_INSTRUCTIONS,
			      0);
	return fastread_group_open(g, attrs, nr);
}

int main(void)
{
	struct fastread_group g1, g4;
	struct perf_event_attr ref, one;
	struct op o = { 0 };
	double fr1, fr4, in1, in4, own1, sys1, sys4;
	uint64_t empty;
	int ref_fd, fd1;

	pmu_attr_init(&ref, PERF_COUNT_HW_INSTRUCTIONS, PMU_CONFIG1_RDPMC | PMU_CONFIG1_64BIT);
	ref.exclude_kernel = 0;
	ref.pinned = 1;
	ref_fd = pmu_open(&ref, -1);
	ref_pc = ref_fd >= 0 ? pmu_map(ref_fd) : NULL;
	pmu_attr_init(&one, PERF_COUNT_HW_INSTRUCTIONS, PMU_CONFIG1_RDPMC | PMU_CONFIG1_64BIT);
	fd1 = pmu_open(&one, -1);
	o.pc = fd1 >= 0 ? pmu_map(fd1) : NULL;
	if (!CHECK(ref_pc && o.pc, "reference counter and single event opened and mapped") ||
	    !CHECK(group_open_n(&g1, 1) == 0 && group_open_n(&g4, 4) == 0,
		   "fastread groups of 1 and 4 opened"))
		return pmu_exit_status();

	empty = reps_cost(op_nothing, &o);
	o.g = &g1;
	fr1 = per_op(op_fastread, &o, empty);
	in1 = per_op(op_fastread_inline, &o, empty);
	o.g = &g4;
	fr4 = per_op(op_fastread, &o, empty);
	in4 = per_op(op_fastread_inline, &o, empty);
	own1 = per_op(op_own_user, &o, empty);
	o.fd = fd1;
	sys1 = per_op(op_read_syscall, &o, empty);
	o.fd = g4.fd[0];
	sys4 = per_op(op_read_syscall, &o, empty);

	CHECK(o.err == 0, "every read succeeded");
	CHECK(g1.nr_user_reads == 2 * REPS * TRIALS && g1.nr_syscall_reads == 0 &&
		      g4.nr_user_reads == 2 * REPS * TRIALS && g4.nr_syscall_reads == 0,
	      "every fastread read, called and inlined, came from user space (1 event: %" PRIu64
	      "/%d, 4 events: %" PRIu64 "/%d)", g1.nr_user_reads, 2 * REPS * TRIALS,
	      g4.nr_user_reads, 2 * REPS * TRIALS);

	printf("ARM64-BENCH cpu=%s fastread_read_1 insns=%.1f\n", pmu_cpu_model(), fr1);
	printf("ARM64-BENCH cpu=%s fastread_read_4 insns=%.1f\n", pmu_cpu_model(), fr4);
	printf("ARM64-BENCH cpu=%s fastread_inline_read_1 insns=%.1f\n", pmu_cpu_model(), in1);
	printf("ARM64-BENCH cpu=%s fastread_inline_read_4 insns=%.1f\n", pmu_cpu_model(), in4);
	printf("ARM64-BENCH cpu=%s own_mrs_read_1 insns=%.1f\n", pmu_cpu_model(), own1);
	printf("ARM64-BENCH cpu=%s syscall_read_1 insns=%.1f\n", pmu_cpu_model(), sys1);
	printf("ARM64-BENCH cpu=%s syscall_read_group4 insns=%.1f\n", pmu_cpu_model(), sys4);
	printf("ARM64-BENCH cpu=%s ratio_read1_over_fastread1=%.1f ratio_group4_over_fastread4=%.1f\n",
	       pmu_cpu_model(), sys1 / fr1, sys4 / fr4);
	/* The issues' goals, reported rather than asserted: emulated numbers. */
	printf("ARM64-BENCH cpu=%s goal one-event read <= 60 insns: %s; >= 25x fewer than read(2): %s\n",
	       pmu_cpu_model(), fr1 <= 60 ? "met" : "NOT met", sys1 / fr1 >= 25 ? "met" : "NOT met");
	printf("ARM64-BENCH cpu=%s goal one-event read <= 30 insns (issue 11, the call included): "
	       "%s (%.1f); inlined (fastread/inline.h): %s (%.1f)\n", pmu_cpu_model(),
	       fr1 <= 30 ? "met" : "NOT met", fr1, in1 <= 30 ? "met" : "NOT met", in1);

	fastread_group_close(&g1);
	fastread_group_close(&g4);
	return pmu_exit_status();
}
