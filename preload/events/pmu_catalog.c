/* SPDX-License-Identifier: MIT */
/*
 * pmu_catalog.c: every PMU and every sysfs alias of a machine, listed once per
 * parse and sorted, so that bare names ("mem-loads", "energy-pkg") resolve the
 * way perf resolves them, and so that a megabyte of plausible-looking but
 * unknown items costs no file access per item.
 */
#include "preload/events/pmu_catalog.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int catalog_add_pmu(void *ctx, const char *pmu, const char *name)
{
	struct pmu_catalog *c = ctx;

	(void)name;
	if (c->nr_pmus >= PMU_CATALOG_PMUS_MAX) {
		c->complete = 0;
		return 0;
	}
	snprintf(c->pmus[c->nr_pmus++], PMU_NAME_MAX, "%s", pmu);
	return 0;
}

static int catalog_add_event(void *ctx, const char *pmu, const char *name)
{
	struct pmu_catalog *c = ctx;

	if (c->nr_events >= c->events_cap) {
		int cap = c->events_cap ? c->events_cap * 2 : 256;
		struct pmu_catalog_entry *e;

		if (cap > PMU_CATALOG_EVENTS_MAX) {
			c->complete = 0;
			return 0;
		}
		e = realloc(c->events, (size_t)cap * sizeof(*e));
		if (!e) {
			c->complete = 0;
			return 0;
		}
		c->events = e;
		c->events_cap = cap;
	}
	snprintf(c->events[c->nr_events].name, PMU_NAME_MAX, "%s", name);
	snprintf(c->events[c->nr_events].pmu, PMU_NAME_MAX, "%s", pmu);
	c->nr_events++;
	return 0;
}

static int catalog_entry_cmp(const void *a, const void *b)
{
	const struct pmu_catalog_entry *x = a, *y = b;
	int d = strcmp(x->name, y->name);

	return d ? d : strcmp(x->pmu, y->pmu);
}

void pmu_catalog_load(struct pmu_catalog *c, const char *root)
{
	if (c->loaded)
		return;
	c->loaded = 1;
	c->pmus = malloc(PMU_CATALOG_PMUS_MAX * sizeof(*c->pmus));
	if (!c->pmus)
		return;
	c->complete = 1;
	if (pmu_list(root, catalog_add_pmu, c))
		c->complete = 0;
	for (int i = 0; i < c->nr_pmus; i++) {
		int err = pmu_events_list(root, c->pmus[i], catalog_add_event, c);

		if (err && err != -ENOENT)
			c->complete = 0;
	}
	if (c->nr_events)
		qsort(c->events, (size_t)c->nr_events, sizeof(*c->events), catalog_entry_cmp);
}

void pmu_catalog_free(struct pmu_catalog *c)
{
	free(c->pmus);
	free(c->events);
	memset(c, 0, sizeof(*c));
}

/* Index of the first entry named @name or after it. */
static int catalog_lower_bound(const struct pmu_catalog *c, const char *name)
{
	int lo = 0, hi = c->nr_events;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (strcmp(c->events[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const char *pmu_catalog_find(const struct pmu_catalog *c, const char *name)
{
	int i = catalog_lower_bound(c, name);

	if (i < c->nr_events && !strcmp(c->events[i].name, name))
		return c->events[i].pmu;
	return NULL;
}

int pmu_catalog_has_alias(const struct pmu_catalog *c, const char *pmu, const char *name)
{
	if (!c->complete)
		return -1;
	for (int i = catalog_lower_bound(c, name);
	     i < c->nr_events && !strcmp(c->events[i].name, name); i++)
		if (!strcmp(c->events[i].pmu, pmu))
			return 1;
	return 0;
}

int pmu_catalog_has_pmu(const struct pmu_catalog *c, const char *pmu)
{
	if (!c->complete)
		return -1;
	for (int i = 0; i < c->nr_pmus; i++)
		if (!strcmp(c->pmus[i], pmu))
			return 1;
	return 0;
}
