/* SPDX-License-Identifier: MIT */
/*
 * event_names.c: the names LIKWID and PAPI give events, as perf's (the
 * names libpfshim.so's parser takes in PFSHIM_EVENTS): LIKWID's from the
 * shim's one table (preload/events/likwid_names.c), PAPI's here. Only events whose
 * meaning perf's generic names carry are here: the architectural ones a
 * LIKWID fixed or general counter counts on Intel, AMD and Arm, PAPI's
 * presets of the same, and PAPI's perf:: names, which are perf's own upper
 * cased. A model-specific event (L1D_REPLACEMENT, MEM_LOAD_RETIRED_L3_HIT)
 * has no generic name: it is listed back to the caller, never guessed.
 */
#include "compat/event_names.h"
#include "preload/events/likwid_names.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

struct name_map {
	const char *name;	/* LIKWID's or PAPI's */
	const char *perf;	/* perf's */
};

/* PAPI's presets, and libpfm4's perf:: names in PERF_COUNT_* form. */
static const struct name_map papi_names[] = {
	{ "PAPI_TOT_INS", "instructions" },
	{ "PAPI_TOT_CYC", "cycles" },
	{ "PAPI_REF_CYC", "ref-cycles" },
	{ "PAPI_BR_INS", "branches" },
	{ "PAPI_BR_MSP", "branch-misses" },
	{ "PAPI_L1_DCM", "L1-dcache-load-misses" },
	{ "PAPI_L1_LDM", "L1-dcache-load-misses" },
	{ "PAPI_L1_STM", "L1-dcache-store-misses" },
	{ "PAPI_L1_ICM", "L1-icache-load-misses" },
	{ "PAPI_L3_TCA", "cache-references" },
	{ "PAPI_L3_TCM", "cache-misses" },
	{ "PAPI_TLB_DM", "dTLB-load-misses" },
	{ "PAPI_TLB_IM", "iTLB-load-misses" },
	{ "perf::PERF_COUNT_HW_CPU_CYCLES", "cycles" },
	{ "perf::PERF_COUNT_HW_INSTRUCTIONS", "instructions" },
	{ "perf::PERF_COUNT_HW_CACHE_REFERENCES", "cache-references" },
	{ "perf::PERF_COUNT_HW_CACHE_MISSES", "cache-misses" },
	{ "perf::PERF_COUNT_HW_BRANCH_INSTRUCTIONS", "branches" },
	{ "perf::PERF_COUNT_HW_BRANCH_MISSES", "branch-misses" },
	{ "perf::PERF_COUNT_HW_BUS_CYCLES", "bus-cycles" },
	{ "perf::PERF_COUNT_HW_STALLED_CYCLES_FRONTEND", "stalled-cycles-frontend" },
	{ "perf::PERF_COUNT_HW_STALLED_CYCLES_BACKEND", "stalled-cycles-backend" },
	{ "perf::PERF_COUNT_HW_REF_CPU_CYCLES", "ref-cycles" },
	{ "perf::PERF_COUNT_SW_CPU_CLOCK", "cpu-clock" },
	{ "perf::PERF_COUNT_SW_TASK_CLOCK", "task-clock" },
	{ "perf::PERF_COUNT_SW_PAGE_FAULTS", "page-faults" },
	{ "perf::PERF_COUNT_SW_CONTEXT_SWITCHES", "context-switches" },
	{ "perf::PERF_COUNT_SW_CPU_MIGRATIONS", "cpu-migrations" },
	{ "perf::PERF_COUNT_SW_PAGE_FAULTS_MIN", "minor-faults" },
	{ "perf::PERF_COUNT_SW_PAGE_FAULTS_MAJ", "major-faults" },
	{ "perf::PERF_COUNT_SW_ALIGNMENT_FAULTS", "alignment-faults" },
	{ "perf::PERF_COUNT_SW_EMULATION_FAULTS", "emulation-faults" },
};

/* perf's cache names that are not all lower case, for PAPI's "perf::L1-DCACHE-LOADS". */
static const char *const perf_mixed_case[] = { "L1-dcache", "L1-icache", "LLC", "dTLB", "iTLB" };

#define ITEM_MAX 256	/* one item of a list, as written */
#define PAPI_PERF "perf::"
#define PAPI_RAW "perf_raw::"

static const char *map_find(const struct name_map *map, size_t nr, const char *name)
{
	for (size_t i = 0; i < nr; i++)
		if (strcmp(map[i].name, name) == 0)
			return map[i].perf;
	return NULL;
}

static bool has_lower(const char *s)
{
	for (; *s; s++)
		if (islower((unsigned char)*s))
			return true;
	return false;
}

/* rNNN: perf's raw event, hex digits after the r. */
static bool is_raw(const char *s)
{
	return (s[0] == 'r' || s[0] == 'R') && s[1] && strspn(s + 1, "0123456789abcdefABCDEF") ==
		strlen(s + 1);
}

/*
 * perf::NAME: perf's name upper cased, or its PERF_COUNT_* form. An event
 * with PAPI modifiers (perf::CYCLES:u=0) has no such spelling: none.
 */
