/* SPDX-License-Identifier: MIT */
/*
 * probe.c: the markers' own cost per call. A region's counts hold, beside
 * its own work, the part of pfshim_begin after its counter read and the part
 * of pfshim_end before its read (docs/markers.md "The begin/end path").
 * Each thread measures that part once, at set-up, on a hidden region of its
 * own table (id PROBE_REGION_ID, reserved before any name): the slot then
 * travels with the table like any region (reports' copies, the list of
 * exited threads, the totals over threads), and report.c shows it apart.
 *
 * Compensation is done on whole tables at report time (probe_compensate),
 * never in pfshim_end: begin and end pay nothing for it.
 */
#include "preload/markers/probe.h"

#include <errno.h>
#include <string.h>

#include "pfshim.h"	/* the wrappers, as a program calls them: no PFSHIM_IMPLEMENTATION */
#include "preload/markers/state.h"

void probe_reserve(struct region_names *names)
{
	/* No name: matched by "" alone, which no lookup gives (region_names_match). */
	names->row[PROBE_REGION_ID] = (struct region_name){
		.nul_word = region_name_nul_word(0), .id = PROBE_REGION_ID, .tail_mask = 0xff };
	atomic_store_explicit(&names->nr, PROBE_REGION_ID + 1, memory_order_release);
}

const struct region_slot *probe_slot(const struct region_thread *t,
				     const struct region_layout *l)
{
	uint8_t at = t->slot_of[PROBE_REGION_ID];

	if (at == 0 || at == REGION_SLOT_REFUSED || at > t->nr_slots || at > l->capacity)
		return NULL;
	return region_slot_at(t, l, at - 1u);
}

int probe_per_call(const struct region_slot *p, const struct region_layout *l, int e,
		   uint64_t *out)
{
	uint64_t sum;

	if (p->calls == 0 || region_slot_value(p, l, 1 + e, &sum) < 0)
		return -ENODATA;
	*out = sum / p->calls;
	return 0;
}

/* The least of each value over the tries, and whether each group was ever whole on a counter. */
struct probe_best {
	uint64_t wall;
	uint64_t event[REGIONS_EVENTS_MAX];
	int group_whole[REGIONS_EVENTS_MAX];
};

/* One try's differences (@s's sums now minus @before) into @b. */
static void probe_take(struct probe_best *b, const struct region_slot *s, const uint64_t *before,
		       const struct region_layout *l)
{
	int whole[REGIONS_EVENTS_MAX];

	if (s->v[0] - before[0] < b->wall)
		b->wall = s->v[0] - before[0];
	/* A group multiplexed during the try holds part of the pair only: not taken. */
	for (int g = 0; g < l->nr_groups; g++) {
		uint64_t en = s->v[region_value_enabled(l, g)] - before[region_value_enabled(l, g)];
		uint64_t run = s->v[region_value_running(l, g)] - before[region_value_running(l, g)];

		/* Equal times, even 0 and 0 (a cached read leaves them), are exact. */
		whole[g] = run == en;
		b->group_whole[g] |= whole[g];
	}
	for (int e = 0; e < l->nr_events; e++) {
		uint64_t d = s->v[region_value_event(e)] - before[region_value_event(e)];

		if (whole[l->group_of[e]] && d < b->event[e])
			b->event[e] = d;
	}
}

/* The hidden slot becomes one call of the least values: equal times say "exact". */
static void probe_store(struct region_thread *t, struct region_slot *s, const struct probe_best *b,
			const struct region_layout *l)
{
	region_thread_write_begin(t);
	memset(s->v, 0, (size_t)l->nr_values * sizeof(s->v[0]));
	s->calls = 1;
	s->reentries = 0;
	s->v[region_value_wall()] = b->wall;
	s->wall_min = s->wall_max = b->wall;
	for (int g = 0; g < l->nr_groups; g++) {
		s->v[region_value_enabled(l, g)] = 1;
		s->v[region_value_running(l, g)] = b->group_whole[g];	/* 0: not counted */
	}
	for (int e = 0; e < l->nr_events; e++)
		if (b->group_whole[l->group_of[e]])
			s->v[region_value_event(e)] = b->event[e];
	s->first_min = REGION_NONE;
	s->first_max = 0;
	if (l->nr_events > 0 && b->group_whole[l->group_of[0]])
		s->first_min = s->first_max = b->event[0];
	region_thread_write_end(t);
}

