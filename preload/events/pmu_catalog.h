/* SPDX-License-Identifier: MIT */
/*
 * pmu_catalog.h: the PMUs and sysfs aliases of one sysfs root, read once per
 * events_parse() and sorted. Absence from a complete catalog proves a name
 * unknown without touching the file system.
 */
#ifndef PFSHIM_PRELOAD_EVENTS_PMU_CATALOG_H
#define PFSHIM_PRELOAD_EVENTS_PMU_CATALOG_H

#include "preload/events/pmu.h"

#define PMU_CATALOG_PMUS_MAX 256
#define PMU_CATALOG_EVENTS_MAX 16384

struct pmu_catalog_entry {
	char name[PMU_NAME_MAX];
	char pmu[PMU_NAME_MAX];
};

struct pmu_catalog {
	int loaded;
	int complete;		/* every PMU and alias is listed: absence is proof */
	int nr_pmus, nr_events, events_cap;
	char (*pmus)[PMU_NAME_MAX];
	struct pmu_catalog_entry *events;	/* sorted by name, then PMU */
};

/* List @root's PMUs and aliases (once; later calls do nothing). On a failed
 * allocation or an unreadable directory the catalog stays incomplete. */
void pmu_catalog_load(struct pmu_catalog *c, const char *root);
void pmu_catalog_free(struct pmu_catalog *c);

/* The first PMU, alphabetically, that lists alias @name; NULL if none. */
const char *pmu_catalog_find(const struct pmu_catalog *c, const char *name);

/* 1 yes, 0 no, -1 the catalog is incomplete and cannot tell. */
int pmu_catalog_has_alias(const struct pmu_catalog *c, const char *pmu, const char *name);
int pmu_catalog_has_pmu(const struct pmu_catalog *c, const char *pmu);

#endif
