/* SPDX-License-Identifier: MIT */
/*
 * test_regions.c: preload/markers/regions.c, the region rules without counters:
 * names, nesting, overlap, re-entry, misuse, limits, snapshots and the merge
 * of thread tables into process totals, on samples chosen by hand.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fastread/fastread.h"

/* A signal handler between the load and the store of a write's begin (test_handler_inside_begin). */
struct region_thread;
static void handler_inside_begin(struct region_thread *t);
#define REGION_WRITE_BEGIN_TEST_HOOK(t) handler_inside_begin(t)
#include "preload/markers/regions.h"

/* Two events in one group: sample = { wall, ev0, ev1, enabled, running }. */
static struct region_layout layout;
static struct region_thread *thread;

static int setup(void **state)
{
	static const int group_of[2] = { 0, 0 };

	(void)state;
	assert_int_equal(region_layout_init(&layout, 2, 1, group_of, 4096), 0);
	thread = calloc(1, layout.thread_size);
	region_thread_init(thread, 1234);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	free(thread);
	return 0;
}

/* A sample at time @t where both events read @a and @b, always running. */
static const uint64_t *sample(uint64_t t, uint64_t a, uint64_t b)
{
	static uint64_t v[5];

	v[0] = t;
	v[1] = a;
	v[2] = b;
	v[3] = t;
	v[4] = t;
	return v;
}

static struct region_slot *slot_of(uint32_t id)
{
	assert_true(thread->slot_of[id] > 0);
	return region_slot_at(thread, &layout, thread->slot_of[id] - 1u);
}

static void test_names_intern_and_lookup(void **state)
{
	static struct region_names names;
	char long_name[REGIONS_NAME_LEN + 1];

	(void)state;
	assert_int_equal(region_names_intern(&names, "solve"), 0);
	assert_int_equal(region_names_intern(&names, "init"), 1);
	assert_int_equal(region_names_intern(&names, "solve"), 0);
	assert_int_equal(region_names_lookup(&names, "init"), 1);
	assert_int_equal(region_names_lookup(&names, "nope"), -ENOENT);
	assert_string_equal(region_names_get(&names, 1), "init");
	assert_null(region_names_get(&names, 2));
	assert_int_equal(region_names_intern(&names, ""), -EINVAL);
	assert_int_equal(region_names_intern(&names, NULL), -EINVAL);
	memset(long_name, 'x', REGIONS_NAME_LEN);
	long_name[REGIONS_NAME_LEN] = '\0';
	/* 64 bytes: kept shortened (test_long_name.c), a name all the same */
	assert_int_equal(region_names_intern(&names, long_name), 2);
	assert_int_equal(strlen(region_names_get(&names, 2)), REGIONS_NAME_LEN - 1);
	long_name[REGIONS_NAME_LEN - 1] = '\0';	/* 63 bytes: the longest kept as it is */
	assert_int_equal(region_names_intern(&names, long_name), 3);
	assert_string_equal(region_names_get(&names, 3), long_name);
}

static void test_names_limit(void **state)
{
	static struct region_names names;
	char name[32];

	(void)state;
	for (int i = 0; i < REGIONS_NAMES_MAX; i++) {
		snprintf(name, sizeof(name), "r%d", i);
		assert_int_equal(region_names_intern(&names, name), i);
	}
	assert_int_equal(region_names_intern(&names, "one-too-many"), -ENOSPC);
	/* Every name is still found after the table filled up. */
	for (int i = 0; i < REGIONS_NAMES_MAX; i++) {
		snprintf(name, sizeof(name), "r%d", i);
		assert_int_equal(region_names_lookup(&names, name), i);
	}
}

/*
 * A handle found by lookup must be one the table already counts: markers.c
 * checks every handle against region_names' nr (bad_handle misuse). A
 * writer interns names one at a time while a reader spins on each, then
 * asks region_names_get() for the id it found. The window is a few
 * instructions wide: 60 rounds of 32 tables of 256 names, 0.3 s, caught
 * the slot-before-nr order in 20 of 30 runs on the 2-core build machine.
 */
#define RACE_TABLES 32
#define RACE_ROUNDS 60

struct names_race {
	struct region_names *tables;
	_Atomic int want;		/* table * REGIONS_NAMES_MAX + name the reader waits for */
};

static void *names_race_writer(void *arg)
{
	struct names_race *r = arg;
	char name[32];

	for (int k = 0; k < RACE_TABLES * REGIONS_NAMES_MAX; k++) {
		while (atomic_load(&r->want) != k)
			;
		snprintf(name, sizeof(name), "r%d", k % REGIONS_NAMES_MAX);
		region_names_intern(&r->tables[k / REGIONS_NAMES_MAX], name);
	}
	return NULL;
}

/* How many lookups of one round found an id that region_names_get() did not know yet. */
static int names_race_round(struct names_race *r)
{
	int ahead = 0, id;
	pthread_t writer;
	char name[32];

	memset(r->tables, 0, RACE_TABLES * sizeof(struct region_names));
	atomic_store(&r->want, -1);
	assert_int_equal(pthread_create(&writer, NULL, names_race_writer, r), 0);
	for (int k = 0; k < RACE_TABLES * REGIONS_NAMES_MAX; k++) {
		const struct region_names *t = &r->tables[k / REGIONS_NAMES_MAX];

		snprintf(name, sizeof(name), "r%d", k % REGIONS_NAMES_MAX);
		atomic_store(&r->want, k);
		while ((id = region_names_lookup(t, name)) < 0)
			;
		ahead += region_names_get(t, id) == NULL;
	}
	pthread_join(writer, NULL);
	return ahead;
}

static void test_names_lookup_never_ahead_of_nr(void **state)
{
	struct names_race r = { calloc(RACE_TABLES, sizeof(struct region_names)), 0 };
	int ahead = 0;

	(void)state;
	assert_non_null(r.tables);
	for (int round = 0; round < RACE_ROUNDS; round++)
		ahead += names_race_round(&r);
	free(r.tables);
	assert_int_equal(ahead, 0);
}

static void test_layout_bounds(void **state)
{
	static const int group_of[64];
	struct region_layout l;

	(void)state;
	/* 2 events, 1 group: 5 values, slot = header + 80 bytes, within one page. */
	assert_int_equal(layout.nr_values, 5);
	assert_int_equal(layout.slot_size, sizeof(struct region_slot) + 80);
	assert_true(layout.thread_size <= 4096);
	assert_int_equal(layout.capacity,
			 (int)((4096 - sizeof(struct region_thread)) / layout.slot_size));
	/* 64 events do not fit 8 regions in a page: the minimum wins. */
	assert_int_equal(region_layout_init(&l, 64, 1, group_of, 4096), 0);
	assert_int_equal(l.capacity, REGIONS_PER_THREAD_MIN);
	/* No events: wall time only, capped at the maximum. */
	assert_int_equal(region_layout_init(&l, 0, 0, group_of, 1 << 20), 0);
	assert_int_equal(l.capacity, REGIONS_PER_THREAD_MAX);
	assert_int_equal(region_layout_init(&l, 65, 1, group_of, 4096), -EINVAL);
	assert_int_equal(region_layout_init(&l, 2, 0, group_of, 4096), -EINVAL);
}