/* The reads @t's groups have served so far. */
static void reads_count(const struct marker_thread *t, uint64_t *user, uint64_t *syscall)
{
	*user = *syscall = 0;
	for (int g = 0; g < markers.nr_groups; g++) {
		*user += t->groups[g].nr_user_reads;
		*syscall += t->groups[g].nr_syscall_reads;
	}
}

/*
 * One empty region, shaped as a program's: a function of its own around the
 * two wrappers (the end a tail call). noipa: the handle must arrive as an
 * argument, kept across the begin, as a program's does, not be a constant
 * the compiler folds into the end's call.
 */
#if defined(__GNUC__) && !defined(__clang__)
__attribute__((noipa))
#endif
static __attribute__((noinline)) void probe_pair(pfshim_region_t region)
{
	pfshim_begin(region);
	pfshim_end(region);
}

void probe_measure(struct marker_thread *t)
{
	const struct region_layout *l = &markers.layout;
	const pfshim_region_t hidden = PROBE_REGION_ID + 1;
	/* The spare sample is free until the thread's first pfshim_read(). */
	uint64_t *before = t->spare;
	struct probe_best best;
	struct region_slot *s;
	uint64_t user, syscall, user_after, syscall_after;

	if (!markers.probe_reserved)
		return;
	reads_count(t, &user, &syscall);
	memset(&best, 0, sizeof(best));
	best.wall = UINT64_MAX;
	for (int e = 0; e < l->nr_events; e++)
		best.event[e] = UINT64_MAX;
	for (int i = 0; i < PROBE_TRIES; i++) {
		const struct region_slot *p = probe_slot(t->regions, l);

		if (p)
			memcpy(before, p->v, (size_t)l->nr_values * sizeof(before[0]));
		else
			memset(before, 0, (size_t)l->nr_values * sizeof(before[0]));
		probe_pair(hidden);
		if (!(p = probe_slot(t->regions, l)) || p->calls != (uint64_t)i + 1)
			return;	/* refused (cannot happen in a new table): no probe */
		probe_take(&best, p, before, l);
	}
	s = region_slot_at(t->regions, l, t->regions->slot_of[PROBE_REGION_ID] - 1u);
	probe_store(t->regions, s, &best, l);
	reads_count(t, &user_after, &syscall_after);
	t->probe_user_reads = (uint16_t)(user_after - user);
	t->probe_syscall_reads = (uint16_t)(syscall_after - syscall);
}

/* @v less @sub, never below 0. */
static uint64_t minus_clamped(uint64_t v, uint64_t sub)
{
	return v > sub ? v - sub : 0;
}

/* calls x @per in raw units of a group that ran @run of @en ns: the scaled value loses calls x @per. */
static uint64_t raw_share(uint64_t calls, uint64_t per, uint64_t en, uint64_t run)
{
	unsigned __int128 x = (unsigned __int128)calls * per;

	if (en != run && en > 0)
		x = x * run / en;
	return x > UINT64_MAX ? UINT64_MAX : (uint64_t)x;
}

void probe_compensate(struct region_thread *t, const struct region_layout *l)
{
	const struct region_slot *p = probe_slot(t, l);
	uint64_t per[REGIONS_EVENTS_MAX];
	int have[REGIONS_EVENTS_MAX];
	uint32_t n = t->nr_slots < (uint32_t)l->capacity ? t->nr_slots : (uint32_t)l->capacity;

	if (!p)
		return;
	for (int e = 0; e < l->nr_events; e++)
		have[e] = probe_per_call(p, l, e, &per[e]) == 0;
	region_thread_write_begin(t);
	for (uint32_t i = 0; i < n; i++) {
		struct region_slot *s = region_slot_at(t, l, i);

		if (s == p || s->calls == 0)
			continue;
		for (int e = 0; e < l->nr_events; e++) {
			int g = l->group_of[e];
			uint64_t en = s->v[region_value_enabled(l, g)];
			uint64_t run = s->v[region_value_running(l, g)];
			uint64_t *sum = &s->v[region_value_event(e)];

			/* Never ran: no value to take from. Equal times, even 0 and 0, are exact. */
			if (have[e] && (run > 0 || en == 0))
				*sum = minus_clamped(*sum, raw_share(s->calls, per[e], en, run));
		}
		if (l->nr_events > 0 && have[0] && s->first_min != REGION_NONE) {
			s->first_min = minus_clamped(s->first_min, per[0]);
			s->first_max = minus_clamped(s->first_max, per[0]);
		}
	}
	region_thread_write_end(t);
}
