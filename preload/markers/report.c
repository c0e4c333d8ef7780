/* SPDX-License-Identifier: MIT */
/*
 * report.c: the regions section of a report: every thread's table,
 * exited and live, listed and totalled over threads (export/report.h).
 *
 * ASYNC-SIGNAL-SAFE: everything in this file (reports are written from the
 * PFSHIM_SIGNAL handler). No lock a thread may hold: live tables are copied
 * through their sequence counters, and exiting threads are kept out by a lock
 * that a report waits for a bounded time, and never on the thread holding it.
 * No allocation but one mmap() of working memory, released after the report
 * is written.
 */
#include "preload/markers/markers.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "preload/fd.h"
#include "preload/markers/probe.h"
#include "preload/markers/state.h"
#include "preload/markers/regions.h"

#define SNAPSHOT_TRIES		1000	/* copies of a table being written before it is left out */
#define RETIRE_LOCK_TRIES	200

/* A bump allocator over the report's one mapping. */
struct arena {
	char *p;
	size_t used, size;
};

static void *arena_take(struct arena *a, size_t n)
{
	void *p;

	n = (n + 7) & ~(size_t)7;
	if (a->used + n > a->size)
		return NULL;
	p = a->p + a->used;
	a->used += n;
	return p;
}

/*
 * The regions' events as the report lists them: the layout's (the events a
 * thread counts), and on a hybrid machine each sum of core PMUs' parts right
 * after its last part, as the totals list them. A sum is never counted by
 * a thread: its region values are its parts' added up here, at report time
 * (as pfshim_read() and totals.c do), never in begin/end.
 */
struct region_events {
	int nr;
	int *event;	/* [nr] index in the report's events */
	int *layout;	/* [nr] the layout's event, or -1 for a sum */
	int *pos;	/* [EVENTS_MAX] output position of a report event, or -1 */
	/*
	 * With sums: per region id and position, { sum, min, max, threads } of
	 * each sum over the listed threads (their totals' min and max); else NULL.
	 */
	uint64_t *stats;
};

#define SUM_STATS_SIZE(nr) ((size_t)REGIONS_NAMES_MAX * (size_t)(nr) * 4 * sizeof(uint64_t))

/* How many sums of parts the regions count, and how many events they list then. */
static int region_events_nr(void)
{
	const struct event_list *events = markers.host.events;
	int nr = markers.layout.nr_events;

	for (int i = 0; events && i < events->nr; i++)
		nr += events->ev[i].nr_parts > 0;
	return nr;
}

static bool report_event_counted(int i)
{
	for (int e = 0; e < markers.layout.nr_events; e++)
		if (markers.event_index[e] == i)
			return true;
	return false;
}

/*
 * In report order, the events the layout counts, and each sum one of whose
 * parts it counts. Without sums, the layout's own order (byte-identical).
 */
static void region_events_order(struct region_events *ev)
{
	const struct event_list *events = markers.host.events;

	for (int i = 0; i < EVENTS_MAX; i++)
		ev->pos[i] = -1;
	ev->nr = 0;
	if (region_events_nr() == markers.layout.nr_events) {
		for (int e = 0; e < markers.layout.nr_events; e++) {
			ev->event[ev->nr] = markers.event_index[e];
			ev->layout[ev->nr] = e;
			if (markers.event_index[e] >= 0 && markers.event_index[e] < EVENTS_MAX)
				ev->pos[markers.event_index[e]] = ev->nr;
			ev->nr++;
		}
		return;
	}
	for (int i = 0; i < events->nr; i++) {
		const struct event_spec *spec = &events->ev[i];
		bool listed = false;

		for (int e = 0; e < markers.layout.nr_events && !listed; e++)
			if (markers.event_index[e] == i) {
				ev->layout[ev->nr] = e;
				listed = true;
			}
		for (int k = 0; k < spec->nr_parts && !listed; k++)
			if (report_event_counted(spec->parts[k])) {
				ev->layout[ev->nr] = -1;
				listed = true;
			}
		if (!listed)
			continue;
		ev->event[ev->nr] = i;
		ev->pos[i] = ev->nr++;
	}
}

