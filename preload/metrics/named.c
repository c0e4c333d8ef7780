/* SPDX-License-Identifier: MIT */
/*
 * named.c: metrics by name (PFSHIM_METRICS=IPC,CPUs-utilized,TopdownL1),
 * written as one group in LIKWID's file format that group.c then reads as
 * it reads PFSHIM_GROUP's: the generic metrics perf stat prints beside its
 * counts (perf's own events, so every CPU perf knows has them), and
 * TopdownL1: the vendor's level 1 where this machine's PMU has its events
 * (topdown.c), else LIKWID's TMA group for this CPU, read from the group
 * files Debian's likwid package installs.
 */
#include "preload/metrics/named.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/buf.h"
#include "preload/metrics/topdown.h"

/*
 * A formula's names are its events' counters: each event is named in the
 * EVENTSET under a counter of its own name ('-' is a minus in a formula,
 * so task_clock counts task-clock).
 */
struct named_event {
	const char *counter, *event;
};

struct named_metric {
	const char *name, *unit, *formula;
	struct named_event events[2];
};

/* perf stat's shadow metrics (tools/perf/util/stat-shadow.c), by the same events. */
static const struct named_metric metrics[] = {
	{ "IPC", "", "instructions/cycles",
	  { { "instructions", "instructions" }, { "cycles", "cycles" } } },
	{ "CPI", "", "cycles/instructions",
	  { { "cycles", "cycles" }, { "instructions", "instructions" } } },
	{ "branch-miss-ratio", "", "branch_misses/branches",
	  { { "branch_misses", "branch-misses" }, { "branches", "branches" } } },
	{ "cache-miss-ratio", "", "cache_misses/cache_references",
	  { { "cache_misses", "cache-misses" }, { "cache_references", "cache-references" } } },
	{ "L1D-miss-ratio", "", "l1d_misses/l1d_loads",
	  { { "l1d_misses", "L1-dcache-load-misses" }, { "l1d_loads", "L1-dcache-loads" } } },
	{ "GHz", "GHz", "cycles/task_clock",	/* task-clock counts ns */
	  { { "cycles", "cycles" }, { "task_clock", "task-clock" } } },
	{ "CPUs-utilized", "", "task_clock/(time*1000000000)",
	  { { "task_clock", "task-clock" } } },
	/* Per second of CPU time, as perf stat's "/sec" beside each count. */
	{ "page-faults-per-second", "1/s", "page_faults/task_clock*1000000000",
	  { { "page_faults", "page-faults" }, { "task_clock", "task-clock" } } },
	{ "context-switches-per-second", "1/s", "context_switches/task_clock*1000000000",
	  { { "context_switches", "context-switches" }, { "task_clock", "task-clock" } } },
};

#define NR_METRICS (sizeof(metrics) / sizeof(metrics[0]))
#define TOPDOWN "TopdownL1"

/* A growing text; @failed once an allocation failed, and it stays so. */
struct text {
	char *p;
	size_t len, size;
	bool failed;
};

static void put(struct text *t, const char *s, size_t n)
{
	if (t->failed)
		return;
	if (t->len + n + 1 > t->size) {
		size_t size = (t->len + n + 1) * 2;
		char *p = realloc(t->p, size);

		if (!p) {
			t->failed = true;
			return;
		}
		t->p = p;
		t->size = size;
	}
	memcpy(t->p + t->len, s, n);
	t->len += n;
	t->p[t->len] = '\0';
}

static void put_string(struct text *t, const char *s)
{
	put(t, s, strlen(s));
}

static const struct named_metric *find(const char *name, size_t len)
{
	for (size_t i = 0; i < NR_METRICS; i++)
		if (strlen(metrics[i].name) == len && !strncmp(metrics[i].name, name, len))
			return &metrics[i];
	return NULL;
}

