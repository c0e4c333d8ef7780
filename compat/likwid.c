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
 * LIKWID's GET needs each thread's counts per tag, which the public API does
 * not give: this file keeps a small per-thread table of its own (tag, state,
 * calls, time, sums), read with pfshim_read() at each start and stop.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <pfshim.h>
#include "compat/name.h"
#include "include/pfshim/likwid-marker.h"

#define API __attribute__((visibility("default")))

#define TAGS_FIRST 16	/* a thread's table is made for this many tags, and doubles */
#define TAG_LEN COMPAT_NAME_LEN	/* a tag as its pfshim region name (compat/name.h) */
#define GET_EVENTS 16	/* events GET returns at most */

struct tag {
	char name[TAG_LEN];
	int running;
	int count;
	double time;		/* s */
	uint64_t start_ns;
	int nr;
	uint64_t start[GET_EVENTS];
	double sum[GET_EVENTS];
};

struct table {
	int used, size;
	int lost;		/* a tag found no memory: the table does not know every tag */
	struct tag *tag;
};

static int likwid_init;
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

API void likwid_markerInit(void)
{
	__atomic_store_n(&likwid_init, 1, __ATOMIC_RELEASE);
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
	__atomic_store_n(&likwid_init, 0, __ATOMIC_RELEASE);
}

API int likwid_markerRegisterRegion(const char *regionTag)
{
	char buf[COMPAT_NAME_LEN];

	if (!__atomic_load_n(&likwid_init, __ATOMIC_ACQUIRE) || !tag_ok(regionTag))
		return -EFAULT;
	regionTag = compat_region_name(regionTag, buf);
	(void)pfshim_region(regionTag);
	(void)tag_find(regionTag, 1);
	return 0;
}

API int likwid_markerStartRegion(const char *regionTag)
{
	char buf[COMPAT_NAME_LEN];
	struct pfshim_counts c;
	struct tag *t;
	int i;

	if (!__atomic_load_n(&likwid_init, __ATOMIC_ACQUIRE) || !tag_ok(regionTag))
		return -EFAULT;
	regionTag = compat_region_name(regionTag, buf);
	t = tag_find(regionTag, 1);
	if (t && t->running) {
		/*
		 * LIKWID warns and starts the tag again. The pfshim region goes on
		 * from its first start (a second begin would need a second stop);
		 * GET's values start again from here, as LIKWID's do.
		 */
		fprintf(stderr, "pfshim: likwid: region %s was already started\n", regionTag);
	} else {
		(void)pfshim_region_begin(regionTag);
	}
	if (t) {
		c.nr = 0;
		if (pfshim_read(&c) != 0)
			c.nr = 0;
		t->nr = c.nr < GET_EVENTS ? c.nr : GET_EVENTS;
		for (i = 0; i < t->nr; i++)
			t->start[i] = c.value[i];
		t->running = 1;
		t->start_ns = now_ns();
	}
	return 0;
}

API int likwid_markerStopRegion(const char *regionTag)
{
	char buf[COMPAT_NAME_LEN];
	struct pfshim_counts c;
	uint64_t end_ns = now_ns();
	struct tag *t;
	int i;

	if (!__atomic_load_n(&likwid_init, __ATOMIC_ACQUIRE) || !tag_ok(regionTag))
		return -EFAULT;
	regionTag = compat_region_name(regionTag, buf);
	c.nr = 0;
	if (pfshim_read(&c) != 0)
		c.nr = 0;
	t = tag_find(regionTag, 0);
	/*
	 * A tag started when there was no memory for it has no entry: pfshim's
	 * region knows whether it runs (0: it did; no shim: nobody knows, so
	 * no complaint).
	 */
	if (!t && table_lost() && pfshim_region_end(regionTag) != PFSHIM_MISUSE)
		return 0;
	if (!t || !t->running) {
		/* as LIKWID: a tag that is not running in this thread */
		fprintf(stderr, "pfshim: likwid: stopping an unknown/not-started region %s\n",
			regionTag);
		if (t || !table_lost())		/* else ended above: a misuse already */
			(void)pfshim_region_end(regionTag);	/* counted as misuse in the report */
		return -EFAULT;
	}
	(void)pfshim_region_end(regionTag);
	t->running = 0;
	t->count++;
	t->time += (double)(end_ns - t->start_ns) / 1e9;
	for (i = 0; i < t->nr && i < c.nr; i++)
		t->sum[i] += (double)(c.value[i] - t->start[i]);
	return 0;
}

/* Clears this thread's GET values of the tag; the report's region is not reset. */
API int likwid_markerResetRegion(const char *regionTag)
{
	char buf[COMPAT_NAME_LEN];
	struct tag *t;

	if (!__atomic_load_n(&likwid_init, __ATOMIC_ACQUIRE) || !tag_ok(regionTag))
		return -EFAULT;
	t = tag_find(compat_region_name(regionTag, buf), 0);
	if (!t)
		return -EFAULT;
	t->count = 0;
	t->time = 0;
	memset(t->sum, 0, sizeof(t->sum));
	return 0;
}

API void likwid_markerGetRegion(const char *regionTag, int *nr_events, double *events,
				double *time, int *count)
{
	char buf[COMPAT_NAME_LEN];
	struct tag *t = tag_ok(regionTag) ? tag_find(compat_region_name(regionTag, buf), 0) : NULL;
	int i, n = 0;

	if (t && nr_events && events) {
		n = *nr_events < t->nr ? *nr_events : t->nr;
		for (i = 0; i < n; i++)
			events[i] = t->sum[i];
	}
	if (nr_events)
		*nr_events = n;
	if (time)
		*time = t ? t->time : 0;
	if (count)
		*count = t ? t->count : 0;
}
