/* SPDX-License-Identifier: MIT */
/*
 * regions.c: the rules of regions, apart from any counter: names interned
 * once per process, per-thread tables where regions nest, overlap and
 * re-enter, misuse counted instead of trusted, and the merge of an exiting
 * thread's table into the process totals.
 *
 * A thread's table is written only by its thread, under a sequence counter,
 * because reports read it from other threads and from signal handlers,
 * which must never wait for a lock its owner might hold. Its own signal
 * handlers may write it too, inside one of its writes: the counter nests
 * (region_thread_write_begin), and such a nested write makes no new slot
 * (slot_get). Two writes go
 * without it: the common begin's depth 0 -> 1 and current node
 * (region_begin_fast), single stores that leave the table consistent
 * whichever value a copy sees.
 *
 * Slots are path nodes: one per (parent node, region id), so that the
 * report can carry the tree of nesting paths with each path's own sums.
 * The common begin checks the slot its region used last against the
 * thread's current node (one compare); a region called from another parent
 * than last time takes slot_get(), which looks that path's node up.
 */
#include "preload/markers/regions.h"

#include "preload/markers/long_name.h"

#include <errno.h>
#include <string.h>

#include "fastread/fastread.h"

_Static_assert(REGIONS_PER_THREAD_MAX < REGION_SLOT_REFUSED, "slot_of holds slot + 1 in a byte");

/* ---- names */

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 16777619u;
	}
	return h;
}

/* Any name but NULL and the empty one: a long one is kept shortened (long_name.h). */
static int name_is_valid(const char *name)
{
	return name && name[0];
}

/* The hash slot holding @name, or the empty slot where it would go. */
static uint32_t name_probe(const struct region_names *t, const char *name, uint16_t *found)
{
	uint32_t i = name_hash(name) & (REGIONS_HASH_SIZE - 1);

	for (;;) {
		uint16_t s = atomic_load_explicit(&t->slot[i], memory_order_acquire);

		/* At most half full: an empty slot always ends the probe. */
		if (s == 0 || strcmp(t->row[s - 1].name, name) == 0) {
			*found = s;
			return i;
		}
		i = (i + 1) & (REGIONS_HASH_SIZE - 1);
	}
}

int region_names_lookup(const struct region_names *t, const char *name)
{
	uint16_t found;

	char buf[REGIONS_NAME_LEN];

	if (!name_is_valid(name))
		return -ENOENT;
	name_probe(t, region_name_key(name, buf), &found);
	return found ? found - 1 : -ENOENT;
}

/* @id's name, and what region_names_match() needs of it. */
static void region_name_set(struct region_name *n, uint32_t id, const char *name)
{
	size_t len = strlen(name), bytes = len % 8 + 1;

	memset(n->name, 0, sizeof(n->name));
	memcpy(n->name, name, len);
	n->id = id;
	n->nul_word = region_name_nul_word(len);
	n->tail_mask = bytes == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * bytes)) - 1;
}

int region_names_intern(struct region_names *t, const char *name)
{
	char buf[REGIONS_NAME_LEN];
	uint32_t nr, i;
	uint16_t found;

	if (!name_is_valid(name))
		return -EINVAL;
	name = region_name_key(name, buf);
	i = name_probe(t, name, &found);
	if (found)
		return found - 1;
	nr = atomic_load_explicit(&t->nr, memory_order_relaxed);
	if (nr >= REGIONS_NAMES_MAX)
		return -ENOSPC;
	region_name_set(&t->row[nr], nr, name);
	/*
	 * nr first, then the slot: a lookup that finds the slot must also see
	 * the id counted, or markers.c, which checks each handle against nr,
	 * takes the handle it was just given for misuse (bad_handle). Both
	 * release: the name is complete before either can be seen.
	 */
	atomic_store_explicit(&t->nr, nr + 1, memory_order_release);
	atomic_store_explicit(&t->slot[i], (uint16_t)(nr + 1), memory_order_release);
	return (int)nr;
}

