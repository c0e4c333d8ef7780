/* SPDX-License-Identifier: MIT */
/*
 * list.c: `pfshim list [PATTERN]`, the events this machine can count, as
 * `perf list` shows them: the built-in names, the sysfs PMU events, the
 * tracepoints and libpfm4's vendor names, one line each with whether it
 * can be counted here and what it counts. The names come from the shim's
 * own resolvers through their listing (preload/events/listing.h, in
 * libpfshim-core.a), so the list cannot disagree with what PFSHIM_EVENTS
 * accepts; "available" means that perf_event_open() of the event, for this
 * process as the shim would open it, succeeded just now.
 */
#include "tools/pfshim/list.h"

#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "preload/events/listing.h"
#include "preload/events/pmu.h"		/* PMU_SYSFS_ROOT */
#include "preload/metrics/group.h"	/* METRIC_GROUP_ROOT */

static const char usage_list[] =
"Usage: pfshim list [--sysfs DIR] [--tracefs DIR] [PATTERN]\n"
"       pfshim list --metrics [--groups DIR] [--arch ARCH] [PATTERN]\n"
"\n"
"List the events PFSHIM_EVENTS (and pfshim run -e) accept on this machine, as\n"
"perf list does: built-in names, sysfs PMU events, tracepoints (subsys:name)\n"
"and libpfm4's vendor names (when libpfm4 is installed), one per line: the\n"
"name, 'yes' or 'no' (could perf_event_open() count it for this process just\n"
"now; the reason follows a 'no'), and what it counts where that is known.\n"
"\n"
"PATTERN keeps the names that contain it, ignoring case, or that match it as a\n"
"shell glob when it holds * ? or [ (\"*retired*\").\n"
"\n"
"Options:\n"
"  --sysfs DIR    the PMUs of DIR instead of /sys/bus/event_source/devices\n"
"                 (default: PFSHIM_SYSFS_ROOT, as the shim)\n"
"  --tracefs DIR  the tracepoints of DIR/events instead of /sys/kernel/tracing\n"
"                 (or /sys/kernel/debug/tracing) (default: PFSHIM_TRACEFS_ROOT,\n"
"                 as the shim)\n"
"  --metrics      the performance groups instead (PFSHIM_GROUP=NAME, pfshim run\n"
"                 -M NAME): LIKWID's group files for this CPU, each with what\n"
"                 it measures, its events as pfshim names them, its metrics;\n"
"                 PATTERN keeps the groups whose name holds it\n"
"  --groups DIR   the group files under DIR/ARCH instead of\n"
"                 /usr/share/likwid/perfgroups (Debian's likwid package)\n"
"  --arch ARCH    another CPU's groups (skylakeX, zen3, arm8_n1, ...: a\n"
"                 directory of DIR)\n"
"  -h, --help     this text\n"
"\n"
"Exit status: 0 when something was listed, 1 when nothing matched, 2 for a\n"
"usage error.\n";

#define NAME_WIDTH 45	/* the longest built-in line, "stalled-cycles-frontend, idle-cycles-frontend" */

struct lister {
	const char *pattern;
	bool glob;
	const char *sysfs;
	const char *tracefs;
	int listed;
	bool heading_due;
	const char *heading;
};

static bool name_matches(const struct lister *l, const char *name)
{
	if (!l->pattern)
		return true;
	if (l->glob)
		return fnmatch(l->pattern, name, FNM_CASEFOLD) == 0;
	return strcasestr(name, l->pattern) != NULL;
}

/* A section's heading, printed before its first line only. */
static void section(struct lister *l, const char *heading)
{
	l->heading = heading;
	l->heading_due = true;
}

/* @desc's first sentence: libpfm4's run to a paragraph. */
static int first_sentence(const char *desc)
{
	const char *end = strstr(desc, ". ");

	return end ? (int)(end - desc) : (int)strlen(desc);
}

static void line(struct lister *l, const char *name, const char *why_not, const char *desc)
{
	if (l->heading_due) {
		printf("%s%s\n", l->listed ? "\n" : "", l->heading);
		l->heading_due = false;
	}
	if (!desc)
		desc = "";
	printf("  %-*s %-3s  %.*s", NAME_WIDTH, name, why_not ? "no" : "yes", first_sentence(desc),
	       desc);
	if (why_not)
		printf("%s[%s]", *desc ? " " : "", why_not);
	putchar('\n');
	l->listed++;
}