static void test_one_call(void **state)
{
	struct region_slot *s;

	(void)state;
	assert_int_equal(region_begin(thread, &layout, 3, 10, sample(100, 10, 1000)), 0);
	assert_int_equal(region_end(thread, &layout, 3, 10, sample(150, 17, 1300)), 0);
	s = slot_of(3);
	assert_int_equal(s->calls, 1);
	assert_int_equal(s->v[0], 50);
	assert_int_equal(s->v[1], 7);
	assert_int_equal(s->v[2], 300);
	assert_int_equal(s->first_min, 7);
	assert_int_equal(s->first_max, 7);
	assert_int_equal(s->wall_min, 50);
	assert_int_equal(s->depth, 0);
}

/* outer [0, 100) holds inner [10, 30) and [50, 90): inclusive counts. */
static void test_nesting_is_inclusive(void **state)
{
	(void)state;
	region_begin(thread, &layout, 0, 2, sample(0, 0, 0));
	region_begin(thread, &layout, 1, 2, sample(10, 5, 0));
	region_end(thread, &layout, 1, 2, sample(30, 8, 0));
	region_begin(thread, &layout, 1, 2, sample(50, 20, 0));
	region_end(thread, &layout, 1, 2, sample(90, 29, 0));
	region_end(thread, &layout, 0, 2, sample(100, 40, 0));
	assert_int_equal(slot_of(0)->calls, 1);
	assert_int_equal(slot_of(0)->v[1], 40);
	assert_int_equal(slot_of(0)->v[0], 100);
	assert_int_equal(slot_of(1)->calls, 2);
	assert_int_equal(slot_of(1)->v[1], 3 + 9);
	assert_int_equal(slot_of(1)->v[0], 20 + 40);
	assert_int_equal(slot_of(1)->first_min, 3);
	assert_int_equal(slot_of(1)->first_max, 9);
	assert_int_equal(slot_of(1)->wall_max, 40);
}

/* A [0, 50) and B [20, 80) overlap without being nested. */
static void test_overlap(void **state)
{
	(void)state;
	assert_int_equal(region_begin(thread, &layout, 0, 2, sample(0, 0, 0)), 0);
	assert_int_equal(region_begin(thread, &layout, 1, 2, sample(20, 2, 0)), 0);
	assert_int_equal(region_end(thread, &layout, 0, 2, sample(50, 5, 0)), 0);
	assert_int_equal(region_end(thread, &layout, 1, 2, sample(80, 8, 0)), 0);
	assert_int_equal(slot_of(0)->v[1], 5);
	assert_int_equal(slot_of(1)->v[1], 6);
	assert_int_equal(slot_of(1)->v[0], 60);
}

/* f() calls itself three deep: one call, from the outermost begin to the outermost end. */
static void test_recursion_counts_once(void **state)
{
	(void)state;
	assert_int_equal(region_begin(thread, &layout, 2, 3, sample(0, 100, 0)), 0);
	assert_int_equal(region_begin(thread, &layout, 2, 3, sample(10, 110, 0)), 1);
	assert_int_equal(region_begin(thread, &layout, 2, 3, sample(20, 120, 0)), 1);
	assert_int_equal(region_end(thread, &layout, 2, 3, sample(30, 130, 0)), 1);
	assert_int_equal(region_end(thread, &layout, 2, 3, sample(40, 140, 0)), 1);
	assert_int_equal(region_end(thread, &layout, 2, 3, sample(50, 150, 0)), 0);
	assert_int_equal(slot_of(2)->calls, 1);
	assert_int_equal(slot_of(2)->reentries, 2);
	assert_int_equal(slot_of(2)->v[1], 50);
	assert_int_equal(slot_of(2)->v[0], 50);
	/* One more end is misuse, not a negative depth. */
	assert_int_equal(region_end(thread, &layout, 2, 3, sample(60, 160, 0)), -ENOENT);
	assert_int_equal(thread->end_without_begin, 1);
	assert_int_equal(slot_of(2)->calls, 1);
}

/* What markers.c uses: the begin sample goes in last, an end sample only when needed. */
static void test_begin_halves_and_end_closes(void **state)
{
	uint64_t *start;
	int status;

	(void)state;
	start = region_begin_start(thread, &layout, 0, 1, &status);
	assert_non_null(start);
	assert_int_equal(status, 0);
	/* The sample goes in after the write: a report never waits for a read(2). */
	assert_false(atomic_load(&thread->seq) & REGION_SEQ_WRITERS);
	memcpy(start, sample(10, 1, 2), 5 * sizeof(uint64_t));
	assert_null(region_begin_start(thread, &layout, 0, 1, &status));
	assert_int_equal(status, 1);
	assert_false(atomic_load(&thread->seq) & REGION_SEQ_WRITERS);
	assert_false(region_end_closes(thread, &layout, 0, 1));	/* the inner end */
	assert_int_equal(region_end(thread, &layout, 0, 1, NULL), 1);
	assert_true(region_end_closes(thread, &layout, 0, 1));
	assert_int_equal(region_end(thread, &layout, 0, 1, sample(30, 4, 2)), 0);
	assert_false(region_end_closes(thread, &layout, 0, 1));
	assert_false(region_end_closes(thread, &layout, 7, 1));
	assert_int_equal(slot_of(0)->v[0], 20);
	assert_int_equal(slot_of(0)->v[1], 3);
}

static void test_misuse(void **state)
{
	(void)state;
	/* end of a region never begun: no slot is taken for it */
	assert_int_equal(region_end(thread, &layout, 4, 5, sample(0, 0, 0)), -ENOENT);
	assert_int_equal(thread->end_without_begin, 1);
	assert_int_equal(thread->nr_slots, 0);
	/* handles that pfshim_region() never gave */
	assert_int_equal(region_begin(thread, &layout, 5, 5, sample(0, 0, 0)), -EINVAL);
	assert_int_equal(region_end(thread, &layout, 999, 5, sample(0, 0, 0)), -EINVAL);
	assert_int_equal(thread->bad_handle, 2);
	/* open at thread exit: unclosed, and it adds nothing to the sums */
	region_begin(thread, &layout, 1, 5, sample(0, 0, 0));
	region_begin(thread, &layout, 1, 5, sample(5, 5, 0));
	region_thread_close(thread, &layout);
	assert_int_equal(slot_of(1)->unclosed, 1);
	assert_int_equal(slot_of(1)->calls, 0);
	assert_int_equal(slot_of(1)->depth, 0);
	assert_int_equal(slot_of(1)->v[1], 0);
}

static void test_table_full(void **state)
{
	(void)state;
	for (int id = 0; id < layout.capacity; id++)
		assert_int_equal(region_begin(thread, &layout, (uint32_t)id, 200, sample(0, 0, 0)), 0);
	assert_int_equal(region_begin(thread, &layout, (uint32_t)layout.capacity, 200,
				      sample(0, 0, 0)), -ENOSPC);
	assert_int_equal(thread->table_full, 1);
	assert_int_equal(thread->nr_slots, (uint32_t)layout.capacity);
	/* Its end is the same misuse, not a second one; its next begin is refused again. */
	assert_int_equal(region_end(thread, &layout, (uint32_t)layout.capacity, 200,
				    sample(1, 1, 0)), -ENOSPC);
	assert_false(region_end_closes(thread, &layout, (uint32_t)layout.capacity, 200));
	assert_int_equal(thread->end_without_begin, 0);
	assert_int_equal(region_begin(thread, &layout, (uint32_t)layout.capacity, 200,
				      sample(2, 2, 0)), -ENOSPC);
	assert_int_equal(thread->table_full, 2);
	/* Regions already in the table still work. */
	assert_int_equal(region_end(thread, &layout, 0, 200, sample(9, 9, 0)), 0);
	assert_int_equal(region_begin(thread, &layout, 0, 200, sample(10, 10, 0)), 0);
}