const struct region_name *region_names_row(const struct region_names *t, int id)
{
	if (id < 0 || (uint32_t)id >= atomic_load_explicit(&t->nr, memory_order_acquire))
		return NULL;
	return &t->row[id];
}

const char *region_names_get(const struct region_names *t, int id)
{
	const struct region_name *n = region_names_row(t, id);

	return n ? n->name : NULL;
}

/* ---- layout */

int region_layout_init(struct region_layout *l, int nr_events, int nr_groups,
		       const int *group_of, size_t budget)
{
	size_t room;

	if (nr_events < 0 || nr_events > REGIONS_EVENTS_MAX || nr_groups < 0 ||
	    nr_groups > nr_events || (nr_events > 0 && nr_groups == 0))
		return -EINVAL;
	memset(l, 0, sizeof(*l));
	l->nr_events = nr_events;
	l->nr_groups = nr_groups;
	l->nr_values = 1 + nr_events + 2 * nr_groups;
	for (int e = 0; e < nr_events; e++) {
		if (group_of[e] < 0 || group_of[e] >= nr_groups)
			return -EINVAL;
		l->group_of[e] = group_of[e];
	}
	if (nr_events > 0) {
		l->first_enabled = region_value_enabled(l, group_of[0]);
		l->first_running = region_value_running(l, group_of[0]);
	}
	/* Sums, then the sample taken at the outermost begin. */
	l->slot_size = sizeof(struct region_slot) + 2 * (size_t)l->nr_values * sizeof(uint64_t);
	room = budget > sizeof(struct region_thread) ? budget - sizeof(struct region_thread) : 0;
	l->capacity = (int)(room / l->slot_size);
	if (l->capacity < REGIONS_PER_THREAD_MIN)
		l->capacity = REGIONS_PER_THREAD_MIN;
	if (l->capacity > REGIONS_PER_THREAD_MAX)
		l->capacity = REGIONS_PER_THREAD_MAX;
	l->thread_size = sizeof(struct region_thread) + (size_t)l->capacity * l->slot_size;
	l->total_size = sizeof(struct region_total) +
			((size_t)l->nr_values + 4 * (size_t)(nr_events + 1)) * sizeof(uint64_t);
	return 0;
}

/* ---- one thread's table */

void region_thread_init(struct region_thread *t, int tid)
{
	/* The slots are cleared one by one as they are made (slot_new): none is read before. */
	memset(t, 0, sizeof(*t));
	t->tid = tid;
}

size_t region_thread_used(const struct region_thread *t, const struct region_layout *l)
{
	uint32_t n = t->nr_slots < (uint32_t)l->capacity ? t->nr_slots : (uint32_t)l->capacity;

	return sizeof(*t) + (size_t)n * l->slot_size;
}

static uint64_t *slot_sums(struct region_slot *s)
{
	return s->v;
}

static uint64_t *slot_start(struct region_slot *s, const struct region_layout *l)
{
	return s->v + l->nr_values;
}

/* Once per region and thread: out of line, so that its memset call gives every begin no frame. */
static __attribute__((noinline)) struct region_slot *slot_new(struct region_thread *t,
							      const struct region_layout *l,
							      uint32_t id)
{
	struct region_slot *s = region_slot_at(t, l, t->nr_slots);

	memset(s, 0, l->slot_size);
	s->id = (uint16_t)id;
	s->parent = t->current;
	s->first_min = REGION_NONE;
	s->wall_min = REGION_NONE;
	t->slot_of[id] = (uint8_t)++t->nr_slots;
	return s;
}

/* The node of @id under the current node, or -1. */
static int node_find(const struct region_thread *t, const struct region_layout *l, uint32_t id)
{
	for (uint32_t i = 0; i < t->nr_slots && i < (uint32_t)l->capacity; i++) {
		const struct region_slot *s = region_slot_at(t, l, i);

		if (s->id == id && s->parent == t->current)
			return (int)i;
	}
	return -1;
}

