/* SPDX-License-Identifier: MIT */
/*
 * list_groups.c: `pfshim list --metrics`: the metrics PFSHIM_METRICS takes
 * by name (preload/metrics/named.h), then the performance groups
 * PFSHIM_GROUP (and pfshim run -M) take by name on this machine: LIKWID's
 * group files for this CPU, each read by the shim's own reader
 * (preload/metrics/group.h), so the list cannot disagree with what a run
 * accepts, with what it measures and its metrics.
 */
#include "tools/pfshim/list.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "preload/events/events.h"
#include "preload/events/pmu.h"
#include "preload/metrics/group.h"
#include "preload/metrics/named.h"

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The group files' names (NAME.txt) in @dir, sorted; their count in *@n. */
static char **group_files(const char *dir, int *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;

	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (e->d_name[0] == '.' || len < 5 || strcmp(e->d_name + len - 4, ".txt") != 0)
			continue;
		names = realloc(names, (size_t)(*n + 1) * sizeof(*names));
		if (!names)
			break;
		names[(*n)++] = strndup(e->d_name, len - 4);
	}
	closedir(d);
	if (names)
		qsort(names, (size_t)*n, sizeof(*names), name_cmp);
	return names;
}

/* One group: its name and what it measures, then its events as pfshim names them, then its metrics. */
static void group_print(const char *dir, const char *name)
{
	static struct metric_group mg;	/* large: not on the stack */
	char path[PATH_MAX + NAME_MAX + 8], why[512];

	snprintf(path, sizeof(path), "%s/%s.txt", dir, name);
	if (metric_group_open(path, dir, "/proc/cpuinfo", "", &mg, why, sizeof(why)) < 0) {
		printf("\n%s: cannot be read (%s)\n", name, why);
		return;
	}
	printf("\n%s: %s\n  events:", name, mg.group.short_text ? mg.group.short_text : "");
	for (int e = 0; e < mg.group.nr_events; e++)
		printf("%s %s", e ? "," : "", mg.event_names[e]);
	printf("\n");
	for (int m = 0; m < mg.group.nr_metrics; m++) {
		const struct likwid_group_metric *metric = &mg.group.metrics[m];

		printf("  %s%s%s%s\n", metric->name, *metric->unit ? " [" : "", metric->unit,
		       *metric->unit ? "]" : "");
	}
	metric_group_free(&mg);
}

/* TopdownL1 on this machine as the shim finds it, with its formulas; else LIKWID's, or why none. */
static void topdown_print(void)
{
	static struct topdown td;
	const char *sysfs = getenv("PFSHIM_SYSFS_ROOT");	/* the shim's, as it will read it */
	const struct metric_request q = { NULL, NULL, METRIC_GROUP_ROOT, "/proc/cpuinfo",
					  sysfs && *sysfs ? sysfs : PMU_SYSFS_ROOT, NULL,
					  "/sys/devices/system/cpu" };
	char cpu[128], path[PATH_MAX];
	const char *arch;

	if (metric_group_topdown(&q, &td) == 0) {
		printf("  TopdownL1 = here: %s\n", td.source);
		for (const char *line = td.metrics; *line; line += strcspn(line, "\n") + 1)
			printf("    %.*s\n", (int)strcspn(line, "\n"), line);
		return;
	}
	arch = metric_group_arch("/proc/cpuinfo", cpu, sizeof(cpu));
	snprintf(path, sizeof(path), "%s/%s/TMA.txt", METRIC_GROUP_ROOT, arch ? arch : "");
	if (arch && access(path, R_OK) == 0)
		printf("  TopdownL1 = here: the metrics of LIKWID's TMA group (%s)\n", path);
	else
		printf("  TopdownL1 = none here: %s\n", td.why[0] ? td.why :
		       "no level 1 of the CPU's own and no TMA group of LIKWID's for it");
}

/* The metrics by name that hold @pattern (all without one), each with its formula; how many. */
static int named_print(const char *pattern)
{
	const char *name, *unit, *formula, *events[2][2];
	int listed = 0;

	for (size_t i = 0; (name = metric_named_at(i, &unit, &formula, &events)); i++) {
		if (pattern && !strcasestr(name, pattern))
			continue;
		if (!listed++)
			printf("Metrics by name (PFSHIM_METRICS=NAME,..., pfshim run -M NAME,...):\n");
		printf("  %s%s%s%s = %s", name, *unit ? " [" : "", unit, *unit ? "]" : "", formula);
		for (int e = 0; e < 2 && events[e][0]; e++)	/* a formula's name for each event */
			printf("%s%s: %s", e ? ", " : "  (", events[e][0], events[e][1]);
		printf(")\n");
	}
	if (!pattern || strcasestr("TopdownL1", pattern)) {
		if (!listed++)
			printf("Metrics by name (PFSHIM_METRICS=NAME,..., pfshim run -M NAME,...):\n");
		topdown_print();
	}
	return listed;
}

int list_groups(const char *root, const char *arch, const char *pattern)
{
	char cpu[128], dir[PATH_MAX];
	char **names;
	int n, listed = named_print(pattern);

	if (!arch && !(arch = metric_group_arch("/proc/cpuinfo", cpu, sizeof(cpu)))) {
		fprintf(stderr, "pfshim list: LIKWID's groups have none for this CPU (%s); "
			"PFSHIM_GROUP takes a group file's path, and --arch lists another CPU's\n", cpu);
		return listed ? 0 : 1;
	}
	if (listed)
		printf("\n");
	snprintf(dir, sizeof(dir), "%s/%s", root, arch);
	names = group_files(dir, &n);
	if (!names) {
		fprintf(stderr, "pfshim list: no group files in %s (Debian's likwid package installs "
			"them in %s)\n", dir, METRIC_GROUP_ROOT);
		return 1;
	}
	for (int i = 0, groups = 0; i < n; i++) {
		if (!pattern || strcasestr(names[i], pattern)) {
			listed++;
			if (!groups++)
				printf("Performance groups of %s (PFSHIM_GROUP=NAME, pfshim run -M NAME), "
				       "from %s:\n", arch, dir);
			group_print(dir, names[i]);
		}
		free(names[i]);
	}
	free(names);
	if (!listed && pattern)
		fprintf(stderr, "pfshim list: no group of %s matches '%s'\n", arch, pattern);
	return listed ? 0 : 1;
}
