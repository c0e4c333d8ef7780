/* SPDX-License-Identifier: MIT */
/*
 * markers.c: the cost of one marker pair (begin + end) with 4 software events,
 * side by side in one process run under LD_PRELOAD=libpfshim.so: pfshim's
 * pfshim_begin/end, two bare PERF_FORMAT_GROUP read(2)s of an equal group (the
 * least a pair can cost without a user-space read), and PAPI's high-level
 * PAPI_hl_region_begin/end (events from PAPI_EVENTS).
 *
 *   PFSHIM_EVENTS=... PAPI_EVENTS=... LD_PRELOAD=libpfshim.so \
 *       markers BATCHES PAIRS_PER_BATCH GOAL_VS_READS GOAL_VS_PAPI
 *
 * Exit 0 with a "skipped:" line when the shim has no marker API.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <papi.h>

#include "bench.h"
#include "pfshim.h"

#define NR_EVENTS BENCH_NR_EVENTS

enum op { OP_GETPPID, OP_READS, OP_PFSHIM, OP_PAPI_HL, NR_OPS };

static const char *const op_label[NR_OPS] = {
	[OP_GETPPID] = "getppid()",
	[OP_READS] = "2 x read(2), PERF_FORMAT_GROUP of 4",
	[OP_PFSHIM] = "pfshim_begin + pfshim_end",
	[OP_PAPI_HL] = "PAPI_hl_region_begin + end",
};

struct subjects {
	int leader;
	pfshim_region_t region;
	int have_papi;
	const char *papi_problem;
};

/*
 * The same group fastread opens: this thread only, not inherited, leader
 * opened disabled and the group enabled at once (docs/kernel-notes.md "Open
 * the leader disabled"), read_format with ID and both times.
 */