/*
 * The slot of @id to begin, inside a write: its open node (a re-entry),
 * else its node under the current node, made if it has none yet (slot_of
 * then points at it); or NULL with the misuse counted (*@status -EINVAL
 * for a bad id, -ENOSPC for a full table, remembered in slot_of so that
 * its end is not counted as a second misuse).
 * A nested writer (@nested writes in progress around it: a signal handler
 * inside its thread's own write) makes no slot: the write it interrupted
 * may be making one at the same index (slot_new() reads nr_slots, then
 * stores it raised). *@status -EBUSY then, nothing counted or remembered,
 * so that a later begin makes it.
 */
static struct region_slot *slot_get(struct region_thread *t, const struct region_layout *l,
				    uint32_t id, uint32_t nr_names, uint32_t nested, int *status)
{
	uint8_t k;
	int i;

	*status = 0;
	if (id >= nr_names || id >= REGIONS_NAMES_MAX) {
		t->bad_handle++;
		*status = -EINVAL;
		return NULL;
	}
	k = t->slot_of[id];
	if (k && k != REGION_SLOT_REFUSED) {
		struct region_slot *s = region_slot_at(t, l, k - 1u);

		if (s->depth || s->parent == t->current)
			return s;
	}
	i = node_find(t, l, id);
	if (i >= 0) {
		t->slot_of[id] = (uint8_t)(i + 1);
		return region_slot_at(t, l, (uint32_t)i);
	}
	if (t->nr_slots >= (uint32_t)l->capacity) {
		t->slot_of[id] = REGION_SLOT_REFUSED;
		t->table_full++;
		*status = -ENOSPC;
		return NULL;
	}
	if (nested) {
		*status = -EBUSY;
		return NULL;
	}
	return slot_new(t, l, id);
}

int region_slot_make(struct region_thread *t, const struct region_layout *l, uint32_t id,
		     uint32_t nr_names)
{
	uint32_t nested = region_thread_write_begin(t);
	int status;

	slot_get(t, l, id, nr_names, nested, &status);
	region_thread_write_end(t);
	return status;
}

uint64_t *region_begin_start(struct region_thread *t, const struct region_layout *l,
			     uint32_t id, uint32_t nr_names, int *status)
{
	uint32_t nested = region_thread_write_begin(t);
	struct region_slot *s = slot_get(t, l, id, nr_names, nested, status);

	if (s) {
		*status = s->depth++ > 0;
		s->reentries += *status;
		if (!*status)
			t->current = t->slot_of[id];
	}
	region_thread_write_end(t);
	/* Readers never use a begin sample: the caller may fill it after the write. */
	return *status == 0 ? slot_start(s, l) : NULL;
}

int region_begin(struct region_thread *t, const struct region_layout *l, uint32_t id,
		 uint32_t nr_names, const uint64_t *now)
{
	int status;
	uint64_t *start = region_begin_start(t, l, id, nr_names, &status);

	if (!start)
		return status;
	memcpy(start, now, (size_t)l->nr_values * sizeof(uint64_t));
	return 0;
}

const uint64_t *region_end_start(const struct region_thread *t, const struct region_layout *l,
				 uint32_t id, uint32_t nr_names)
{
	struct region_slot *s;

	if (id >= nr_names || id >= REGIONS_NAMES_MAX || !t->slot_of[id] ||
	    t->slot_of[id] == REGION_SLOT_REFUSED)
		return NULL;
	s = region_slot_at(t, l, t->slot_of[id] - 1u);
	return s->depth == 1 ? slot_start(s, l) : NULL;
}

bool region_end_closes(const struct region_thread *t, const struct region_layout *l,
		       uint32_t id, uint32_t nr_names)
{
	return region_end_start(t, l, id, nr_names) != NULL;
}

/*
 * A min not yet set is REGION_NONE, UINT64_MAX: no value is above it, so
 * "v < min" alone sets the first one (v == UINT64_MAX leaves it as it was).
 */
