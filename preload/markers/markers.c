/* SPDX-License-Identifier: MIT */
/*
 * markers.c: the pfshim_v1_* functions behind pfshim.h. Each thread that
 * calls a marker gets its own, non-inherited counter groups (the kernel
 * refuses to mmap inherited events, and a mapped page describes the counter
 * of the thread that opened it: docs/kernel-notes.md "inherit and mmap do
 * not mix"),
 * read with fastread_group_read(), and its own region table (regions.c).
 *
 * Once a thread is set up, begin/end take no lock, allocate nothing and make
 * no system call when the counters are readable from user space; otherwise
 * one read(2) per group (fastread). A thread with one group read from user
 * space takes a fast path ("the fast path" below): fastread's cached read
 * inlined, no frame, the uncommon cases as tail calls, so that what lands in
 * a region is little more than the counter instructions (docs/performance.md).
 * Wall time is the PMU pages' timestamp
 * counter where they offer one (fastread_timer), else CLOCK_MONOTONIC (vDSO).
 * At thread exit (pthread key destructor) the table is merged into the
 * process tables and its counters closed; after fork() the child starts
 * afresh. Reports read the tables in report.c.
 */
#include "preload/markers/markers.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "fastread/cached.h"
#include "fastread/fastread.h"
#define PFSHIM_IMPLEMENTATION
#include "pfshim.h"
#include "preload/fd.h"
#include "preload/counters/group_split.h"
#include "preload/markers/probe.h"
#include "preload/markers/state.h"
#include "preload/prefault.h"
#include "preload/counters/totals.h"
#include "preload/markers/regions.h"
#include "preload/sandbox.h"
#include "preload/warn.h"

#define PFSHIM_EXPORT __attribute__((visibility("default")))
#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

_Static_assert(REGIONS_EVENTS_MAX == EVENTS_MAX, "a region event per configured event");
_Static_assert(PFSHIM_MAX_EVENTS == EVENTS_MAX, "pfshim_counts holds every event");

/* initial-exec: a TLS access is one load, never a call into the dynamic loader. */
static __thread struct marker_thread *self __attribute__((tls_model("initial-exec")));

/*
 * self->fast, or NULL while there is no self: begin and end test this one
 * pointer and take the thread from it (fast_thread), so that their common
 * path makes one TLS load and one test before the counters, not two of each.
 * Set after self and cleared before it (self_set), so that a signal handler
 * that finds it set finds self set too.
 */
static __thread struct fastread_group *self_fast __attribute__((tls_model("initial-exec")));

static void self_set(struct marker_thread *t)
{
	if (!t)
		self_fast = NULL;
	__asm__ volatile("" ::: "memory");
	self = t;
	__asm__ volatile("" ::: "memory");
	if (t)
		self_fast = t->fast;
}

/* ---- process setup, once */

void markers_start(const struct markers_host *host)
{
	/* Its page, in one system call rather than a fault (prefault.h). */
	prefault_populate(&markers.host, sizeof(markers.host));
	markers.host = *host;
}

/* The process counts (markers_start() was called): PFSHIM_INACTIVE otherwise. */
static bool started(void)
{
	return markers.host.events != NULL;
}

/* Counting, and this process is the one that started (not a vfork child). */
static bool host_is_self(void)
{
	return started() && markers.host.is_self();
}

/* The attr of the per-thread copy of event @i: the privilege levels the totals ended with. */
static void attr_for(struct perf_event_attr *a, int i)
{
	const struct counter *c = &markers.host.totals->c[i];

	*a = markers.host.events->ev[i].attr;
	a->size = sizeof(*a);
	if (c->kernel_excluded)
		a->exclude_kernel = 1;
	if (c->user_only)
		a->exclude_hv = 1;
	/*
	 * :D and :e ask the totals' groups to be scheduled so; these per-thread
	 * copies cannot be (the kernel refuses a pinned member, and two exclusive
	 * groups exclude each other), so they take their turns as usual.
	 */
	a->pinned = 0;
	a->exclusive = 0;
}

/*
 * The totals' groups, minus the events that failed to open there, each split
 * into groups of FASTREAD_MAX_EVENTS: the same events, grouped the same way
 * (software apart from hardware, so a multiplexed hardware group does not
 * drag page-faults into its scaling).
 */
static void groups_plan(int *group_of)
{
	const struct counter_set *s = markers.host.totals;
	int e = 0;

	markers.nr_groups = 0;
	for (int leader = 0; leader < s->nr; leader++) {
		int in_group = 0;

		if (s->c[leader].fd < 0 || s->c[leader].leader != leader)
			continue;
		for (int i = leader; i < s->nr; i++) {
			struct group_spec *g;

			if (s->c[i].fd < 0 || s->c[i].leader != leader)
				continue;
			if (in_group == 0 || in_group == FASTREAD_MAX_EVENTS) {
				markers.group[markers.nr_groups++] = (struct group_spec){ e, 0 };
				in_group = 0;
			}
			g = &markers.group[markers.nr_groups - 1];
			attr_for(&markers.attr[e], i);
			markers.event_index[e] = i;
			group_of[e] = markers.nr_groups - 1;
			g->nr++;
			in_group++;
			e++;
		}
	}
	markers.layout.nr_events = e;
}

/*
 * A trial open of the planned group [first, first + nr): fastread says
 * -ENOSPC when the PMU cannot hold it as one group. The totals' groups were
 * split by the kernel's EINVAL already, but these copies ask for user access
 * (on arm64 a 64-bit counter first), which can need counters the totals'
 * did not. Groups of software events only always fit: not tried, so the
 * set-up costs nothing more where there is no PMU.
 */
static int group_try_open(int first, int nr, void *arg)
{
	struct fastread_group g;
	bool software = true;
	int err;

	(void)arg;
	for (int k = 0; k < nr; k++)
		software &= markers.attr[first + k].type == PERF_TYPE_SOFTWARE;
	if (software)
		return 0;
	err = fastread_group_open(&g, &markers.attr[first], nr);
	if (err == 0)
		fastread_group_close(&g);
	return err;
}