/*
 * The arena's size, counted from what regions_build() takes, take by take:
 * per live thread a snapshot (thread_size) and its entries in snaps[] and
 * skipped[]; one copy of the totals; per listed thread its report_thread
 * and up to capacity regions with their values; per name a total with its
 * values. arena_take() rounds each take up to 8 bytes, which the + 8 and
 * + 16 terms cover; the + 64s and EVENTS_MAX ints are spare. A new take in
 * regions_build() needs its term here (tests/unit/markers/test_report.c
 * builds a report with every kind of take). The probe's values take the
 * room of its hidden slot (per thread) and of its id's total (over threads).
 */
static size_t arena_need(uint32_t nr_threads, uint32_t nr_live)
{
	const struct region_layout *l = &markers.layout;
	size_t nr_events = (size_t)region_events_nr();
	size_t per_region = sizeof(struct report_region) +
			    nr_events * sizeof(struct report_region_value) + 16;
	size_t per_total = sizeof(struct report_region_total) +
			   nr_events * sizeof(struct report_region_stat) + 16;

	/* Per slot: its path node, and a region's flat entry with the sum of its nodes. */
	size_t per_slot = 2 * per_region + l->slot_size + 8 + sizeof(int);

	return nr_live * (l->thread_size + 8 + sizeof(void *) + 8) + region_totals_size(l) + 64 +
	       nr_threads * (sizeof(struct report_thread) + 8 + l->capacity * per_slot + 3 * 8) +
	       REGIONS_NAMES_MAX * per_total + EVENTS_MAX * sizeof(int) + 64 +
	       (2 * nr_events + EVENTS_MAX) * sizeof(int) + 3 * 8 +
	       (nr_events > (size_t)l->nr_events ? SUM_STATS_SIZE(nr_events) + 8 : 0);
}

/* A sum's value in one region: its counted parts added up (as pfshim_read() sums them). */
static void region_value_sum(struct report_region_value *out,
			     const struct report_region_value *values, const struct event_spec *sum,
			     const struct region_events *ev)
{
	*out = (struct report_region_value){ .status = STATUS_NOT_COUNTED };
	for (int k = 0; k < sum->nr_parts; k++) {
		int at = ev->pos[sum->parts[k]];
		const struct report_region_value *p = at >= 0 ? &values[at] : NULL;

		if (!p || p->status != STATUS_COUNTED)
			continue;
		out->status = STATUS_COUNTED;
		out->value += p->value;
		out->raw += p->raw;
		out->running += p->running;
		out->scaled |= p->scaled;
		if (p->enabled > out->enabled)
			out->enabled = p->enabled;
	}
}

/* A thread's sum in region @id, into the totals' min and max of that sum. */
static void sum_stat_add(const struct region_events *ev, uint32_t id, int k,
			 const struct report_region_value *v)
{
	uint64_t *st;

	if (v->status != STATUS_COUNTED || id >= REGIONS_NAMES_MAX)
		return;
	st = &ev->stats[((size_t)id * (size_t)ev->nr + (size_t)k) * 4];
	st[0] += v->value;
	if (st[3] == 0 || v->value < st[1])
		st[1] = v->value;
	if (st[3] == 0 || v->value > st[2])
		st[2] = v->value;
	st[3]++;
}