static inline void min_max(uint64_t *min, uint64_t *max, uint64_t v)
{
	/* Both loaded before either store (one ldp on arm64: the store to min may alias max). */
	const uint64_t lo = *min, hi = *max;

	_Static_assert(REGION_NONE == UINT64_MAX, "an unset min is above every value");
	if (v < lo)
		*min = v;
	if (v > hi)
		*max = v;
}

/* A call whose first event was multiplexed: its scaled count's extremes. */
static void first_scaled(struct region_slot *s, uint64_t value, uint64_t enabled,
			 uint64_t running)
{
	const struct fastread_count c = { .value = value, .enabled = enabled, .running = running };
	uint64_t scaled;

	/* A call during which the counter never ran has no value to compare. */
	if (fastread_scale(&c, &scaled) != -ENODATA)
		min_max(&s->first_min, &s->first_max, scaled);
}

/*
 * One outermost call closes: add now - start to the sums, and its per-call
 * extremes. Bounds in locals (with -fno-strict-aliasing each store to a sum
 * would reload them), and no call to scale the first event when its times
 * are equal, as they are unless its group was multiplexed.
 * Return: true, or false when the first event's times differ: its
 * extremes are then the caller's to take (slot_close_scaled), out of the
 * common path, so that the close calls nothing and needs no frame.
 */
static inline __attribute__((always_inline)) bool slot_close_call(struct region_slot *s,
								   const struct region_layout *l,
								   const uint64_t *now,
								   bool now_times_equal)
{
	uint64_t *sum = slot_sums(s), *start = slot_start(s, l);
	const int nr_values = l->nr_values;
	uint64_t first, enabled, running;

	/*
	 * Two values a vector (GCC's vector extension: on arm64 one q-register
	 * load of each, a sub, an add and a store a pair), the last alone when
	 * 1 + E + 2G is odd. Up to 4 pairs (9 values: 4 events in one group)
	 * straight-line code entered by a switch, no loop set-up or counter:
	 * a pair of 4 events 432 -> ~400 (docs/performance.md "Figures behind
	 * the code").
	 */
	typedef uint64_t pair_t __attribute__((vector_size(16), aligned(8), may_alias));
	pair_t *vsum = (pair_t *)sum;
	const pair_t *vnow = (const pair_t *)now, *vstart = (const pair_t *)start;
	const int pairs = nr_values >> 1;
	pair_t head;	/* the call's wall time and first event's count, the extremes' inputs */

	if (__builtin_expect(nr_values < 2, 0)) {
		/* No event: the wall time alone. */
		sum[0] += now[0] - start[0];
		s->calls++;
		min_max(&s->wall_min, &s->wall_max, now[0] - start[0]);
		return true;
	}
	head = vnow[0] - vstart[0];
	vsum[0] += head;
	switch (pairs) {
	default:
		for (int p = 4; p < pairs; p++)
			vsum[p] += vnow[p] - vstart[p];
		/* fall through */
	case 4:
		vsum[3] += vnow[3] - vstart[3];
		/* fall through */
	case 3:
		vsum[2] += vnow[2] - vstart[2];
		/* fall through */
	case 2:
		vsum[1] += vnow[1] - vstart[1];
		/* fall through */
	case 1:
		break;
	}
	if (nr_values & 1)
		sum[nr_values - 1] += now[nr_values - 1] - start[nr_values - 1];
	s->calls++;
	min_max(&s->wall_min, &s->wall_max, head[0]);
	first = head[1];
	/*
	 * Equal times: the exact count, as fastread_scale() would return it.
	 * When @now's are equal (a sample from a cache), the call's are
	 * exactly when the begin's are: two loads and two subtractions less.
	 */
	if (now_times_equal) {
		enabled = start[l->first_enabled];
		running = start[l->first_running];
	} else {
		enabled = now[l->first_enabled] - start[l->first_enabled];
		running = now[l->first_running] - start[l->first_running];
	}
	if (__builtin_expect(enabled != running, 0))
		return false;
	min_max(&s->first_min, &s->first_max, first);
	return true;
}

