/*
 * summary.c: pfshim.report JSON -> sums per job and per program. Inputs are
 * trusted to be nothing: every object is checked for the schema and the
 * types it needs, and whatever is not a whole report (truncated, malformed,
 * foreign) is named on stderr and skipped, never fatal.
 */
#include "tools/pfshim/summary.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "export/report.h"	/* REPORT_SCHEMA_VERSION: the newest we read */

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "pfshim: out of memory\n");
		exit(1);
	}
	return p;
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xrealloc(NULL, n), s, n);
}

void summary_init(struct summary *s)
{
	memset(s, 0, sizeof(*s));
}

void summary_free(struct summary *s)
{
	for (int i = 0; i < s->nr_events; i++) {
		free(s->events[i].name);
		free(s->events[i].unit);
	}
	for (int i = 0; i < s->nr_programs; i++) {
		free(s->programs[i].name);
		free(s->programs[i].sums);
	}
	free(s->events);
	free(s->totals);
	free(s->programs);
	free(s->pid_set);
	summary_init(s);
}

static void skipped(struct summary *s, const char *path, const char *why, const char *detail)
{
	fprintf(stderr, "pfshim: %s: %s%s%s; skipped\n", path, why, detail ? ": " : "",
		detail ? detail : "");
	s->skipped++;
}

/* 1 when (host, pid) is new; the key is 0 only by accident, then counted anyway. */
static int pid_insert(struct summary *s, const char *host, int pid)
{
	uint64_t key = 1469598103934665603ULL;

	for (const char *h = host; *h; h++)
		key = (key ^ (unsigned char)*h) * 1099511628211ULL;
	key = (key << 22) ^ (uint64_t)(unsigned)pid;
	if (!key)
		return 1;
	if (s->processes * 2 >= s->pid_cap) {
		size_t cap = s->pid_cap ? s->pid_cap * 2 : 1024;
		uint64_t *set = xrealloc(NULL, cap * sizeof(*set));

		memset(set, 0, cap * sizeof(*set));
		for (size_t i = 0; i < s->pid_cap; i++) {
			size_t j = s->pid_set[i] % cap;

			if (!s->pid_set[i])
				continue;
			while (set[j])
				j = (j + 1) % cap;
			set[j] = s->pid_set[i];
		}
		free(s->pid_set);
		s->pid_set = set;
		s->pid_cap = cap;
	}
	for (size_t j = key % s->pid_cap;; j = (j + 1) % s->pid_cap) {
		if (s->pid_set[j] == key)
			return 0;
		if (!s->pid_set[j]) {
			s->pid_set[j] = key;
			return 1;
		}
	}
}

static int event_index(struct summary *s, const char *name, const char *unit, double scale)
{
	int i;

	for (i = 0; i < s->nr_events; i++)
		if (strcmp(s->events[i].name, name) == 0)
			return i;
	s->events = xrealloc(s->events, (size_t)(i + 1) * sizeof(*s->events));
	s->events[i] = (struct summary_event){ xstrdup(name), xstrdup(unit), scale };
	s->totals = xrealloc(s->totals, (size_t)(i + 1) * sizeof(*s->totals));
	s->totals[i] = (struct summary_sum){ 0 };
	for (int p = 0; p < s->nr_programs; p++) {
		s->programs[p].sums = xrealloc(s->programs[p].sums,
					       (size_t)(i + 1) * sizeof(struct summary_sum));
		s->programs[p].sums[i] = (struct summary_sum){ 0 };
	}
	s->nr_events = i + 1;
	return i;
}

static struct summary_program *program_find(struct summary *s, const char *name)
{
	struct summary_program *p;

	for (int i = 0; i < s->nr_programs; i++)
		if (strcmp(s->programs[i].name, name) == 0)
			return &s->programs[i];
	s->programs = xrealloc(s->programs, (size_t)(s->nr_programs + 1) * sizeof(*s->programs));
	p = &s->programs[s->nr_programs++];
	p->name = xstrdup(name);
	p->reports = 0;
	p->sums = xrealloc(NULL, (size_t)s->nr_events * sizeof(*p->sums));
	memset(p->sums, 0, (size_t)s->nr_events * sizeof(*p->sums));
	return p;
}

/* NULL when @report is a whole pfshim.report we can read, else why not. */
static const char *report_check(json_t *report)
{
	json_t *schema = json_object_get(report, "schema");
	json_t *version = json_object_get(report, "version");
	json_t *events = json_object_get(report, "events");
	size_t i;
	json_t *e;

	if (!json_is_object(report) || !json_is_string(schema) ||
	    strcmp(json_string_value(schema), "pfshim.report") != 0)
		return "not a pfshim report (no \"schema\":\"pfshim.report\")";
	if (!json_is_integer(version) || json_integer_value(version) < 1)
		return "a pfshim report without a valid \"version\"";
	if (json_integer_value(version) > REPORT_SCHEMA_VERSION)
		return "a report of a newer schema version than this pfshim reads";
	if (!json_is_integer(json_object_get(report, "pid")) || !json_is_array(events))
		return "a pfshim report without \"pid\" or \"events\"";
	json_array_foreach(events, i, e) {
		json_t *value = json_object_get(e, "value");

		if (!json_is_string(json_object_get(e, "name")) ||
		    !(json_is_null(value) || (json_is_integer(value) && json_integer_value(value) >= 0)))
			return "a pfshim report with a malformed event";
	}
	return NULL;
}