static bool wanted(void *ctx, const char *name)
{
	return name_matches(ctx, name);
}

/* One event's line, under its section's heading (a new one when the section's PMU changes). */
static void listed(void *ctx, const struct event_listed *e)
{
	static char heading[4096 + 128], where[4096];
	struct lister *l = ctx;

	if (e->source == EVENT_SOURCE_PFM && strcmp(where, e->where)) {
		snprintf(where, sizeof(where), "%s", e->where);
		snprintf(heading, sizeof(heading), "libpfm4 events of %s (also written %s::NAME):",
			 e->where, e->where);
		section(l, heading);
	} else if (e->source == EVENT_SOURCE_TRACEPOINT && strcmp(where, e->where)) {
		snprintf(where, sizeof(where), "%s", e->where);
		snprintf(heading, sizeof(heading), "Tracepoints (%s):", e->where);
		section(l, heading);
	}
	line(l, e->name, e->why_not, e->desc);
}

/* Each source in turn: its heading, its events; one line when it has none to offer. */
static void list_events(struct lister *l)
{
	static char sysfs_heading[4096 + 64];
	const struct events_list_options o = { l->sysfs, l->tracefs, wanted, l };
	const char *why;

	section(l, "Built-in events (docs/events.md):");
	events_list(EVENT_SOURCE_BUILTIN, &o, listed, l, &why);
	snprintf(sysfs_heading, sizeof(sysfs_heading), "sysfs PMU events (%s):", l->sysfs);
	section(l, sysfs_heading);
	events_list(EVENT_SOURCE_SYSFS, &o, listed, l, &why);
	if (events_list(EVENT_SOURCE_TRACEPOINT, &o, listed, l, &why) == -ENOENT && !l->pattern)
		printf("\nTracepoints: %s\n", why);
	if (events_list(EVENT_SOURCE_PFM, &o, listed, l, &why) == -ENOENT && !l->pattern)
		printf("\nlibpfm4 events: none (%s)\n", why);
}

int cmd_list(int argc, char **argv)
{
	static const struct option options[] = {
		{ "sysfs", required_argument, NULL, 's' },
		{ "tracefs", required_argument, NULL, 't' },
		{ "metrics", no_argument, NULL, 'm' },
		{ "groups", required_argument, NULL, 'g' },
		{ "arch", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct lister l = { 0 };
	const char *env = getenv("PFSHIM_SYSFS_ROOT");
	const char *tracefs = getenv("PFSHIM_TRACEFS_ROOT");
	const char *groups = METRIC_GROUP_ROOT, *arch = NULL;
	bool metrics = false;
	int c;

	l.sysfs = env && *env ? env : PMU_SYSFS_ROOT;
	l.tracefs = tracefs && *tracefs ? tracefs : NULL;
	while ((c = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (c) {
		case 's': l.sysfs = optarg; break;
		case 't': l.tracefs = optarg; break;
		case 'm': metrics = true; break;
		case 'g': groups = optarg; break;
		case 'a': arch = optarg; break;
		case 'h': fputs(usage_list, stdout); return 0;
		default: fputs(usage_list, stderr); return 2;
		}
	}
	if (argc - optind > 1) {
		fputs(usage_list, stderr);
		return 2;
	}
	if (optind < argc) {
		l.pattern = argv[optind];
		l.glob = strpbrk(l.pattern, "*?[") != NULL;
	}
	if (metrics) {
		c = list_groups(groups, arch, l.pattern);
		if (fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "pfshim list: stdout: %s\n", strerror(errno ? errno : EIO));
			return 2;
		}
		return c;
	}
	list_events(&l);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "pfshim list: stdout: %s\n", strerror(errno ? errno : EIO));
		return 2;
	}
	/* Nothing matched: said, not an empty screen (exit 1 all the same). */
	if (!l.listed && l.pattern)
		fprintf(stderr, "pfshim list: no event matches '%s' on this machine (perf's built-in "
			"events, this machine's PMUs and tracepoints, and libpfm4's names where it "
			"is installed and knows the CPU)\n", l.pattern);
	return l.listed ? 0 : 1;
}
