/* SPDX-License-Identifier: MIT */
/*
 * regions.h: the region table as pure logic: interned region names, one
 * thread's table of regions (enter, leave, nesting, misuse), and the process
 * totals a thread's table is merged into when the thread exits.
 * Nothing here opens, reads or allocates: markers.c feeds it samples and
 * memory, so every rule can be unit-tested with numbers chosen by hand.
 */
#ifndef PFSHIM_PRELOAD_MARKERS_REGIONS_H
#define PFSHIM_PRELOAD_MARKERS_REGIONS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Distinct names per process: the program's 256, and one more for the
 * probe's hidden region, reserved first as id 0 (preload/markers/probe.c).
 */
#define REGIONS_NAMES_MAX	257
#define REGIONS_NAME_LEN	64	/* bytes, NUL included; longer names are shortened */
#define REGIONS_PER_THREAD_MAX	64	/* regions one thread can hold, at most */
#define REGIONS_PER_THREAD_MIN	8	/* the thread table grows past its budget for these */
#define REGIONS_HASH_SIZE	512	/* open addressing, at most half full */
#define REGIONS_EVENTS_MAX	64	/* as EVENTS_MAX */

/*
 * The names, shared by every thread. Lookups take no lock: a name is written
 * before its hash slot is published (release), and a published name never
 * changes. Insertions must be serialized by the caller.
 */
/*
 * One interned name, laid out for region_names_match(): the name first,
 * zero after its NUL (so a word of it lies at the same offset from the
 * row as from the program's string), then where the word that holds the
 * NUL starts and which word that is (region_name_nul_word()), its id
 * beside it (one load takes both), and the mask of that word's bytes up
 * to the NUL.
 */
struct region_name {
	char name[REGIONS_NAME_LEN];
	uint32_t nul_word;
	uint32_t id;
	uint64_t tail_mask;
};

/*
 * A name's nul_word: the offset of the word holding its NUL (a multiple
 * of 8, in the low byte), and that word's bit (word i: bit 8 + i).
 */
#define REGION_NAME_TAIL_AT		0xffu
#define REGION_NAME_WORD_BIT(i)		(UINT32_C(1) << (8 + (i)))

static inline uint32_t region_name_nul_word(size_t len)
{
	return (uint32_t)(len / 8 * 8) | REGION_NAME_WORD_BIT(len / 8);
}

struct region_names {
	_Atomic uint32_t nr;
	_Atomic uint16_t slot[REGIONS_HASH_SIZE];	/* id + 1; 0: empty */
	struct region_name row[REGIONS_NAMES_MAX];
};

/* region_names_lookup - the id (0..nr-1) of @name, or -ENOENT. Lock-free. */
int region_names_lookup(const struct region_names *t, const char *name);

/*
 * region_names_intern - the id of @name, added if new; a name of
 * REGIONS_NAME_LEN bytes or more as region_name_shorten() has it (so does
 * region_names_lookup). Callers serialize.
 * Return: the id, -EINVAL for a NULL or empty name, -ENOSPC when
 * REGIONS_NAMES_MAX names exist.
 */
int region_names_intern(struct region_names *t, const char *name);

/* region_names_get - the name of @id; NULL when @id is not a published id. */
const char *region_names_get(const struct region_names *t, int id);

/* region_names_row - the published name @id (as region_names_get), with what matching needs. */
const struct region_name *region_names_row(const struct region_names *t, int id);

/*
 * REGION_NAMES_WORDS_UNCHECKED - on a function that runs region_names_match():
 * its last word may hold bytes past the string's NUL, which a sanitizer
 * would take for an overflow (or, under TSan, for a race with whatever
 * shares that word). Empty in ordinary builds.
 */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define REGION_NAMES_WORDS_UNCHECKED __attribute__((no_sanitize("address", "thread")))
#else
#define REGION_NAMES_WORDS_UNCHECKED
#endif

/*
 * REGION_NAMES_LOAD_PAIR(a, b) - on arm64, an empty asm after two loads of
 * adjacent fields, so that GCC takes both with one ldp before the first
 * comparison that needs either; nothing elsewhere (x86_64 has no paired
 * load, and compares a field in memory: the asm cost it 2 instructions a
 * call there).
 */
#if defined(__aarch64__)
#define REGION_NAMES_LOAD_PAIR(a, b) __asm__("" : "+r"(a), "+r"(b))
#else
#define REGION_NAMES_LOAD_PAIR(a, b) ((void)0)
#endif

