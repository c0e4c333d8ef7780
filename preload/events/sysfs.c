/* SPDX-License-Identifier: MIT */
/*
 * sysfs.c: the sysfs resolver (see sysfs.h): a PMU's type and format/ turn
 * terms into config bits; an alias of its events/ is terms too, split by the
 * same syntax_terms_split().
 */
#include "preload/events/sysfs.h"
#include "preload/events/syntax.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALIAS_MAX 256
#define PMU_CACHE 4

void sysfs_names_start(struct sysfs_names *r, const char *root, struct diag *d)
{
	memset(r, 0, sizeof(*r));
	r->root = root;
	r->diag = d;
}

void sysfs_names_end(struct sysfs_names *r)
{
	pmu_catalog_free(&r->cat);
	free(r->descs);
	r->descs = NULL;
}

/* The description of @pmu, read at most once per parse while it stays cached. */
static const struct pmu_desc *desc_get(struct sysfs_names *r, const char *pmu, int *err)
{
	struct pmu_desc *d;

	*err = 0;
	for (int i = 0; i < r->nr_descs; i++)
		if (!strcmp(r->descs[i].name, pmu))
			return &r->descs[i];
	if (!r->descs && !(r->descs = calloc(PMU_CACHE, sizeof(*r->descs)))) {
		*err = -ENOMEM;
		return NULL;
	}
	pmu_catalog_load(&r->cat, r->root);
	if (pmu_catalog_has_pmu(&r->cat, pmu) == 0) {
		*err = -ENOENT;
		return NULL;
	}
	d = &r->descs[r->next_desc];
	*err = pmu_desc_load(r->root, pmu, d);
	if (*err)
		return NULL;
	r->next_desc = (r->next_desc + 1) % PMU_CACHE;
	if (r->nr_descs < PMU_CACHE)
		r->nr_descs++;
	return d;
}

/* One item being resolved against one PMU. */
struct pmu_item {
	struct sysfs_names *r;
	const char *item;
	const char *pmu;
	const struct pmu_desc *desc;
	struct event_spec *spec;
	const char *alias;	/* the events/ name used, for .scale/.unit */
	int depth;		/* 1 inside an alias's text: no alias may name another */
};

/* config=, config1=, config2= write the whole field, as in perf. */
static __u64 *whole_field(struct perf_event_attr *attr, const char *key)
{
	if (!strcmp(key, "config"))
		return &attr->config;
	if (!strcmp(key, "config1"))
		return &attr->config1;
	if (!strcmp(key, "config2"))
		return &attr->config2;
	return NULL;
}

static int value_parse(struct pmu_item *pi, const char *key, const char *val, uint64_t *value)
{
	if (!syntax_number(val, value))
		return 0;
	diag_warn(pi->r->diag, "bad value '%s' for term '%s' in '%s' (write a decimal or 0x hex "
		  "number); the event is skipped", val, key, pi->item);
	return -EINVAL;
}

static void term_unknown(struct pmu_item *pi, const char *key, int has_value)
{
	struct sysfs_names *r = pi->r;
	struct suggest s;

	suggest_init(&s, key);
	if (!diag_quiet(r->diag)) {
		suggest_consider(&s, "config");
		suggest_consider(&s, "config1");
		suggest_consider(&s, "config2");
		for (int i = 0; i < pi->desc->nr_formats; i++)
			suggest_consider(&s, pi->desc->formats[i].term);
		if (!has_value)
			for (int i = 0; i < r->cat.nr_events; i++)
				if (!strcmp(r->cat.events[i].pmu, pi->pmu))
					suggest_consider(&s, r->cat.events[i].name);
	}
	if (has_value)
		diag_unknown(r->diag, &s, "unknown format term '%s' for PMU '%s' in '%s'", key,
			     pi->pmu, pi->item);
	else
		diag_unknown(r->diag, &s, "PMU '%s' has no event or term '%s' in '%s'", pi->pmu,
			     key, pi->item);
}

static int term_apply(void *arg, char *key, char *val);

/* A bare word between the slashes names an alias in events/; its terms apply
 * in place, and may not name further aliases (depth 1). */
static int alias_apply(struct pmu_item *pi, const char *name)
{
	char alias[ALIAS_MAX];
	int err = -ENOENT;

	if (pmu_catalog_has_alias(&pi->r->cat, pi->pmu, name) != 0)
		err = pmu_alias_read(pi->r->root, pi->pmu, name, alias, sizeof(alias));

	if (err == -ENAMETOOLONG) {
		diag_warn(pi->r->diag, "the sysfs alias %s/events/%s is longer than pfshim reads "
			  "(%d bytes); '%s' is skipped", pi->pmu, name, ALIAS_MAX - 1, pi->item);
		return err;
	}
	if (err) {
		term_unknown(pi, name, 0);
		return err;
	}
	pi->alias = name;
	pi->depth = 1;
	return syntax_terms_split(alias, pi->item, pi->r->diag, term_apply, pi);
}

static int format_apply(struct pmu_item *pi, const char *key, const char *val,
			const struct pmu_format *fmt)
{
	uint64_t value = 1;	/* perf: a term without a value ("inv") means 1 */
	int err;

	if (val && value_parse(pi, key, val, &value))
		return -EINVAL;
	err = pmu_format_deposit(fmt, value, &pi->spec->attr);
	if (err == -ERANGE)
		diag_warn(pi->r->diag, "value %s of term '%s' is too wide for PMU '%s' (format %s "
			  "holds %d bits) in '%s'; the event is skipped", val ? val : "1", key,
			  pi->pmu, fmt->spec, pmu_format_width(fmt), pi->item);
	return err;
}