/*
 * The fast path's pieces (markers.c): region_begin_fast() serves only a
 * region with a slot and not open, and changes nothing otherwise;
 * region_slot_make() counts the same misuse as region_begin();
 * region_end_fast() closes an outermost entry and hands everything else to
 * region_end() with the same results.
 */
static void test_fast_path_pieces(void **state)
{
	static _Atomic uint32_t nr_names = 5;
	uint64_t *start;

	(void)state;
	/* A new region: no slot yet, nothing changed; made, then served. */
	assert_null(region_begin_fast(thread, &layout, 1));
	assert_int_equal(thread->nr_slots, 0);
	assert_int_equal(region_slot_make(thread, &layout, 1, 5), 0);
	assert_int_equal(slot_of(1)->depth, 0);
	start = region_begin_fast(thread, &layout, 1);
	assert_non_null(start);
	assert_int_equal(slot_of(1)->depth, 1);
	memcpy(start, sample(100, 10, 20), 5 * sizeof(uint64_t));
	/* A re-entry is not the fast path's: nothing changed. */
	assert_null(region_begin_fast(thread, &layout, 1));
	assert_int_equal(slot_of(1)->depth, 1);
	assert_int_equal(slot_of(1)->reentries, 0);
	/* Nested: end_fast hands it to region_end (1: an inner entry closed). */
	assert_int_equal(region_begin(thread, &layout, 1, 5, sample(150, 15, 25)), 1);
	assert_int_equal(region_end_fast(thread, &layout, 1, &nr_names, sample(160, 16, 26)), 1);
	assert_int_equal(slot_of(1)->calls, 0);
	/* The outermost entry: one call of the begin-to-end differences. */
	assert_int_equal(region_end_fast(thread, &layout, 1, &nr_names, sample(300, 17, 60)), 0);
	assert_int_equal(slot_of(1)->calls, 1);
	assert_int_equal(slot_of(1)->depth, 0);
	assert_int_equal(slot_of(1)->v[0], 200);
	assert_int_equal(slot_of(1)->v[1], 7);
	assert_int_equal(slot_of(1)->v[2], 40);
	assert_int_equal(slot_of(1)->first_min, 7);
	/* Misuse through the fast pieces counts as through the others. */
	assert_int_equal(region_end_fast(thread, &layout, 1, &nr_names, sample(0, 0, 0)), -ENOENT);
	assert_int_equal(region_end_fast(thread, &layout, 3, &nr_names, sample(0, 0, 0)), -ENOENT);
	assert_int_equal(thread->end_without_begin, 2);
	assert_int_equal(region_slot_make(thread, &layout, 5, 5), -EINVAL);
	assert_int_equal(region_end_fast(thread, &layout, 999, &nr_names, sample(0, 0, 0)), -EINVAL);
	assert_int_equal(thread->bad_handle, 2);
	assert_null(region_begin_fast(thread, &layout, 999));
	assert_int_equal(thread->nr_slots, 1);

	/* region_end_fast_as: the same rules, its statuses 0 or the caller's misuse code. */
	start = region_begin_fast(thread, &layout, 1);
	assert_non_null(start);
	memcpy(start, sample(400, 20, 70), 5 * sizeof(uint64_t));
	assert_int_equal(region_begin(thread, &layout, 1, 5, sample(450, 21, 71)), 1);
	assert_int_equal(region_end_fast_as(thread, &layout, 1, &nr_names, sample(460, 22, 72), -77),
			 0);
	assert_int_equal(slot_of(1)->calls, 1);
	assert_int_equal(region_end_fast_as(thread, &layout, 1, &nr_names, sample(500, 25, 80), -77),
			 0);
	assert_int_equal(slot_of(1)->calls, 2);
	assert_int_equal(slot_of(1)->v[0], 300);
	assert_int_equal(slot_of(1)->v[1], 12);
	assert_int_equal(slot_of(1)->v[2], 50);
	assert_int_equal(slot_of(1)->first_min, 5);
	assert_int_equal(slot_of(1)->first_max, 7);
	assert_int_equal(region_end_fast_as(thread, &layout, 1, &nr_names, sample(0, 0, 0), -77), -77);
	assert_int_equal(thread->end_without_begin, 3);
	/*
	 * A begin whose first group's times differ (enabled 900, running
	 * 300: the general path's read) and an end from the cache (equal
	 * times, 1300): the call's deltas differ (400, 1000), so its first
	 * event is scaled as fastread_scale() says (10 * 400 / 1000 = 4),
	 * never taken as the exact 10.
	 */
	start = region_begin_fast(thread, &layout, 1);
	assert_non_null(start);
	memcpy(start, sample(600, 30, 90), 5 * sizeof(uint64_t));
	start[3] = 900;
	start[4] = 300;
	{
		const struct fastread_count c = { .value = 10, .enabled = 400, .running = 1000 };
		uint64_t scaled;
		uint64_t *end = (uint64_t *)sample(700, 40, 95);

		assert_int_equal(fastread_scale(&c, &scaled), 0);
		assert_int_equal(scaled, 4);
		end[3] = end[4] = 1300;
		assert_int_equal(region_end_fast_as(thread, &layout, 1, &nr_names, end, -77), 0);
		assert_int_equal(slot_of(1)->calls, 3);
		assert_int_equal(slot_of(1)->first_min, 4);
	}
	assert_int_equal(region_end_fast_as(thread, &layout, 999, &nr_names, sample(0, 0, 0), -77),
			 -77);
	assert_int_equal(thread->bad_handle, 3);
}

/*
 * The close's sums for every shape of sample: no event (the wall time
 * alone), an odd and an even number of values, and more than the 4 pairs
 * written out (the loop): each sum is its value's end - begin, through
 * region_end() and region_end_fast_as() alike, and the extremes are the
 * wall time's and the first event's.
 */
static void test_close_sums_every_size(void **state)
{
	static const int group_of[REGIONS_EVENTS_MAX];	/* every event in group 0 */
	static _Atomic uint32_t nr_names = 4;
	const int sizes[] = { 0, 1, 2, 3, 4, 5, 8, 9, 17, 64 };

	(void)state;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		struct region_layout l;
		struct region_thread *t;
		uint64_t begin[1 + REGIONS_EVENTS_MAX + 2], end[1 + REGIONS_EVENTS_MAX + 2];
		const int nr = sizes[k];

		assert_int_equal(region_layout_init(&l, nr, nr ? 1 : 0, group_of, 1 << 16), 0);
		t = calloc(1, l.thread_size);
		region_thread_init(t, 1);
		for (int i = 0; i < l.nr_values; i++) {
			begin[i] = 1000 * (uint64_t)i + 7;
			end[i] = begin[i] + 3 * (uint64_t)i + 1;
		}
		/*
		 * Equal enabled and running times at both ends, as a sample
		 * from fastread's cache has them (region_end_fast_as() relies
		 * on the end's): not multiplexed.
		 */
		if (nr) {
			begin[region_value_enabled(&l, 0)] = begin[region_value_running(&l, 0)];
			end[region_value_enabled(&l, 0)] = begin[region_value_enabled(&l, 0)] + 500;
			end[region_value_running(&l, 0)] = begin[region_value_running(&l, 0)] + 500;
		}
		for (int call = 0; call < 2; call++) {
			uint64_t *start;

			if (call == 0) {
				assert_int_equal(region_begin(t, &l, 2, 4, begin), 0);
				assert_int_equal(region_end(t, &l, 2, 4, end), 0);
				continue;
			}
			start = region_begin_fast(t, &l, 2);
			assert_non_null(start);
			memcpy(start, begin, (size_t)l.nr_values * sizeof(uint64_t));
			assert_int_equal(region_end_fast_as(t, &l, 2, &nr_names, end, -9), 0);
		}
		struct region_slot *s = region_slot_find(t, &l, 2);

		assert_int_equal(s->calls, 2);
		for (int i = 0; i < l.nr_values; i++)
			assert_int_equal(s->v[i], 2 * (end[i] - begin[i]));
		assert_int_equal(s->wall_min, 1);
		assert_int_equal(s->wall_max, 1);
		assert_int_equal(s->first_min, nr ? 4 : REGION_NONE);
		assert_int_equal(s->first_max, nr ? 4 : 0);
		free(t);
	}
}