/* @stat: a region's flat entry, whose hybrid sums go into the totals' min and max; not a path node. */
static void region_fill(struct report_region *out, struct report_region_value *values,
			const struct region_slot *s, bool final, const struct region_events *ev,
			bool stat)
{
	const struct region_layout *l = &markers.layout;

	*out = (struct report_region){
		.name = region_names_get(&markers_names, (int)s->id),
		.calls = s->calls,
		.reentries = s->reentries,
		.open = s->depth > 0,
		.unclosed = s->unclosed + (final && s->depth > 0),
		.wall_ns = s->v[region_value_wall()],
		.wall_min_ns = s->wall_min,
		.wall_max_ns = s->wall_min == REGION_NONE ? REPORT_NONE : s->wall_max,
		.first_min = s->first_min,
		.first_max = s->first_min == REGION_NONE ? REPORT_NONE : s->first_max,
		.values = values,
	};
	for (int k = 0; k < ev->nr; k++) {
		int e = ev->layout[k], g;
		struct report_region_value *v = &values[k];

		if (e < 0)
			continue;
		g = l->group_of[e];
		v->raw = s->v[region_value_event(e)];
		v->enabled = s->v[region_value_enabled(l, g)];
		v->running = s->v[region_value_running(l, g)];
		v->status = region_slot_value(s, l, 1 + e, &v->value) == 0 ? STATUS_COUNTED :
									    STATUS_NOT_COUNTED;
		v->scaled = v->status == STATUS_COUNTED && v->enabled != v->running;
	}
	for (int k = 0; k < ev->nr; k++) {
		if (ev->layout[k] >= 0)
			continue;
		region_value_sum(&values[k], values, &markers.host.events->ev[ev->event[k]], ev);
		if (stat && ev->stats && s->calls)
			sum_stat_add(ev, s->id, k, &values[k]);
	}
}

/*
 * The probe's per-call values of a thread, from its hidden slot @p, in the
 * regions' output order; a hybrid sum is its parts' probes added up.
 */
static void probe_fill(struct report_region_value *values, const struct region_slot *p,
		       const struct region_events *ev)
{
	const struct region_layout *l = &markers.layout;

	for (int k = 0; k < ev->nr; k++) {
		struct report_region_value *v = &values[k];

		*v = (struct report_region_value){ .status = STATUS_NOT_COUNTED };
		if (ev->layout[k] >= 0 && probe_per_call(p, l, ev->layout[k], &v->value) == 0) {
			v->raw = v->value;
			v->status = STATUS_COUNTED;
		}
	}
	for (int k = 0; k < ev->nr; k++)
		if (ev->layout[k] < 0)
			region_value_sum(&values[k], values,
					 &markers.host.events->ev[ev->event[k]], ev);
}

/* The probe's hidden slot of @t, when this process keeps one. */
static const struct region_slot *thread_probe(const struct region_thread *t)
{
	return markers.probe_reserved ? probe_slot(t, &markers.layout) : NULL;
}