/*
 * Split what the PMU cannot hold at once (they then take turns), and renumber.
 * -E2BIG cannot happen: every group keeps one of at most EVENTS_MAX events.
 */
static void groups_split(int *group_of)
{
	group_plan_split(markers.group, &markers.nr_groups, EVENTS_MAX, group_try_open, NULL);
	for (int g = 0; g < markers.nr_groups; g++) {
		int first = markers.group[g].first;

		for (int k = 0; k < markers.group[g].nr; k++)
			group_of[first + k] = g;
		/* totals.c gave each core PMU groups of its own: one event tells. */
		markers.group_is_part[g] = markers.host.events->ev[markers.event_index[first]].pmu[0];
	}
}

static size_t page_round(size_t n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	return (n + page - 1) / page * page;
}

static void thread_exit(void *arg);

/* What one thread's block holds besides its region table: now and spare are 2 samples. */
static size_t block_header_size(int nr_events, int nr_groups)
{
	return sizeof(struct marker_thread) + (size_t)nr_groups * sizeof(struct fastread_group) +
	       2 * (1 + (size_t)nr_events + 2 * (size_t)nr_groups) * sizeof(uint64_t);
}

/*
 * The band less the numbers already taken in it when the first thread's
 * markers start: the totals' (none when the constructor could put them
 * above the soft limit: usage.md "The descriptor budget"), the report
 * stream's duplicate (likewise), the job directory's, any the program put
 * there. A report's file takes the lowest free number for the moment of its
 * write, as it does without markers: nothing is kept for it. Under the
 * program's seccomp filter fcntl() may kill it (sandbox.h): then the totals
 * in the band are known, and 2 more are assumed (the stream, the job).
 */
static void markers_budget_init(void)
{
	const struct counter_set *s = markers.host.totals;
	int lo, hi, band = fd_band(&lo, &hi), taken = 0;

	if (sandbox_filtered()) {
		for (int i = 0; i < s->nr; i++)
			taken += s->c[i].fd >= lo && s->c[i].fd < hi;
		taken += 2;
	} else {
		for (int fd = lo; fd < hi; fd++)
			taken += fcntl(fd, F_GETFD) >= 0;
	}
	markers.fds_cap = band - taken;
}

static void markers_init(void)
{
	int group_of[EVENTS_MAX];
	size_t header;
	int nr_events;

	/* Before any name: the probe's hidden region is id PROBE_REGION_ID in every table. */
	probe_reserve(&markers_names);
	markers.probe_reserved = true;
	groups_plan(group_of);
	groups_split(group_of);
	nr_events = markers.layout.nr_events;
	markers.counts_direct = nr_events == markers.host.events->nr;
	for (int e = 0; e < nr_events; e++)
		markers.counts_direct &= markers.event_index[e] == e;
	header = block_header_size(nr_events, markers.nr_groups);
	/* The table gets what MARKERS_BLOCK_BUDGET leaves: 63 paths unless the events are many. */
	if (region_layout_init(&markers.layout, nr_events, markers.nr_groups, group_of,
			       MARKERS_BLOCK_BUDGET > header ? MARKERS_BLOCK_BUDGET - header : 0) < 0)
		return;
	markers.block_size = page_round(header + markers.layout.thread_size);
	markers.tables_size = page_round(region_totals_size(&markers.layout) +
					 MARKERS_RETIRED_MAX * markers.layout.thread_size);
	markers.totals = fd_map_zeroed(markers.tables_size);
	if (!markers.totals)
		return;
	markers.retired = (char *)markers.totals + region_totals_size(&markers.layout);
	region_totals_init(markers.totals, &markers.layout);
	if (pthread_key_create(&markers.key, thread_exit) != 0)
		return;
	markers_budget_init();
	/* Asked here, not in a report: it reads sysfs with stdio. */
	markers.user_read_problem = fastread_user_access_problem();
	atomic_store_explicit(&markers.ready, true, memory_order_release);
}

/* The host's errno survives the set-up's sysfs reads and failed opens. */
static void markers_once(void)
{
	int saved_errno = errno;

	markers_init();
	errno = saved_errno;
}

static bool markers_ready(void)
{
	if (!host_is_self())
		return false;
	pthread_once(&markers.once, markers_once);
	return markers.ready;
}

/* ---- one thread */

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * A region's wall clock: where the thread's counters are read from user
 * space, the counter their pages' times come from (cntvct_el0 on arm64),
 * a fraction of the cost of clock_gettime() through glibc and the vDSO
 * (docs/performance.md "Figures behind the code"), else CLOCK_MONOTONIC. Chosen
 * once per thread: the two clocks have different origins, so a begin and
 * its end must read the same one. Both count the same counter at nominal
 * rate; they differ by NTP's correction only (parts per million). The
 * timer's count is stored as it is: the thread's table says so
 * (region_thread.wall_mult), and is converted to ns when a report copies it.
 */
static inline __attribute__((always_inline)) uint64_t wall_timer(void)
{
	return arch_read_timestamp();
}

static inline uint64_t wall_now(const struct marker_thread *t)
{
	return t->wall.mult ? wall_timer() : monotonic_ns();
}

/*
 * A failed read of group @g: its values from @keep, counted in read_errors.
 * Out of line, so that its registers cost begin and end nothing (arm64).
 */
static __attribute__((noinline)) int group_keep(struct marker_thread *t, int g, uint64_t *dst,
						const uint64_t *keep)
{
	const struct region_layout *l = &markers.layout;
	const int first = markers.group[g].first, nr = markers.group[g].nr;
	const int en = region_value_enabled(l, g), run = region_value_running(l, g);

	t->read_errors++;
	memcpy(dst + region_value_event(first), keep + region_value_event(first),
	       (size_t)nr * sizeof(*dst));
	dst[en] = keep[en];
	dst[run] = keep[run];
	return 1;
}

/*
 * The counter part of a sample (regions.h): each event's raw count and each
 * group's times, read straight into @dst. A group whose read fails takes its
 * values from @keep (never @dst: a user-space pass that gave up midway may
 * have written part of it), so that no sample mixes two reads, and
 * read_errors says so; a group that never opened counts 0, running 0, with
 * the wall clock as enabled time.
 * Return: nonzero when some counter of this thread is missing from @dst.
 */
