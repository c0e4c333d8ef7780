/* SPDX-License-Identifier: MIT */
/*
 * likwid_group_resolve [-v] GROUPFILE...: how many of each LIKWID group's events
 * pfshim's parser resolves, with its names as PFSHIM_GROUP gives them
 * (preload/metrics/group.c) and its resolvers as they stand: the built-in
 * names, and libpfm4 for the CPU model LIBPFM_FORCE_PMU names. sysfs and
 * tracefs are left out ("/nonexistent"), so the answer is the same on any
 * host. Prints "FILE<TAB>RESOLVED<TAB>EVENTS<TAB>UNRESOLVED" per group, the
 * last a comma list of the names nothing resolved; "FILE<TAB>error WHY"
 * for a file that is not a group. With -v, after it one line per event:
 * "<TAB>LIKWID-NAME<TAB>PFSHIM-NAME<TAB>TYPE<TAB>CONFIG" (CONFIG in hex;
 * "-" for both when it does not resolve).
 *
 * likwid_group_resolve -c DIR GROUP=LEAST...: the same for every group file
 * of DIR, in name order, and exit 1 unless each GROUP resolves at least
 * LEAST events (the arm64 guest's check: it has no shell to glob with).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/events/events.h"
#include "preload/metrics/group.h"

static int warnings;

static void warn_count(void *ctx, const char *message)
{
	(void)ctx;
	(void)message;
	warnings++;
}

static int verbose;

/* Prints the group's line; returns how many of its events resolve (-1: not a group). */
static int print_group(const char *path)
{
	static struct event_list list;
	struct metric_group mg;
	char why[512];
	int resolved = 0;

	if (metric_group_open(path, "/nonexistent", "/nonexistent", "", &mg, why, sizeof(why))) {
		printf("%s\terror %s\n", path, why);
		return -1;
	}
	printf("%s\t", path);
	for (int i = 0; i < mg.group.nr_events; i++) {
		warnings = 0;
		if (events_parse(mg.event_names[i], "/nonexistent", "/nonexistent", &list,
				 warn_count, NULL) == 1 && !warnings)
			resolved++;
	}
	printf("%d\t%d\t", resolved, mg.group.nr_events);
	for (int i = 0, first = 1; i < mg.group.nr_events; i++) {
		warnings = 0;
		if (events_parse(mg.event_names[i], "/nonexistent", "/nonexistent", &list,
				 warn_count, NULL) == 1 && !warnings)
			continue;
		printf("%s%s", first ? "" : ",", mg.event_names[i]);
		first = 0;
	}
	putchar('\n');
	for (int i = 0; verbose && i < mg.group.nr_events; i++) {
		warnings = 0;
		if (events_parse(mg.event_names[i], "/nonexistent", "/nonexistent", &list,
				 warn_count, NULL) == 1 && !warnings)
			printf("\t%s\t%s\t%u\t%#llx\n", mg.group.events[i].event, mg.event_names[i],
			       list.ev[0].attr.type, (unsigned long long)list.ev[0].attr.config);
		else
			printf("\t%s\t%s\t-\t-\n", mg.group.events[i].event, mg.event_names[i]);
	}
	metric_group_free(&mg);
	return resolved;
}

static int txt_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 4 && !strcmp(d->d_name + n - 4, ".txt");
}

/* -c DIR GROUP=LEAST...: exit 1 unless each GROUP resolves at least LEAST events. */
static int check_dir(const char *dir, int nr, char **want)
{
	struct dirent **files;
	int n = scandir(dir, &files, txt_file, alphasort), failed = 0;

	if (n < 0) {
		printf("%s: cannot list\n", dir);
		return 1;
	}
	for (int i = 0; i < n; i++) {
		char path[4096], group[256];
		int resolved;

		snprintf(path, sizeof(path), "%s/%s", dir, files[i]->d_name);
		snprintf(group, sizeof(group), "%.*s", (int)strcspn(files[i]->d_name, "."),
			 files[i]->d_name);
		resolved = print_group(path);
		for (int w = 0; w < nr; w++) {
			size_t len = strcspn(want[w], "=");

			if (len == strlen(group) && !strncmp(want[w], group, len) && want[w][len] &&
			    resolved < atoi(want[w] + len + 1)) {
				printf("%s: %d events resolve, fewer than %s\n", group, resolved,
				       want[w] + len + 1);
				failed = 1;
			}
		}
		free(files[i]);
	}
	free(files);
	return failed;
}

int main(int argc, char **argv)
{
	int first = 1;

	if (argc > 2 && !strcmp(argv[1], "-c"))
		return check_dir(argv[2], argc - 3, argv + 3);
	if (argc > 1 && !strcmp(argv[1], "-v")) {
		verbose = 1;
		first = 2;
	}
	if (argc <= first) {
		fprintf(stderr, "usage: likwid_group_resolve [-v] GROUPFILE...\n");
		return 2;
	}
	for (int i = first; i < argc; i++)
		print_group(argv[i]);
	return 0;
}
