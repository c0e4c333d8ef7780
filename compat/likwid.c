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
#include "include/pfshim/likwid-marker.h"

#define API __attribute__((visibility("default")))

#define TAGS 64		/* LIKWID tags one thread's table holds */
#define TAG_LEN 64	/* pfshim's name limit */
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
	int used;
	int warned_full;
	struct tag tag[TAGS];
};

static int likwid_init;
static pthread_key_t table_key;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void table_key_make(void)
{
	(void)pthread_key_create(&table_key, free);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* tag_find - this thread's entry for @name; with @add, a new one. Null: none, or full. */
static struct tag *tag_find(const char *name, int add)
{
	struct table *t;
	int i;

	pthread_once(&table_once, table_key_make);
	t = pthread_getspecific(table_key);
	if (!t) {
		if (!add || !(t = calloc(1, sizeof(*t))))
			return NULL;
		if (pthread_setspecific(table_key, t)) {
			free(t);
			return NULL;
		}
	}
	for (i = 0; i < t->used; i++)
		if (!strcmp(t->tag[i].name, name))
			return &t->tag[i];
	if (!add)
		return NULL;
	if (t->used == TAGS) {
		if (!t->warned_full++)
			fprintf(stderr, "pfshim: likwid: more than %d region tags in one thread; "
				"GET and RESET ignore the rest\n", TAGS);
		return NULL;
	}
	snprintf(t->tag[t->used].name, TAG_LEN, "%s", name);
	return &t->tag[t->used++];
}

static int tag_ok(const char *name)
{
	return name && *name && strlen(name) < TAG_LEN;
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
	if (!__atomic_load_n(&likwid_init, __ATOMIC_ACQUIRE) || !tag_ok(regionTag))
		return -EFAULT;
	(void)pfshim_region(regionTag);
	(void)tag_find(regionTag, 1);
	return 0;
}

API int likwid_markerStartRegion(const char *regionTag)
{
	struct pfshim_counts c;
	struct tag *t;
	int i;

	if (!__atomic_load_n(&likwid_init, __ATOMIC_ACQUIRE) || !tag_ok(regionTag))
		return -EFAULT;
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
	struct pfshim_counts c;
	uint64_t end_ns = now_ns();
	struct tag *t;
	int i;

	if (!__atomic_load_n(&likwid_init, __ATOMIC_ACQUIRE) || !tag_ok(regionTag))
		return -EFAULT;
	c.nr = 0;
	if (pfshim_read(&c) != 0)
		c.nr = 0;
	t = tag_find(regionTag, 0);
	if (!t || !t->running) {
		/* as LIKWID: a tag that is not running in this thread */
		fprintf(stderr, "pfshim: likwid: stopping an unknown/not-started region %s\n",
			regionTag);
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
	struct tag *t;

	if (!__atomic_load_n(&likwid_init, __ATOMIC_ACQUIRE) || !tag_ok(regionTag))
		return -EFAULT;
	t = tag_find(regionTag, 0);
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
	struct tag *t = tag_ok(regionTag) ? tag_find(regionTag, 0) : NULL;
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
