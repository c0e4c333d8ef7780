/* SPDX-License-Identifier: MIT */
/*
 * reads.c: the cost of one reading of a 4-event software group, side by side:
 * a bare getppid() (the cheapest system call, the unit), a bare
 * PERF_FORMAT_GROUP read(2), fastread_group_read(), PAPI_read() and, run
 * under LD_PRELOAD=libpfshim.so with PFSHIM_EVENTS naming the same 4 events,
 * the marker API's pfshim_read() (issue 22 point 5: at most PAPI_read()'s
 * time). Batches of each are interleaved and the median ns per call of each
 * is reported.
 *
 *   [LD_PRELOAD=libpfshim.so PFSHIM_EVENTS=...] reads BATCHES CALLS_PER_BATCH GOAL_RATIO
 *
 * Software events have no user-space read (docs/kernel-notes.md:
 * cap_user_rdpmc = 0, index = 0), so fastread takes its read(2) fallback
 * here: what is measured is the fallback's cost over a bare read, not the
 * rdpmc path.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <papi.h>

#include "bench.h"
#include "fastread/fastread.h"
#include "pfshim.h"

#define NR_EVENTS BENCH_NR_EVENTS

enum op { OP_GETPPID, OP_READ, OP_FASTREAD, OP_PAPI, OP_PFSHIM, NR_OPS };

static const char *const op_label[NR_OPS] = {
	[OP_GETPPID] = "getppid()",
	[OP_READ] = "read(2), PERF_FORMAT_GROUP of 4",
	[OP_FASTREAD] = "fastread_group_read() of 4",
	[OP_PAPI] = "PAPI_read() of 4",
	[OP_PFSHIM] = "pfshim_read() of 4",
};

static const char *const papi_names[NR_EVENTS] = {
	"perf::TASK-CLOCK", "perf::PAGE-FAULTS", "perf::CONTEXT-SWITCHES", "perf::CPU-MIGRATIONS",
};

struct subjects {
	struct fastread_group group;
	int papi_set;		/* PAPI_NULL when PAPI could not count the 4 events */
	const char *papi_problem;
	const char *pfshim_problem;	/* NULL when pfshim_read() is measured */
};

static int papi_open(struct subjects *s)
{
	int ret = PAPI_library_init(PAPI_VER_CURRENT);

	s->papi_set = PAPI_NULL;
	if (ret != PAPI_VER_CURRENT) {
		s->papi_problem = "PAPI_library_init failed";
		return -ENODEV;
	}
	if (PAPI_create_eventset(&s->papi_set) != PAPI_OK) {
		s->papi_problem = "PAPI_create_eventset failed";
		return -ENODEV;
	}
	for (int i = 0; i < NR_EVENTS; i++) {
		if ((ret = PAPI_add_named_event(s->papi_set, papi_names[i])) != PAPI_OK) {
			s->papi_problem = PAPI_strerror(ret);
			s->papi_set = PAPI_NULL;
			return -ENODEV;
		}
	}
	if ((ret = PAPI_start(s->papi_set)) != PAPI_OK) {
		s->papi_problem = PAPI_strerror(ret);
		s->papi_set = PAPI_NULL;
		return -ENODEV;
	}
	return 0;
}

/* pfshim_read() of the preloaded shim, tried once: NULL, or why it is not measured. */
static const char *pfshim_check(void)
{
	struct pfshim_counts counts;
	int ret;

	if (!pfshim_v1_read)
		return "not run under LD_PRELOAD=libpfshim.so";
	ret = pfshim_read(&counts);
	if (ret == PFSHIM_INACTIVE)
		return "pfshim_read() returned PFSHIM_INACTIVE";
	if (ret != 0)
		return "pfshim_read() failed";
	if (counts.nr != NR_EVENTS)
		return "PFSHIM_EVENTS does not name 4 events, as the group has";
	return NULL;
}

static int subjects_open(struct subjects *s)
{
	struct perf_event_attr attrs[NR_EVENTS];

	for (int i = 0; i < NR_EVENTS; i++)
		bench_sw_attr(&attrs[i], i);
	papi_open(s);
	s->pfshim_problem = pfshim_check();
	return fastread_group_open(&s->group, attrs, NR_EVENTS);
}

