/* SPDX-License-Identifier: MIT */
/*
 * likwid.c: LIKWID's marker API (likwid_marker*) on pfshim's public marker
 * API (pfshim.h), for programs already instrumented with it. papi_hl.c does
 * the same for PAPI's high-level API; both go into the same two libraries:
 * - build/libpfshim-compat.so, preloaded beside libpfshim.so by a user who
 *   asks for it (LD_PRELOAD="libpfshim.so libpfshim-compat.so"): it takes
 *   over likwid_marker* and PAPI_hl_* of a program linked with liblikwid or
 *   libpapi, and nothing else, so PAPI's low-level API stays PAPI's;
 * - build/libpfshim-compat.a, linked instead of -llikwid/-lpapi by a program
 *   built against include/pfshim/likwid-marker.h or papi-hl.h.
 * Either way every tag is a pfshim region (begin/end by name), so the
 * report shows it as the native API would. The pfshim_v1_* references are
 * weak: without libpfshim.so the regions are no-ops.
 *
 * LIKWID's GET reads a tag's values from pfshim's own region table
 * (pfshim_region_values), so START and STOP are pfshim's pair by name with
 * a few checks. This file keeps a small per-thread table of its own only
 * for what pfshim does not: the tags it did not take (no libpfshim.so, or
 * its thread table full), counted here with pfshim_read() and the clock as
 * LIKWID would, and what each tag had counted at its last RESET.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pfshim.h>
#include "compat/name.h"
#include "compat/thread.h"
#include "include/pfshim/likwid-marker.h"

#define API __attribute__((visibility("default")))
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

#define TAGS_FIRST 16	/* a thread's table is made for this many tags, and doubles */
#define TAG_LEN COMPAT_NAME_LEN	/* a tag as its pfshim region name (compat/name.h) */
#define GET_EVENTS PFSHIM_MAX_EVENTS	/* events GET returns at most */

/* A tag in this thread's own table. */
struct tag {
	char name[TAG_LEN];
	/* Counted here (pfshim did not take it): */
	int running;
	int count;
	double time;		/* s */
	uint64_t start_ns;
	int nr;
	uint64_t start[GET_EVENTS];
	double sum[GET_EVENTS];
	/* pfshim's values of the region at the tag's last RESET, which GET takes off: */
	uint64_t base_calls, base_wall_ns;
	int base_nr;
	uint64_t base[GET_EVENTS];
};

struct table {
	int used, size;
	int lost;		/* a tag found no memory: the table does not know every tag */
	struct tag *tag;
};

/*
 * pfshim's begin and end by name between likwid_markerInit() and
 * likwid_markerClose(), the closed calls below outside: a START or STOP
 * calls through one of them without testing that the marker API is
 * initialised, nor pfshim's weak reference, nor going through the PLT.
 * Without libpfshim.so a stub answers PFSHIM_INACTIVE, as pfshim.h's
 * wrappers do. Hidden, not static: GCC reaches a static one through its
 * section's anchor, an add more a call (arm64).
 */
static int tag_closed(const char *tag);
__attribute__((visibility("hidden"))) int (*likwid_start_fn)(const char *) = tag_closed;
__attribute__((visibility("hidden"))) int (*likwid_stop_fn)(const char *) = tag_closed;

/* Before init and after close: -EFAULT, as LIKWID's, which is none of pfshim's codes. */
_Static_assert(-EFAULT != PFSHIM_INACTIVE && -EFAULT != PFSHIM_MISUSE &&
	       -EFAULT != PFSHIM_FAILED, "the closed calls' answer is not pfshim's");

static int tag_closed(const char *tag)
{
	(void)tag;
	return -EFAULT;
}

static pthread_key_t table_key;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void table_free(void *p)
{
	struct table *t = p;

	free(t->tag);
	free(t);
}