/* The rest of a close whose first event's times differ (slot_close_call). */
static void slot_close_scaled(struct region_slot *s, const struct region_layout *l,
			      const uint64_t *now)
{
	const uint64_t *start = slot_start(s, l);

	first_scaled(s, now[1] - start[1], now[l->first_enabled] - start[l->first_enabled],
		     now[l->first_running] - start[l->first_running]);
}

/* region_end_fast()'s close when the first event was multiplexed: out of its path. */
static __attribute__((noinline)) int region_close_scaled(struct region_thread *t,
							 struct region_slot *s,
							 const struct region_layout *l,
							 const uint64_t *now)
{
	slot_close_scaled(s, l, now);
	s->depth = 0;
	region_thread_write_end(t);
	return 0;
}

/* region_end_fast_as()'s uncommon case: region_end(), its status mapped. */
static __attribute__((noinline)) int region_end_as(struct region_thread *t,
						   const struct region_layout *l, uint32_t id,
						   const _Atomic uint32_t *nr_names,
						   const uint64_t *now, int misuse)
{
	int ret = region_end(t, l, id, atomic_load_explicit(nr_names, memory_order_acquire), now);

	return ret < 0 ? misuse : 0;
}

/*
 * The close of region_end_fast() and region_end_fast_as(): @mapped says
 * which (a constant: each has its own copy, with no test). The latter's
 * @now has equal times in its first group (regions.h).
 */
static inline __attribute__((always_inline)) int end_fast(struct region_thread *t,
							  const struct region_layout *l,
							  uint32_t id,
							  const _Atomic uint32_t *nr_names,
							  const uint64_t *now, bool mapped, int misuse)
{
	/*
	 * The innermost open node closing: its parent is current again. The
	 * current node is found by its number, not @id's through slot_of: an
	 * id has one open node at most (a begin of an open region is a
	 * re-entry), which slot_of points to, so "the current node is @id's
	 * and open once" is this test, with no range check of @id (a node's
	 * id is one that was checked) and ~5 instructions less an end.
	 */
	const uint16_t k = t->current;
	struct region_slot *s = region_slot_at(t, l, k - 1u);

	if (!k || s->id != id || s->depth != 1) {
		if (mapped)
			return region_end_as(t, l, id, nr_names, now, misuse);
		return region_end(t, l, id, atomic_load_explicit(nr_names, memory_order_acquire),
				  now);
	}
	region_thread_write_begin(t);
	t->current = s->parent;
	if (__builtin_expect(!slot_close_call(s, l, now, mapped), 0))
		return region_close_scaled(t, s, l, now);
	s->depth = 0;
	region_thread_write_end(t);
	return 0;
}

int region_end_fast(struct region_thread *t, const struct region_layout *l, uint32_t id,
		    const _Atomic uint32_t *nr_names, const uint64_t *now)
{
	return end_fast(t, l, id, nr_names, now, false, 0);
}

int region_end_fast_as(struct region_thread *t, const struct region_layout *l, uint32_t id,
		       const _Atomic uint32_t *nr_names, const uint64_t *now, int misuse)
{
	return end_fast(t, l, id, nr_names, now, true, misuse);
}

/*
 * Node @k (slot + 1) closes: the current node becomes its parent when it is
 * the current node or one of its ancestors, the latter out of order
 * (unnested): the nodes begun inside it stay open off the chain, each to
 * close at its own end, which changes nothing more and is not counted again.
 */
static void node_leave(struct region_thread *t, const struct region_layout *l, uint16_t k)
{
	uint16_t c = t->current;
	int steps = 0;

	/* A chain has at most capacity nodes: the bound only guards a corrupt table. */
	while (c && c != k && steps++ < l->capacity)
		c = region_slot_at(t, l, c - 1u)->parent;
	if (c != k)
		return;
	t->unnested += t->current != k;
	t->current = region_slot_at(t, l, k - 1u)->parent;
}