static int group_open(void)
{
	int leader = -1;

	for (int i = 0; i < NR_EVENTS; i++) {
		struct perf_event_attr attr;
		int fd;

		bench_sw_attr(&attr, i);
		attr.disabled = i == 0;
		attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
		fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, leader, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (i == 0)
			leader = fd;
	}
	if (ioctl(leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0)
		return -errno;
	return leader;
}

/* The marker API, tried once: a clear reason when it cannot be measured. */
static const char *pfshim_problem(struct subjects *s)
{
	int ret;

	if (!pfshim_v1_begin || !pfshim_v1_end || !pfshim_v1_region)
		return "libpfshim.so has no marker API (pfshim_v1_begin) yet";
	s->region = pfshim_region("bench");
	if (!s->region)
		return "pfshim_region() returned 0: the shim is not active";
	ret = pfshim_begin(s->region);
	if (ret == 0)
		ret = pfshim_end(s->region);
	if (ret == PFSHIM_INACTIVE)
		return "pfshim_begin returned PFSHIM_INACTIVE";
	if (ret == PFSHIM_FAILED)
		return "pfshim_begin/end returned PFSHIM_FAILED: counters could not be read";
	if (ret != 0)
		return "pfshim_begin/end returned an error";
	return NULL;
}

static void papi_hl_try(struct subjects *s)
{
	int ret = PAPI_hl_region_begin("bench");

	if (ret == PAPI_OK)
		ret = PAPI_hl_region_end("bench");
	s->have_papi = ret == PAPI_OK;
	if (!s->have_papi)
		s->papi_problem = PAPI_strerror(ret);
}

/* ns per pair of @pairs pairs of @op; 0 when the op failed. */
static double batch_time(struct subjects *s, enum op op, int pairs)
{
	uint64_t buf[3 + 2 * NR_EVENTS];
	int err = 0;
	uint64_t t0 = bench_now_ns();

	switch (op) {
	case OP_GETPPID:
		for (int i = 0; i < pairs; i++)
			err |= syscall(SYS_getppid) < 0;
		break;
	case OP_READS:
		for (int i = 0; i < pairs; i++) {
			err |= read(s->leader, buf, sizeof(buf)) <= 0;
			err |= read(s->leader, buf, sizeof(buf)) <= 0;
		}
		break;
	case OP_PFSHIM:
		for (int i = 0; i < pairs; i++) {
			err |= pfshim_begin(s->region) != 0;
			err |= pfshim_end(s->region) != 0;
		}
		break;
	case OP_PAPI_HL:
		for (int i = 0; i < pairs; i++) {
			err |= PAPI_hl_region_begin("bench") != PAPI_OK;
			err |= PAPI_hl_region_end("bench") != PAPI_OK;
		}
		break;
	default:
		return 0.0;
	}
	if (err)
		return 0.0;
	return (double)(bench_now_ns() - t0) / pairs;
}

static const char *verdict(int met)
{
	return met ? "MET" : "NOT MET";
}

int main(int argc, char **argv)
{
	struct subjects s = { 0 };
	double *ns[NR_OPS], med[NR_OPS];
	enum op ops[NR_OPS];
	int batches, pairs, nr_ops = 0;
	double goal_reads, goal_papi;
	const char *problem;

	if (argc != 5 || (batches = atoi(argv[1])) < 1 || (pairs = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: markers BATCHES PAIRS_PER_BATCH GOAL_VS_READS GOAL_VS_PAPI\n");
		return 2;
	}
	goal_reads = atof(argv[3]);
	goal_papi = atof(argv[4]);
	if ((problem = pfshim_problem(&s))) {
		printf("skipped: %s\n", problem);
		return 0;
	}
	s.leader = group_open();
	if (s.leader < 0) {
		fprintf(stderr, "markers: perf_event_open: %s\n", strerror(-s.leader));
		return 1;
	}
	papi_hl_try(&s);
	ops[nr_ops++] = OP_GETPPID;
	ops[nr_ops++] = OP_READS;
	ops[nr_ops++] = OP_PFSHIM;
	if (s.have_papi)
		ops[nr_ops++] = OP_PAPI_HL;
	for (int o = 0; o < NR_OPS; o++)
		ns[o] = calloc((size_t)batches, sizeof(double));

	for (int b = -batches / 10 - 1; b < batches; b++) {
		for (int k = 0; k < nr_ops; k++) {
			enum op o = ops[(k + (b < 0 ? 0 : b)) % nr_ops];
			double t = batch_time(&s, o, pairs);

			if (t == 0.0) {
				fprintf(stderr, "markers: %s failed\n", op_label[o]);
				return 1;
			}
			if (b >= 0)
				ns[o][b] = t;
		}
	}
	for (int k = 0; k < nr_ops; k++)
		med[ops[k]] = bench_median(ns[ops[k]], batches);

	printf("median of %d batches of %d pairs each, batches interleaved, one process\n\n",
	       batches, pairs);
	printf("%-36s %9s %10s %12s\n", "operation", "ns/pair", "x getppid", "x 2 reads");
	for (int k = 0; k < nr_ops; k++) {
		enum op o = ops[k];

		printf("%-36s %9.0f %10.2f %12.3f\n", op_label[o], med[o], med[o] / med[OP_GETPPID],
		       med[o] / med[OP_READS]);
	}
	if (!s.have_papi)
		printf("%-36s skipped: %s\n", op_label[OP_PAPI_HL], s.papi_problem);
	printf("\ngoal: a pfshim pair <= %.2fx two bare reads: %s (%.3fx)\n", goal_reads,
	       verdict(med[OP_PFSHIM] / med[OP_READS] <= goal_reads), med[OP_PFSHIM] / med[OP_READS]);
	if (s.have_papi)
		printf("goal: a pfshim pair >= %.2fx faster than PAPI_hl: %s (%.2fx)\n", goal_papi,
		       verdict(med[OP_PAPI_HL] / med[OP_PFSHIM] >= goal_papi),
		       med[OP_PAPI_HL] / med[OP_PFSHIM]);
	return 0;
}
