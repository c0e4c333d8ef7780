/* SPDX-License-Identifier: MIT */
/*
 * core_pmus.c: generic events on machines of several kinds of core. The
 * kernel opens PERF_TYPE_HARDWARE "cycles" on one core PMU only when config
 * names none (silently partial counts on the other kind of core); with the
 * PMU's type in config's upper 32 bits (PERF_PMU_TYPE_SHIFT) it counts on
 * that PMU's CPUs. perf stat opens one event per core PMU, and so do we,
 * plus a sum that the report adds up (preload/counters/totals.c).
 */
#include "preload/events/core_pmus.h"
#include "preload/events/builtin.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Static_assert(EVENTS_PMU_NAME_MAX == PMU_NAME_MAX, "a spec holds any PMU name");

struct core_pmus_walk {
	const char *root;
	struct core_pmus *cp;
};

/* The PMUs every kernel registers, never core PMUs: not asked for a `cpus` file. */
static bool pmu_never_core(const char *pmu)
{
	static const char *const names[] = {
		"software", "tracepoint", "breakpoint", "kprobe", "uprobe", "msr",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(pmu, names[i]))
			return true;
	return false;
}

/* A PMU with a `cpus` file is a core PMU (arm64, Intel hybrid). */
static void core_pmu_consider(struct core_pmus_walk *w, int dirfd, const char *pmu)
{
	struct core_pmus *cp = w->cp;
	char path[PMU_NAME_MAX + sizeof("/cpus")];
	uint32_t type;
	size_t len;

	if (!pmu_name_valid(pmu) || pmu_never_core(pmu))
		return;
	len = strlen(pmu);	/* < PMU_NAME_MAX: pmu_name_valid() */
	memcpy(path, pmu, len);
	memcpy(path + len, "/cpus", sizeof("/cpus"));
	/* Relative to the open root: no walk of /sys/bus/event_source/devices again. */
	if (faccessat(dirfd, path, F_OK, 0))
		return;
	if (cp->nr >= EVENTS_CORE_PMUS_MAX || pmu_type_read(w->root, pmu, &type))
		return;
	memcpy(cp->pmu[cp->nr].name, pmu, len + 1);
	cp->pmu[cp->nr].type = type;
	cp->nr++;
}

/*
 * Each directory entry of @w->root, through getdents64() into a buffer on
 * the stack: the default events name "cycles", so this runs in every
 * process, and opendir() would malloc in the program's heap (brk) before
 * its main(); the rest of the default path allocates nothing.
 */
