/* SPDX-License-Identifier: MIT */
/*
 * state.h: what markers.c (threads and the API) and report.c
 * (reading every thread's regions into a report) share: the process-wide
 * state of the marker API and the layout of one thread's block. Defined in
 * state.c, so that report.c can be tested on a state built by hand.
 */
#ifndef PFSHIM_PRELOAD_MARKERS_STATE_H
#define PFSHIM_PRELOAD_MARKERS_STATE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "export/report.h"
#include "fastread/fastread.h"
#include "preload/events/events.h"
#include "preload/counters/group_split.h"
#include "preload/markers/host.h"
#include "preload/markers/name_cache.h"
#include "preload/markers/regions.h"

#define MARKERS_LIVE_MAX	1024	/* live threads a report can list */
#define MARKERS_RETIRED_MAX	REPORT_THREADS_LISTED	/* exited threads a report lists one by one */
#define MARKERS_RETIRE_WAIT_MS	2000	/* a report waits this long for another's copy */
#define MARKERS_BLOCK_BUDGET	16384	/* bytes a thread's block may reach: its table's room */

/* One thread's state: one mapping, laid out as this header, the groups, two samples, the table. */
struct marker_thread {
	/*
	 * The fast path of begin, end and read (markers.c, "the fast path"):
	 * the thread's one group when its calls may take it, else NULL.
	 */
	struct fastread_group *fast;
	struct fastread_group *groups;	/* [nr_groups] */
	uint64_t *now;			/* [nr_values]: the latest sample of end or read */
	uint64_t *spare;		/* [nr_values]: pfshim_read's next sample, then swapped with now */
	struct region_thread *regions;
	uint64_t read_errors;
	int live_index;			/* slot in markers.live, or -1 */
	int open_failed;		/* a group did not open: calls return PFSHIM_FAILED */
	int fds_reserved;		/* descriptors counted in markers.fds_used */
	/*
	 * The probe's own reads (probe.c: 2 x PROBE_TRIES per group at most),
	 * left out of the thread's read counts. In the padding before wall: the
	 * header's size is taken from the region table's page.
	 */
	uint16_t probe_user_reads, probe_syscall_reads;
	struct fastread_timer wall;	/* regions' wall clock when mult != 0 (wall_now) */
	struct name_cache names;	/* the regions begun and ended by name (name_cache.h) */
};

struct markers_state {
	struct markers_host host;	/* markers_start(); host.events NULL until then */
	pthread_once_t once;
	/*
	 * Layout computed, tables mapped, key created. Stored last with release:
	 * a report on another thread reads it without pthread_once(), so on
	 * arm64 it must not see ready before the layout and tables it guards.
	 */
	atomic_bool ready;
	struct region_layout layout;
	int nr_groups;
	struct group_spec group[EVENTS_MAX];
	int event_index[EVENTS_MAX];	/* region event -> process.events index */
	/*
	 * Region event e is process event e, for every event (none failed to
	 * open, no hybrid sum): pfshim_read() copies a sample as it is.
	 */
	bool counts_direct;
	/* The group counts one core PMU's parts on a hybrid machine: read, never scaled. */
	bool group_is_part[EVENTS_MAX];
	struct perf_event_attr attr[EVENTS_MAX];	/* in region event order */
	pthread_key_t key;
	size_t block_size;
	struct region_totals *totals;	/* exited threads, merged */
	char *retired;			/* MARKERS_RETIRED_MAX tables of exited threads */
	size_t tables_size;
	_Atomic uint32_t retired_nr;
	_Atomic uint64_t threads_unlisted, names_refused, threads_failed;
	atomic_int retiring;		/* tid holding it while a thread retires or a report reads; 0 */
	_Atomic(struct marker_thread *) live[MARKERS_LIVE_MAX];
	pthread_mutex_t intern_lock;	/* pfshim_region() of a new name only */
	const char *user_read_problem;	/* fastread_user_access_problem(), asked once */
	int fds_cap;			/* descriptors all threads' groups may hold (fd_band) */
	atomic_int fds_used;
	atomic_flag budget_warned;	/* the budget line was written */
	bool probe_reserved;		/* id PROBE_REGION_ID is the probe's hidden region (probe.c) */
};

/* Hidden: the hot path takes their address PC-relative, not through the GOT. */
extern struct markers_state markers __attribute__((visibility("hidden")));
extern struct region_names markers_names __attribute__((visibility("hidden")));

/* markers_names_nr - how many region names are interned (and readable). */
static inline uint32_t markers_names_nr(void)
{
	return atomic_load_explicit(&markers_names.nr, memory_order_acquire);
}


/*
 * markers_retire_lock_try - take the lock exiting threads hold while they
 * retire; a report holds it while it copies the tables. @tries attempts
 * with sched_yield() between them, then up to MARKERS_RETIRE_WAIT_MS more
 * in 1 ms sleeps (a report that runs while another copies waits for it);
 * false at once when the calling thread holds it already (a signal handler
 * interrupted its own report or exit). Async-signal-safe.
 */
bool markers_retire_lock_try(int tries);
void markers_retire_unlock(void);

/* markers_reads_collect - @t's counts of user-space and read(2) reads, into @into. */
void markers_reads_collect(const struct marker_thread *t, struct region_thread *into);

#endif