/* The node of region @id under node @parent (slot + 1; 0 the top), or NULL. */
static const struct region_slot *node(uint32_t id, uint16_t parent)
{
	for (uint32_t i = 0; i < thread->nr_slots; i++) {
		const struct region_slot *s = region_slot_at(thread, &layout, i);

		if (s->id == id && s->parent == parent)
			return s;
	}
	return NULL;
}

/* The slot + 1 of node @s, as parent and current name it. */
static uint16_t node_ref(const struct region_slot *s)
{
	return (uint16_t)(((const char *)s - (const char *)thread->slots) / layout.slot_size + 1);
}

/* Region @id begun with the fast path's pieces, as markers.c takes them. */
static void begin_as_markers(uint32_t id, const uint64_t *now)
{
	uint64_t *start = region_begin_fast(thread, &layout, id);

	if (!start) {
		assert_int_equal(region_slot_make(thread, &layout, id, 200), 0);
		start = region_begin_fast(thread, &layout, id);
	}
	assert_non_null(start);
	memcpy(start, now, (size_t)layout.nr_values * sizeof(uint64_t));
}

static void end_as_markers(uint32_t id, const uint64_t *now)
{
	static _Atomic uint32_t nr_names = 200;

	assert_int_equal(region_end_fast(thread, &layout, id, &nr_names, now), 0);
}

/*
 * A region called under two parents (C in A, then in B, then in A again):
 * a node per path, each with its own calls and sums, so that exclusive =
 * inclusive less the children's holds on every path; the flat region is
 * the sum of its nodes, and the totals count the thread once.
 */
static void test_paths_two_parents(void **state)
{
	enum { A, B, C };
	struct region_slot *flat = calloc(1, layout.slot_size);
	struct region_totals *tot = calloc(1, region_totals_size(&layout));
	const struct region_slot *a, *b, *ca, *cb;
	const struct region_total *r;

	(void)state;
	for (int round = 0; round < 2; round++) {
		uint64_t t0 = (uint64_t)round * 1000;

		begin_as_markers(A, sample(t0, t0, 0));
		begin_as_markers(C, sample(t0 + 10, t0 + 1, 0));
		end_as_markers(C, sample(t0 + 40, t0 + 4, 0));		/* C in A: 30, 3 */
		end_as_markers(A, sample(t0 + 100, t0 + 10, 0));	/* A: 100, 10 */
		begin_as_markers(B, sample(t0 + 200, t0 + 20, 0));
		begin_as_markers(C, sample(t0 + 210, t0 + 21, 0));
		end_as_markers(C, sample(t0 + 215, t0 + 26, 0));	/* C in B: 5, 5 */
		end_as_markers(B, sample(t0 + 300, t0 + 40, 0));	/* B: 100, 20 */
	}
	assert_int_equal(thread->current, 0);
	assert_int_equal(thread->nr_slots, 4);
	assert_non_null(a = node(A, 0));
	assert_non_null(b = node(B, 0));
	assert_non_null(ca = node(C, node_ref(a)));
	assert_non_null(cb = node(C, node_ref(b)));
	assert_int_equal(ca->calls, 2);
	assert_int_equal(ca->v[0], 60);
	assert_int_equal(ca->v[1], 6);
	assert_int_equal(cb->calls, 2);
	assert_int_equal(cb->v[0], 10);
	assert_int_equal(cb->v[1], 10);
	/* Exclusive: A 200 - 60 wall and 20 - 6 of the event; B 200 - 10 and 40 - 10. */
	assert_int_equal(a->v[0] - ca->v[0], 140);
	assert_int_equal(a->v[1] - ca->v[1], 14);
	assert_int_equal(b->v[0] - cb->v[0], 190);
	assert_int_equal(b->v[1] - cb->v[1], 30);
	/* The flat region C: its two nodes added up, per-call extremes over both. */
	flat->first_min = REGION_NONE;
	flat->wall_min = REGION_NONE;
	assert_true(region_slot_first_of_id(thread, &layout, ca));
	assert_false(region_slot_first_of_id(thread, &layout, cb));
	region_slot_add(flat, ca, &layout);
	region_slot_add(flat, cb, &layout);
	assert_int_equal(flat->calls, 4);
	assert_int_equal(flat->v[0], 70);
	assert_int_equal(flat->v[1], 16);
	assert_int_equal(flat->wall_min, 5);
	assert_int_equal(flat->wall_max, 30);
	assert_int_equal(flat->first_min, 3);
	assert_int_equal(flat->first_max, 5);
	region_totals_init(tot, &layout);
	region_totals_merge(tot, &layout, thread, 0);
	r = region_total_at(tot, &layout, C);
	assert_int_equal(r->threads, 1);
	assert_int_equal(r->calls, 4);
	assert_int_equal(r->v[1], 16);
	/* One thread, one observation: its sum over both paths. */
	assert_int_equal(region_total_stat(r, &layout, 1)[0], 16);
	assert_int_equal(region_total_stat(r, &layout, 1)[3], 1);
	assert_int_equal(thread->unnested + thread->end_without_begin, 0);
	free(flat);
	free(tot);
}

/*
 * What pfshim_region_values() reads (LIKWID's GET): a region's calls, wall
 * time and scaled counts summed over its paths, open or not; a region never
 * begun, or refused for a full table, is -ENOENT with every value 0; a wall
 * in timer cycles is given in ns.
 */