static inline __attribute__((always_inline)) int group_sample(struct marker_thread *t, int g,
								uint64_t *dst,
								const uint64_t *keep)
{
	const struct region_layout *l = &markers.layout;
	const int first = markers.group[g].first;
	const int en = region_value_enabled(l, g), run = region_value_running(l, g);
	uint64_t *value = dst + region_value_event(first);
	int err;

	if (t->groups[g].nr == 0) {
		/* Enabled, never running: "not counted". Equal times, even 0
		 * and 0, read as an exact count (fastread_scale). */
		dst[en] = monotonic_ns();
		dst[run] = 0;
		return 0;
	}
	/*
	 * Scaled by the group's times (regions.h): the leader's are enough. A
	 * group no page can serve (software events) goes to read(2) straight:
	 * fastread's own read tests its cache first, the path a PMU's groups
	 * take, and this thread knows its group's kind once for all its reads.
	 */
	if (t->groups[g].kernel_only)
		err = fastread_group_read_sample_syscall(&t->groups[g], value, &dst[en], &dst[run]);
	else
		err = fastread_group_read_sample(&t->groups[g], value, &dst[en], &dst[run]);
	if (LIKELY(err == 0)) {
		/*
		 * A hybrid part is enabled all along but runs only on its PMU's
		 * cores (read(2) there, index 0 elsewhere): its count is exact
		 * as read, and equal times say so to every scaling after this.
		 */
		if (UNLIKELY(markers.group_is_part[g]))
			dst[en] = dst[run];
		return 0;
	}
	return group_keep(t, g, dst, keep);
}

/* Several groups: out of line, so that their loop's registers cost the one-group case nothing. */
static __attribute__((noinline)) int groups_sample(struct marker_thread *t, uint64_t *dst,
						   const uint64_t *keep)
{
	int failed = t->open_failed;

	for (int g = 0; g < markers.nr_groups; g++)
		failed |= group_sample(t, g, dst, keep);
	return failed;
}

/*
 * The common case, one group, inlined into begin and end: no loop and no
 * frame of its own around the read (the loop's frame saves registers that
 * the one-group case does not need: docs/performance.md "Figures behind the
 * code").
 */
static inline __attribute__((always_inline)) int counters_sample(struct marker_thread *t,
								  uint64_t *dst,
								  const uint64_t *keep)
{
	if (LIKELY(markers.nr_groups == 1))
		return group_sample(t, 0, dst, keep) | t->open_failed;
	return groups_sample(t, dst, keep);
}

static void live_register(struct marker_thread *t)
{
	t->live_index = -1;
	for (int i = 0; i < MARKERS_LIVE_MAX; i++) {
		struct marker_thread *expected = NULL;

		if (atomic_compare_exchange_strong(&markers.live[i], &expected, t)) {
			t->live_index = i;
			return;
		}
	}
	/* Unlisted while it runs; its table still reaches the report at its exit. */
}

/*
 * Per-thread fds go into the shim's band (preload/fd.c): away from the
 * numbers a program expects open() to return or dup2()s over, since a
 * read(2) of a number the host reused could block. Never above the soft
 * limit, as the totals' may go: that needs the limit raised for a moment,
 * and other threads run now. The mapped pages do not depend on the fd
 * number. A group that does not fit is closed whole.
 */
static int group_fds_move_high(struct fastread_group *g)
{
	int err = 0;

	for (int i = 0; i < g->nr; i++) {
		if (g->fd[i] < 0)
			continue;	/* shed (fastread_group_shed) */
		g->fd[i] = fd_move_high(g->fd[i]);
		if (g->fd[i] < 0)
			err = -EMFILE;
	}
	if (err)
		fastread_group_close(g);
	return err;
}

/*
 * The descriptor budget: every thread's groups share the band with the
 * totals, and a thread whose groups would not fit gets none (its regions
 * keep their wall times, its counts read "not counted", its open_error is
 * EMFILE): the program's own open() calls must never fail for our sake.
 * What a thread keeps in the band is one descriptor per group: the members
 * are shed once mapped, before the leader moves into the band (groups_open),
 * so the leaders are reserved before the opens, and a member that could not
 * be mapped, which keeps its descriptor, after them. Threads that exit give
 * their share back. One line says so, once.
 */
static void fds_release(struct marker_thread *t);

static void fds_spent(struct marker_thread *t)
{
	t->regions->open_error = EMFILE;
	t->open_failed = 1;
	if (!atomic_flag_test_and_set(&markers.budget_warned))
		warn_line("markers: the descriptor budget (a quarter of min(RLIMIT_NOFILE, 1024)) "
			  "is spent: further threads' regions get wall time only (EMFILE)", NULL);
}

static bool fds_try_reserve(struct marker_thread *t, int need)
{
	if (atomic_fetch_add(&markers.fds_used, need) + need <= markers.fds_cap) {
		t->fds_reserved += need;
		return true;
	}
	atomic_fetch_sub(&markers.fds_used, need);
	return false;
}

/* Before the opens: the groups' leaders. */
static bool fds_reserve(struct marker_thread *t)
{
	if (fds_try_reserve(t, markers.nr_groups))
		return true;
	fds_spent(t);
	return false;
}

/*
 * After the opens and the shedding, before the moves into the band: the
 * members that kept a descriptor too, or the groups closed. Return: false
 * when the groups were closed.
 */
static bool fds_reserve_rest(struct marker_thread *t)
{
	int held = 0;

	for (int g = 0; g < markers.nr_groups; g++)
		for (int i = 0; i < t->groups[g].nr; i++)
			held += t->groups[g].fd[i] >= 0;
	if (held < t->fds_reserved) {	/* a group that did not open holds none */
		atomic_fetch_sub(&markers.fds_used, t->fds_reserved - held);
		t->fds_reserved = held;
	}
	if (held == t->fds_reserved || fds_try_reserve(t, held - t->fds_reserved))
		return true;
	for (int g = 0; g < markers.nr_groups; g++)
		fastread_group_close(&t->groups[g]);
	fds_release(t);
	fds_spent(t);
	return false;
}