int region_end(struct region_thread *t, const struct region_layout *l, uint32_t id,
	       uint32_t nr_names, const uint64_t *now)
{
	struct region_slot *s = NULL;
	uint32_t nested = region_thread_write_begin(t);
	int ret;

	if (id >= nr_names || id >= REGIONS_NAMES_MAX) {
		t->bad_handle++;
		ret = -EINVAL;
	} else if (t->slot_of[id] == REGION_SLOT_REFUSED) {
		ret = -ENOSPC;	/* its begin was refused and counted */
	} else if (!t->slot_of[id] && nested) {
		ret = 1;	/* its begin was refused for nesting (slot_get): not misuse */
	} else if (!t->slot_of[id] ||
		   (s = region_slot_at(t, l, t->slot_of[id] - 1u))->depth == 0) {
		t->end_without_begin++;
		ret = -ENOENT;
	} else if (--s->depth > 0) {
		ret = 1;
	} else {
		node_leave(t, l, t->slot_of[id]);
		if (!slot_close_call(s, l, now, false))
			slot_close_scaled(s, l, now);
		ret = 0;
	}
	region_thread_write_end(t);
	return ret;
}

/*
 * Every pfshim_report() names its thread again (a name may be given at any
 * time): the same name is not written. A write makes the sequence counter
 * move, and reports of other threads copying this table meanwhile retry;
 * with many threads reporting at once they ran out of tries and left the
 * regions out. The owner is the only writer: it may read its own name.
 */
void region_thread_set_name(struct region_thread *t, const char *name)
{
	if (strncmp(t->name, name, sizeof(t->name) - 1) == 0)
		return;
	region_thread_write_begin(t);
	strncpy(t->name, name, sizeof(t->name) - 1);
	t->name[sizeof(t->name) - 1] = '\0';
	region_thread_write_end(t);
}

void region_thread_close(struct region_thread *t, const struct region_layout *l)
{
	region_thread_write_begin(t);
	for (uint32_t i = 0; i < t->nr_slots; i++) {
		struct region_slot *s = region_slot_at(t, l, i);

		if (s->depth) {
			s->unclosed++;
			s->depth = 0;
		}
	}
	t->current = 0;
	region_thread_write_end(t);
}

/* @v, a wall time of @t's, in ns. */
static uint64_t wall_ns_of(const struct region_thread *t, uint64_t v)
{
	return t->wall_mult ? fastread_cycles_to_ns(v, t->wall_mult, t->wall_shift) : v;
}

void region_thread_wall_to_ns(struct region_thread *t, const struct region_layout *l)
{
	if (!t->wall_mult)
		return;
	for (uint32_t i = 0; i < t->nr_slots; i++) {
		struct region_slot *s = region_slot_at(t, l, i);

		s->v[region_value_wall()] = wall_ns_of(t, s->v[region_value_wall()]);
		if (s->wall_min == REGION_NONE)
			continue;
		s->wall_min = wall_ns_of(t, s->wall_min);
		s->wall_max = wall_ns_of(t, s->wall_max);
	}
	t->wall_mult = 0;
	t->wall_shift = 0;
}

int region_thread_snapshot(const struct region_thread *t, const struct region_layout *l,
			   struct region_thread *copy, int tries)
{
	while (tries-- > 0) {
		uint32_t before = atomic_load_explicit(&t->seq, memory_order_acquire);

		/* A write in progress: the low byte counts it. */
		if (before & REGION_SEQ_WRITERS)
			continue;
		/* The header, then the slots it counts: a torn count is caught by seq below. */
		memcpy(copy, t, sizeof(*t));
		memcpy(copy->slots, t->slots, region_thread_used(copy, l) - sizeof(*t));
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&t->seq, memory_order_relaxed) == before) {
			region_thread_wall_to_ns(copy, l);
			return 0;
		}
	}
	return -EBUSY;
}

int region_slot_value(const struct region_slot *s, const struct region_layout *l, int k,
		      uint64_t *out)
{
	struct fastread_count c;
	int g;

	if (k == 0) {
		*out = s->v[0];
		return 0;
	}
	g = l->group_of[k - 1];
	c.value = s->v[k];
	c.enabled = s->v[region_value_enabled(l, g)];
	c.running = s->v[region_value_running(l, g)];
	/* -EOVERFLOW leaves UINT64_MAX: saturated, but counted. */
	return fastread_scale(&c, out) == -ENODATA ? -ENODATA : 0;
}