const char *metric_named_at(size_t i, const char **unit, const char **formula,
			    const char *(*events)[2][2])
{
	if (i >= NR_METRICS)
		return NULL;
	*unit = metrics[i].unit;
	*formula = metrics[i].formula;
	for (int e = 0; e < 2; e++) {
		(*events)[e][0] = metrics[i].events[e].counter;
		(*events)[e][1] = metrics[i].events[e].event;
	}
	return metrics[i].name;
}

const char *metric_named_list(void)
{
	static char list[512];

	if (!list[0]) {
		size_t at = 0;

		for (size_t i = 0; i < NR_METRICS && at < sizeof(list); i++)
			at += (size_t)snprintf(list + at, sizeof(list) - at, "%s, ", metrics[i].name);
		if (at < sizeof(list))
			snprintf(list + at, sizeof(list) - at, "%s", TOPDOWN);
	}
	return list;
}

bool metric_named_all(const char *names)
{
	bool any = false;

	for (const char *p = names; *p;) {
		size_t len = strcspn(p, ",");

		if (len && !find(p, len) && !(len == strlen(TOPDOWN) && !strncmp(p, TOPDOWN, len)))
			return false;
		any |= len > 0;
		p += len + (p[len] == ',');
	}
	return any;
}

/* @len bytes of @s for a message, as export/buf.c shows a name on a terminal. */
static void printable(char *out, size_t size, const char *s, size_t len)
{
	char copy[64];
	struct buf b;

	snprintf(copy, sizeof(copy), "%.*s", (int)len, s);
	buf_init(&b, out, size);
	buf_put_printable(&b, copy);
	buf_finish(&b);
}

int metric_named_text(const char *names, const struct topdown_machine *machine,
		      struct topdown *td, char **text, const char **group_events, bool *topdown,
		      char *unknown, size_t unknown_size)
{
	struct text t = { 0 };
	const struct named_metric *chosen[NR_METRICS];
	bool here = false;	/* TopdownL1 from this machine's own events */
	size_t nr = 0;

	*text = NULL;
	*group_events = NULL;
	*topdown = false;
	unknown[0] = '\0';
	memset(td, 0, sizeof(*td));
	for (const char *p = names; *p;) {
		size_t len = strcspn(p, ",");
		const struct named_metric *m = find(p, len);
		bool again = false;

		for (size_t i = 0; m && i < nr; i++)
			again |= chosen[i] == m;
		if (m && !again)
			chosen[nr++] = m;
		else if (len == strlen(TOPDOWN) && !strncmp(p, TOPDOWN, len))
			*topdown = true;
		else if (!m && len && !unknown[0])
			printable(unknown, unknown_size, p, len);
		p += len + (p[len] == ',');
	}
	if (*topdown && topdown_find(machine, td) == 0) {
		*group_events = td->group;
		*topdown = false;
		here = true;
	}
	put_string(&t, "SHORT PFSHIM_METRICS\nEVENTSET\n");
	if (here)
		put_string(&t, td->eventset);
	/* An event two metrics share is listed twice: counted once (group.c's events_text). */
	for (size_t i = 0; i < nr; i++)
		for (size_t e = 0; e < 2 && chosen[i]->events[e].counter; e++) {
			put_string(&t, chosen[i]->events[e].counter);
			put_string(&t, " ");
			put_string(&t, chosen[i]->events[e].event);
			put_string(&t, "\n");
		}
	put_string(&t, "METRICS\n");
	if (here)
		put_string(&t, td->metrics);
	for (size_t i = 0; i < nr; i++) {
		put_string(&t, chosen[i]->name);
		if (*chosen[i]->unit) {
			put_string(&t, " [");
			put_string(&t, chosen[i]->unit);
			put_string(&t, "]");
		}
		put_string(&t, " ");
		put_string(&t, chosen[i]->formula);
		put_string(&t, "\n");
	}
	if (t.failed) {
		free(t.p);
		return -ENOMEM;
	}
	*text = nr || here ? t.p : NULL;
	if (!*text)
		free(t.p);
	return 0;
}
