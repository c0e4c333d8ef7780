/* SPDX-License-Identifier: MIT */
/*
 * list.c: `pfshim list [PATTERN]`, the events this machine can count, as
 * `perf list` shows them: the built-in names, the sysfs PMU events, the
 * tracepoints and libpfm4's vendor names, one line each with whether it
 * can be counted here and what it counts. The names come from the shim's
 * own resolvers (libpfshim-core.a: builtin.c, pmu_catalog.c, pfm.c) and
 * the tracefs it reads, so the list cannot disagree with what
 * PFSHIM_EVENTS accepts; "available"
 * means that perf_event_open() of the event, for this process as the shim
 * would open it, succeeded just now.
 */
#include "tools/pfshim/list.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "export/names.h"
#include "preload/events/builtin.h"
#include "preload/events/events.h"
#include "preload/events/pfm.h"
#include "preload/events/pmu.h"
#include "preload/events/pmu_catalog.h"
#include "preload/events/tracefs.h"
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

#define NAME_WIDTH 44

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

/* Open @attr as the shim would (this process, inherit, user space at
 * paranoid 2), close it: NULL when it opened, else the errno's name. */
static const char *try_open(const struct perf_event_attr *event)
{
	struct perf_event_attr attr = *event;
	long fd;

	attr.size = sizeof(attr);
	attr.disabled = 1;
	attr.inherit = 1;
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM) && !attr.exclude_kernel) {
		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
		fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	if (fd >= 0) {
		close((int)fd);
		return NULL;
	}
	return errno_name(errno) ? errno_name(errno) : "error";
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

/* ---- built-in names ------------------------------------------------------ */

struct builtin_group {
	struct lister *l;
	char names[160];	/* "cycles, cpu-cycles" */
	bool match;
	uint32_t type;
	uint64_t config;
	bool open;
};

static void builtin_flush(struct builtin_group *g)
{
	struct perf_event_attr attr = { .type = g->type, .config = g->config };

	if (g->open && g->match)
		line(g->l, g->names, try_open(&attr), event_builtin_desc(g->type, g->config));
	g->open = false;
}

static void builtin_one(void *ctx, const char *name, uint32_t type, uint64_t config)
{
	struct builtin_group *g = ctx;
	size_t n;

	if (g->open && (g->type != type || g->config != config))
		builtin_flush(g);
	if (!g->open) {
		g->open = true;
		g->match = false;
		g->type = type;
		g->config = config;
		g->names[0] = '\0';
	}
	n = strlen(g->names);
	snprintf(g->names + n, sizeof(g->names) - n, "%s%s", n ? ", " : "", name);
	g->match |= name_matches(g->l, name);
}

static void list_builtin(struct lister *l)
{
	struct builtin_group g = { .l = l };

	section(l, "Built-in events (docs/events.md):");
	event_builtin_each(builtin_one, &g);
	builtin_flush(&g);
}

/* ---- sysfs PMU events ---------------------------------------------------- */

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sysfs_line(struct lister *l, const char *pmu, const char *event)
{
	static struct event_list one;
	char name[2 * PMU_NAME_MAX + 4], terms[256], desc[300], unit[16] = "";
	double scale = 1.0;
	const char *why_not = "EINVAL";

	snprintf(name, sizeof(name), "%s/%s/", pmu, event);
	if (pmu_alias_read(l->sysfs, pmu, event, terms, sizeof(terms)))
		snprintf(terms, sizeof(terms), "?");
	pmu_alias_display(l->sysfs, pmu, event, &scale, unit, sizeof(unit));
	snprintf(desc, sizeof(desc), "%s%s%s%s", terms, unit[0] ? " (" : "", unit,
		 unit[0] ? ")" : "");
	if (events_parse(name, l->sysfs, l->tracefs, &one, NULL, NULL) == 1)
		why_not = try_open(&one.ev[0].attr);
	line(l, name, why_not, desc);
}

static void list_sysfs(struct lister *l)
{
	static char heading[PATH_MAX + 64];
	struct pmu_catalog cat = { 0 };
	char **names;
	int n = 0;

	snprintf(heading, sizeof(heading), "sysfs PMU events (%s):", l->sysfs);
	section(l, heading);
	pmu_catalog_load(&cat, l->sysfs);
	names = calloc((size_t)cat.nr_events + 1, sizeof(*names));
	for (int i = 0; names && i < cat.nr_events; i++) {
		char buf[2 * PMU_NAME_MAX + 4];

		snprintf(buf, sizeof(buf), "%s/%s/", cat.events[i].pmu, cat.events[i].name);
		if (name_matches(l, buf) || name_matches(l, cat.events[i].name))
			names[n++] = strdup(buf);
	}
	if (names)
		qsort(names, (size_t)n, sizeof(*names), compare_names);
	for (int i = 0; i < n; i++) {
		char *slash = names[i] ? strchr(names[i], '/') : NULL;

		if (!slash)
			continue;
		*slash = '\0';
		slash[strlen(slash + 1)] = '\0';	/* the closing '/' */
		sysfs_line(l, names[i], slash + 1);
		free(names[i]);
	}
	free(names);
	pmu_catalog_free(&cat);
}

/* ---- tracepoints --------------------------------------------------------- */

static bool dir_readable(const char *path)
{
	DIR *d = opendir(path);

	if (d)
		closedir(d);
	return d != NULL;
}

static const char *tracefs_root(const struct lister *l, char *events, size_t size)
{
	static const char *const roots[] = { TRACEFS_ROOT, TRACEFS_ROOT_DEBUGFS };

	if (l->tracefs) {
		snprintf(events, size, "%s/events", l->tracefs);
		return events;
	}
	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
		snprintf(events, size, "%s/events", roots[i]);
		if (dir_readable(events))
			return events;
	}
	return NULL;
}