/* ---- process totals */

void region_totals_init(struct region_totals *t, const struct region_layout *l)
{
	memset(t, 0, region_totals_size(l));
	for (uint32_t id = 0; id < REGIONS_NAMES_MAX; id++) {
		struct region_total *r = region_total_at(t, l, id);

		r->first_min = REGION_NONE;
		r->wall_min = REGION_NONE;
		for (int k = 0; k <= l->nr_events; k++)
			region_total_stat(r, l, k)[1] = REGION_NONE;
	}
}

static void extremes_merge(uint64_t *min, uint64_t *max, uint64_t other_min, uint64_t other_max)
{
	if (other_min == REGION_NONE)
		return;
	min_max(min, max, other_min);
	min_max(min, max, other_max);
}

void region_slot_add(struct region_slot *into, const struct region_slot *s,
		     const struct region_layout *l)
{
	into->id = s->id;
	if (s->depth)
		into->depth = s->depth;
	into->calls += s->calls;
	into->reentries += s->reentries;
	into->unclosed += s->unclosed;
	extremes_merge(&into->first_min, &into->first_max, s->first_min, s->first_max);
	extremes_merge(&into->wall_min, &into->wall_max, s->wall_min, s->wall_max);
	for (int i = 0; i < l->nr_values; i++)
		into->v[i] += s->v[i];
}

bool region_slot_first_of_id(const struct region_thread *t, const struct region_layout *l,
			     const struct region_slot *s)
{
	for (uint32_t i = 0; i < t->nr_slots && i < (uint32_t)l->capacity; i++) {
		const struct region_slot *o = region_slot_at(t, l, i);

		if (o == s)
			return true;
		if (o->id == s->id)
			return false;
	}
	return false;
}

/*
 * Value @k of region @id in @t over all its nodes: the sums added up, then
 * scaled once, as its flat listing shows it (region_slot_add, then
 * region_slot_value).
 */
static int thread_id_value(const struct region_thread *t, const struct region_layout *l,
			   uint32_t id, int k, uint64_t *out)
{
	struct fastread_count c = { 0 };
	int g = k > 0 ? l->group_of[k - 1] : 0;

	for (uint32_t i = 0; i < t->nr_slots && i < (uint32_t)l->capacity; i++) {
		const struct region_slot *s = region_slot_at(t, l, i);

		if (s->id != id)
			continue;
		c.value += s->v[k];
		if (k > 0) {
			c.enabled += s->v[region_value_enabled(l, g)];
			c.running += s->v[region_value_running(l, g)];
		}
	}
	if (k == 0) {
		*out = c.value;
		return 0;
	}
	return fastread_scale(&c, out) == -ENODATA ? -ENODATA : 0;
}

/* Calls of region @id in @t over all its nodes. */
static uint64_t thread_id_calls(const struct region_thread *t, const struct region_layout *l,
				uint32_t id)
{
	uint64_t calls = 0;

	for (uint32_t i = 0; i < t->nr_slots && i < (uint32_t)l->capacity; i++) {
		const struct region_slot *s = region_slot_at(t, l, i);

		calls += s->id == id ? s->calls : 0;
	}
	return calls;
}

int region_thread_id_read(const struct region_thread *t, const struct region_layout *l,
			  uint32_t id, struct region_id_values *out)
{
	const struct region_slot *latest = region_slot_find(t, l, id);
	bool begun = false;

	out->calls = 0;
	out->open = latest && latest->depth > 0;
	for (uint32_t i = 0; i < t->nr_slots && i < (uint32_t)l->capacity; i++)
		if (region_slot_at(t, l, i)->id == id) {
			begun = true;
			break;
		}
	if (!begun) {
		out->wall_ns = 0;
		for (int e = 0; e < l->nr_events; e++)
			out->value[e] = 0;
		return -ENOENT;
	}
	out->calls = thread_id_calls(t, l, id);
	(void)thread_id_value(t, l, id, region_value_wall(), &out->wall_ns);
	out->wall_ns = wall_ns_of(t, out->wall_ns);
	for (int e = 0; e < l->nr_events; e++)
		if (thread_id_value(t, l, id, region_value_event(e), &out->value[e]) < 0)
			out->value[e] = 0;
	return 0;
}

