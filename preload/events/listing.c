/* SPDX-License-Identifier: MIT */
/*
 * listing.c: every event name of this machine, source by source (see
 * listing.h), from the resolvers that parse them: builtin.c's table,
 * pmu_catalog.c's sysfs aliases (each parsed by events_parse() for its
 * attr), tracefs.c's tracepoints (its root, its rules, "*:*") and pfm.c's
 * libpfm4 names (encoded by it). Each is tried with fastread's one
 * perf_event_open() wrapper, as the shim opens its counters.
 */
#include "preload/events/listing.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "export/names.h"
#include "fastread/fastread.h"
#include "preload/events/builtin.h"
#include "preload/events/events.h"
#include "preload/events/pfm.h"
#include "preload/events/pmu.h"
#include "preload/events/pmu_catalog.h"
#include "preload/events/tracefs.h"

/*
 * Open @event as the shim would (this process, inherited, kernel excluded
 * where the paranoia level asks it), close it: NULL when it opened, else
 * the errno's name.
 */
static const char *try_open(const struct perf_event_attr *event)
{
	struct perf_event_attr attr = *event;
	int fd;

	attr.size = sizeof(attr);
	attr.disabled = 1;
	attr.inherit = 1;
	fd = fastread_perf_event_open(&attr, -1);
	if ((fd == -EACCES || fd == -EPERM) && !attr.exclude_kernel) {
		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
		fd = fastread_perf_event_open(&attr, -1);
	}
	if (fd >= 0) {
		close(fd);
		return NULL;
	}
	return errno_name(-fd) ? errno_name(-fd) : "error";
}

static bool wanted(const struct events_list_options *o, const char *name)
{
	return !o->wanted || o->wanted(o->ctx, name);
}

/* ---- built-in names: the aliases of one (type, config) on one line ------- */

struct builtin_line {
	const struct events_list_options *o;
	events_listed_fn *fn;
	void *ctx;
	char names[160];	/* "cycles, cpu-cycles" */
	bool match, open;
	uint32_t type;
	uint64_t config;
};

static void builtin_flush(struct builtin_line *b)
{
	struct perf_event_attr attr = { .type = b->type, .config = b->config };

	if (b->open && b->match) {
		struct event_listed e = { EVENT_SOURCE_BUILTIN, "", b->names,
					  event_builtin_desc(b->type, b->config), try_open(&attr) };

		if (!e.desc)
			e.desc = "";
		b->fn(b->ctx, &e);
	}
	b->open = false;
}

static void builtin_one(void *ctx, const char *name, uint32_t type, uint64_t config)
{
	struct builtin_line *b = ctx;
	size_t n;

	if (b->open && (b->type != type || b->config != config))
		builtin_flush(b);
	if (!b->open) {
		b->open = true;
		b->match = false;
		b->type = type;
		b->config = config;
		b->names[0] = '\0';
	}
	n = strlen(b->names);
	snprintf(b->names + n, sizeof(b->names) - n, "%s%s", n ? ", " : "", name);
	b->match |= wanted(b->o, name);
}

static int list_builtin(const struct events_list_options *o, events_listed_fn *fn, void *ctx)
{
	struct builtin_line b = { .o = o, .fn = fn, .ctx = ctx };

	event_builtin_each(builtin_one, &b);
	builtin_flush(&b);
	return 0;
}

/* ---- sysfs PMU events ---------------------------------------------------- */

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sysfs_one(const struct events_list_options *o, const char *pmu, const char *event,
		      events_listed_fn *fn, void *ctx)
{
	static struct event_list one;	/* large: not on the stack */
	char name[2 * PMU_NAME_MAX + 4], terms[256], desc[300], unit[16] = "";
	double scale = 1.0;
	struct event_listed e = { EVENT_SOURCE_SYSFS, o->sysfs, name, desc, "EINVAL" };

	snprintf(name, sizeof(name), "%s/%s/", pmu, event);
	if (pmu_alias_read(o->sysfs, pmu, event, terms, sizeof(terms)))
		snprintf(terms, sizeof(terms), "?");
	pmu_alias_display(o->sysfs, pmu, event, &scale, unit, sizeof(unit));
	snprintf(desc, sizeof(desc), "%s%s%s%s", terms, unit[0] ? " (" : "", unit,
		 unit[0] ? ")" : "");
	if (events_parse(name, o->sysfs, o->tracefs, &one, NULL, NULL) == 1)
		e.why_not = try_open(&one.ev[0].attr);
	fn(ctx, &e);
}

static int list_sysfs(const struct events_list_options *o, events_listed_fn *fn, void *ctx)
{
	struct pmu_catalog cat = { 0 };
	char **names;
	int n = 0;

	pmu_catalog_load(&cat, o->sysfs);
	names = calloc((size_t)cat.nr_events + 1, sizeof(*names));
	for (int i = 0; names && i < cat.nr_events; i++) {
		char buf[2 * PMU_NAME_MAX + 4];

		snprintf(buf, sizeof(buf), "%s/%s/", cat.events[i].pmu, cat.events[i].name);
		if (wanted(o, buf) || wanted(o, cat.events[i].name))
			names[n++] = strdup(buf);
	}
	if (names)
		qsort(names, (size_t)n, sizeof(*names), compare_names);
	for (int i = 0; i < n; i++) {
		char *slash = names[i] ? strchr(names[i], '/') : NULL;

		if (slash) {
			*slash = '\0';
			slash[strlen(slash + 1)] = '\0';	/* the closing '/' */
			sysfs_one(o, names[i], slash + 1, fn, ctx);
		}
		free(names[i]);
	}
	free(names);
	pmu_catalog_free(&cat);
	return 0;
}