static int thread_fill(struct arena *a, struct report_thread *out,
		       const struct region_thread *t, bool exited, bool final,
		       const struct region_events *ev)
{
	const struct region_layout *l = &markers.layout;
	uint32_t n = t->nr_slots < (uint32_t)l->capacity ? t->nr_slots : (uint32_t)l->capacity;
	const struct region_slot *probe = thread_probe(t);
	struct report_region *regions = arena_take(a, n * sizeof(*regions));
	struct report_region *paths = arena_take(a, n * sizeof(*paths));
	int *path_of = arena_take(a, (n + 1) * sizeof(int));	/* slot + 1 -> path index */

	*out = (struct report_thread){
		.tid = t->tid, .name = t->name, .exited = exited, .open_error = t->open_error,
		.user_reads = t->user_reads, .syscall_reads = t->syscall_reads,
		.read_errors = t->read_errors, .end_without_begin = t->end_without_begin,
		.bad_handle = t->bad_handle, .table_full = t->table_full, .unnested = t->unnested,
		.regions = regions, .paths = paths,
	};
	if ((!regions || !paths || !path_of) && n)
		return -ENOMEM;
	if (path_of)
		path_of[0] = -1;	/* parent 0: the thread's top */
	for (uint32_t i = 0; i < n; i++) {
		const struct region_slot *s = region_slot_at(t, l, i);
		struct report_region_value *values = arena_take(a, (size_t)ev->nr * sizeof(*values));
		struct region_slot *sum;

		if (!values && ev->nr)
			return -ENOMEM;
		path_of[i + 1] = -1;
		if (s == probe) {	/* shown apart, never as a region */
			probe_fill(values, s, ev);
			out->probe = values;
			continue;
		}
		path_of[i + 1] = out->nr_paths;
		region_fill(&paths[out->nr_paths], values, s, final, ev, false);
		paths[out->nr_paths++].parent = s->parent <= i ? path_of[s->parent] : -1;
		if (!region_slot_first_of_id(t, l, s))
			continue;
		/* The region's flat entry: its nodes summed, at its first node's place. */
		values = arena_take(a, (size_t)ev->nr * sizeof(*values));
		sum = arena_take(a, l->slot_size);
		if ((!values && ev->nr) || !sum)
			return -ENOMEM;
		sum->first_min = REGION_NONE;
		sum->wall_min = REGION_NONE;
		for (uint32_t j = i; j < n; j++)
			if (region_slot_at(t, l, j)->id == s->id)
				region_slot_add(sum, region_slot_at(t, l, j), l);
		region_fill(&regions[out->nr_regions], values, sum, final, ev, true);
		regions[out->nr_regions++].parent = -1;
	}
	return 0;
}

static void stat_fill(struct report_region_stat *out, const uint64_t *stat, bool scaled)
{
	*out = (struct report_region_stat){
		.sum = stat[0], .min = stat[1], .max = stat[2], .threads = (int)stat[3],
		.mean = stat[3] ? stat[0] / stat[3] : 0,
		.status = stat[3] ? STATUS_COUNTED : STATUS_NOT_COUNTED,
		.scaled = stat[3] && scaled,
	};
}

/*
 * A sum's totals: its sum is its parts' (every thread, listed or not); its
 * threads, min and max those of the listed threads' own sums. With threads
 * left unlisted, min and max are over the listed ones: the note says so.
 */
static void stat_sum_fill(struct report_region_stat *out, const struct report_region_stat *values,
			  const struct event_spec *sum, const struct region_events *ev,
			  const uint64_t *listed)
{
	uint64_t total = 0;
	int threads = (int)listed[3];
	bool counted = false, scaled = false;

	for (int k = 0; k < sum->nr_parts; k++) {
		int at = ev->pos[sum->parts[k]];

		if (at < 0 || values[at].status != STATUS_COUNTED)
			continue;
		counted = true;
		total += values[at].sum;
		scaled |= values[at].scaled;
		if (values[at].threads > threads)
			threads = values[at].threads;
	}
	*out = (struct report_region_stat){ .status = STATUS_NOT_COUNTED };
	if (!counted || threads == 0)
		return;
	*out = (struct report_region_stat){
		.sum = total, .min = listed[3] ? listed[1] : 0, .max = listed[2], .threads = threads,
		.mean = total / (uint64_t)threads, .status = STATUS_COUNTED, .scaled = scaled,
	};
}