static void test_id_read(void **state)
{
	enum { A, B, C, NEVER = 9 };
	const uint32_t cap = (uint32_t)layout.capacity;
	struct region_id_values v;
	uint64_t *start;

	(void)state;
	memset(&v, 0xff, sizeof(v));
	assert_int_equal(region_thread_id_read(thread, &layout, NEVER, &v), -ENOENT);
	assert_int_equal(v.calls + v.wall_ns + v.value[0] + v.value[1], 0);
	assert_false(v.open);
	/* C twice in A, once in B: 3 calls over two paths. */
	begin_as_markers(A, sample(0, 0, 0));
	begin_as_markers(C, sample(10, 1, 100));
	end_as_markers(C, sample(40, 4, 400));		/* 30, 3, 300 */
	begin_as_markers(C, sample(50, 5, 500));
	end_as_markers(C, sample(55, 6, 600));		/* 5, 1, 100 */
	end_as_markers(A, sample(100, 10, 1000));
	begin_as_markers(B, sample(200, 20, 2000));
	begin_as_markers(C, sample(210, 21, 2100));
	end_as_markers(C, sample(217, 28, 2800));	/* 7, 7, 700 */
	assert_int_equal(region_thread_id_read(thread, &layout, C, &v), 0);
	assert_int_equal(v.calls, 3);
	assert_int_equal(v.wall_ns, 30 + 5 + 7);
	assert_int_equal(v.value[0], 3 + 1 + 7);
	assert_int_equal(v.value[1], 300 + 100 + 700);
	assert_false(v.open);
	/* B is open: its completed calls only (none), and open says so. */
	assert_int_equal(region_thread_id_read(thread, &layout, B, &v), 0);
	assert_int_equal(v.calls, 0);
	assert_int_equal(v.value[0], 0);
	assert_true(v.open);
	end_as_markers(B, sample(300, 40, 4000));
	assert_int_equal(region_thread_id_read(thread, &layout, B, &v), 0);
	assert_int_equal(v.calls, 1);
	assert_int_equal(v.wall_ns, 100);
	assert_int_equal(v.value[0], 20);
	assert_false(v.open);
	/* Running part of the time: the sums scaled by enabled/running, as the report does. */
	start = region_begin_fast(thread, &layout, A);
	assert_non_null(start);
	memcpy(start, sample(1000, 0, 0), 5 * sizeof(uint64_t));
	{
		uint64_t half[5] = { 1200, 50, 60, 1200, 1100 };	/* enabled 200, running 100 */

		assert_int_equal(region_end(thread, &layout, A, 200, half), 0);
	}
	/* Sums: enabled 100 + 200, running 100 + 100, so x 1.5. */
	assert_int_equal(region_thread_id_read(thread, &layout, A, &v), 0);
	assert_int_equal(v.calls, 2);
	assert_int_equal(v.wall_ns, 100 + 200);
	assert_int_equal(v.value[0], (10 + 50) * 3 / 2);
	assert_int_equal(v.value[1], (1000 + 60) * 3 / 2);
	/* A refused region: its thread's table full. */
	for (uint32_t id = 10; thread->nr_slots < cap; id++) {
		begin_as_markers(id, sample(0, 0, 0));
		end_as_markers(id, sample(1, 0, 0));
	}
	assert_int_equal(region_slot_make(thread, &layout, NEVER, 200), -ENOSPC);
	assert_int_equal(region_thread_id_read(thread, &layout, NEVER, &v), -ENOENT);
	assert_int_equal(v.calls, 0);
	/* Timer cycles: ns out, the table unchanged. */
	thread->wall_mult = 1u << 31;
	thread->wall_shift = 30;
	assert_int_equal(region_thread_id_read(thread, &layout, C, &v), 0);
	assert_int_equal(v.wall_ns, 2 * (30 + 5 + 7));
	assert_int_equal(slot_of(C)->v[0], 7);	/* its latest node, under B: still cycles */
}

/* Recursion A > B > A: the inner A is a re-entry (counted once, outermost), no node A under B. */
static void test_paths_recursion(void **state)
{
	enum { A, B };
	const struct region_slot *a, *b;

	(void)state;
	begin_as_markers(A, sample(0, 0, 0));
	begin_as_markers(B, sample(10, 1, 0));
	assert_null(region_begin_fast(thread, &layout, A));
	assert_int_equal(region_begin(thread, &layout, A, 8, sample(20, 2, 0)), 1);
	assert_int_equal(region_end(thread, &layout, A, 8, sample(30, 3, 0)), 1);
	end_as_markers(B, sample(40, 4, 0));
	end_as_markers(A, sample(50, 5, 0));
	assert_int_equal(thread->nr_slots, 2);
	a = node(A, 0);
	assert_non_null(a);
	b = node(B, node_ref(a));
	assert_non_null(b);
	assert_int_equal(a->calls, 1);
	assert_int_equal(a->reentries, 1);
	assert_int_equal(a->v[0], 50);
	assert_int_equal(b->calls, 1);
	assert_int_equal(b->v[0], 30);
	assert_int_equal(thread->current, 0);
	assert_int_equal(thread->unnested, 0);
}

/*
 * Out of order: A ends while B, begun inside it, is open. Said (unnested,
 * once), B keeps its path A > B and counts to its own end, and what begins
 * after A's end is at the top again, not under A or B.
 */
static void test_paths_out_of_order(void **state)
{
	enum { A, B, C };
	const struct region_slot *a, *b;

	(void)state;
	begin_as_markers(A, sample(0, 0, 0));
	begin_as_markers(B, sample(10, 1, 0));
	assert_int_equal(region_end_fast(thread, &layout, A, &(_Atomic uint32_t){ 8 },
					 sample(20, 2, 0)), 0);
	assert_int_equal(thread->unnested, 1);
	assert_int_equal(thread->current, 0);
	begin_as_markers(C, sample(30, 3, 0));
	end_as_markers(C, sample(35, 4, 0));
	assert_non_null(node(C, 0));
	assert_int_equal(region_end(thread, &layout, B, 8, sample(40, 5, 0)), 0);
	assert_int_equal(thread->unnested, 1);
	assert_int_equal(thread->current, 0);
	a = node(A, 0);
	b = node(B, node_ref(a));
	assert_non_null(b);
	assert_int_equal(a->v[0], 20);
	assert_int_equal(b->v[0], 30);	/* past its parent's end: A's exclusive is short, and said */
	assert_int_equal(thread->end_without_begin, 0);
}

/*
 * A signal handler's region inside the thread's region: a node under the
 * thread's current node, and current restored when it ends. Inside one of
 * the thread's own writes the handler makes no node (-EBUSY, nothing
 * counted, current unchanged), as for a region new to the thread.
 */
static void test_paths_signal_handler(void **state)
{
	enum { A, H, G };
	const struct region_slot *a, *h;
	uint16_t in_a;

	(void)state;
	begin_as_markers(A, sample(0, 0, 0));
	in_a = thread->current;
	/* The handler, between two of the thread's marker calls. */
	begin_as_markers(H, sample(10, 1, 0));
	end_as_markers(H, sample(12, 2, 0));
	assert_int_equal(thread->current, in_a);
	/* The handler again, inside the thread's write, in a region new to it: no node now. */
	assert_int_equal(region_thread_write_begin(thread), 0);
	assert_int_equal(region_begin(thread, &layout, G, 8, sample(14, 3, 0)), -EBUSY);
	assert_int_equal(thread->current, in_a);
	assert_int_equal(region_end(thread, &layout, G, 8, sample(15, 3, 0)), 1);
	region_thread_write_end(thread);
	end_as_markers(A, sample(20, 5, 0));
	assert_int_equal(thread->current, 0);
	a = node(A, 0);
	h = node(H, node_ref(a));
	assert_non_null(h);
	assert_null(node(G, node_ref(a)));
	assert_int_equal(h->calls, 1);
	assert_int_equal(h->v[0], 2);
	assert_int_equal(a->calls, 1);
	assert_int_equal(a->v[0] - h->v[0], 18);	/* A's exclusive wall */
	assert_int_equal(thread->end_without_begin + thread->table_full + thread->unnested, 0);
}

/*
 * A full table refuses a new path (table_full, once per begin) and the
 * region's end is no second misuse; the current node stays the parent's,
 * and the same region's node on another path still counts.
 */