static const char *string_or(json_t *v, const char *otherwise)
{
	return json_is_string(v) ? json_string_value(v) : otherwise;
}

static void report_add(struct summary *s, json_t *report)
{
	const char *program = string_or(json_object_get(report, "program"), "?");
	struct summary_program *p = program_find(s, program);
	json_t *events = json_object_get(report, "events"), *e;
	size_t i;

	s->reports++;
	p->reports++;
	s->processes += (uint64_t)pid_insert(s, string_or(json_object_get(report, "hostname"), ""),
					     (int)json_integer_value(json_object_get(report, "pid")));
	json_array_foreach(events, i, e) {
		json_t *value = json_object_get(e, "value"), *scale = json_object_get(e, "scale");
		int k = event_index(s, json_string_value(json_object_get(e, "name")),
				    string_or(json_object_get(e, "unit"), ""),
				    json_is_number(scale) ? json_number_value(scale) : 1.0);

		p = program_find(s, program);	/* event_index() may have moved them */
		if (!json_is_integer(value)) {
			if (strcmp(string_or(json_object_get(e, "status"), ""), "not-supported") == 0) {
				s->totals[k].not_supported++;
				p->sums[k].not_supported++;
			}
			continue;
		}
		s->totals[k].value += (uint64_t)json_integer_value(value);
		s->totals[k].counted++;
		p->sums[k].value += (uint64_t)json_integer_value(value);
		p->sums[k].counted++;
	}
}

void summary_add_text(struct summary *s, const char *path, const char *text, size_t len)
{
	size_t at = 0;
	int line = 1;

	for (;;) {
		json_error_t err;
		const char *why;
		json_t *report;

		while (at < len && strchr(" \t\r\n", text[at]))
			line += text[at++] == '\n';
		if (at >= len)
			return;
		report = json_loadb(text + at, len - at, JSON_DISABLE_EOF_CHECK, &err);
		if (!report) {
			char where[256];

			snprintf(where, sizeof(where), "line %d: %s", line + err.line - 1, err.text);
			skipped(s, path, "truncated or malformed JSON", where);
			return;
		}
		why = report_check(report);
		if (why)
			skipped(s, path, why, NULL);
		else
			report_add(s, report);
		json_decref(report);
		at += err.position;
	}
}

static int stream_add(struct summary *s, const char *path, FILE *f)
{
	size_t len = 0, cap = 65536;
	char *text = xrealloc(NULL, cap);
	size_t n;

	while ((n = fread(text + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap)
			text = xrealloc(text, cap *= 2);
	}
	if (ferror(f)) {
		fprintf(stderr, "pfshim: %s: %s; skipped\n", path, strerror(errno));
		s->skipped++;
		free(text);
		return -1;
	}
	summary_add_text(s, path, text, len);
	free(text);
	return 0;
}

static int dir_add(struct summary *s, const char *path)
{
	struct dirent **names;
	int n = scandir(path, &names, NULL, alphasort);

	if (n < 0) {
		fprintf(stderr, "pfshim: %s: %s; skipped\n", path, strerror(errno));
		s->skipped++;
		return -1;
	}
	for (int i = 0; i < n; i++) {
		/*
		 * Not ., .., hidden temporary files, nor an image's series
		 * (PFSHIM_INTERVAL): its file beside holds the last report.
		 */
		if (names[i]->d_name[0] != '.' && !strstr(names[i]->d_name, ".series.")) {
			size_t len = strlen(path) + strlen(names[i]->d_name) + 2;
			char *child = xrealloc(NULL, len);

			snprintf(child, len, "%s%s%s", path,
				 path[strlen(path) - 1] == '/' ? "" : "/", names[i]->d_name);
			summary_add_path(s, child);
			free(child);
		}
		free(names[i]);
	}
	free(names);
	return 0;
}

int summary_add_path(struct summary *s, const char *path)
{
	struct stat st;
	FILE *f;
	int ret;

	if (strcmp(path, "-") == 0)
		return stream_add(s, "(stdin)", stdin);
	if (stat(path, &st) < 0) {
		fprintf(stderr, "pfshim: %s: %s; skipped\n", path, strerror(errno));
		s->skipped++;
		return -1;
	}
	if (S_ISDIR(st.st_mode))
		return dir_add(s, path);
	if (!S_ISREG(st.st_mode)) {
		skipped(s, path, "not a regular file or directory", NULL);
		return -1;
	}
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "pfshim: %s: %s; skipped\n", path, strerror(errno));
		s->skipped++;
		return -1;
	}
	ret = stream_add(s, path, f);
	fclose(f);
	return ret;
}