static int totals_fill(struct arena *a, struct report_regions *out,
		       const struct region_totals *tot, const struct region_events *ev)
{
	const struct region_layout *l = &markers.layout;
	uint32_t nr = markers_names_nr();
	struct report_region_total *totals = arena_take(a, nr * sizeof(*totals));

	out->totals = totals;
	if (!totals && nr)
		return -ENOMEM;
	for (uint32_t id = 0; id < nr; id++) {
		const struct region_total *r = region_total_at(tot, l, id);
		struct report_region_stat *values;
		struct report_region_total *o;

		if (r->threads == 0)
			continue;
		values = arena_take(a, (size_t)ev->nr * sizeof(*values));
		if (!values && ev->nr)
			return -ENOMEM;
		if (markers.probe_reserved && id == PROBE_REGION_ID) {
			/*
			 * One call per thread: each thread's probe is one
			 * observation. A hybrid sum's probe over threads is
			 * not kept (each thread's own is shown).
			 */
			for (int k = 0; k < ev->nr; k++) {
				values[k] = (struct report_region_stat){ .status = STATUS_NOT_COUNTED };
				if (ev->layout[k] >= 0)
					stat_fill(&values[k],
						  region_total_stat(r, l, 1 + ev->layout[k]), false);
			}
			out->probe = values;
			continue;
		}
		o = &totals[out->nr_totals++];
		*o = (struct report_region_total){
			.name = region_names_get(&markers_names, (int)id), .threads = (int)r->threads,
			.calls = r->calls, .reentries = r->reentries, .unclosed = r->unclosed,
			.first_min = r->first_min, .values = values,
			.first_max = r->first_min == REGION_NONE ? REPORT_NONE : r->first_max,
		};
		stat_fill(&o->wall, region_total_stat(r, l, 0), false);
		for (int k = 0; k < ev->nr; k++) {
			int e = ev->layout[k], g;

			if (e < 0)
				continue;
			g = l->group_of[e];
			stat_fill(&values[k], region_total_stat(r, l, 1 + e),
				  r->v[region_value_enabled(l, g)] != r->v[region_value_running(l, g)]);
		}
		for (int k = 0; k < ev->nr; k++)
			if (ev->layout[k] < 0)
				stat_sum_fill(&values[k], values,
					      &markers.host.events->ev[ev->event[k]], ev,
					      &ev->stats[((size_t)id * (size_t)ev->nr + (size_t)k) * 4]);
	}
	return 0;
}

/* Copy every live table (lock-free), under the retire lock so none is unmapped meanwhile. */
static uint32_t live_snapshot(struct arena *a, struct region_thread **snaps, bool *skipped,
			      uint32_t max)
{
	const struct region_layout *l = &markers.layout;
	uint32_t n = 0;

	/* Threads set up since live_count() wait for the next report: the arena is sized. */
	for (int i = 0; i < MARKERS_LIVE_MAX && n < max; i++) {
		struct marker_thread *t = atomic_load(&markers.live[i]);
		struct region_thread *copy;

		if (!t || !(copy = arena_take(a, l->thread_size)))
			continue;
		skipped[n] = region_thread_snapshot(t->regions, l, copy, SNAPSHOT_TRIES) < 0;
		if (skipped[n])
			copy->tid = t->regions->tid;
		markers_reads_collect(t, copy);
		snaps[n++] = copy;
	}
	return n;
}

static uint32_t live_count(void)
{
	uint32_t n = 0;

	for (int i = 0; i < MARKERS_LIVE_MAX; i++)
		n += atomic_load(&markers.live[i]) != NULL;
	return n;
}

static void regions_header(struct markers_report *m)
{
	struct report_regions *r = &m->regions;

	r->nr_events = markers.layout.nr_events;
	r->event = markers.event_index;
	/* The probe's hidden region holds one slot of every table. */
	r->capacity = markers.layout.capacity - (markers.probe_reserved ? 1 : 0);
	r->compensated = markers.host.compensate;
	r->threads_unlisted = atomic_load(&markers.threads_unlisted);
	r->names_refused = atomic_load(&markers.names_refused);
	r->threads_failed = atomic_load(&markers.threads_failed);
	r->user_read_problem = markers.user_read_problem;
}