static void fds_release(struct marker_thread *t)
{
	atomic_fetch_sub(&markers.fds_used, t->fds_reserved);
	t->fds_reserved = 0;
}

/*
 * Each group's cache filled again, after the last system call of the
 * thread's setup: fastread_group_open() fills it, but the descriptor moves
 * and the later groups' opens are system calls, and a context switch in them
 * rewrites the pages (the kernel moves their locks), which empties the
 * cache. The thread's first pfshim_begin() would then read through the full
 * pass, whose tail after the counter instruction is 13 instructions longer
 * (QEMU -cpu max, one event): the first call of a region would count more
 * than the others. From here to the first read there is no system call.
 */
static void groups_settle(struct marker_thread *t)
{
	for (int g = 0; g < markers.nr_groups; g++) {
		int err;

		if (t->groups[g].nr == 0)
			continue;
		err = fastread_group_settle(&t->groups[g]);
		if (err == 0)
			continue;
		fastread_group_close(&t->groups[g]);
		if (!t->regions->open_error)
			t->regions->open_error = -err;
		t->open_failed = 1;
	}
}

static void groups_open(struct marker_thread *t)
{
	if (!fds_reserve(t))
		return;
	for (int g = 0; g < markers.nr_groups; g++) {
		const struct group_spec *spec = &markers.group[g];
		int err = fastread_group_open(&t->groups[g], &markers.attr[spec->first], spec->nr);

		/* The members' descriptors closed once mapped: one per group stays. */
		if (err == 0)
			fastread_group_shed(&t->groups[g]);
		if (err < 0 && !t->regions->open_error)
			t->regions->open_error = -err;
		t->open_failed |= err < 0;
	}
	if (!fds_reserve_rest(t))
		return;
	for (int g = 0; g < markers.nr_groups; g++) {
		int err = t->groups[g].nr ? group_fds_move_high(&t->groups[g]) : 0;

		if (err < 0 && !t->regions->open_error)
			t->regions->open_error = -err;
		t->open_failed |= err < 0;
	}
	groups_settle(t);
}

/*
 * Where the fast path's end puts its sample: the thread's first sample
 * vector, right after its one group (thread_open() lays the block out so),
 * found without a load. pfshim_read() swaps now and spare, so it is either
 * one; either may take it: end's sample is scratch once the region is
 * closed, spare is pfshim_read()'s scratch, and as now it is a sample of
 * this thread's counters as good as the last read's (a failed read keeps
 * its group's values from now). A signal handler that reads or ends a
 * region in between writes a whole later sample of the same counters there:
 * the interrupted call then counts up to it, the handler's work included,
 * which ran inside that region anyway.
 */
static inline __attribute__((always_inline)) uint64_t *fast_end_sample(struct marker_thread *t)
{
	return (uint64_t *)((struct fastread_group *)(t + 1) + 1);
}

/* The thread whose fast group @g is: its one group follows its header (thread_open). */
static inline __attribute__((always_inline)) struct marker_thread *
fast_thread(struct fastread_group *g)
{
	return (struct marker_thread *)g - 1;
}

/*
 * The fast path: a thread with one group, open, counting as a whole (not
 * a hybrid part), and a wall clock from its pages, takes begin, end and
 * read through fast_sample(): the cached read inlined, nothing tested that
 * this thread cannot have. Everything else (several groups, a group that
 * failed, read(2) only, a cache that misses) takes the general path, which
 * is the same rules with the checks. Decided once, after the set-up: a
 * group that no page can serve (software events: fastread's kernel_only)
 * takes the general path from the start, not after a cache miss each time.
 */
static void fast_path_init(struct marker_thread *t)
{
	t->fast = NULL;
	if (markers.nr_groups != 1 || t->open_failed || t->groups[0].nr == 0 ||
	    t->groups[0].kernel_only || markers.group_is_part[0] || !t->wall.mult)
		return;
	if (fast_end_sample(t) != t->now || fast_thread(&t->groups[0]) != t ||
	    region_value_event(0) + t->groups[0].nr != region_value_enabled(&markers.layout, 0))
		return;	/* not the layout the fast path assumes (thread_open) */
	t->fast = &t->groups[0];
}

static struct marker_thread *thread_open(void)
{
	const struct region_layout *l = &markers.layout;
	struct marker_thread *t;
	char name[16] = "";
	char *p;

	if (!markers_ready())
		return NULL;
	p = fd_map_zeroed(markers.block_size);
	if (!p) {
		atomic_fetch_add(&markers.threads_failed, 1);
		return NULL;
	}
	/*
	 * Every page now, outside any region: a page of the table touched first
	 * by a begin made inside an open region would be a fault of ours in
	 * that region's counts.
	 */
	prefault_write(p, markers.block_size);
	t = (struct marker_thread *)p;
	t->groups = (struct fastread_group *)(t + 1);
	t->now = (uint64_t *)(t->groups + markers.nr_groups);
	t->spare = t->now + l->nr_values;
	t->regions = (struct region_thread *)(t->spare + l->nr_values);
	region_thread_init(t->regions, gettid());
	name_cache_init(&t->names);
	pthread_getname_np(pthread_self(), name, sizeof(name));
	region_thread_set_name(t->regions, name);
	groups_open(t);
	for (int g = 0; g < markers.nr_groups; g++)
		if (fastread_timer_init(&t->wall, &t->groups[g]) == 0)
			break;
	t->regions->wall_mult = t->wall.mult;
	t->regions->wall_shift = t->wall.shift;
	fast_path_init(t);
	live_register(t);
	pthread_setspecific(markers.key, t);
	self_set(t);
	return t;
}

/*
 * This thread is inside thread_setup(): a signal handler's marker call that
 * interrupts it finds no self yet, and must not set up a second table for
 * the same thread (its counters opened twice, the thread reported twice).
 */
static __thread bool self_setting_up __attribute__((tls_model("initial-exec")));

/* NULL, the call then failing, also for a handler inside this thread's own set-up. */
static struct marker_thread *thread_setup(void)
{
	int saved_errno = errno;
	struct marker_thread *t;