/* Node @s into its region's total; the thread itself once per region, at its first node. */
_Static_assert(REGIONS_EVENTS_MAX <= 64, "a group a bit of a uint64_t (region_totals_merge)");

static void slot_merge(struct region_total *r, const struct region_layout *l,
		       const struct region_thread *t, const struct region_slot *s,
		       int open_is_unclosed, uint64_t never_ran)
{
	r->calls += s->calls;
	r->reentries += s->reentries;
	r->unclosed += s->unclosed + (open_is_unclosed && s->depth > 0);
	extremes_merge(&r->first_min, &r->first_max, s->first_min, s->first_max);
	if (s->wall_min != REGION_NONE)
		extremes_merge(&r->wall_min, &r->wall_max, wall_ns_of(t, s->wall_min),
			       wall_ns_of(t, s->wall_max));
	for (int i = 0; i < l->nr_values; i++)
		r->v[i] += i == region_value_wall() ? wall_ns_of(t, s->v[i]) : s->v[i];
	/*
	 * A group that never ran in the thread (no counters: enabled, never
	 * running, is how its samples say "not counted") adds no count: its
	 * enabled time would mark every thread's sum scaled. One that ran in
	 * another region of the thread keeps its times: that is multiplexing.
	 */
	for (int g = 0; g < l->nr_groups; g++)
		if (never_ran >> g & 1)
			r->v[region_value_enabled(l, g)] -= s->v[region_value_enabled(l, g)];
	if (!region_slot_first_of_id(t, l, s))
		return;
	r->threads++;
	if (thread_id_calls(t, l, s->id) == 0)
		return;
	/* The thread's own total is one observation of the per-thread statistics. */
	for (int k = 0; k <= l->nr_events; k++) {
		uint64_t *stat = region_total_stat(r, l, k), x;

		if (thread_id_value(t, l, s->id, k, &x) < 0)
			continue;
		if (k == region_value_wall())
			x = wall_ns_of(t, x);
		stat[0] += x;
		min_max(&stat[1], &stat[2], x);
		stat[3]++;
	}
}

void region_totals_merge(struct region_totals *tot, const struct region_layout *l,
			 const struct region_thread *t, int open_is_unclosed)
{
	uint32_t n = t->nr_slots < (uint32_t)l->capacity ? t->nr_slots : (uint32_t)l->capacity;
	uint64_t never_ran = 0;

	/* The groups that ran in no slot of the thread (REGIONS_EVENTS_MAX: a bit each) */
	for (int g = 0; g < l->nr_groups; g++)
		never_ran |= (uint64_t)1 << g;
	for (uint32_t i = 0; i < n; i++)
		for (int g = 0; g < l->nr_groups; g++)
			if (region_slot_at(t, l, i)->v[region_value_running(l, g)])
				never_ran &= ~((uint64_t)1 << g);
	tot->threads_merged++;
	tot->end_without_begin += t->end_without_begin;
	tot->bad_handle += t->bad_handle;
	tot->table_full += t->table_full;
	tot->unnested += t->unnested;
	tot->user_reads += t->user_reads;
	tot->syscall_reads += t->syscall_reads;
	tot->read_errors += t->read_errors;
	for (uint32_t i = 0; i < n; i++) {
		const struct region_slot *s = region_slot_at(t, l, i);

		if (s->id < REGIONS_NAMES_MAX)
			slot_merge(region_total_at(tot, l, s->id), l, t, s, open_is_unclosed, never_ran);
	}
}