static void test_paths_table_full(void **state)
{
	const uint32_t cap = (uint32_t)layout.capacity;
	static _Atomic uint32_t nr_names = 200;

	(void)state;
	for (uint32_t id = 0; id < cap; id++) {
		begin_as_markers(id, sample(id, 0, 0));
		end_as_markers(id, sample(id + 1, 0, 0));
	}
	assert_int_equal(thread->nr_slots, cap);
	begin_as_markers(0, sample(100, 0, 0));
	assert_null(region_begin_fast(thread, &layout, 1));	/* 1 under 0: no room */
	assert_int_equal(region_slot_make(thread, &layout, 1, 200), -ENOSPC);
	assert_int_equal(thread->table_full, 1);
	assert_int_equal(region_end_fast(thread, &layout, 1, &nr_names, sample(101, 0, 0)), -ENOSPC);
	end_as_markers(0, sample(110, 0, 0));
	assert_int_equal(node(0, 0)->calls, 2);
	/* At the top, 1 has its node: counted again. */
	begin_as_markers(1, sample(200, 0, 0));
	end_as_markers(1, sample(203, 0, 0));
	assert_int_equal(node(1, 0)->calls, 2);
	assert_int_equal(node(1, 0)->v[0], 1 + 3);
	assert_int_equal(thread->table_full, 1);
	assert_int_equal(thread->end_without_begin + thread->unnested, 0);
}

/* A full table: region_slot_make refuses as region_begin does, once remembered. */
static void test_fast_path_table_full(void **state)
{
	static _Atomic uint32_t nr_names = 200;
	const uint32_t full = (uint32_t)layout.capacity;

	(void)state;
	for (uint32_t id = 0; id < full; id++)
		assert_int_equal(region_slot_make(thread, &layout, id, 200), 0);
	assert_int_equal(region_slot_make(thread, &layout, full, 200), -ENOSPC);
	assert_int_equal(thread->table_full, 1);
	assert_null(region_begin_fast(thread, &layout, full));
	assert_int_equal(region_end_fast(thread, &layout, full, &nr_names, sample(1, 1, 0)), -ENOSPC);
	assert_int_equal(thread->end_without_begin, 0);
	assert_non_null(region_begin_fast(thread, &layout, 0));
	assert_int_equal(region_end_fast(thread, &layout, 0, &nr_names, sample(9, 9, 0)), 0);
}

/* Multiplexed: the group ran 250 of 1000 ns enabled; 100 raw -> 400. */
static void test_scaled_values(void **state)
{
	uint64_t start[5] = { 0, 0, 0, 0, 0 }, end[5] = { 1000, 100, 30, 1000, 250 };
	uint64_t v;

	(void)state;
	region_begin(thread, &layout, 0, 1, start);
	region_end(thread, &layout, 0, 1, end);
	assert_int_equal(region_slot_value(slot_of(0), &layout, 1, &v), 0);
	assert_int_equal(v, 400);
	assert_int_equal(region_slot_value(slot_of(0), &layout, 2, &v), 0);
	assert_int_equal(v, 120);
	assert_int_equal(region_slot_value(slot_of(0), &layout, 0, &v), 0);
	assert_int_equal(v, 1000);
	assert_int_equal(slot_of(0)->first_max, 400);
	/* A call where the group never ran: no value, no per-call extreme. */
	end[4] = 0;
	region_thread_init(thread, 1);
	region_begin(thread, &layout, 0, 1, start);
	region_end(thread, &layout, 0, 1, end);
	assert_int_equal(region_slot_value(slot_of(0), &layout, 1, &v), -ENODATA);
	assert_int_equal(slot_of(0)->first_min, REGION_NONE);
}

static void test_snapshot(void **state)
{
	struct region_thread *copy = calloc(1, layout.thread_size);

	(void)state;
	region_begin(thread, &layout, 0, 1, sample(0, 0, 0));
	region_end(thread, &layout, 0, 1, sample(7, 7, 7));
	assert_int_equal(region_thread_snapshot(thread, &layout, copy, 3), 0);
	assert_int_equal(copy->tid, 1234);
	assert_int_equal(region_slot_at(copy, &layout, 0)->calls, 1);
	/* A write in progress (as when a signal interrupts the owner): give up. */
	region_thread_write_begin(thread);
	assert_int_equal(region_thread_snapshot(thread, &layout, copy, 3), -EBUSY);
	region_thread_write_end(thread);
	assert_int_equal(region_thread_snapshot(thread, &layout, copy, 3), 0);
	free(copy);
}

/*
 * A table costs memory only as its slots are made: setting it up writes its
 * header alone, a new slot is the first write to its bytes, and a snapshot
 * (as every report, interval reports too, takes) copies the made slots only.
 * Bytes nobody may touch are filled with a pattern that must survive.
 */
static void test_untouched_slots_stay_untouched(void **state)
{
	struct region_thread *t = malloc(layout.thread_size);
	struct region_thread *copy = malloc(layout.thread_size);
	size_t head = sizeof(struct region_thread);

	(void)state;
	memset(t, 0xaa, layout.thread_size);
	memset(copy, 0x55, layout.thread_size);
	region_thread_init(t, 7);
	assert_int_equal(t->nr_slots, 0);
	assert_int_equal(region_thread_used(t, &layout), head);
	assert_int_equal(((unsigned char *)t)[head], 0xaa);
	assert_int_equal(((unsigned char *)t)[layout.thread_size - 1], 0xaa);
	region_begin(t, &layout, 0, 1, sample(0, 0, 0));
	region_end(t, &layout, 0, 1, sample(5, 5, 5));
	assert_int_equal(region_thread_used(t, &layout), head + layout.slot_size);
	assert_int_equal(region_slot_at(t, &layout, 0)->calls, 1);
	assert_int_equal(((unsigned char *)t)[head + layout.slot_size], 0xaa);
	assert_int_equal(region_thread_snapshot(t, &layout, copy, 3), 0);
	assert_int_equal(copy->nr_slots, 1);
	assert_int_equal(region_slot_at(copy, &layout, 0)->calls, 1);
	assert_int_equal(region_slot_at(copy, &layout, 0)->v[region_value_event(0)], 5);
	assert_int_equal(((unsigned char *)copy)[head + layout.slot_size], 0x55);
	assert_int_equal(((unsigned char *)copy)[layout.thread_size - 1], 0x55);
	free(copy);
	free(t);
}

/*
 * A signal handler's marker calls inside its thread's own write (issue 19):
 * the outer write has added a call to region 0 and not yet its counts, as
 * slot_close_call() does, when the handler writes. A report copying the
 * table while the handler writes, or after it, must not take it: the old
 * counter, whose inner begin made it even again, let a copy show a region
 * with 1,995 calls and an event sum of 1,996. The handler's own calls count
 * (on a region with a slot), its begin of a region new to the thread is
 * refused (-EBUSY) without any misuse counted, and once the outer write
 * ends the copy is whole: calls and sums agree.
 */