	if (self_setting_up)
		return NULL;
	self_setting_up = true;
	__asm__ volatile("" ::: "memory");
	t = thread_open();
	/* Last: the groups are settled and self is set, so the pairs take the program's path. */
	if (t)
		probe_measure(t);
	__asm__ volatile("" ::: "memory");
	self_setting_up = false;
	errno = saved_errno;
	return t;
}

/* Close the counters and unmap the block. Also in a fork child, where the pages are gone. */
static void thread_free(struct marker_thread *t, bool pages_mapped)
{
	for (int g = 0; g < markers.nr_groups; g++) {
		struct fastread_group *grp = &t->groups[g];

		if (pages_mapped) {
			fastread_group_close(grp);
			continue;
		}
		/* perf_mmap() sets VM_DONTCOPY: a fork child has the fds but not the pages. */
		for (int i = 0; i < grp->nr; i++)
			if (grp->fd[i] >= 0)
				close(grp->fd[i]);
	}
	fds_release(t);
	munmap(t, markers.block_size);
}

/*
 * The pthread key destructor: the thread's table goes to the process tables
 * (listed while there is room, always merged into the totals), under the
 * retire lock so that no report is reading the block being unmapped.
 */
static void thread_exit(void *arg)
{
	const struct region_layout *l = &markers.layout;
	struct marker_thread *t = arg;
	char name[16];
	uint32_t k;

	if (!t)
		return;
	if (pthread_getname_np(pthread_self(), name, sizeof(name)) == 0)
		region_thread_set_name(t->regions, name);
	region_thread_close(t->regions, l);
	markers_retire_lock_try(__INT_MAX__);
	/* Once, here, for an exited thread; a report compensates its copies of live ones. */
	if (markers.host.compensate)
		probe_compensate(t->regions, l);
	markers_reads_collect(t, t->regions);
	k = atomic_load_explicit(&markers.retired_nr, memory_order_relaxed);
	if (k < MARKERS_RETIRED_MAX) {
		struct region_thread *copy = (struct region_thread *)(markers.retired +
								       k * l->thread_size);

		/* The copy in ns; the table itself keeps its unit (regions.h). */
		memcpy(copy, t->regions, region_thread_used(t->regions, l));
		region_thread_wall_to_ns(copy, l);
		atomic_store_explicit(&markers.retired_nr, k + 1, memory_order_release);
	} else {
		atomic_fetch_add(&markers.threads_unlisted, 1);
	}
	region_totals_merge(markers.totals, l, t->regions, 0);
	if (t->live_index >= 0)
		atomic_store(&markers.live[t->live_index], NULL);
	markers_retire_unlock();
	self_set(NULL);
	thread_free(t, true);
}

void markers_restart_in_child(void)
{
	struct marker_thread *t;

	if (!markers.ready)
		return;
	/* The child is single-threaded now: whatever held these in the parent is gone. */
	pthread_mutex_init(&markers.intern_lock, NULL);
	atomic_store(&markers.retiring, 0);
	for (int i = 0; i < MARKERS_LIVE_MAX; i++)
		if ((t = atomic_exchange(&markers.live[i], NULL)) && t != self)
			thread_free(t, false);
	t = self;
	self_set(NULL);
	if (t)
		thread_free(t, false);
	pthread_setspecific(markers.key, NULL);
	atomic_store(&markers.retired_nr, 0);
	atomic_store(&markers.threads_unlisted, 0);
	atomic_store(&markers.threads_failed, 0);
	atomic_store(&markers.names_refused, 0);
	atomic_store(&markers.fds_used, 0);
	region_totals_init(markers.totals, &markers.layout);
}

/* ---- the API */

/*
 * -EBUSY: a signal handler's begin, inside its thread's own marker call,
 * of a region new to the thread, which it cannot make then (regions.h):
 * not counted, as a call whose counters failed.
 */
static int status_of(int ret)
{
	if (ret == -EBUSY)
		return PFSHIM_FAILED;
	return ret < 0 ? PFSHIM_MISUSE : 0;
}

static int setup_failed(void)
{
	return started() ? PFSHIM_FAILED : PFSHIM_INACTIVE;
}

/*
 * The fast path's sample: the thread's one group from its cache, straight
 * into @dst, counted as a user-space read, with the counter instructions
 * @at the end (begin) or first (end, read): fastread/cached.h. Return: false
 * when the cache cannot serve it (a page was rewritten, or read(2) is
 * needed): @dst is then worth nothing, and the caller takes the general path.
 */
static inline __attribute__((always_inline)) bool fast_sample(struct fastread_group *g,
							      uint64_t *dst,
							      enum fastread_counters_at at)
{
	/* Counted ahead of a begin's counters, so that it lands outside its region. */
	if (at == FASTREAD_COUNTERS_LAST)
		g->nr_user_reads++;
	/* One group: its values, then its enabled and running times (regions.h). */
	if (UNLIKELY(!fastread_group_read_cached(g, dst + region_value_event(0), at))) {
		if (at == FASTREAD_COUNTERS_LAST)
			g->nr_user_reads--;
		return false;
	}
	if (at == FASTREAD_COUNTERS_FIRST)
		g->nr_user_reads++;
	return true;
}

/*
 * The thread's first call, set up here: then the call every later one is
 * (a tail call), so that no one-time work lands between its reads.
 */
static __attribute__((noinline)) int begin_first(pfshim_region_t region)
{
	if (!thread_setup())
		return setup_failed();
	return pfshim_v1_begin(region);
}

static __attribute__((noinline)) int end_first(pfshim_region_t region)
{
	if (!thread_setup())
		return setup_failed();
	return pfshim_v1_end(region);
}

static int begin_general(struct marker_thread *t, pfshim_region_t region);
static int end_general(struct marker_thread *t, pfshim_region_t region);

/* A begin or end off the fast path: the thread's first call, or the general path. */
static __attribute__((noinline)) int begin_slow(pfshim_region_t region)
{
	struct marker_thread *t = self;

	return t ? begin_general(t, region) : begin_first(region);
}

static __attribute__((noinline)) int end_slow(pfshim_region_t region)
{
	struct marker_thread *t = self;

	return t ? end_general(t, region) : end_first(region);
}