static void core_pmus_walk(struct core_pmus_walk *w)
{
	char buf[2048] __attribute__((aligned(8)));
	int fd = open(w->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ssize_t len;

	if (fd < 0)
		return;
	while ((len = getdents64(fd, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < len;) {
			const struct dirent64 *d = (const struct dirent64 *)(buf + off);

			core_pmu_consider(w, fd, d->d_name);
			off += d->d_reclen;
		}
	}
	close(fd);
}

int core_pmus_load(const char *root, struct core_pmus *cp)
{
	struct core_pmus_walk w = { root, cp };

	memset(cp, 0, sizeof(*cp));
	if (!pmu_type_read(root, "cpu", &cp->pmu[0].type)) {
		memcpy(cp->pmu[0].name, "cpu", sizeof("cpu"));	/* not snprintf: pmu.c's path_join() */
		cp->nr = 1;
		return 1;
	}
	core_pmus_walk(&w);
	/* A directory's order is the file system's: by type, as perf lists them. */
	for (int i = 1; i < cp->nr; i++)
		for (int j = i; j > 0 && cp->pmu[j - 1].type > cp->pmu[j].type; j--) {
			struct core_pmu t = cp->pmu[j];

			cp->pmu[j] = cp->pmu[j - 1];
			cp->pmu[j - 1] = t;
		}
	return cp->nr;
}

int core_pmus_resolve(const char *root, const char *pmu, const char *terms,
		      struct event_spec *spec)
{
	struct event_builtin b;
	struct core_pmus cp;
	const char *why;
	uint32_t type;
	char alias[8];

	if (event_builtin_lookup(terms, &b, &why) ||
	    (b.type != PERF_TYPE_HARDWARE && b.type != PERF_TYPE_HW_CACHE))
		return -ENOENT;
	/* The PMU's own alias of that name wins, as in perf (cpu_core/cpu-cycles/). */
	if (pmu_alias_read(root, pmu, terms, alias, sizeof(alias)) != -ENOENT ||
	    pmu_type_read(root, pmu, &type))
		return -ENOENT;
	spec->attr.type = b.type;
	spec->attr.config = b.config | (uint64_t)type << PERF_PMU_TYPE_SHIFT;
	spec->kind = b.kind;
	core_pmus_load(root, &cp);
	for (int k = 0; cp.nr > 1 && k < cp.nr; k++)
		if (!strcmp(cp.pmu[k].name, pmu))
			memcpy(spec->pmu, pmu, strlen(pmu) + 1);	/* < PMU_NAME_MAX */
	return 0;
}

static bool is_generic(const struct event_spec *e)
{
	return (e->attr.type == PERF_TYPE_HARDWARE || e->attr.type == PERF_TYPE_HW_CACHE) &&
	       !(e->attr.config >> PERF_PMU_TYPE_SHIFT) && !e->pmu[0] && !e->nr_parts;
}

struct expand {
	const struct core_pmus *cp;
	struct event_list *out;
	int dropped;
};

static struct event_spec *spec_push(struct expand *x, const struct event_spec *e, int group)
{
	struct event_spec *s;

	if (x->out->nr >= EVENTS_MAX) {
		x->dropped++;
		return NULL;
	}
	s = &x->out->ev[x->out->nr++];
	*s = *e;
	s->group = group;
	return s;
}

/* "cycles:u" on cpu_core is "cpu_core/cycles/u", which perf's syntax reads back. */
static void part_name(char *name, const char *pmu, const char *event)
{
	const char *colon = strchr(event, ':');
	int len = colon ? (int)(colon - event) : (int)strlen(event);
	char buf[EVENTS_NAME_MAX];
	int n = snprintf(buf, sizeof(buf), "%s/%.*s/%s", pmu, len, event, colon ? colon + 1 : "");

	if (n > 0 && n < EVENTS_NAME_MAX)
		memcpy(name, buf, (size_t)n + 1);
}

/* Part @k of @e: @k's type in config's upper bits. Return its index, or -1 when full. */
static int part_push(struct expand *x, const struct event_spec *e, int k, int group)
{
	struct event_spec *s = spec_push(x, e, group);

	if (!s)
		return -1;
	s->attr.config |= (uint64_t)x->cp->pmu[k].type << PERF_PMU_TYPE_SHIFT;
	snprintf(s->pmu, sizeof(s->pmu), "%s", x->cp->pmu[k].name);
	part_name(s->name, x->cp->pmu[k].name, e->name);
	return x->out->nr - 1;
}

/* The sum of @e: never opened, the sum of the @parts that fitted (-1: dropped). */
static void sum_push(struct expand *x, const struct event_spec *e, const int *parts)
{
	struct event_spec *s = spec_push(x, e, -1);

	if (!s)
		return;
	for (int k = 0; k < x->cp->nr; k++)
		if (parts[k] >= 0)
			s->parts[s->nr_parts++] = parts[k];
}

static void single_expand(struct expand *x, const struct event_spec *e)
{
	int parts[EVENTS_CORE_PMUS_MAX];

	if (!is_generic(e)) {
		spec_push(x, e, -1);
		return;
	}
	for (int k = 0; k < x->cp->nr; k++)
		parts[k] = part_push(x, e, k, -1);
	sum_push(x, e, parts);
}

/* Members @m[0..n-1] of one {...}: one group per core PMU when any is generic. */
static void group_expand(struct expand *x, const struct event_spec *m, int n)
{
	int parts[EVENTS_MAX][EVENTS_CORE_PMUS_MAX];
	bool generic = false;

	for (int i = 0; i < n; i++)
		generic |= is_generic(&m[i]);
	if (!generic) {
		int g = x->out->nr_groups++;

		for (int i = 0; i < n; i++)
			spec_push(x, &m[i], g);
		return;
	}
	for (int k = 0; k < x->cp->nr; k++) {
		int g = x->out->nr_groups++;

		for (int i = 0; i < n; i++) {
			if (is_generic(&m[i]))
				parts[i][k] = part_push(x, &m[i], k, g);
			else if (k == 0)	/* software and others: counted once */
				spec_push(x, &m[i], g);
		}
	}
	for (int i = 0; i < n; i++)
		if (is_generic(&m[i]))
			sum_push(x, &m[i], parts[i]);
}

int core_pmus_expand(const char *root, struct event_list *list)
{
	struct core_pmus cp;
	struct event_list *in;
	struct expand x = { &cp, list, 0 };
	bool generic = false;

	for (int i = 0; i < list->nr; i++)
		generic |= is_generic(&list->ev[i]);
	if (!generic || core_pmus_load(root, &cp) < 2)
		return 0;
	/* Only on a hybrid machine: 20 KiB that a constructor's stack need not hold. */
	in = malloc(sizeof(*in));
	if (!in)
		return 0;	/* counted on the kernel's choice of PMU, as before */
	memcpy(in, list, sizeof(*in));
	list->nr = 0;
	list->nr_groups = 0;
	for (int i = 0; i < in->nr;) {
		int j = i + 1;

		if (in->ev[i].group < 0) {
			single_expand(&x, &in->ev[i]);
			i++;
			continue;
		}
		while (j < in->nr && in->ev[j].group == in->ev[i].group)
			j++;
		group_expand(&x, &in->ev[i], j - i);
		i = j;
	}
	free(in);
	return x.dropped;
}
