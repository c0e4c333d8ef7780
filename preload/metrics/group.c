/* SPDX-License-Identifier: MIT */
/*
 * group.c: a run's metric group (see group.h): the group file found and
 * read, its events named for pfshim's parser, its formulas' names bound to
 * the report's events, and the metrics computed at each report.
 *
 * LIKWID names events its own way. Where the same count has a perf name
 * the one table of LIKWID's names gives it (preload/events/likwid_names.c); arm64's architectural events are the kernel's
 * sysfs names in lower case (INST_RETIRED is armv8_pmuv3's inst_retired);
 * any other name is passed on as written, for libpfm4 or a group file that
 * already uses perf's names, and one that nothing resolves is said by the
 * parser, with the metrics that needed it marked.
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fastread/sysfile.h"
#include "preload/events/likwid_names.h"
#include "preload/events/pfm.h"
#include "preload/fd.h"
#include "preload/metrics/group.h"
#include "preload/metrics/likwid_arch.h"
#include "preload/metrics/named.h"
#include "preload/metrics/topdown.h"

/*
 * The text of the regular file @path, or NULL. O_NONBLOCK and the type
 * check: a FIFO named in PFSHIM_GROUP must not hang the program's start.
 */
static char *read_text(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	size_t len = 0, size = 16384;
	struct stat st;
	char *text = NULL;
	ssize_t n = -1;

	if (fd < 0)
		return NULL;
	if (fd_stat(fd, &st) == 0 && S_ISREG(st.st_mode))
		text = malloc(size);
	while (text && (n = read(fd, text + len, size - 1 - len)) > 0) {
		len += (size_t)n;
		if (len == size - 1) {
			char *bigger = size < (1u << 20) ? realloc(text, size * 2) : NULL;

			if (!bigger)
				break;
			text = bigger;
			size *= 2;
		}
	}
	close(fd);
	if (n != 0) {
		free(text);
		return NULL;
	}
	text[len] = '\0';
	return text;
}

/*
 * Is @path in one of LIKWID's arm64 directories (arm8, arm8_n1, arm64fx, ...),
 * by name or by a path to it? Their events not in the one table are
 * architectural events, the kernel's sysfs names in lower case.
 */
static bool arm_group(const char *path)
{
	const char *end = strrchr(path, '/'), *dir = end;

	while (dir && dir > path && dir[-1] != '/')
		dir--;
	return dir && end - dir >= 3 && !strncmp(dir, "arm", 3);
}