/*
 * A fast-path begin that is not the common case (regions.h): a region's
 * first begin in this thread, or under another parent, finds or makes its
 * path's slot and starts over, so that its
 * counts are taken by the same instructions as every later call's; a
 * re-entry is counted and reads nothing; misuse is counted.
 */
static __attribute__((noinline)) int begin_uncommon(struct marker_thread *t,
						    pfshim_region_t region)
{
	const uint32_t id = region - 1u;
	const struct region_slot *s = region_slot_find(t->regions, &markers.layout, id);
	int status;

	/* No node yet, or its latest under another parent: this path's node, then start over. */
	if (!s || (!s->depth && s->parent != t->regions->current)) {
		/*
		 * Not through @status, which the general path's call takes the
		 * address of: so written, gcc made the retry below no plain tail
		 * call, and the region's first call counted 3 instructions more
		 * than every later one (make test-arm64-max, QEMU max).
		 */
		int made = region_slot_make(t->regions, &markers.layout, id, markers_names_nr());

		if (made < 0)
			return made == -EBUSY ? PFSHIM_FAILED : PFSHIM_MISUSE;
		return pfshim_v1_begin(region);
	}
	region_begin_start(t->regions, &markers.layout, id, markers_names_nr(), &status);
	return status_of(status);
}

/* A begin whose cached read missed: the full read, into the same sample. */
static __attribute__((noinline)) int begin_read_full(struct marker_thread *t, uint64_t *start)
{
	return counters_sample(t, start, t->now) ? PFSHIM_FAILED : 0;
}

/* Begin in full: several groups, a failed group, no user-space read. */
static __attribute__((noinline)) int begin_general(struct marker_thread *t,
						   pfshim_region_t region)
{
	uint64_t *start;
	int status;

	start = region_begin_start(t->regions, &markers.layout, region - 1u, markers_names_nr(),
				   &status);
	if (!start)
		return status_of(status);
	start[region_value_wall()] = wall_now(t);
	return counters_sample(t, start, t->now) ? PFSHIM_FAILED : 0;
}

/* End in full, as begin_general(); also the fast path's end when its cached read missed. */
static __attribute__((noinline)) int end_general(struct marker_thread *t, pfshim_region_t region)
{
	const struct region_layout *l = &markers.layout;
	uint32_t id = region - 1u, nr = markers_names_nr();
	/*
	 * Taken once: a signal handler's pfshim_read() may swap t->now with
	 * the spare meanwhile, and the spare's wall slot is not a sample's
	 * (pfshim_read() takes no wall clock); this end's vector stays its own.
	 */
	uint64_t *now = t->now;
	const uint64_t *start;
	int failed = 0, status;

	/* A group that cannot be read adds 0 to this call: its begin values. */
	if ((start = region_end_start(t->regions, l, id, nr)) != NULL) {
		failed = counters_sample(t, now, start);
		now[region_value_wall()] = wall_now(t);
	}
	status = status_of(region_end(t->regions, l, id, nr, now));
	return status == 0 && failed ? PFSHIM_FAILED : status;
}

static int region_start_uncommon(const char *name);

/*
 * The counters are read last in begin and first in end, straight into the
 * region's own sample, so a region's counts hold as little of the markers'
 * work as possible; the wall clock is read around them (a region's wall
 * time includes both reads). On the fast path, end reads before it even
 * looks the region up: what lands in a region (the probe effect) is what
 * begin does after its counter instructions and end before its own, and
 * an end that closes nothing (re-entry, misuse) reads for nothing, which
 * only misuse pays. Re-entered begins read nothing. The fast path's begin:
 * @start_name, a constant at each call, is the name of a start
 * (pfshim_v1_region_start()), whose uncommon case is its own.
 */
static inline __attribute__((always_inline)) int begin_fast(struct fastread_group *g,
							      pfshim_region_t region,
							      const char *start_name)
{
	struct marker_thread *t = fast_thread(g);
	uint64_t *start;

	start = region_begin_fast(t->regions, &markers.layout, region - 1u);
	if (UNLIKELY(!start))
		return start_name ? region_start_uncommon(start_name) : begin_uncommon(t, region);
	start[region_value_wall()] = wall_timer();
	if (LIKELY(fast_sample(g, start, FASTREAD_COUNTERS_LAST)))
		return 0;
	return begin_read_full(t, start);
}

PFSHIM_EXPORT int pfshim_v1_begin(pfshim_region_t region)
{
	struct fastread_group *g = self_fast;

	if (UNLIKELY(!g))
		return begin_slow(region);
	return begin_fast(g, region, NULL);
}

/*
 * The fast path's end sample: its counters first, then the wall clock, into
 * the thread's end vector; NULL when the cache missed (the general path then).
 * After the read, *@g is the same group addressed anew: the caller takes what
 * follows from it, so that GCC computes no address from the group ahead of
 * the read's counters, inside the region (fastread_cached_after() does the
 * same inside the read).
 */
static inline __attribute__((always_inline)) uint64_t *end_fast_read(struct fastread_group **g)
{
	uint64_t *now;

	if (UNLIKELY(!fast_sample(*g, fast_end_sample(fast_thread(*g)), FASTREAD_COUNTERS_FIRST)))
		return NULL;
	__asm__ volatile("" : "+r"(*g));
	now = fast_end_sample(fast_thread(*g));
	now[region_value_wall()] = wall_timer();
	return now;
}

PFSHIM_EXPORT int pfshim_v1_end(pfshim_region_t region)
{
	struct fastread_group *g = self_fast;
	uint64_t *now;

	if (UNLIKELY(!g))
		return end_slow(region);
	now = end_fast_read(&g);
	if (UNLIKELY(!now))
		return end_general(fast_thread(g), region);
	/* The close, or whatever else region_end() says, as a status: a tail call. */
	return region_end_fast_as(fast_thread(g)->regions, &markers.layout, region - 1u,
				  &markers_names.nr, now, PFSHIM_MISUSE);
}