static const char *papi_perf_name(const char *item, char *buf, size_t size)
{
	const char *name = item + strlen(PAPI_PERF), *known;
	size_t n = strlen(name);

	if ((known = map_find(papi_names, sizeof(papi_names) / sizeof(papi_names[0]), item)))
		return known;
	if (!n || n >= size || strchr(name, ':') || strncmp(name, "PERF_COUNT_", 11) == 0)
		return NULL;
	for (size_t i = 0; i <= n; i++)
		buf[i] = (char)tolower((unsigned char)name[i]);
	for (size_t i = 0; i < sizeof(perf_mixed_case) / sizeof(perf_mixed_case[0]); i++) {
		size_t m = strlen(perf_mixed_case[i]);

		if (strncasecmp(buf, perf_mixed_case[i], m) == 0 && (buf[m] == '-' || !buf[m]))
			memcpy(buf, perf_mixed_case[i], m);
	}
	return buf;
}

/* The perf name of one item, in @buf or a table; NULL: none. *@group: a LIKWID group. */
static const char *item_perf(enum compat_events_syntax syntax, const char *item, char *buf,
			     size_t size, bool *group)
{
	*group = false;
	if (syntax == COMPAT_PAPI) {
		if (strncmp(item, PAPI_PERF, strlen(PAPI_PERF)) == 0)
			return papi_perf_name(item, buf, size);
		if (strncmp(item, PAPI_RAW, strlen(PAPI_RAW)) == 0)
			return is_raw(item + strlen(PAPI_RAW)) ? item + strlen(PAPI_RAW) : NULL;
		return map_find(papi_names, sizeof(papi_names) / sizeof(papi_names[0]), item);
	}
	/* LIKWID: EVENT:COUNTER[:OPTION...]; a name alone is a group, or perf's own */
	size_t n = strcspn(item, ":");
	const char *known;

	if (n >= size)
		return NULL;
	memcpy(buf, item, n);
	buf[n] = '\0';
	if ((known = likwid_event_perf(buf)))
		return known;
	if (has_lower(buf) || strchr(buf, '/') || is_raw(buf))
		return buf;		/* perf's spelling: the shim's parser judges it */
	*group = !item[n];
	return NULL;
}

/* Append @s (of @n bytes) to @dst of @size, after @sep when @dst is not empty. */
static bool append(char *dst, size_t size, const char *sep, const char *s, size_t n)
{
	size_t len = strlen(dst), sep_len = *dst ? strlen(sep) : 0;

	if (len + sep_len + n >= size)
		return false;
	memcpy(dst + len, sep, sep_len);
	memcpy(dst + len + sep_len, s, n);
	dst[len + sep_len + n] = '\0';
	return true;
}

/* @name already in the comma list @list? */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		if (strncmp(p, name, n) == 0 && (p[n] == ',' || !p[n]))
			return true;
	}
	return false;
}

static void rest_add(char *rest, size_t size, const char *item, size_t n, const char *why)
{
	char with[ITEM_MAX + 64];
	size_t len = n < ITEM_MAX ? n : ITEM_MAX, r = strlen(rest);

	if (r >= 3 && strcmp(rest + r - 3, "...") == 0)
		return;		/* full already */
	memcpy(with, item, len);
	with[len] = '\0';
	if (why)
		strcat(with, why);
	if (!append(rest, size, ", ", with, strlen(with)) && size >= 4) {
		if (r > size - 4)
			r = size - 4;
		strcpy(rest + r, "...");
	}
}

/* The end of the item at @p: a separator outside a PMU's /.../ terms. */
static size_t item_len(const char *p, const char *separators)
{
	bool in_pmu = false;
	size_t n = 0;

	for (; p[n] && (in_pmu || !strchr(separators, p[n])); n++)
		if (p[n] == '/')
			in_pmu = !in_pmu;
	return n;
}

int compat_events(enum compat_events_syntax syntax, const char *list, char *out, size_t out_size,
		  char *rest, size_t rest_size)
{
	/* LIKWID joins the event sets of several -g options with '|' */
	const char *separators = syntax == COMPAT_LIKWID ? ",|" : ",";
	char item[ITEM_MAX], buf[ITEM_MAX];
	int nr = 0;

	*out = '\0';
	*rest = '\0';
	for (const char *p = list; *p;) {
		size_t n = item_len(p, separators);
		const char *perf;
		bool group;

		if (n > 0 && n < sizeof(item)) {
			memcpy(item, p, n);
			item[n] = '\0';
			perf = item_perf(syntax, item, buf, sizeof(buf), &group);
			if (perf && listed(out, perf))
				;		/* once: several names for one event */
			else if (perf && append(out, out_size, ",", perf, strlen(perf)))
				nr++;
			else
				rest_add(rest, rest_size, item, n, group ? " (a LIKWID group: counted when LIKWID_EVENTS names it alone)" : NULL);
		} else if (n > 0) {
			rest_add(rest, rest_size, p, n, NULL);
		}
		p += n + (p[n] != '\0');
	}
	return nr;
}