/* ---- tracepoints: tracefs.c's "*:*" -------------------------------------- */

/*
 * Opening and closing a tracepoint's event costs the kernel tens of ms (its
 * probe's unregistration waits for RCU): 2,308 of them took 2.5 minutes on a
 * quiet 2-core VM. Whether one opens depends on this process's rights and the
 * tracefs, not on the tracepoint, so the first few are tried and, when they
 * agree, the rest take their answer.
 */
#define TRACEPOINT_TRIES 8

struct tracepoint_lister {
	const struct events_list_options *o;
	events_listed_fn *fn;
	void *ctx;
	const struct tracefs_names *t;
	char where[4096 + 8];	/* the root tracefs.c found, as its first tracepoint comes */
	int tried;		/* tracepoints tried so far, all with the answer @why_not */
	bool agree;
	const char *why_not;
};

/* try_open() of @attr, or the answer the first TRACEPOINT_TRIES gave alike. */
static const char *tracepoint_try(struct tracepoint_lister *t, const struct perf_event_attr *attr)
{
	const char *why_not;

	if (t->tried >= TRACEPOINT_TRIES && t->agree)
		return t->why_not;
	why_not = try_open(attr);
	if (t->tried++ == 0)
		t->why_not = why_not;
	else if (why_not != t->why_not)
		t->agree = false;
	return why_not;
}

static void tracepoint_one(void *ctx, const char *subsys, const char *name, uint64_t id)
{
	struct tracepoint_lister *t = ctx;
	struct perf_event_attr attr = { .type = PERF_TYPE_TRACEPOINT, .config = id };
	char full[512];

	if (!t->where[0])
		snprintf(t->where, sizeof(t->where), "%s/events", t->t->root);
	snprintf(full, sizeof(full), "%s:%s", subsys, name);
	if (wanted(t->o, full)) {
		struct event_listed e = { EVENT_SOURCE_TRACEPOINT, t->where, full, "",
					  tracepoint_try(t, &attr) };

		t->fn(t->ctx, &e);
	}
}

static int list_tracepoints(const struct events_list_options *o, events_listed_fn *fn,
			    void *ctx, const char **why)
{
	static struct tracepoint_lister l;
	struct diag quiet = { 0 };	/* no match is not a problem here: no message */
	struct tracefs_names t;

	l = (struct tracepoint_lister){ .o = o, .fn = fn, .ctx = ctx, .t = &t, .agree = true };
	tracefs_names_start(&t, o->tracefs, &quiet);
	tracefs_resolve(&t, "*:*", "*", "*", tracepoint_one, &l);
	if (!t.root)
		*why = "none readable (as root: mount -t tracefs nodev " TRACEFS_ROOT ")";
	tracefs_names_end(&t);
	return *why ? -ENOENT : 0;
}

/* ---- libpfm4 ------------------------------------------------------------- */

struct pfm_lister {
	const struct events_list_options *o;
	events_listed_fn *fn;
	void *ctx;
	struct pfm_names *r;
};

static void pfm_one(void *ctx, const struct pfm_listed *p)
{
	struct pfm_lister *l = ctx;
	struct perf_event_attr attr;
	char name[EVENTS_NAME_MAX + 64], qualified[sizeof(name) + 64];
	const char *why = NULL;
	int err;

	snprintf(name, sizeof(name), "%s%s%s", p->event, p->umask ? ":" : "",
		 p->umask ? p->umask : "");
	if (!wanted(l->o, name))
		return;
	/* Qualified: the PMU listed, whatever else libpfm4 has on this machine. */
	snprintf(qualified, sizeof(qualified), "%s::%s", p->pmu, name);
	err = pfm_encode(l->r, qualified, &attr, &why);

	struct event_listed e = { EVENT_SOURCE_PFM, p->pmu, name, p->desc ? p->desc : "",
				  err == -EINVAL ? why : err ? "libpfm4 cannot encode it" :
				  try_open(&attr) };

	l->fn(l->ctx, &e);
}

static int list_pfm(const struct events_list_options *o, events_listed_fn *fn, void *ctx,
		    const char **why)
{
	static char reason[256];
	struct pfm_names r;
	struct pfm_lister l = { o, fn, ctx, &r };
	int err;

	pfm_names_start(&r, NULL);
	err = pfm_names_list(&r, pfm_one, &l);
	if (err == -ENOSYS) {
		snprintf(reason, sizeof(reason), "%s", pfm_names_why(&r));
		*why = reason;
		err = -ENOENT;
	} else if (err == 0 && pfm_names_cpu_unknown(&r)) {
		*why = PFM_CPU_UNKNOWN_WHY;
		err = -ENOENT;
	}
	pfm_names_end(&r);
	return err;
}

int events_list(enum event_source source, const struct events_list_options *o,
		events_listed_fn *fn, void *ctx, const char **why)
{
	*why = NULL;
	switch (source) {
	case EVENT_SOURCE_BUILTIN:
		return list_builtin(o, fn, ctx);
	case EVENT_SOURCE_SYSFS:
		return list_sysfs(o, fn, ctx);
	case EVENT_SOURCE_TRACEPOINT:
		return list_tracepoints(o, fn, ctx, why);
	case EVENT_SOURCE_PFM:
		return list_pfm(o, fn, ctx, why);
	}
	return -EINVAL;
}