PFSHIM_EXPORT pfshim_region_t pfshim_v1_region(const char *name)
{
	int id;

	if (!markers_ready())
		return 0;
	id = region_names_lookup(&markers_names, name);
	if (id < 0) {
		pthread_mutex_lock(&markers.intern_lock);
		id = region_names_intern(&markers_names, name);
		pthread_mutex_unlock(&markers.intern_lock);
	}
	if (id < 0) {
		atomic_fetch_add(&markers.names_refused, 1);
		return 0;
	}
	return (pfshim_region_t)id + 1;
}

/* A known name costs one lock-free lookup; only a new one goes through pfshim_v1_region(). */
static pfshim_region_t region_of(const char *name)
{
	int id = region_names_lookup(&markers_names, name);

	return id >= 0 ? (pfshim_region_t)id + 1 : pfshim_v1_region(name);
}

/*
 * The region @name names, through thread @t's name cache when it has one
 * (then filled for the next call): 0 when the name is refused.
 */
static __attribute__((noinline)) REGION_NAMES_WORDS_UNCHECKED pfshim_region_t
name_resolve(struct marker_thread *t, const char *name)
{
	const struct region_name *n;
	pfshim_region_t region;
	uint32_t id;

	if (t && name_cache_find(&t->names, name, &id))
		return (pfshim_region_t)id + 1;
	region = region_of(name);
	if (t && region && (n = region_names_row(&markers_names, (int)region - 1)))
		name_cache_fill(&t->names, name, n);
	return region;
}

static int name_refused(void)
{
	return started() ? PFSHIM_MISUSE : PFSHIM_INACTIVE;
}

/* A begin by name off the fast path, or whose name the cache did not hold. */
static __attribute__((noinline)) int region_begin_named(const char *name)
{
	pfshim_region_t region = name_resolve(self, name);

	if (!region)
		return name_refused();
	return pfshim_v1_begin(region);
}

/* An end by name off the fast path. */
static __attribute__((noinline)) int region_end_named(const char *name)
{
	pfshim_region_t region = name_resolve(self, name);

	if (!region)
		return name_refused();
	return pfshim_v1_end(region);
}

/* A fast end whose cached read missed: end in full, as end_general(). */
static __attribute__((noinline)) int region_end_named_full(struct marker_thread *t,
							   const char *name)
{
	pfshim_region_t region = name_resolve(t, name);

	if (!region)
		return name_refused();
	return end_general(t, region);
}

/* A fast end whose name the cache did not hold: its read is taken, in @now. */
static __attribute__((noinline)) int region_end_named_read(struct marker_thread *t,
							   const char *name, const uint64_t *now)
{
	pfshim_region_t region = name_resolve(t, name);

	if (!region)
		return name_refused();
	return region_end_fast_as(t->regions, &markers.layout, region - 1u, &markers_names.nr, now,
				  PFSHIM_MISUSE);
}

/*
 * By name as by handle (docs/markers.md): the name found in the thread's
 * cache (name_cache.h), then the handle's fast path, begin's lookup before
 * its counters and end's after them, so an empty region by name counts
 * what one by handle does. @start, a constant at each call: LIKWID's START
 * (pfshim_v1_region_start()), whose uncommon cases are its own.
 */
static inline __attribute__((always_inline)) REGION_NAMES_WORDS_UNCHECKED int
begin_by_name(const char *name, bool start)
{
	struct fastread_group *g = self_fast;
	uint32_t id;

	if (UNLIKELY(!g))
		return start ? region_start_uncommon(name) : region_begin_named(name);
	if (UNLIKELY(!name_cache_find(&fast_thread(g)->names, name, &id)))
		return start ? region_start_uncommon(name) : region_begin_named(name);
	/* An interned id: region_slot_find()'s range check can go. */
	if (id >= REGIONS_NAMES_MAX)
		__builtin_unreachable();
	return begin_fast(g, id + 1u, start ? name : NULL);
}

PFSHIM_EXPORT REGION_NAMES_WORDS_UNCHECKED int pfshim_v1_region_begin(const char *name)
{
	return begin_by_name(name, false);
}

/*
 * A start off the fast path (no fast group, a name the cache did not hold,
 * a region not in the common case): a region open in this thread is left
 * as it is; anything else is begun as by pfshim_v1_region_begin().
 */
static __attribute__((noinline)) int region_start_uncommon(const char *name)
{
	struct marker_thread *t = self;
	pfshim_region_t region = name_resolve(t, name);
	const struct region_slot *s;

	if (!region)
		return name_refused();
	if (t && (s = region_slot_find(t->regions, &markers.layout, region - 1u)) && s->depth)
		return PFSHIM_OPEN;
	return pfshim_v1_begin(region);
}

/* LIKWID's START (include/pfshim.h): the begin by name, unless it is open here. */
PFSHIM_EXPORT REGION_NAMES_WORDS_UNCHECKED int pfshim_v1_region_start(const char *name)
{
	return begin_by_name(name, true);
}

/* A name never seen cannot have begun: interned all the same, its end counts as misuse. */
PFSHIM_EXPORT REGION_NAMES_WORDS_UNCHECKED int pfshim_v1_region_end(const char *name)
{
	struct fastread_group *g = self_fast;
	struct marker_thread *t;
	uint64_t *now;
	uint32_t id;

	if (UNLIKELY(!g))
		return region_end_named(name);
	now = end_fast_read(&g);
	t = fast_thread(g);
	if (UNLIKELY(!now))
		return region_end_named_full(t, name);
	if (UNLIKELY(!name_cache_find(&t->names, name, &id)))
		return region_end_named_read(t, name, now);
	if (id >= REGIONS_NAMES_MAX)
		__builtin_unreachable();
	return region_end_fast_as(t->regions, &markers.layout, id, &markers_names.nr, now,
				  PFSHIM_MISUSE);
}

/*
 * A hybrid machine's sums, never opened: their parts added up, enabled the
 * longest part's, running the parts' total (as totals.c sums them).
 */