/*
 * region_names_match - does the string at @name, an address that is a
 * multiple of 8, equal the published name @n? A word at a time, as
 * strlen() reads: no word is read past the first one that differs, so
 * none past the word holding the string's NUL, and an aligned word never
 * crosses a page (or an arm64 MTE granule): @name may be any string the
 * program holds, even one shorter than the name. Every byte up to the
 * name's NUL is compared, so a buffer reused for another string never
 * matches (the markers' name cache rests on this: name_cache.h).
 * @id receives @n's id either way; the caller reads it only on a match.
 */
static inline __attribute__((always_inline)) REGION_NAMES_WORDS_UNCHECKED bool
region_names_match(const struct region_name *n, const char *name, uint32_t *id)
{
	uint32_t nul_word = n->nul_word, tail, k;
	uint64_t w, v;

	*id = n->id;
	REGION_NAMES_LOAD_PAIR(nul_word, *id);

	/* A name of up to 7 bytes: one word. */
	if (__builtin_expect(nul_word & REGION_NAME_WORD_BIT(0), 1)) {
		__builtin_memcpy(&w, name, 8);
		__builtin_memcpy(&v, n->name, 8);
		return (w & n->tail_mask) == v;
	}
	/*
	 * The words before the NUL's, whole, in order, each followed by a test
	 * of the next one's bit (written out: constant offsets, a branch a bit;
	 * every published row has its NUL's bit: region_name_nul_word()).
	 */
#pragma GCC unroll 7
	for (k = 0; k < REGIONS_NAME_LEN / 8 - 1; k++) {
		__builtin_memcpy(&w, name + 8 * k, 8);
		__builtin_memcpy(&v, n->name + 8 * k, 8);
		if (w != v)
			return false;
		if (nul_word & REGION_NAME_WORD_BIT(k + 1))
			break;
	}
	tail = nul_word & REGION_NAME_TAIL_AT;
	__builtin_memcpy(&w, name + tail, 8);
	__builtin_memcpy(&v, n->name + tail, 8);
	return (w & n->tail_mask) == v;
}

/*
 * What one sample holds, and how big a thread's table is. A sample is the
 * vector markers.c reads at each begin and end: [0] wall-clock ns, [1..E]
 * the raw counts of the E events, then enabled ns of the G groups, then
 * their running ns. Every region accumulates (end - begin) of each entry.
 */
struct region_layout {
	int nr_events;			/* E */
	int nr_groups;			/* G */
	int nr_values;			/* 1 + E + 2G */
	int group_of[REGIONS_EVENTS_MAX];	/* the group of each event, for its scaling */
	long first_enabled, first_running;	/* where the first event's group times sit */
	int capacity;			/* regions per thread */
	size_t slot_size;
	size_t thread_size;		/* bytes of a struct region_thread with its slots */
	size_t total_size;		/* bytes of one struct region_total */
};

/*
 * region_layout_init - the layout for @nr_events events in @nr_groups groups
 * (@group_of[e] for each), with as many regions per thread as fit in @budget
 * bytes, within [REGIONS_PER_THREAD_MIN, REGIONS_PER_THREAD_MAX].
 * Return: 0, or -EINVAL for counts out of range.
 */
int region_layout_init(struct region_layout *l, int nr_events, int nr_groups,
		       const int *group_of, size_t budget);

static inline int region_value_wall(void) { return 0; }
static inline int region_value_event(int e) { return 1 + e; }
static inline int region_value_enabled(const struct region_layout *l, int g)
{
	return 1 + l->nr_events + g;
}
static inline int region_value_running(const struct region_layout *l, int g)
{
	return 1 + l->nr_events + l->nr_groups + g;
}

#define REGION_NONE UINT64_MAX		/* a min nobody has set yet */
#define REGION_SLOT_REFUSED 0xff	/* slot_of: begun with the table full */

/*
 * One path node of one thread: a region entered under one parent node (a
 * slot per (parent, id), so a region called from two places keeps each
 * path's own sums). v[] holds the sums (nr_values), then the sample at its
 * begin. At most one node of an id is open at a time (re-entry is counted
 * once, outermost), and slot_of[id] points at it.
 */