/* perf's terms that only a sampling event uses (tools/perf/util/parse-events.c). */
static bool term_is_sampling(const char *key)
{
	static const char *const terms[] = {
		"period", "freq", "call-graph", "stack-size", "max-stack", "branch_type",
		"time", "aux-output", "aux-sample-size",
	};

	for (size_t i = 0; i < sizeof(terms) / sizeof(terms[0]); i++)
		if (!strcmp(key, terms[i]))
			return true;
	return false;
}

/* name=: the event's name in the reports, instead of the item. */
static int term_name(struct pmu_item *pi, const char *val)
{
	if (!val) {
		diag_warn(pi->r->diag, "term 'name' needs a value in '%s' (write name=NAME); the "
			  "event is skipped", pi->item);
		return -EINVAL;
	}
	snprintf(pi->spec->name, sizeof(pi->spec->name), "%s", val);
	pi->spec->named = true;
	return 0;
}

static int term_apply(void *arg, char *key, char *val)
{
	struct pmu_item *pi = arg;
	const struct pmu_format *fmt;
	__u64 *whole = val ? whole_field(&pi->spec->attr, key) : NULL;
	int err;

	if (pi->depth == 0 && !strcmp(key, "name"))
		return term_name(pi, val);
	if (term_is_sampling(key)) {
		diag_warn(pi->r->diag, "term '%s' in '%s' is for sampling only: ignored for "
			  "counting", key, pi->item);
		return 0;
	}

	if (whole) {
		uint64_t value;

		if (value_parse(pi, key, val, &value))
			return -EINVAL;
		*whole = value;
		return 0;
	}
	err = pmu_desc_format(pi->desc, key, &fmt);
	if (!err)
		return format_apply(pi, key, val, fmt);
	if (err != -ENOENT) {
		diag_warn(pi->r->diag, "PMU '%s' has a malformed format file for term '%s' (in %s); "
			  "'%s' is skipped", pi->pmu, key, pi->r->root, pi->item);
		return err;
	}
	if (!val && pi->depth == 0) {
		err = alias_apply(pi, key);
		pi->depth = 0;	/* the terms after the alias are the item's own */
		return err;
	}
	term_unknown(pi, key, val != NULL);
	return -ENOENT;
}

static void pmu_unknown(struct sysfs_names *r, const char *pmu, const char *item)
{
	struct suggest s;

	pmu_catalog_load(&r->cat, r->root);
	suggest_init(&s, pmu);
	if (!diag_quiet(r->diag))
		for (int i = 0; i < r->cat.nr_pmus; i++)
			suggest_consider(&s, r->cat.pmus[i]);
	if (s.name[0])
		diag_unknown(r->diag, &s, "unknown PMU '%s' in '%s'", pmu, item);
	else
		diag_warn(r->diag, "unknown PMU '%s' in '%s': no such directory in %s; the event "
			  "is skipped", pmu, item, r->root);
}

int sysfs_resolve_pmu(struct sysfs_names *r, const char *item, const char *pmu, char *terms,
		      struct event_spec *spec)
{
	struct pmu_item pi = { .r = r, .item = item, .pmu = pmu, .spec = spec };
	int err;

	if (!pmu_name_valid(pmu)) {
		diag_warn(r->diag, "bad PMU name '%s' in '%s'; the event is skipped", pmu, item);
		return -EINVAL;
	}
	pi.desc = desc_get(r, pmu, &err);
	if (err == -ENOENT) {
		pmu_unknown(r, pmu, item);
		return err;
	}
	if (err == -ENOMEM) {
		diag_warn(r->diag, "no memory to describe PMU '%s'; '%s' is skipped", pmu, item);
		return err;
	}
	if (err) {
		diag_warn(r->diag, "PMU '%s' has an unreadable type file in %s (%s); '%s' is "
			  "skipped", pmu, r->root, strerror(-err), item);
		return err;
	}
	spec->attr.type = pi.desc->type;
	spec->kind = REPORT_KIND_PMU;
	err = syntax_terms_split(terms, item, r->diag, term_apply, &pi);
	if (err)
		return err;
	if (pi.alias)
		pmu_alias_display(r->root, pmu, pi.alias, &spec->scale, spec->unit,
				  sizeof(spec->unit));
	return 0;
}

int sysfs_resolve_alias(struct sysfs_names *r, const char *item, const char *name,
			struct event_spec *spec)
{
	char pmu_name[PMU_NAME_MAX], terms[EVENTS_NAME_MAX];
	const char *pmu;
	int err;

	pmu_catalog_load(&r->cat, r->root);
	pmu = pmu_catalog_find(&r->cat, name);
	if (!pmu)
		return -ENOENT;
	snprintf(pmu_name, sizeof(pmu_name), "%s", pmu);
	snprintf(terms, sizeof(terms), "%s", name);
	err = sysfs_resolve_pmu(r, item, pmu_name, terms, spec);
	return err == -ENOENT ? -EINVAL : err;	/* -ENOENT means "not mine" */
}

bool sysfs_alias_known(struct sysfs_names *r, const char *name)
{
	pmu_catalog_load(&r->cat, r->root);
	return pmu_catalog_find(&r->cat, name) != NULL;
}

void sysfs_alias_names(struct sysfs_names *r, void (*fn)(void *ctx, const char *name),
		       void *ctx)
{
	pmu_catalog_load(&r->cat, r->root);
	for (int i = 0; i < r->cat.nr_events; i++)
		fn(ctx, r->cat.events[i].name);
}