static void regions_build(struct markers_report *m, struct arena *a, bool final)
{
	const struct region_layout *l = &markers.layout;
	struct report_regions *r = &m->regions;
	uint32_t nr_retired = atomic_load_explicit(&markers.retired_nr, memory_order_acquire);
	uint32_t nr_live = live_count(), n;
	struct region_thread **snaps;
	bool *skipped;
	struct report_thread *threads;
	struct region_totals *tot;
	struct region_events ev;
	int nr_events = region_events_nr(), err = 0;

	a->size = arena_need(nr_retired + nr_live, nr_live);
	a->p = fd_map_zeroed(a->size);
	if (!a->p) {
		markers_retire_unlock();
		r->note = "no memory to gather the regions: left out";
		return;
	}
	/* On the arena, not the stack: a signal handler may run on a small sigaltstack. */
	ev = (struct region_events){
		.event = arena_take(a, (size_t)nr_events * sizeof(int)),
		.layout = arena_take(a, (size_t)nr_events * sizeof(int)),
		.pos = arena_take(a, EVENTS_MAX * sizeof(int)),
		.stats = nr_events > l->nr_events ? arena_take(a, SUM_STATS_SIZE(nr_events)) : NULL,
	};
	if (!ev.event || !ev.layout || !ev.pos || (nr_events > l->nr_events && !ev.stats)) {
		markers_retire_unlock();
		r->note = "the regions did not fit the report's memory: some are left out";
		return;
	}
	region_events_order(&ev);
	if (ev.nr != l->nr_events) {
		r->nr_events = ev.nr;
		r->event = ev.event;
	}
	snaps = arena_take(a, nr_live * sizeof(*snaps));
	skipped = arena_take(a, nr_live * sizeof(*skipped));
	tot = arena_take(a, region_totals_size(l));
	memcpy(tot, markers.totals, region_totals_size(l));
	n = live_snapshot(a, snaps, skipped, nr_live);
	markers_retire_unlock();
	for (uint32_t i = 0; i < n; i++) {
		if (skipped[i])
			continue;
		/* Copies of live tables; exited ones were compensated at their exit. */
		if (markers.host.compensate)
			probe_compensate(snaps[i], l);
		region_totals_merge(tot, l, snaps[i], final);
	}
	threads = arena_take(a, (nr_retired + n) * sizeof(*threads));
	r->threads = threads;
	for (uint32_t i = 0; threads && i < nr_retired && !err; i++)
		err = thread_fill(a, &threads[r->nr_threads++],
				  (const struct region_thread *)(markers.retired + i * l->thread_size),
				  true, final, &ev);
	for (uint32_t i = 0; threads && i < n && !err; i++) {
		struct report_thread *o = &threads[r->nr_threads++];

		if (skipped[i]) {
			*o = (struct report_thread){ .tid = snaps[i]->tid, .name = "", .skipped = 1,
						     .user_reads = snaps[i]->user_reads,
						     .syscall_reads = snaps[i]->syscall_reads };
			r->note = "a thread was inside a marker call: its regions are left out";
			continue;
		}
		err = thread_fill(a, o, snaps[i], false, final, &ev);
	}
	if (err || !threads || totals_fill(a, r, tot, &ev) < 0)
		r->note = "the regions did not fit the report's memory: some are left out";
	else if (ev.stats && r->threads_unlisted && !r->note)
		r->note = "some threads are not listed: the min and max of a sum over core PMUs "
			  "are the listed threads'";
}

const struct report_regions *markers_report_build(struct markers_report *m, bool final)
{
	struct arena a = { 0 };

	memset(m, 0, sizeof(*m));
	if (!atomic_load_explicit(&markers.ready, memory_order_acquire))
		return NULL;
	regions_header(m);
	if (!markers_retire_lock_try(RETIRE_LOCK_TRIES)) {
		m->regions.note = "a thread was exiting (or this signal interrupted one): "
				  "regions are left out of this report";
		return &m->regions;
	}
	regions_build(m, &a, final);	/* releases the retire lock */
	m->work = a.p;
	m->work_size = a.size;
	return &m->regions;
}

void markers_report_release(struct markers_report *m)
{
	if (m->work)
		munmap(m->work, m->work_size);
	m->work = NULL;
}