static void test_nested_writes_never_torn(void **state)
{
	struct region_thread *copy = calloc(1, layout.thread_size);
	const struct region_slot *c;
	uint32_t seq;

	(void)state;
	region_begin(thread, &layout, 0, 3, sample(0, 0, 0));
	region_end(thread, &layout, 0, 3, sample(10, 5, 5));
	assert_int_equal(region_slot_make(thread, &layout, 1, 3), 0);
	seq = atomic_load(&thread->seq);
	/* The outer write, half done. */
	assert_int_equal(region_thread_write_begin(thread), 0);
	slot_of(0)->calls++;
	/* The handler's write, in progress: a copy now is torn. */
	assert_int_equal(region_thread_write_begin(thread), 1);
	assert_int_equal(region_thread_snapshot(thread, &layout, copy, 3), -EBUSY);
	region_thread_write_end(thread);
	assert_int_equal(region_thread_snapshot(thread, &layout, copy, 3), -EBUSY);
	/* The handler's marker calls, whole. */
	assert_int_equal(region_begin(thread, &layout, 1, 3, sample(20, 0, 0)), 0);
	assert_int_equal(region_thread_snapshot(thread, &layout, copy, 3), -EBUSY);
	assert_int_equal(region_end(thread, &layout, 1, 3, sample(23, 2, 2)), 0);
	assert_int_equal(region_begin(thread, &layout, 2, 3, sample(30, 0, 0)), -EBUSY);
	assert_int_equal(region_end(thread, &layout, 2, 3, sample(31, 1, 1)), 1);
	assert_int_equal(thread->slot_of[2], 0);
	assert_int_equal(thread->end_without_begin + thread->table_full + thread->bad_handle, 0);
	assert_int_equal(region_thread_snapshot(thread, &layout, copy, 3), -EBUSY);
	/* Only the outer write's end counts one write, for all of them. */
	assert_int_equal(atomic_load(&thread->seq), seq + 1);
	slot_of(0)->v[1] += 5;
	region_thread_write_end(thread);
	assert_int_equal(atomic_load(&thread->seq), seq + (1u << REGION_SEQ_SHIFT));
	assert_int_equal(region_thread_snapshot(thread, &layout, copy, 3), 0);
	c = region_slot_at(copy, &layout, 0);
	assert_int_equal(c->calls, 2);
	assert_int_equal(c->v[1], 10);
	c = region_slot_at(copy, &layout, 1);
	assert_int_equal(c->calls, 1);
	assert_int_equal(c->v[1], 2);
	/* Outside any write, the same begin makes its slot. */
	assert_int_equal(region_begin(thread, &layout, 2, 3, sample(40, 0, 0)), 0);
	free(copy);
}

/*
 * The handler may land between the begin's load and its store, the widest
 * gap it has: it writes whole there (its begin and end take the word from
 * what it is then), and the outer begin then stores what it loaded before.
 * A reader that took the word after the handler (as region_thread_snapshot
 * does before it copies) must see it move by the end of the outer write:
 * had the begin stored its load's count plus one, the outer write's end
 * would have made the very word the reader took, and its copy, taken while
 * the outer write changed the table, would pass.
 */
static uint32_t seen_after_handler;
static int handler_armed;

static void handler_inside_begin(struct region_thread *t)
{
	if (!handler_armed || t != thread)
		return;
	handler_armed = 0;
	assert_int_equal(region_begin(thread, &layout, 1, 3, sample(20, 0, 0)), 0);
	assert_int_equal(region_end(thread, &layout, 1, 3, sample(23, 2, 2)), 0);
	seen_after_handler = atomic_load(&thread->seq);
	assert_false(seen_after_handler & REGION_SEQ_WRITERS);
}

static void test_handler_inside_begin(void **state)
{
	struct region_thread *copy = calloc(1, layout.thread_size);
	uint32_t seq;

	(void)state;
	assert_int_equal(region_slot_make(thread, &layout, 1, 3), 0);
	seq = atomic_load(&thread->seq);
	handler_armed = 1;
	assert_int_equal(region_thread_write_begin(thread), 0);
	assert_int_equal(handler_armed, 0);
	assert_int_equal(region_thread_snapshot(thread, &layout, copy, 3), -EBUSY);
	slot_of(1)->reentries = 7;	/* the outer write's change */
	region_thread_write_end(thread);
	/* Three writes (the handler's begin and end, the outer one): the word the reader took is gone. */
	assert_int_equal(atomic_load(&thread->seq), seq + 3 * (1u << REGION_SEQ_SHIFT));
	assert_int_not_equal(atomic_load(&thread->seq), seen_after_handler);
	assert_int_equal(region_thread_snapshot(thread, &layout, copy, 3), 0);
	assert_int_equal(region_slot_at(copy, &layout, 0)->calls, 1);
	assert_int_equal(region_slot_at(copy, &layout, 0)->reentries, 7);
	free(copy);
}

/*
 * A table whose wall times are timer cycles (the fast path stores the timer
 * as it is): a copy for a report says ns, converted once; the table itself
 * keeps its unit (a signal handler may still add a call to it); the totals
 * convert what they merge; a region with no call keeps no extremes.
 * mult 2^31, shift 30: 2 ns a cycle, sums and extremes alike.
 */
static void test_wall_in_timer_cycles(void **state)
{
	struct region_thread *copy = calloc(1, layout.thread_size);
	struct region_totals *tot = calloc(1, region_totals_size(&layout));
	const struct region_total *r;
	struct region_slot *s;

	(void)state;
	thread->wall_mult = 1u << 31;
	thread->wall_shift = 30;
	region_begin(thread, &layout, 0, 3, sample(1000, 0, 0));
	region_end(thread, &layout, 0, 3, sample(1030, 5, 5));
	region_begin(thread, &layout, 0, 3, sample(2000, 5, 5));
	region_end(thread, &layout, 0, 3, sample(2070, 9, 9));
	assert_int_equal(region_slot_make(thread, &layout, 1, 3), 0);	/* no call */
	assert_int_equal(region_thread_snapshot(thread, &layout, copy, 3), 0);
	s = region_slot_at(copy, &layout, 0);
	assert_int_equal(s->v[0], 2 * (30 + 70));
	assert_int_equal(s->wall_min, 2 * 30);
	assert_int_equal(s->wall_max, 2 * 70);
	assert_int_equal(s->v[1], 9);	/* counts untouched */
	assert_int_equal(region_slot_at(copy, &layout, 1)->wall_min, REGION_NONE);
	assert_int_equal(copy->wall_mult, 0);
	region_thread_wall_to_ns(copy, &layout);	/* already ns: nothing */
	assert_int_equal(s->v[0], 2 * (30 + 70));
	/* The owner's table is still in cycles, and a call added now is too. */
	assert_int_equal(slot_of(0)->v[0], 30 + 70);
	assert_int_equal(thread->wall_mult, 1u << 31);
	/* The totals: ns, merged from the table in cycles or from a copy in ns alike. */
	region_totals_init(tot, &layout);
	region_totals_merge(tot, &layout, thread, 0);
	region_totals_merge(tot, &layout, copy, 0);
	r = region_total_at(tot, &layout, 0);
	assert_int_equal(r->v[0], 2 * 2 * (30 + 70));
	assert_int_equal(r->wall_min, 2 * 30);
	assert_int_equal(r->wall_max, 2 * 70);
	assert_int_equal(region_total_stat(r, &layout, 0)[0], 2 * 2 * (30 + 70));
	assert_int_equal(region_total_stat(r, &layout, 0)[1], 2 * (30 + 70));
	assert_int_equal(region_total_stat(r, &layout, 0)[2], 2 * (30 + 70));
	assert_int_equal(region_total_at(tot, &layout, 1)->wall_min, REGION_NONE);
	free(tot);
	free(copy);
}