/* ns per call of @calls calls of @op; 0 when the op failed. */
static double batch_time(struct subjects *s, enum op op, int calls)
{
	uint64_t buf[3 + 2 * FASTREAD_MAX_EVENTS];
	struct fastread_count out[FASTREAD_MAX_EVENTS];
	long long values[NR_EVENTS];
	struct pfshim_counts counts;
	int err = 0;
	uint64_t t0 = bench_now_ns();

	switch (op) {
	case OP_GETPPID:
		for (int i = 0; i < calls; i++)
			err |= syscall(SYS_getppid) < 0;
		break;
	case OP_READ:
		for (int i = 0; i < calls; i++)
			err |= read(s->group.fd[0], buf, sizeof(buf)) <= 0;
		break;
	case OP_FASTREAD:
		for (int i = 0; i < calls; i++)
			err |= fastread_group_read(&s->group, out) != 0;
		break;
	case OP_PAPI:
		for (int i = 0; i < calls; i++)
			err |= PAPI_read(s->papi_set, values) != PAPI_OK;
		break;
	case OP_PFSHIM:
		for (int i = 0; i < calls; i++)
			err |= pfshim_read(&counts) != 0;
		break;
	default:
		return 0.0;
	}
	if (err)
		return 0.0;
	return (double)(bench_now_ns() - t0) / calls;
}

int main(int argc, char **argv)
{
	struct subjects s;
	double *ns[NR_OPS], med[NR_OPS];
	enum op ops[NR_OPS];
	int batches, calls, err, nr_ops = 0;
	double goal;

	if (argc != 4 || (batches = atoi(argv[1])) < 1 || (calls = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: reads BATCHES CALLS_PER_BATCH GOAL_RATIO\n");
		return 2;
	}
	goal = atof(argv[3]);
	err = subjects_open(&s);
	if (err < 0) {
		fprintf(stderr, "reads: fastread_group_open: %s\n", strerror(-err));
		return 1;
	}
	ops[nr_ops++] = OP_GETPPID;
	ops[nr_ops++] = OP_READ;
	ops[nr_ops++] = OP_FASTREAD;
	if (s.papi_set != PAPI_NULL)
		ops[nr_ops++] = OP_PAPI;
	if (!s.pfshim_problem)
		ops[nr_ops++] = OP_PFSHIM;
	for (int o = 0; o < NR_OPS; o++)
		ns[o] = calloc((size_t)batches, sizeof(double));

	/* Warm-up batches first; then each round runs every op once, rotating the order. */
	for (int b = -batches / 10 - 1; b < batches; b++) {
		for (int k = 0; k < nr_ops; k++) {
			enum op o = ops[(k + (b < 0 ? 0 : b)) % nr_ops];
			double t = batch_time(&s, o, calls);

			if (t == 0.0) {
				fprintf(stderr, "reads: %s failed\n", op_label[o]);
				return 1;
			}
			if (b >= 0)
				ns[o][b] = t;
		}
	}
	for (int k = 0; k < nr_ops; k++)
		med[ops[k]] = bench_median(ns[ops[k]], batches);

	printf("median of %d batches of %d calls each, batches interleaved\n\n", batches, calls);
	printf("%-34s %9s %10s %12s\n", "operation", "ns/call", "x getppid", "x bare read");
	for (int k = 0; k < nr_ops; k++) {
		enum op o = ops[k];

		printf("%-34s %9.0f %10.2f %12.3f\n", op_label[o], med[o], med[o] / med[OP_GETPPID],
		       med[o] / med[OP_READ]);
	}
	if (s.papi_set == PAPI_NULL)
		printf("%-34s skipped: %s\n", op_label[OP_PAPI], s.papi_problem);
	if (s.pfshim_problem)
		printf("%-34s skipped: %s\n", op_label[OP_PFSHIM], s.pfshim_problem);
	printf("\nfastread reads served from user space: %llu, by read(2): %llu%s\n",
	       (unsigned long long)s.group.nr_user_reads, (unsigned long long)s.group.nr_syscall_reads,
	       s.group.nr_user_reads ? "" : " (no PMU here: every read is the fallback)");
	printf("goal: fastread_group_read <= %.2fx the bare read(2): %s (%.3fx)\n", goal,
	       med[OP_FASTREAD] / med[OP_READ] <= goal ? "MET" : "NOT MET",
	       med[OP_FASTREAD] / med[OP_READ]);
	if (s.papi_set != PAPI_NULL && !s.pfshim_problem)
		printf("goal (issue 22 point 5): pfshim_read <= PAPI_read: %s (%.3fx)\n",
		       med[OP_PFSHIM] <= med[OP_PAPI] ? "MET" : "NOT MET",
		       med[OP_PFSHIM] / med[OP_PAPI]);
	fastread_group_close(&s.group);
	return 0;
}