struct region_slot {
	uint16_t id;
	uint16_t parent;		/* the parent node: its slot + 1; 0 none (the thread's top) */
	uint32_t depth;			/* open entries: 1 open, >1 re-entered */
	uint64_t calls;			/* completed outermost entries */
	uint64_t reentries;		/* begins while already open: not counted again */
	uint64_t unclosed;		/* open when its thread exited (or at a final report) */
	uint64_t first_min, first_max;	/* per call, of the first event, scaled */
	uint64_t wall_min, wall_max;	/* per call, in the table's wall unit */
	uint64_t v[];
};

/*
 * One thread's regions. The owner writes under @seq, so that a report in
 * another thread, or in a signal handler, copies a consistent table without
 * taking a lock (region_thread_snapshot). @seq is one word read whole: the
 * count of writes done, shifted by REGION_SEQ_SHIFT, over its low byte, the
 * writes in progress, nested ones included (region_thread_write_begin).
 */
struct region_thread {
	union {
		_Atomic uint32_t seq;
		_Atomic uint8_t writers_byte[4];
	};
	int tid;
	char name[16];			/* comm, read at thread setup, exit and pfshim_report() */
	uint32_t nr_slots;
	int open_error;			/* errno of a group that failed to open in this thread */
	uint64_t end_without_begin;	/* misuse: end of a region not open in this thread */
	uint64_t bad_handle;		/* misuse: a handle that pfshim_region() never gave */
	uint64_t table_full;		/* misuse: begin of a new region with the table full */
	uint64_t unnested;		/* misuse: end of a region that was not the innermost open */
	uint64_t user_reads;		/* counter reads served from user space */
	uint64_t syscall_reads;		/* counter reads that took read(2) */
	uint64_t read_errors;
	/*
	 * The unit of the wall times in the slots (sums, per-call extremes,
	 * begin samples): timer cycles, which mult and shift turn into ns as
	 * fastread_timer_ns() does, or ns when mult is 0. A thread whose
	 * counters are read from user space stores the timer's count as it is,
	 * so that no conversion lands on its begin and end. The owner's table
	 * keeps its unit for good (a signal handler may add a call to it at any
	 * time, even while its thread exits): copies are converted
	 * (region_thread_snapshot, region_thread_wall_to_ns), and the totals
	 * convert what they merge (region_totals_merge).
	 */
	uint32_t wall_mult;
	uint16_t wall_shift;
	/*
	 * The innermost open node (slot + 1; 0: none): a begin's parent, put
	 * back to the node's parent at its end. Written outside the sequence
	 * counter, as a begin's depth: reports never read it.
	 */
	uint16_t current;
	/*
	 * id -> slot + 1 of its open node, else of its latest begun; 0: none
	 * yet; or REFUSED (its latest begin found the table full).
	 */
	uint8_t slot_of[REGIONS_NAMES_MAX];
	uint64_t slots[];		/* capacity slots of slot_size bytes */
};

/*
 * region_thread_init - an empty table for thread @tid in @t, which must be
 * zeroed memory of the layout's thread_size: only the header is written
 * (a slot is cleared when it is made). markers.c touches the whole block
 * at the thread's setup, outside any region; a snapshot copies the made
 * slots only (region_thread_used()).
 */
void region_thread_init(struct region_thread *t, int tid);

/* region_thread_used - the bytes of @t that hold something: its header and made slots. */
size_t region_thread_used(const struct region_thread *t, const struct region_layout *l);

#define REGION_SEQ_SHIFT 8		/* @seq: writes done << 8 | writers in progress */
#define REGION_SEQ_WRITERS 0xffu

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "region_thread_writers() is the low byte of seq");

static inline _Atomic uint8_t *region_thread_writers(struct region_thread *t)
{
	return &t->writers_byte[0];
}

/*
 * region_thread_write_begin, region_thread_write_end - the owner's side of
 * @t's sequence counter, around every change to its table (here and in
 * probe.c): @seq's low byte counts the writes in progress, and the
 * outermost one's end adds one to the count of writes done.
 *
 * Writers nest: a signal handler's marker call may interrupt its thread's
 * own write anywhere, even between two instructions of these two. Each
 * step is a load, then one store of what it loaded changed: a handler
 * landing in between leaves the low byte as it found it (its begin and end
 * balance), and an inner end, which finds the byte above 1, only lowers
 * it. Only the outermost end, which finds 1, counts the write, in one store
 * that also clears the byte (1 + 0xff carries into the count), loaded
 * while the byte holds off every other end. The handler's changes are then
 * inside the write it interrupted: a reader sees the byte set, or the count
 * moved, never one count over a table half written. A counter whose begin
 * and end each took one count, as this one did, made it even again inside
 * the outer write: a report copied a region with 1,995 calls and an event
 * sum of 1,996.
 *
 * The release fence keeps the byte ahead of the data stores for a reader on
 * another CPU; a reader copies, then checks the word did not move
 * (region_thread_snapshot).
 * Return: (begin) the writes that were in progress: 0 for the outermost.
 */