static int tracepoint_id(const char *events, const char *subsys, const char *name, uint64_t *id)
{
	char path[PATH_MAX];
	unsigned long long v;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "%s/%s/%s/id", events, subsys, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	ok = fscanf(f, "%llu", &v) == 1;
	fclose(f);
	*id = v;
	return ok ? 0 : -EINVAL;
}

/* Every <events>/<subsys>/<name>/id, as "subsys:name", sorted. */
static char **tracepoint_names(const char *events, int *count)
{
	struct dirent **subs = NULL;
	char **names = NULL;
	int nsubs = scandir(events, &subs, NULL, alphasort), n = 0, cap = 0;

	for (int i = 0; i < nsubs; i++) {
		struct dirent **evs = NULL;
		char path[PATH_MAX + sizeof(subs[i]->d_name)];
		int nevs;

		snprintf(path, sizeof(path), "%s/%s", events, subs[i]->d_name);
		nevs = subs[i]->d_name[0] == '.' ? -1 : scandir(path, &evs, NULL, alphasort);
		for (int j = 0; j < nevs; j++) {
			uint64_t id;
			char *name;

			if (n == cap) {
				char **grown = realloc(names, (size_t)(cap ? 2 * cap : 256) *
							      sizeof(*names));

				if (grown) {
					names = grown;
					cap = cap ? 2 * cap : 256;
				}
			}
			if (n < cap && evs[j]->d_name[0] != '.' &&
			    !tracepoint_id(events, subs[i]->d_name, evs[j]->d_name, &id) &&
			    asprintf(&name, "%s:%s", subs[i]->d_name, evs[j]->d_name) >= 0)
				names[n++] = name;
			free(evs[j]);
		}
		free(evs);
		free(subs[i]);
	}
	free(subs);
	*count = n;
	return names;
}

static void list_tracepoints(struct lister *l)
{
	static char heading[PATH_MAX + 64];
	char events[PATH_MAX];
	const char *root = tracefs_root(l, events, sizeof(events));
	char **names;
	int n;

	if (!root || !dir_readable(root)) {
		if (!l->pattern)
			printf("\nTracepoints: none readable (as root: mount -t tracefs nodev "
			       TRACEFS_ROOT ")\n");
		return;
	}
	snprintf(heading, sizeof(heading), "Tracepoints (%s):", root);
	section(l, heading);
	names = tracepoint_names(root, &n);
	for (int i = 0; i < n; i++) {
		char *colon = strchr(names[i], ':');
		struct perf_event_attr attr = { .type = PERF_TYPE_TRACEPOINT };
		uint64_t id;

		*colon = '\0';
		if (!tracepoint_id(root, names[i], colon + 1, &id)) {
			*colon = ':';
			attr.config = id;
			if (name_matches(l, names[i]))
				line(l, names[i], try_open(&attr), NULL);
		}
		free(names[i]);
	}
	free(names);
}

/* ---- libpfm4 ------------------------------------------------------------- */

struct pfm_lister {
	struct lister *l;
	struct pfm_names *r;
	char pmu[64];
	char heading[160];
};

static void pfm_line(void *ctx, const struct pfm_listed *e)
{
	struct pfm_lister *p = ctx;
	struct perf_event_attr attr;
	char name[EVENTS_NAME_MAX + 64];
	const char *why = NULL, *why_not;
	int err;

	if (strcmp(p->pmu, e->pmu)) {
		snprintf(p->pmu, sizeof(p->pmu), "%s", e->pmu);
		snprintf(p->heading, sizeof(p->heading), "libpfm4 events of %s (also written "
			 "%s::NAME):", e->pmu, e->pmu);
		section(p->l, p->heading);
	}
	snprintf(name, sizeof(name), "%s%s%s", e->event, e->umask ? ":" : "",
		 e->umask ? e->umask : "");
	if (!name_matches(p->l, name))
		return;
	/* Qualified: the PMU listed, whatever else libpfm4 has on this machine. */
	{
		char qualified[sizeof(name) + 64];

		snprintf(qualified, sizeof(qualified), "%s::%s", e->pmu, name);
		err = pfm_encode(p->r, qualified, &attr, &why);
	}
	why_not = err == -EINVAL ? why : err ? "libpfm4 cannot encode it" : try_open(&attr);
	line(p->l, name, why_not, e->desc);
}

static void list_pfm(struct lister *l)
{
	struct pfm_names r;
	struct pfm_lister p = { .l = l, .r = &r };

	pfm_names_start(&r, NULL);
	if (pfm_names_list(&r, pfm_line, &p) == -ENOSYS && !l->pattern)
		printf("\nlibpfm4 events: none (%s)\n", pfm_names_why(&r));
	pfm_names_end(&r);
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
	list_builtin(&l);
	list_sysfs(&l);
	list_tracepoints(&l);
	list_pfm(&l);
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
