/* SPDX-License-Identifier: MIT */
/*
 * builtin.c: built-in event names (hardware, software, hardware-cache)
 * with perf's spellings and aliases, so "cycles" means the same here as in
 * `perf stat -e cycles`. Hardware-cache configs are id | op << 8 | result << 16
 * (perf_event_open(2), PERF_TYPE_HW_CACHE).
 */
#include "preload/events/builtin.h"
#include "preload/events/syntax.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct named_config {
	const char *name;
	uint64_t config;
};

static const struct named_config hardware[] = {
	{ "cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "cpu-cycles", PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions", PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references", PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses", PERF_COUNT_HW_CACHE_MISSES },
	{ "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses", PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles", PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES },
};

static const struct named_config software[] = {
	{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock", PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults", PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs", PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS },
};

#define OP_LOAD (1u << PERF_COUNT_HW_CACHE_OP_READ)
#define OP_STORE (1u << PERF_COUNT_HW_CACHE_OP_WRITE)
#define OP_PREFETCH (1u << PERF_COUNT_HW_CACHE_OP_PREFETCH)
#define OP_ALL (OP_LOAD | OP_STORE | OP_PREFETCH)

/* Which operations perf accepts for each cache (perf's hw_cache_stat[]). */
static const struct {
	const char *name;
	uint32_t id;
	unsigned ops;
	const char *ops_text;
} caches[] = {
	{ "L1-dcache", PERF_COUNT_HW_CACHE_L1D, OP_ALL, "loads, stores and prefetches" },
	{ "L1-icache", PERF_COUNT_HW_CACHE_L1I, OP_LOAD | OP_PREFETCH, "loads and prefetches" },
	{ "LLC", PERF_COUNT_HW_CACHE_LL, OP_ALL, "loads, stores and prefetches" },
	{ "dTLB", PERF_COUNT_HW_CACHE_DTLB, OP_ALL, "loads, stores and prefetches" },
	{ "iTLB", PERF_COUNT_HW_CACHE_ITLB, OP_LOAD, "loads only" },
	{ "branch", PERF_COUNT_HW_CACHE_BPU, OP_LOAD, "loads only" },
	{ "node", PERF_COUNT_HW_CACHE_NODE, OP_ALL, "loads, stores and prefetches" },
};

/* "-loads" counts accesses, "-load-misses" misses, as perf stat names them. */
static const struct {
	const char *suffix;
	uint32_t op;
	uint32_t result;
} cache_ops[] = {
	{ "loads", PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_ACCESS },
	{ "load-misses", PERF_COUNT_HW_CACHE_OP_READ, PERF_COUNT_HW_CACHE_RESULT_MISS },
	{ "stores", PERF_COUNT_HW_CACHE_OP_WRITE, PERF_COUNT_HW_CACHE_RESULT_ACCESS },
	{ "store-misses", PERF_COUNT_HW_CACHE_OP_WRITE, PERF_COUNT_HW_CACHE_RESULT_MISS },
	{ "prefetches", PERF_COUNT_HW_CACHE_OP_PREFETCH, PERF_COUNT_HW_CACHE_RESULT_ACCESS },
	{ "prefetch-misses", PERF_COUNT_HW_CACHE_OP_PREFETCH, PERF_COUNT_HW_CACHE_RESULT_MISS },
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static int table_lookup(const struct named_config *t, size_t n, const char *name,
			uint64_t *config)
{
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(t[i].name, name)) {
			*config = t[i].config;
			return 0;
		}
	}
	return -ENOENT;
}

static int cache_lookup(const char *name, uint64_t *config, const char **why)
{
	for (size_t c = 0; c < ARRAY_LEN(caches); c++) {
		size_t len = strlen(caches[c].name);

		if (strncmp(name, caches[c].name, len) || name[len] != '-')
			continue;
		for (size_t o = 0; o < ARRAY_LEN(cache_ops); o++) {
			if (strcmp(name + len + 1, cache_ops[o].suffix))
				continue;
			if (!(caches[c].ops & (1u << cache_ops[o].op))) {
				*why = caches[c].ops_text;
				return -EINVAL;
			}
			*config = caches[c].id | (uint64_t)cache_ops[o].op << 8 |
				  (uint64_t)cache_ops[o].result << 16;
			return 0;
		}
	}
	return -ENOENT;
}

/* What a generic event counts, for the metrics beside it in a report. */
static enum report_kind hardware_kind(uint64_t config)
{
	switch (config) {
	case PERF_COUNT_HW_CPU_CYCLES: return REPORT_KIND_CYCLES;
	case PERF_COUNT_HW_INSTRUCTIONS: return REPORT_KIND_INSTRUCTIONS;
	case PERF_COUNT_HW_BRANCH_INSTRUCTIONS: return REPORT_KIND_BRANCHES;
	case PERF_COUNT_HW_BRANCH_MISSES: return REPORT_KIND_BRANCH_MISSES;
	case PERF_COUNT_HW_CACHE_REFERENCES: return REPORT_KIND_CACHE_REFERENCES;
	case PERF_COUNT_HW_CACHE_MISSES: return REPORT_KIND_CACHE_MISSES;
	default: return REPORT_KIND_HARDWARE;
	}
}

static enum report_kind software_kind(uint64_t config)
{
	switch (config) {
	case PERF_COUNT_SW_TASK_CLOCK: return REPORT_KIND_TASK_CLOCK;
	case PERF_COUNT_SW_CPU_CLOCK: return REPORT_KIND_CPU_CLOCK;
	default: return REPORT_KIND_SOFTWARE;
	}
}

enum report_kind event_builtin_kind(uint32_t type, uint64_t config)
{
	switch (type) {
	case PERF_TYPE_HARDWARE: return hardware_kind(config & 0xffffffffu);	/* less a PMU type */
	case PERF_TYPE_HW_CACHE: return REPORT_KIND_CACHE;
	default: return REPORT_KIND_PMU;
	}
}

int event_builtin_lookup(const char *name, struct event_builtin *out, const char **why)
{
	uint64_t config;
	int err;

	out->scale = 1.0;
	out->unit = "";
	if (!table_lookup(hardware, ARRAY_LEN(hardware), name, &config)) {
		out->type = PERF_TYPE_HARDWARE;
		out->kind = hardware_kind(config);
	} else if (!table_lookup(software, ARRAY_LEN(software), name, &config)) {
		out->type = PERF_TYPE_SOFTWARE;
		out->kind = software_kind(config);
		/* The clocks count nanoseconds; perf stat shows them in msec. */
		if (config == PERF_COUNT_SW_CPU_CLOCK || config == PERF_COUNT_SW_TASK_CLOCK) {
			out->scale = 1e-6;
			out->unit = "msec";
		}
	} else {
		err = cache_lookup(name, &config, why);
		if (err)
			return err;
		out->type = PERF_TYPE_HW_CACHE;
		out->kind = REPORT_KIND_CACHE;
	}
	out->config = config;
	return 0;
}

int event_raw_parse(const char *name, uint64_t *config)
{
	size_t len = strlen(name);
	uint64_t v = 0;

	if (name[0] != 'r' || len < 2 || len > 17)
		return -ENOENT;
	for (size_t i = 1; i < len; i++) {
		int d = syntax_hex_digit(name[i]);

		if (d < 0)
			return -ENOENT;
		v = v << 4 | (unsigned)d;
	}
	*config = v;
	return 0;
}

void event_builtin_each(void (*fn)(void *ctx, const char *name, uint32_t type,
				   uint64_t config), void *ctx)
{
	char name[64];

	for (size_t i = 0; i < ARRAY_LEN(hardware); i++)
		fn(ctx, hardware[i].name, PERF_TYPE_HARDWARE, hardware[i].config);
	for (size_t i = 0; i < ARRAY_LEN(software); i++)
		fn(ctx, software[i].name, PERF_TYPE_SOFTWARE, software[i].config);
	for (size_t c = 0; c < ARRAY_LEN(caches); c++) {
		for (size_t o = 0; o < ARRAY_LEN(cache_ops); o++) {
			if (!(caches[c].ops & (1u << cache_ops[o].op)))
				continue;
			snprintf(name, sizeof(name), "%s-%s", caches[c].name, cache_ops[o].suffix);
			fn(ctx, name, PERF_TYPE_HW_CACHE, caches[c].id |
			   (uint64_t)cache_ops[o].op << 8 | (uint64_t)cache_ops[o].result << 16);
		}
	}
}

struct names_only {
	void (*fn)(void *ctx, const char *name);
	void *ctx;
};

static void name_only(void *ctx, const char *name, uint32_t type, uint64_t config)
{
	struct names_only *n = ctx;

	(void)type;
	(void)config;
	n->fn(n->ctx, name);
}

void event_builtin_names(void (*fn)(void *ctx, const char *name), void *ctx)
{
	struct names_only n = { fn, ctx };

	event_builtin_each(name_only, &n);
}