/* A report names its thread each time: the same name moves no sequence counter. */
static void test_set_name_unchanged_writes_nothing(void **state)
{
	uint32_t seq;

	(void)state;
	region_thread_set_name(thread, "worker-1");
	assert_string_equal(thread->name, "worker-1");
	seq = atomic_load(&thread->seq);
	region_thread_set_name(thread, "worker-1");
	assert_int_equal(atomic_load(&thread->seq), seq);
	region_thread_set_name(thread, "worker-2");
	assert_string_equal(thread->name, "worker-2");
	assert_int_equal(atomic_load(&thread->seq), seq + (1u << REGION_SEQ_SHIFT));
	/* Longer than a comm: cut at 15 bytes, and the same cut name is unchanged. */
	region_thread_set_name(thread, "a-very-long-thread-name");
	assert_string_equal(thread->name, "a-very-long-thr");
	seq = atomic_load(&thread->seq);
	region_thread_set_name(thread, "a-very-long-thread-name");
	assert_int_equal(atomic_load(&thread->seq), seq);
}

/*
 * A thread without counters (the descriptor budget spent) samples enabled
 * time that never runs: merged beside a counted thread, the totals' group
 * times stay equal (the sum is not "scaled") and its statistics hold one
 * thread.
 */
static void test_totals_merge_uncounted_thread(void **state)
{
	struct region_totals *tot = calloc(1, region_totals_size(&layout));
	static uint64_t uncounted[5];
	struct region_total *r;

	(void)state;
	region_totals_init(tot, &layout);
	region_begin(thread, &layout, 1, 2, sample(0, 0, 0));
	region_end(thread, &layout, 1, 2, sample(100, 7, 1));
	region_totals_merge(tot, &layout, thread, 0);
	region_thread_init(thread, 99);
	uncounted[0] = uncounted[3] = 1000;
	region_begin(thread, &layout, 1, 2, uncounted);
	uncounted[0] = uncounted[3] = 1400;
	region_end(thread, &layout, 1, 2, uncounted);
	region_totals_merge(tot, &layout, thread, 0);
	r = region_total_at(tot, &layout, 1);
	assert_int_equal(r->threads, 2);
	assert_int_equal(r->v[region_value_enabled(&layout, 0)], 100);
	assert_int_equal(r->v[region_value_running(&layout, 0)], 100);
	assert_int_equal(region_total_stat(r, &layout, 1)[3], 1);
	assert_int_equal(region_total_stat(r, &layout, 1)[0], 7);
	assert_int_equal(region_total_stat(r, &layout, 0)[3], 2);
	free(tot);
}

/* A sample { wall, ev0, ev1, enabled, running } with times of their own. */
static const uint64_t *sample_times(uint64_t t, uint64_t a, uint64_t enabled, uint64_t running)
{
	static uint64_t v[5];

	v[0] = t;
	v[1] = a;
	v[2] = 0;
	v[3] = enabled;
	v[4] = running;
	return v;
}

/*
 * A counted thread whose group ran in one path of a region and not in its
 * other (multiplexed out there): its times stay in the totals, which read
 * scaled; only a group that ran nowhere in the thread is left out.
 */
static void test_totals_merge_multiplexed_path(void **state)
{
	struct region_totals *tot = calloc(1, region_totals_size(&layout));
	struct region_total *r;

	(void)state;
	region_totals_init(tot, &layout);
	region_thread_init(thread, 7);
	region_begin(thread, &layout, 1, 2, sample_times(0, 0, 0, 0));
	region_end(thread, &layout, 1, 2, sample_times(100, 50, 100, 100));
	region_begin(thread, &layout, 0, 2, sample_times(100, 50, 100, 100));
	region_begin(thread, &layout, 1, 2, sample_times(100, 50, 100, 100));
	region_end(thread, &layout, 1, 2, sample_times(200, 50, 200, 100));
	region_end(thread, &layout, 0, 2, sample_times(200, 50, 200, 100));
	region_totals_merge(tot, &layout, thread, 0);
	r = region_total_at(tot, &layout, 1);
	assert_int_equal(r->v[region_value_enabled(&layout, 0)], 200);
	assert_int_equal(r->v[region_value_running(&layout, 0)], 100);
	free(tot);
}

/* Three threads enter "work" with first-event totals 10, 30 and 20. */
static void test_totals_merge(void **state)
{
	struct region_totals *tot = calloc(1, region_totals_size(&layout));
	const uint64_t first[3] = { 10, 30, 20 };
	struct region_total *r;
	uint64_t *stat;

	(void)state;
	region_totals_init(tot, &layout);
	for (int i = 0; i < 3; i++) {
		region_thread_init(thread, 100 + i);
		region_begin(thread, &layout, 1, 2, sample(0, 0, 0));
		region_end(thread, &layout, 1, 2, sample(100, first[i] / 2, 1));
		region_begin(thread, &layout, 1, 2, sample(200, 0, 0));
		region_end(thread, &layout, 1, 2, sample(300, first[i] / 2, 1));
		if (i == 2) {
			region_end(thread, &layout, 0, 2, sample(300, 0, 0));
			region_begin(thread, &layout, 0, 2, sample(300, 0, 0));
		}
		region_totals_merge(tot, &layout, thread, 1);
	}
	assert_int_equal(tot->threads_merged, 3);
	assert_int_equal(tot->end_without_begin, 1);
	r = region_total_at(tot, &layout, 1);
	assert_int_equal(r->threads, 3);
	assert_int_equal(r->calls, 6);
	assert_int_equal(r->v[1], 60);
	assert_int_equal(r->v[2], 6);
	assert_int_equal(r->first_min, 5);
	assert_int_equal(r->first_max, 15);
	stat = region_total_stat(r, &layout, 1);
	assert_int_equal(stat[0], 60);
	assert_int_equal(stat[1], 10);
	assert_int_equal(stat[2], 30);
	assert_int_equal(stat[3], 3);
	stat = region_total_stat(r, &layout, 0);
	assert_int_equal(stat[0], 600);
	assert_int_equal(stat[1], 200);
	/* Open at a final report: unclosed, and no observation of its values. */
	r = region_total_at(tot, &layout, 0);
	assert_int_equal(r->threads, 1);
	assert_int_equal(r->unclosed, 1);
	assert_int_equal(r->calls, 0);
	assert_int_equal(region_total_stat(r, &layout, 1)[3], 0);
	free(tot);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_intern_and_lookup),
		cmocka_unit_test(test_names_limit),
		cmocka_unit_test(test_names_lookup_never_ahead_of_nr),
		cmocka_unit_test_setup_teardown(test_layout_bounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_call, setup, teardown),
		cmocka_unit_test(test_close_sums_every_size),
		cmocka_unit_test_setup_teardown(test_nesting_is_inclusive, setup, teardown),
		cmocka_unit_test_setup_teardown(test_overlap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recursion_counts_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_begin_halves_and_end_closes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_misuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_table_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_path_pieces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_path_table_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_scaled_values, setup, teardown),
		cmocka_unit_test_setup_teardown(test_snapshot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths_two_parents, setup, teardown),
		cmocka_unit_test_setup_teardown(test_id_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths_recursion, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths_out_of_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths_signal_handler, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths_table_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_untouched_slots_stay_untouched, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nested_writes_never_torn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_handler_inside_begin, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wall_in_timer_cycles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_set_name_unchanged_writes_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_totals_merge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_totals_merge_uncounted_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_totals_merge_multiplexed_path, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