/* Is @name written as LIKWID writes an event: upper case, digits and '_' only? */
static bool likwid_spelling(const char *name)
{
	for (const char *p = name; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return false;
	return strchr(name, '_') != NULL;
}

/*
 * LIKWID joins an Intel or AMD event and its unit mask with a '_'
 * (FP_ARITH_INST_RETIRED_128B_PACKED_DOUBLE) where libpfm4 puts a ':'
 * (FP_ARITH_INST_RETIRED:128B_PACKED_DOUBLE), and both names may hold '_':
 * the first cut, from the left, that libpfm4 encodes for this CPU, or NULL
 * (no libpfm4, the name as written is libpfm4's, or no cut is).
 */
static char *pfm_spelling(struct pfm_names *pfm, const char *likwid)
{
	struct perf_event_attr attr;
	const char *why;
	char *name;
	int err;

	if (!likwid_spelling(likwid) || pfm_encode(pfm, likwid, &attr, &why) != -ENOENT)
		return NULL;
	name = strdup(likwid);
	for (char *p = name ? strchr(name, '_') : NULL; p; p = strchr(p + 1, '_')) {
		*p = ':';
		err = pfm_encode(pfm, name, &attr, &why);
		if (err == 0)
			return name;
		*p = '_';
	}
	free(name);
	return NULL;
}

static char *perf_name(struct pfm_names *pfm, const char *likwid, bool arm)
{
	const char *perf = likwid_event_perf(likwid);
	char *vendor = arm ? NULL : pfm_spelling(pfm, likwid);

	if (perf)
		return strdup(perf);
	if (vendor)
		return vendor;

	char *name = strdup(likwid);

	for (char *p = name; arm && p && *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return name;
}

const char *metric_group_arch(const char *cpuinfo_path, char *cpu, size_t size)
{
	char *cpuinfo = read_text(cpuinfo_path);
	const char *arch = cpuinfo ? likwid_arch(cpuinfo, cpu, size) : NULL;

	if (!cpuinfo)
		snprintf(cpu, size, "unknown");
	free(cpuinfo);
	return arch;
}

/* The group file @spec means: @spec itself when it is a path. */
static int group_path(const char *spec, const char *root, const char *cpuinfo_path,
		      char *path, size_t size, char *why, size_t why_size)
{
	char cpu[64];
	const char *arch;

	if (strchr(spec, '/')) {
		snprintf(path, size, "%s", spec);
		return 0;
	}
	arch = metric_group_arch(cpuinfo_path, cpu, sizeof(cpu));
	if (!arch) {
		snprintf(why, why_size, "LIKWID's groups have none for this CPU (%s); "
			 "give a group file's path instead", cpu);
		return -ENOENT;
	}
	if (snprintf(path, size, "%s/%s/%s.txt", root, arch, spec) >= (int)size)
		return -ENAMETOOLONG;
	if (access(path, R_OK)) {
		snprintf(why, why_size, "no group '%s' in %s/%s (Debian's likwid package "
			 "installs them; `ls %s/%s` lists the groups)", spec, root, arch, root, arch);
		return -ENOENT;
	}
	return 0;
}

/* Is @name an item of the events list @events ("a,{b,c},d")? */
static int listed(const char *events, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = events; p && *p;) {
		while (*p == '{' || *p == '}' || *p == ',')
			p++;

		size_t len = strcspn(p, ",{}");

		if (len == n && !memcmp(p, name, n))
			return 1;
		p += len;
	}
	return 0;
}

/*
 * The group in @text (@where: its file, for messages; @arm: its events are
 * arm64's), named @name, its events named for pfshim's parser. @grouped, if
 * not NULL, is counted first as written (a perf group, "{a,b}"), and the
 * group's events it names are not listed again.
 */
static int open_text(const char *text, const char *name, const char *where, bool arm,
		     const char *grouped, const char *counted, struct metric_group *mg, char *why,
		     size_t why_size)
{
	int line = 0, err;
	size_t len = 0;

	err = likwid_group_parse(text, &mg->group, &line);
	if (err) {
		snprintf(why, why_size, "%s, line %d: not a group file's line", where, line);
		return err;
	}

	if (mg->group.nr_metrics > METRIC_GROUP_MAX) {
		snprintf(why, why_size, "%s: %d metrics, more than the %d a report holds", where,
			 mg->group.nr_metrics, METRIC_GROUP_MAX);
		likwid_group_free(&mg->group);
		return -E2BIG;
	}

	snprintf(mg->name, sizeof(mg->name), "%s", name);
	mg->event_names = calloc((size_t)mg->group.nr_events, sizeof(char *));
	mg->sources = calloc((size_t)mg->group.nr_metrics + 1, sizeof(*mg->sources));
	mg->inputs = calloc((size_t)mg->group.nr_metrics + 1, sizeof(*mg->inputs));
	struct pfm_names pfm;

	pfm_names_start(&pfm, NULL);	/* loaded only for a name the table lacks */
	for (int i = 0; mg->event_names && i < mg->group.nr_events && !err; i++) {
		mg->event_names[i] = perf_name(&pfm, mg->group.events[i].event, arm);
		if (!mg->event_names[i])
			err = -ENOMEM;
		else
			len += strlen(mg->event_names[i]) + 1;
	}
	pfm_names_end(&pfm);
	mg->events_text = err ? NULL : calloc(len + (grouped ? strlen(grouped) + 1 : 0) + 1, 1);
	if (!mg->event_names || !mg->sources || !mg->inputs || !mg->events_text) {
		metric_group_free(mg);
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	if (grouped)
		strcpy(mg->events_text, grouped);
	for (int i = 0; i < mg->group.nr_events; i++) {
		if (listed(counted, mg->event_names[i]) || listed(mg->events_text, mg->event_names[i]))
			continue;	/* counted once, bound by name */
		if (*mg->events_text)
			strcat(mg->events_text, ",");
		strcat(mg->events_text, mg->event_names[i]);
	}
	return 0;
}

/* The group file @spec names, read: its text (the caller frees), and @path. */
static int read_group(const char *spec, const char *root, const char *cpuinfo_path,
		      char *path, size_t size, char **text, char *why, size_t why_size)
{
	int err = group_path(spec, root, cpuinfo_path, path, size, why, why_size);

	if (err)
		return err;
	*text = read_text(path);
	if (!*text) {
		snprintf(why, why_size, "cannot read %s (not a readable regular file)", path);
		return -EIO;
	}
	return 0;
}

int metric_group_open(const char *spec, const char *root, const char *cpuinfo_path,
		      const char *counted, struct metric_group *mg, char *why, size_t why_size)
{
	char path[4096], name[64];
	char *text = NULL;
	int err;

	memset(mg, 0, sizeof(*mg));
	err = read_group(spec, root, cpuinfo_path, path, sizeof(path), &text, why, why_size);
	if (err)
		return err;

	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	snprintf(name, sizeof(name), "%.*s", (int)strcspn(base, "."), base);
	err = open_text(text, name, path, arm_group(path), NULL, counted, mg, why, why_size);
	free(text);
	return err;
}

int metric_group_open_named(const struct metric_request *q, struct metric_group *mg,
			    char *why, size_t why_size, char *note, size_t note_size)
{
	char path[4096] = "PFSHIM_METRICS", unknown[64], file_why[512];
	char *named = NULL, *file = NULL, *text;
	char *cpuinfo = q->cpuinfo ? read_text(q->cpuinfo) : NULL;
	const char *spec = q->group, *grouped;
	const struct topdown_machine machine = { q->sysfs, cpuinfo, q->sysfs_cpu };
	static struct topdown td;	/* constructor only: not on the stack */
	bool topdown;
	int err;

	memset(mg, 0, sizeof(*mg));
	note[0] = '\0';
	err = metric_named_text(q->names, &machine, &td, &named, &grouped, &topdown, unknown,
				sizeof(unknown));
	free(cpuinfo);
	if (err) {
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	if (unknown[0])
		snprintf(note, note_size, "no metric named '%s' (pfshim's are %s; PFSHIM_GROUP "
			 "takes LIKWID's groups)", unknown, metric_named_list());
	if (topdown && spec)
		snprintf(note + strlen(note), note_size - strlen(note), "%sTopdownL1 is LIKWID's "
			 "TMA group, not added beside PFSHIM_GROUP=%s: one group file at a time",
			 note[0] ? "; " : "", spec);
	else if (topdown)
		spec = "TMA";
	if (spec && read_group(spec, q->root, q->cpuinfo, path, sizeof(path), &file, file_why,
			       sizeof(file_why))) {
		bool tma = topdown && !strcmp(spec, "TMA");

		/* Why this CPU has no level 1 of its own says more than LIKWID's missing file. */
		snprintf(note + strlen(note), note_size - strlen(note), "%s%s: %s",
			 note[0] ? "; " : "", !tma ? "PFSHIM_GROUP" : td.why[0] ? "TopdownL1" :
			 "TopdownL1 (LIKWID's TMA group)", tma && td.why[0] ? td.why : file_why);
	}
	if (!named && !file) {
		snprintf(why, why_size, "no metric to compute");
		return -ENOENT;
	}
	text = malloc((named ? strlen(named) : 0) + (file ? strlen(file) : 0) + 1);
	if (!text) {
		free(named);
		free(file);
		snprintf(why, why_size, "out of memory");
		return -ENOMEM;
	}
	/* The group file's sections after ours: its LONG ends what is read. */
	strcpy(text, named ? named : "");
	strcat(text, file ? file : "");
	/* PFSHIM_METRICS, or PFSHIM_METRICS+TMA: what a report's metric_group says. */
	char name[64];
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;

	snprintf(name, sizeof(name), "PFSHIM_METRICS%s%.*s", file ? "+" : "",
		 file ? (int)strcspn(base, ".") : 0, base);
	err = open_text(text, name, file ? path : "PFSHIM_METRICS", file && arm_group(path),
			grouped, q->counted, mg, why, why_size);
	free(text);
	free(named);
	free(file);
	return err;
}

int metric_group_topdown(const struct metric_request *q, struct topdown *td)
{
	char *cpuinfo = q->cpuinfo ? read_text(q->cpuinfo) : NULL;
	const struct topdown_machine machine = { q->sysfs, cpuinfo, q->sysfs_cpu };
	int err = topdown_find(&machine, td);

	free(cpuinfo);
	return err;
}

/* The CPU's base clock in Hz from cpufreq, or 0 (none in most VMs). */
static double base_clock_hz(const char *sysfs_cpu)
{
	static const char *const files[] = { "base_frequency", "cpuinfo_max_freq" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[512], text[32];
		unsigned long long khz = 0;

		snprintf(path, sizeof(path), "%s/cpu0/cpufreq/%s", sysfs_cpu, files[i]);
		if (sysfile_read(path, text, sizeof(text)) > 0)
			khz = strtoull(text, NULL, 10);
		if (khz > 0)
			return (double)khz * 1000;
	}
	return 0;
}

/* The counter name @name without its options ("PMC3" of "PMC3:EDGEDETECT"). */
static size_t base_length(const char *name, size_t len)
{
	const char *colon = memchr(name, ':', len);

	return colon ? (size_t)(colon - name) : len;
}

static struct metric_source bind_name(const struct metric_group *mg,
				      const struct formula_name *n,
				      const struct event_list *events)
{
	struct metric_source s = { .kind = SOURCE_NONE, .why = "counted by no event of the group" };
	int counter = -1;

	snprintf(s.label, sizeof(s.label), "%.*s", (int)n->len, n->text);
	if (n->len == 4 && !memcmp(n->text, "time", 4)) {
		s.kind = SOURCE_TIME;
		return s;
	}
	if (n->len == 12 && !memcmp(n->text, "inverseClock", 12)) {
		s.kind = mg->inverse_clock > 0 ? SOURCE_INVERSE_CLOCK : SOURCE_NONE;
		s.why = "the CPU's base clock is unknown here (no cpufreq)";
		return s;
	}
	/* The counter as written, options and all; else the same counter with others. */
	for (int i = 0; i < mg->group.nr_events && counter < 0; i++)
		if (strlen(mg->group.events[i].counter) == n->len &&
		    !memcmp(mg->group.events[i].counter, n->text, n->len))
			counter = i;
	for (int i = 0; i < mg->group.nr_events && counter < 0; i++) {
		const char *c = mg->group.events[i].counter;

		if (base_length(c, strlen(c)) == base_length(n->text, n->len) &&
		    !memcmp(c, n->text, base_length(n->text, n->len)))
			counter = i;
	}
	if (counter < 0)
		return s;
	snprintf(s.label, sizeof(s.label), "%s", mg->event_names[counter]);
	s.why = "its event is unknown here";
	for (int e = events->nr - 1; e >= 0; e--)
		if (!strcmp(events->ev[e].name, mg->event_names[counter])) {
			s.kind = SOURCE_EVENT;
			s.event = e;
			break;
		}
	return s;
}

static void free_input_names(struct metric_group *mg)
{
	for (int m = 0; mg->inputs && m < mg->group.nr_metrics; m++)
		for (unsigned n = 0; n < FORMULA_MAX_NAMES; n++) {
			free((char *)mg->inputs[m][n].name);
			mg->inputs[m][n].name = NULL;
		}
}

/* @s as a report carries it; the name NULL when out of memory (said as "?"). */
static struct report_metric_input input_of(const struct metric_group *mg,
					   const struct formula_name *n,
					   const struct metric_source *s)
{
	static const enum report_input_source source[] = {
		[SOURCE_EVENT] = INPUT_EVENT, [SOURCE_TIME] = INPUT_TIME,
		[SOURCE_INVERSE_CLOCK] = INPUT_INVERSE_CLOCK, [SOURCE_NONE] = INPUT_NONE,
	};

	return (struct report_metric_input){
		.name = strndup(n->text, n->len),
		.source = source[s->kind],
		.event = s->kind == SOURCE_EVENT ? s->event : -1,
		.value = s->kind == SOURCE_INVERSE_CLOCK ? mg->inverse_clock : 0,
	};
}

void metric_group_bind(struct metric_group *mg, const struct event_list *events,
		       const char *sysfs_cpu)
{
	free_input_names(mg);	/* bound again */
	mg->inverse_clock = 0;
	double hz = base_clock_hz(sysfs_cpu);

	if (hz > 0)
		mg->inverse_clock = 1 / hz;
	for (int m = 0; m < mg->group.nr_metrics; m++) {
		const struct formula *f = &mg->group.metrics[m].formula;

		for (unsigned n = 0; n < f->nr_names; n++) {
			mg->sources[m][n] = bind_name(mg, &f->names[n], events);
			mg->inputs[m][n] = input_of(mg, &f->names[n], &mg->sources[m][n]);
		}
	}
}

static const char *status_why(enum report_status status)
{
	switch (status) {
	case STATUS_NOT_COUNTED:
		return "not counted";
	case STATUS_NOT_SUPPORTED:
		return "not supported here";
	case STATUS_CLOSED:
		return "its descriptor was closed by the program";
	default:
		return "not counted";
	}
}

/* One count a formula takes: its value, or its status when it has none. */
struct count {
	double value;
	enum report_status status;
	int scaled;
};

/* Where the counts come from: a report's events, or a region's sums. */
struct counts {
	const struct report *r;
	const struct report_region_total *region;	/* NULL: the report's events */
	bool delta;		/* the events' deltas, not their totals */
};

static struct count count_of(const struct counts *c, int event)
{
	const struct report_regions *g = c->r->regions;

	if (event >= c->r->nr_events)
		return (struct count){ .status = STATUS_NOT_COUNTED };
	if (!c->region) {
		const struct report_event *e = &c->r->events[event];

		if (c->delta && !e->has_delta)
			return (struct count){ .status = STATUS_NOT_COUNTED };
		return (struct count){ c->delta ? (double)e->delta : (double)e->value, e->status,
				       e->scaled };
	}
	for (int i = 0; i < g->nr_events; i++)
		if (g->event[i] == event)
			return (struct count){ (double)c->region->values[i].sum,
					       c->region->values[i].status,
					       c->region->values[i].scaled };
	return (struct count){ .status = STATUS_NOT_SUPPORTED };
}

static void compute(const struct metric_group *mg, const struct counts *c, double seconds,
		    struct report_metric *out)
{
	for (int m = 0; m < mg->group.nr_metrics; m++) {
		const struct likwid_group_metric *gm = &mg->group.metrics[m];
		struct report_metric *o = &out[m];
		double values[FORMULA_MAX_NAMES];

		*o = (struct report_metric){ .name = gm->name, .unit = gm->unit,
					     .formula = gm->text, .status = METRIC_COMPUTED,
					     .nr_inputs = gm->formula.nr_names,
					     .inputs = mg->inputs[m] };
		for (unsigned n = 0; n < gm->formula.nr_names && o->status == METRIC_COMPUTED; n++) {
			const struct metric_source *s = &mg->sources[m][n];
			struct count k;

			switch (s->kind) {
			case SOURCE_TIME:
				values[n] = seconds;
				break;
			case SOURCE_INVERSE_CLOCK:
				values[n] = mg->inverse_clock;
				break;
			case SOURCE_EVENT:
				k = count_of(c, s->event);
				if (k.status == STATUS_COUNTED) {
					values[n] = k.value;
					o->scaled |= k.scaled;
					break;
				}
				o->status = METRIC_NOT_COUNTED;
				o->missing = s->label;
				o->why = c->region && k.status == STATUS_NOT_SUPPORTED ?
						 "not counted in regions" : status_why(k.status);
				break;
			default:
				o->status = METRIC_NOT_COUNTED;
				o->missing = s->label;
				o->why = s->why;
				break;
			}
		}
		if (o->status == METRIC_COMPUTED &&
		    formula_eval(&gm->formula, values, &o->value) == -EDOM)
			o->status = METRIC_UNDEFINED;
	}
}

void metric_group_compute(const struct metric_group *mg, const struct report *r,
			  double seconds, struct report_metric *out)
{
	compute(mg, &(struct counts){ .r = r }, seconds, out);
}

void metric_group_compute_delta(const struct metric_group *mg, const struct report *r,
				double seconds, struct report_metric *out)
{
	compute(mg, &(struct counts){ .r = r, .delta = true }, seconds, out);
}

void metric_group_compute_region(const struct metric_group *mg, const struct report *r,
				 const struct report_region_total *t, struct report_metric *out)
{
	compute(mg, &(struct counts){ .r = r, .region = t }, (double)t->wall.sum / 1e9, out);
}

void metric_group_free(struct metric_group *mg)
{
	for (int i = 0; mg->event_names && i < mg->group.nr_events; i++)
		free(mg->event_names[i]);
	free(mg->event_names);
	free(mg->events_text);
	free(mg->sources);
	free_input_names(mg);
	free(mg->inputs);
	likwid_group_free(&mg->group);
	memset(mg, 0, sizeof(*mg));
}
