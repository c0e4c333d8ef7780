/* SPDX-License-Identifier: MIT */
/*
 * sysfs.h: the resolver of the names sysfs gives: "<pmu>/<terms>/" and the
 * bare aliases some PMU lists in events/ ("mem-loads"). It owns what it
 * reads of one sysfs root during one events_parse(): the catalog of PMUs and
 * aliases (pmu_catalog.c) and the last PMU_CACHE PMU descriptions (pmu.c),
 * each read on the first name that needs it, never for a built-in name.
 */
#ifndef PFSHIM_PRELOAD_EVENTS_SYSFS_H
#define PFSHIM_PRELOAD_EVENTS_SYSFS_H

#include <stdbool.h>

#include "preload/events/diag.h"
#include "preload/events/pmu.h"
#include "preload/events/pmu_catalog.h"
#include "preload/events/spec.h"

struct sysfs_names {
	const char *root;	/* stands for /sys/bus/event_source/devices */
	struct diag *diag;
	struct pmu_catalog cat;
	int nr_descs, next_desc;
	/* PMUs named so far, round robin: PMU_CACHE of them (23 KiB), allocated
	 * when the first PMU is named, so that a list of built-in names leaves
	 * no 23 KiB of zeroed stack resident. */
	struct pmu_desc *descs;
};

/* Start with nothing read; messages go to @d. */
void sysfs_names_start(struct sysfs_names *r, const char *root, struct diag *d);
void sysfs_names_end(struct sysfs_names *r);

/*
 * sysfs_resolve_pmu - "<pmu>/<terms>/" into @spec's attr (type from sysfs,
 * config bits from format/, aliases of events/ in place) and, when an alias
 * was named, its .scale and .unit. @item is the whole item, for messages;
 * @terms is cut in place. Return: 0, or a negative errno after a message.
 */
int sysfs_resolve_pmu(struct sysfs_names *r, const char *item, const char *pmu, char *terms,
		      struct event_spec *spec);

/*
 * sysfs_resolve_alias - a bare @name that some PMU lists in events/, as
 * "<pmu>/<name>/" of the first such PMU (alphabetically). Return: 0;
 * -ENOENT when no PMU lists it (nothing was said); another negative errno
 * when one does but it is bad (a message said why).
 */
int sysfs_resolve_alias(struct sysfs_names *r, const char *item, const char *name,
			struct event_spec *spec);

/* Does some PMU list the alias @name? */
bool sysfs_alias_known(struct sysfs_names *r, const char *name);

/* Call @fn with every alias of every PMU, for did-you-mean. */
void sysfs_alias_names(struct sysfs_names *r, void (*fn)(void *ctx, const char *name),
		       void *ctx);

#endif