static void counts_fill_sums(struct pfshim_counts *counts)
{
	const struct event_list *events = markers.host.events;

	for (int i = 0; i < events->nr; i++) {
		const struct event_spec *sum = &events->ev[i];

		for (int k = 0; k < sum->nr_parts; k++) {
			int p = sum->parts[k];

			counts->value[i] += counts->value[p];
			counts->running[i] += counts->running[p];
			if (counts->enabled[p] > counts->enabled[i])
				counts->enabled[i] = counts->enabled[p];
		}
	}
}

/*
 * The calling thread's counts in PFSHIM_EVENTS order; events it does not
 * count read 0, running 0. Only the first nr entries are written: clearing
 * the whole struct (1.5 KiB) cost a one-event read nearly half its
 * instructions (docs/performance.md "Figures behind the code").
 */
static void counts_fill(const struct marker_thread *t, struct pfshim_counts *counts)
{
	const struct region_layout *l = &markers.layout;
	const int nr = markers.host.events->nr;

	counts->nr = nr;
	if (l->nr_events < nr) {
		memset(counts->value, 0, (size_t)nr * sizeof(counts->value[0]));
		memset(counts->enabled, 0, (size_t)nr * sizeof(counts->enabled[0]));
		memset(counts->running, 0, (size_t)nr * sizeof(counts->running[0]));
	}
	for (int e = 0; e < l->nr_events; e++) {
		int i = markers.event_index[e], g = l->group_of[e];
		struct fastread_count c = {
			.value = t->now[region_value_event(e)],
			.enabled = t->now[region_value_enabled(l, g)],
			.running = t->now[region_value_running(l, g)],
		};

		/* Equal times: the count as read (fastread_scale() would say so too). */
		if (LIKELY(c.enabled == c.running))
			counts->value[i] = c.value;
		else
			fastread_scale(&c, &counts->value[i]);
		counts->enabled[i] = c.enabled;
		counts->running[i] = c.running;
	}
	counts_fill_sums(counts);
}

/*
 * counts_fill() where region event e is process event e
 * (markers.counts_direct) in one group of @nr events whose times are equal
 * (a cached read, or a read(2) of a group never multiplexed): the sample @s
 * as it is. No wall clock is taken: a pfshim_counts has none.
 */
static inline __attribute__((always_inline)) void counts_fill_direct(const uint64_t *s, int nr,
								     struct pfshim_counts *counts)
{
	const uint64_t *value = s + region_value_event(0), time = value[nr];

	counts->nr = nr;
	for (int e = 0; e < nr; e++) {
		counts->value[e] = value[e];
		counts->enabled[e] = time;
		counts->running[e] = time;
	}
}

PFSHIM_EXPORT int pfshim_v1_read(struct pfshim_counts *counts)
{
	struct marker_thread *t = self;
	uint64_t *last;
	int failed;

	if (!counts)	/* pfshim_active() asks without setting anything up */
		return host_is_self() ? 0 : PFSHIM_INACTIVE;
	if (UNLIKELY(!t) && !(t = thread_setup()))
		return setup_failed();
	/*
	 * Into the spare sample, which then becomes now: a group that cannot be
	 * read keeps its last values from now, and nothing is copied (a memcpy
	 * here made the instructions of a read differ between calls on arm64).
	 */
	if (LIKELY(t->fast) && LIKELY(markers.counts_direct) &&
	    LIKELY(fast_sample(t->fast, t->spare, FASTREAD_COUNTERS_FIRST))) {
		last = t->now;
		t->now = t->spare;
		t->spare = last;
		counts_fill_direct(t->now, t->fast->nr, counts);
		return 0;
	}
	/*
	 * No wall clock: a pfshim_counts has none, and an end takes its own
	 * into the vector it holds (end_general(), end_fast_read()).
	 */
	failed = counters_sample(t, t->spare, t->now);
	last = t->now;
	t->now = t->spare;
	t->spare = last;
	if (LIKELY(markers.counts_direct) && markers.nr_groups == 1 &&
	    t->now[region_value_enabled(&markers.layout, 0)] ==
		    t->now[region_value_running(&markers.layout, 0)])
		counts_fill_direct(t->now, markers.layout.nr_events, counts);
	else
		counts_fill(t, counts);
	return failed ? PFSHIM_FAILED : 0;
}

/* The hybrid sums of @value (counts_fill_sums() for a value alone). */
static void values_fill_sums(uint64_t *value)
{
	const struct event_list *events = markers.host.events;

	for (int i = 0; i < events->nr; i++)
		for (int k = 0; k < events->ev[i].nr_parts; k++)
			value[i] += value[events->ev[i].parts[k]];
}

/*
 * LIKWID's GET (compat/likwid.c) reads a region's values here rather than
 * keeping them itself: its START and STOP are then the pair by name alone.
 */
PFSHIM_EXPORT int pfshim_v1_region_values(const char *name, struct pfshim_region_values *values)
{
	const struct region_layout *l = &markers.layout;
	struct marker_thread *t = self;
	struct region_id_values v;
	int id, err;

	if (!host_is_self())
		return PFSHIM_INACTIVE;
	if (!values)
		return PFSHIM_MISUSE;
	values->nr = markers.host.events->nr;
	values->open = 0;
	values->calls = 0;
	values->wall_ns = 0;
	memset(values->value, 0, (size_t)values->nr * sizeof(values->value[0]));
	/* No table yet: this thread began nothing. */
	id = t ? region_names_lookup(&markers_names, name) : -ENOENT;
	if (id < 0)
		return PFSHIM_MISUSE;
	err = region_thread_id_read(t->regions, l, (uint32_t)id, &v);
	values->open = v.open;
	values->calls = v.calls;
	values->wall_ns = v.wall_ns;
	for (int e = 0; e < l->nr_events; e++)
		values->value[markers.event_index[e]] = v.value[e];
	values_fill_sums(values->value);
	return err ? PFSHIM_MISUSE : 0;
}

PFSHIM_EXPORT int pfshim_v1_report(void)
{
	char name[16];

	if (!host_is_self())
		return PFSHIM_INACTIVE;
	/* Not a signal handler: a good time to catch a name given since setup. */
	if (self && pthread_getname_np(pthread_self(), name, sizeof(name)) == 0)
		region_thread_set_name(self->regions, name);
	markers.host.report();
	return 0;
}