static void table_key_make(void)
{
	(void)pthread_key_create(&table_key, table_free);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* table_get - this thread's table; with @add, made when it has none. */
static struct table *table_get(int add)
{
	struct table *t;

	pthread_once(&table_once, table_key_make);
	t = pthread_getspecific(table_key);
	if (!t && add && (t = calloc(1, sizeof(*t))) && pthread_setspecific(table_key, t)) {
		free(t);
		t = NULL;
	}
	return t;
}

/*
 * tag_find - this thread's entry for @name; with @add, a new one. Null:
 * none, or no memory for a new one (one line, and the table is lost: it
 * no longer knows every tag). LIKWID takes any number of tags: the table
 * doubles when full, and an entry is only used within one call.
 */
static struct tag *tag_find(const char *name, int add)
{
	struct table *t = table_get(add);
	struct tag *grown;
	int i;

	if (!t)
		return NULL;
	for (i = 0; i < t->used; i++)
		if (!strcmp(t->tag[i].name, name))
			return &t->tag[i];
	if (!add)
		return NULL;
	if (t->used == t->size) {
		int size = t->size ? 2 * t->size : TAGS_FIRST;

		if (!(grown = realloc(t->tag, (size_t)size * sizeof(*grown)))) {
			if (!t->lost++)
				fprintf(stderr, "pfshim: likwid: out of memory for region tags; "
					"GET and RESET ignore the new ones (the report counts them)\n");
			return NULL;
		}
		t->tag = grown;
		t->size = size;
	}
	memset(&t->tag[t->used], 0, sizeof(t->tag[0]));
	snprintf(t->tag[t->used].name, TAG_LEN, "%s", name);
	return &t->tag[t->used++];
}

/* The table does not know every tag of this thread: some found no memory. */
static int table_lost(void)
{
	struct table *t = table_get(0);

	return t && t->lost;
}

/* Any non-empty tag: a long one is shortened (compat/name.h), as LIKWID takes any length. */
static int tag_ok(const char *name)
{
	return name && *name;
}

/* Between likwid_markerInit() and likwid_markerClose(). */
static int initialized(void)
{
	return compat_fn_load(&likwid_start_fn) != tag_closed;
}

/* A tag this layer counts: its start, as LIKWID takes it (the counters, then the clock). */
static void tag_start(struct tag *t)
{
	struct pfshim_counts c;

	c.nr = 0;
	if (pfshim_read(&c) != 0)
		c.nr = 0;
	t->nr = c.nr < GET_EVENTS ? c.nr : GET_EVENTS;
	for (int i = 0; i < t->nr; i++)
		t->start[i] = c.value[i];
	t->running = 1;
	t->start_ns = now_ns();
}

static void tag_stop(struct tag *t)
{
	uint64_t end_ns = now_ns();
	struct pfshim_counts c;

	c.nr = 0;
	if (pfshim_read(&c) != 0)
		c.nr = 0;
	t->running = 0;
	t->count++;
	t->time += (double)(end_ns - t->start_ns) / 1e9;
	for (int i = 0; i < t->nr && i < c.nr; i++)
		t->sum[i] += (double)(c.value[i] - t->start[i]);
}

static int region_inactive(const char *name)
{
	(void)name;
	return PFSHIM_INACTIVE;
}

API void likwid_markerInit(void)
{
	__atomic_store_n(&likwid_stop_fn,
			 pfshim_v1_region_end ? pfshim_v1_region_end : region_inactive,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&likwid_start_fn,
			 pfshim_v1_region_start ? pfshim_v1_region_start : region_inactive,
			 __ATOMIC_RELAXED);
}

/* Threads set up at their first region: nothing to do. */
API void likwid_markerThreadInit(void)
{
}

/* pfshim has no event groups to rotate: PFSHIM_EVENTS is counted all along. */
API void likwid_markerNextGroup(void)
{
}

/* The report is written at exit, as for every pfshim program. */
API void likwid_markerClose(void)
{
	__atomic_store_n(&likwid_start_fn, tag_closed, __ATOMIC_RELAXED);
	__atomic_store_n(&likwid_stop_fn, tag_closed, __ATOMIC_RELAXED);
}

API int likwid_markerRegisterRegion(const char *regionTag)
{
	char buf[COMPAT_NAME_LEN];

	if (!initialized() || !tag_ok(regionTag))
		return -EFAULT;
	regionTag = compat_region_name(regionTag, buf);
	(void)pfshim_region(regionTag);
	/* As LIKWID's, a registered tag is known to this thread: RESET takes it. */
	(void)tag_find(regionTag, 1);
	return 0;
}

/*
 * A start pfshim did not take (@ret): the tag open already (PFSHIM_OPEN),
 * no libpfshim.so (PFSHIM_INACTIVE) or its thread table full
 * (PFSHIM_MISUSE), so this layer counts the tag. PFSHIM_FAILED: pfshim has
 * the region, without some counts. -EFAULT: the marker API is closed.
 */
static __attribute__((noinline)) int start_not_0(const char *tag, int ret)
{
	char buf[COMPAT_NAME_LEN];
	struct tag *t;

	if (ret == -EFAULT || ret == PFSHIM_FAILED)	/* closed: not started; taken */
		return ret == -EFAULT ? -EFAULT : 0;
	tag = compat_region_name(tag, buf);
	t = tag_find(tag, ret != PFSHIM_OPEN);
	if (ret == PFSHIM_OPEN || (t && t->running)) {
		/*
		 * LIKWID warns and starts the tag again. The pfshim region goes on
		 * from its first start (a second begin would need a second stop),
		 * and so do GET's values of it; a tag this layer counts starts
		 * again from here, as LIKWID's do.
		 */
		fprintf(stderr, "pfshim: likwid: region %s was already started\n", tag);
		if (ret == PFSHIM_OPEN)
			return 0;
	}
	if (t)
		tag_start(t);
	return 0;
}

/* The common start: pfshim's start by name, which says whether the tag is open already. */
API int likwid_markerStartRegion(const char *regionTag)
{
	int ret;

	if (!regionTag || !*regionTag)
		return -EFAULT;
	ret = compat_fn_load(&likwid_start_fn)(regionTag);
	return UNLIKELY(ret != 0) ? start_not_0(regionTag, ret) : 0;
}

/*
 * A stop pfshim's end said something other than 0 to: PFSHIM_FAILED (it
 * took it, without some counts), else PFSHIM_MISUSE or PFSHIM_INACTIVE;
 * or -EFAULT, the marker API closed.
 */
static __attribute__((noinline)) int stop_not_0(const char *tag, int ret)
{
	char buf[COMPAT_NAME_LEN];
	struct tag *t;

	if (ret == -EFAULT)		/* closed */
		return -EFAULT;
	if (ret == PFSHIM_FAILED)
		return 0;
	tag = compat_region_name(tag, buf);
	t = tag_find(tag, 0);

	if (t && t->running) {
		tag_stop(t);
		return 0;
	}
	/* A tag started with no memory for it: without the shim nobody knows; no complaint. */
	if (!t && ret == PFSHIM_INACTIVE && table_lost())
		return 0;
	/* as LIKWID: a tag that is not running in this thread (a misuse in pfshim's report) */
	fprintf(stderr, "pfshim: likwid: stopping an unknown/not-started region %s\n", tag);
	return -EFAULT;
}

/* The common stop: pfshim's end by name, after the checks that need no table. */
API int likwid_markerStopRegion(const char *regionTag)
{
	int ret;

	if (!regionTag || !*regionTag)
		return -EFAULT;
	ret = compat_fn_load(&likwid_stop_fn)(regionTag);
	return UNLIKELY(ret != 0) ? stop_not_0(regionTag, ret) : 0;
}

/*
 * Clears this thread's GET values of the tag: what pfshim's region has
 * counted so far is kept as the tag's base, which GET takes off. The
 * report's region is not reset.
 */
API int likwid_markerResetRegion(const char *regionTag)
{
	char buf[COMPAT_NAME_LEN];
	struct pfshim_region_values v;
	struct tag *t;
	int known;

	if (!initialized() || !tag_ok(regionTag))
		return -EFAULT;
	regionTag = compat_region_name(regionTag, buf);
	known = pfshim_region_values(regionTag, &v) == 0;
	t = tag_find(regionTag, known);
	if (!t)
		return -EFAULT;
	t->count = 0;
	t->time = 0;
	memset(t->sum, 0, sizeof(t->sum));
	t->base_calls = known ? v.calls : 0;
	t->base_wall_ns = known ? v.wall_ns : 0;
	t->base_nr = known ? v.nr : 0;
	for (int i = 0; i < t->base_nr; i++)
		t->base[i] = v.value[i];
	return 0;
}

/* What pfshim's region counted in this thread since the tag's last RESET, and what this layer did. */
API void likwid_markerGetRegion(const char *regionTag, int *nr_events, double *events,
				double *time, int *count)
{
	char buf[COMPAT_NAME_LEN];
	struct pfshim_region_values v = { 0 };
	struct tag *t = NULL, none = { .name = "" };
	int i, n = 0, nr, known = 0;

	if (tag_ok(regionTag)) {
		regionTag = compat_region_name(regionTag, buf);
		t = tag_find(regionTag, 0);
		known = pfshim_region_values(regionTag, &v) == 0;
	}
	if (!known)
		v = (struct pfshim_region_values){ 0 };
	if (!t)
		t = &none;
	nr = v.nr > t->nr ? v.nr : t->nr;
	if (nr_events && events) {
		n = *nr_events < nr ? *nr_events : nr;
		for (i = 0; i < n; i++)
			events[i] = (i < t->nr ? t->sum[i] : 0) +
				    (i < v.nr ? (double)(v.value[i] - (i < t->base_nr ? t->base[i] : 0)) : 0);
	}
	if (nr_events)
		*nr_events = n;
	if (time)
		*time = t->time + (double)(v.wall_ns - (known ? t->base_wall_ns : 0)) / 1e9;
	if (count)
		*count = t->count + (int)(v.calls - (known ? t->base_calls : 0));
}