#ifndef REGION_WRITE_BEGIN_TEST_HOOK
#define REGION_WRITE_BEGIN_TEST_HOOK(t) ((void)(t))	/* a unit test's signal handler lands here */
#endif

static inline uint32_t region_thread_write_begin(struct region_thread *t)
{
	/* The word, whose byte the store truncates: a byte's load would be widened. */
	uint32_t s = atomic_load_explicit(&t->seq, memory_order_relaxed);

	REGION_WRITE_BEGIN_TEST_HOOK(t);
	atomic_store_explicit(region_thread_writers(t), (uint8_t)(s + 1), memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	return s & REGION_SEQ_WRITERS;
}

static inline void region_thread_write_end(struct region_thread *t)
{
	uint32_t s = atomic_load_explicit(&t->seq, memory_order_relaxed);

	/* Nested (2 or more): one writer less, in the byte alone. */
	if (__builtin_expect(s & (REGION_SEQ_WRITERS - 1), 0)) {
		atomic_store_explicit(&t->seq, s - 1, memory_order_relaxed);
		return;
	}
	atomic_store_explicit(&t->seq, s + REGION_SEQ_WRITERS, memory_order_release);
}

static inline struct region_slot *region_slot_at(const struct region_thread *t,
						 const struct region_layout *l, uint32_t i)
{
	return (struct region_slot *)((char *)t->slots + i * l->slot_size);
}

/*
 * region_slot_find - the slot of region @id in @t, or NULL when it has none
 * (none yet, refused for a full table, or an id no name can have). A slot
 * exists only for an id that was checked against the names when the slot
 * was made, so finding one needs no look at the names again.
 */
static inline struct region_slot *region_slot_find(const struct region_thread *t,
						   const struct region_layout *l, uint32_t id)
{
	uint32_t k;

	if (id >= REGIONS_NAMES_MAX)
		return NULL;
	k = t->slot_of[id];
	/* 0 (none yet) and REGION_SLOT_REFUSED, in one unsigned test. */
	if ((uint8_t)(k - 1) >= REGION_SLOT_REFUSED - 1)
		return NULL;
	return region_slot_at(t, l, k - 1);
}

/*
 * region_begin_fast - region_begin_start() of the common case, a region
 * begun under the same parent as its latest begin, and not open: the vector
 * its begin sample goes to. NULL for anything else (a new region or path, a
 * re-entry, misuse), with nothing changed: the caller takes
 * region_slot_make() or region_begin_start(). The depth and the current
 * node are single stores, outside the sequence counter: a report copying
 * the table meanwhile sees the depth 0 or 1, each consistent with every
 * other field, which this does not touch (and reports never read current).
 */
static inline uint64_t *region_begin_fast(struct region_thread *t, const struct region_layout *l,
					  uint32_t id)
{
	struct region_slot *s = region_slot_find(t, l, id);
	/* Taken before the depth's store, which the compiler cannot tell from slot_of's bytes. */
	const uint16_t node = id < REGIONS_NAMES_MAX ? t->slot_of[id] : 0;

	if (!s || s->depth || s->parent != t->current)
		return NULL;
	__atomic_store_n(&s->depth, 1, __ATOMIC_RELAXED);
	/*
	 * A plain store: only this thread and its signal handlers read it, and
	 * the counter read that follows (an asm with a memory clobber) keeps it
	 * ahead of the sample. An atomic store would cost an address add on arm64.
	 */
	t->current = node;
	return s->v + l->nr_values;
}

/*
 * region_slot_make - point slot_of[@id] at the node of @id under @t's
 * current node, made if there is none, so that its begin is then the
 * common case (region_begin_fast); nothing when @id is open (a re-entry).
 * Return: 0 (made now or before); -EINVAL bad id (misuse bad_handle);
 * -ENOSPC no room for a new region (misuse table_full); -EBUSY a nested
 * writer (a signal handler inside its thread's own write) makes no slot,
 * and counts nothing: as region_begin().
 */
int region_slot_make(struct region_thread *t, const struct region_layout *l, uint32_t id,
		     uint32_t nr_names);

/*
 * region_end_fast - region_end() with the common case first, the outermost
 * entry of a region closing with the sample @now: no look at the names'
 * count (@nr_names, e.g. &region_names.nr) unless it is something else.
 * Return: as region_end().
 */
int region_end_fast(struct region_thread *t, const struct region_layout *l, uint32_t id,
		    const _Atomic uint32_t *nr_names, const uint64_t *now);

/*
 * region_end_fast_as - region_end_fast() for a caller that returns what this
 * returns, as a tail call with no frame of its own (the markers' end): 0
 * when region_end_fast() says 0 or 1, @misuse when it says a negative errno.
 * @now's first group must have equal enabled and running times (a sample
 * from fastread's cache: fastread_group_read_cached()).
 */
int region_end_fast_as(struct region_thread *t, const struct region_layout *l, uint32_t id,
		       const _Atomic uint32_t *nr_names, const uint64_t *now, int misuse);

/*
 * region_begin - thread @t enters region @id with the sample @now.
 * Return: 0 entered; 1 already open (re-entry, counted once: only the
 * outermost entry's sample is kept); -EINVAL bad id (misuse bad_handle);
 * -ENOSPC no room for a new region (misuse table_full); -EBUSY a region
 * with no slot yet, begun by a nested writer (region_slot_make): not
 * entered, nothing counted.
 */
int region_begin(struct region_thread *t, const struct region_layout *l, uint32_t id,
		 uint32_t nr_names, const uint64_t *now);

/*
 * region_begin_start - region_begin() without the sample, so that the caller
 * can take it last, after the bookkeeping, straight into the vector returned
 * (nr_values entries). That vector is written outside the sequence counter:
 * reports read sums and depths, never a begin sample, so a slow read(2) there
 * never makes a report wait or skip the table.
 * Return: that vector, or NULL with @status set to what region_begin()
 * returns (1, -EINVAL, -ENOSPC, -EBUSY).
 */
uint64_t *region_begin_start(struct region_thread *t, const struct region_layout *l,
			     uint32_t id, uint32_t nr_names, int *status);

/*
 * region_end_start - the begin sample of region @id when region_end() will
 * close its outermost entry (so it needs a sample), else NULL: a caller whose
 * read fails takes that group's values from it, so the call adds 0 there.
 */
const uint64_t *region_end_start(const struct region_thread *t, const struct region_layout *l,
				 uint32_t id, uint32_t nr_names);

/* region_end_closes - will region_end() close the outermost entry (so it needs a sample)? */
bool region_end_closes(const struct region_thread *t, const struct region_layout *l,
		       uint32_t id, uint32_t nr_names);

/*
 * region_end - thread @t leaves region @id with the sample @now (read only
 * when region_end_closes() said so; may be NULL otherwise).
 * Return: 0 the outermost entry closed (one call added); 1 an inner
 * re-entry closed, or a nested writer's end of a region with no slot (its
 * begin said -EBUSY: no misuse); -EINVAL bad id; -ENOENT not open (misuse
 * end_without_begin);
 * -ENOSPC its begin was refused for a full table (already counted there).
 * A node closed while a node begun inside it is still open (ends out of
 * order) also counts misuse unnested: the inner node keeps its path and
 * counts up to its own end, past its parent's, so that the parent's
 * exclusive counts are short by the overlap; the current node becomes the
 * closed node's parent (an inner node left open so changes nothing more).
 */
int region_end(struct region_thread *t, const struct region_layout *l, uint32_t id,
	       uint32_t nr_names, const uint64_t *now);

/*
 * region_slot_add - add node @s's counts into @into, a slot of the same
 * region (zeroed, its mins REGION_NONE, before the first): the region's
 * flat numbers are the sums over its paths. Depth: the open one's.
 */
void region_slot_add(struct region_slot *into, const struct region_slot *s,
		     const struct region_layout *l);

/*
 * region_slot_first_of_id - is @s the first node of its region in @t (the
 * one flat listings and totals key the region on)?
 */
bool region_slot_first_of_id(const struct region_thread *t, const struct region_layout *l,
			     const struct region_slot *s);

/*
 * region_thread_set_name - @name (a comm, 15 bytes at most) under the
 * sequence counter; nothing is written (the counter does not move) when the
 * name is already @name. Owner thread only.
 */
void region_thread_set_name(struct region_thread *t, const char *name);

/*
 * region_thread_wall_to_ns - the wall sums and per-call extremes of @t's
 * slots in ns, its unit then ns (wall_mult 0); nothing to do for a table
 * already in ns. Begin samples are left as they are (reports never read
 * them). For a copy that nobody else writes, never the owner's table.
 */
void region_thread_wall_to_ns(struct region_thread *t, const struct region_layout *l);

/* region_thread_close - the thread exits: each open region counts as unclosed, then is closed. */
void region_thread_close(struct region_thread *t, const struct region_layout *l);

/*
 * region_thread_snapshot - copy @t (its header and made slots; @copy has
 * thread_size bytes) into @copy while its owner may be writing, its wall
 * times in ns (region_thread_wall_to_ns).
 * Async-signal-safe, lock-free.
 * Return: 0, or -EBUSY when @tries passes all saw a write in progress (as
 * when the signal interrupted the owner inside a marker call).
 */
int region_thread_snapshot(const struct region_thread *t, const struct region_layout *l,
			   struct region_thread *copy, int tries);

/*
 * region_slot_value - value @k of @s: k = 0 wall ns; k = 1 + e event e,
 * scaled by its group's enabled/running sums into @out.
 * Return: 0, or -ENODATA when the event never ran (running sum 0).
 */
int region_slot_value(const struct region_slot *s, const struct region_layout *l, int k,
		      uint64_t *out);

/* What region_thread_id_read() gives of one region in one thread. */
struct region_id_values {
	uint64_t calls;			/* completed outermost entries, over every path */
	uint64_t wall_ns;		/* their wall time, in ns whatever the table's unit */
	bool open;			/* its latest node is open now */
	uint64_t value[REGIONS_EVENTS_MAX];	/* each event's sum, scaled; 0 if it never ran */
};

/*
 * region_thread_id_read - region @id's sums in @t over all its paths, as
 * the region's flat listing shows them (region_slot_add, region_slot_value):
 * what LIKWID's GET asks of a region (pfshim_region_values). For the owner
 * thread (it reads the table without the sequence counter).
 * Return: 0; -ENOENT when @t has no node of @id (never begun here, or
 * refused for a full table): everything 0.
 */
int region_thread_id_read(const struct region_thread *t, const struct region_layout *l,
			  uint32_t id, struct region_id_values *out);

/* The totals of one region over every thread merged into it. */
struct region_total {
	uint64_t threads;		/* threads with this region in their table */
	uint64_t calls, reentries, unclosed;
	uint64_t first_min, first_max, wall_min, wall_max;	/* per call, over all threads */
	uint64_t v[];			/* sums (nr_values), then for k in 0..E: sum, min, max, n */
};

/* Totals for every id: REGIONS_NAMES_MAX totals of total_size bytes. */
struct region_totals {
	uint64_t threads_merged;
	uint64_t end_without_begin, bad_handle, table_full, unnested;
	uint64_t user_reads, syscall_reads, read_errors;
	uint64_t totals[];
};

static inline size_t region_totals_size(const struct region_layout *l)
{
	return sizeof(struct region_totals) + REGIONS_NAMES_MAX * l->total_size;
}

static inline struct region_total *region_total_at(const struct region_totals *t,
						   const struct region_layout *l, uint32_t id)
{
	return (struct region_total *)((char *)t->totals + id * l->total_size);
}

/* The per-thread statistics of value k of a total: sum, min, max, and n threads counted. */
static inline uint64_t *region_total_stat(const struct region_total *t,
					  const struct region_layout *l, int k)
{
	return (uint64_t *)&t->v[l->nr_values + 4 * k];
}

void region_totals_init(struct region_totals *t, const struct region_layout *l);

/*
 * region_totals_merge - add thread @t's regions to @tot: sums of calls and
 * samples, and each thread's scaled value as one observation of the
 * per-thread sum/min/max/mean; wall times in ns, whatever @t's unit.
 * Regions still open in @t count as unclosed when @open_is_unclosed (a
 * final report).
 */
void region_totals_merge(struct region_totals *tot, const struct region_layout *l,
			 const struct region_thread *t, int open_is_unclosed);

#endif
