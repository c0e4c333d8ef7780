/* SPDX-License-Identifier: MIT */
/*
 * summary.c: which inputs to read (files, directories walked in name order,
 * stdin; input.c parses them) and which report of each process image counts.
 * Inputs are trusted to be nothing: every object is
 * checked for the schema and the types it needs, and whatever is not a whole
 * report (truncated, malformed, foreign) is named on stderr and skipped,
 * never fatal. An image (host, pid namespace, pid, start_ns) may leave
 * several reports: interval ones, one per PFSHIM_SIGNAL, pfshim_report()'s,
 * then its exit or exec one. Its counters only grow, so its last report
 * holds the whole count: summing them all would count it twice. The final
 * (exit, exec) report is counted as soon as it is read; an earlier one waits
 * here, one per image, until the final one replaces it or the input ends.
 */
#include "tools/pfshim/read/read.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "export/report.h"	/* REPORT_SCHEMA_VERSION: what the shim writes */
#include "preload/output/spool.h"	/* a spool left unsplit */
#include "tools/pfshim/read/arena.h"
#include "tools/pfshim/read/input.h"
#include "tools/pfshim/model/metrics.h"

_Static_assert(REPORT_SCHEMA_VERSION <= SUMMARY_READS_VERSION,
	       "the shim writes a report version pfshim report does not read yet");

static void skipped(struct summary *s, const char *path, const char *why, const char *detail)
{
	if (!s->opt.quiet)
		fprintf(stderr, "pfshim: %s: %s%s%s; skipped\n", path, why, detail ? ": " : "",
			detail ? detail : "");
	s->skipped++;
}

/* NULL when @report is a whole pfshim.report we can read, else why not. */
static const char *report_check(json_t *report)
{
	json_t *schema = json_object_get(report, "schema");
	json_t *version = json_object_get(report, "version");
	json_t *events = json_object_get(report, "events");
	json_t *seq = json_object_get(report, "seq");
	size_t i;
	json_t *e;

	if (!json_is_object(report) || !json_is_string(schema) ||
	    strcmp(json_string_value(schema), "pfshim.report") != 0)
		return "not a pfshim report (no \"schema\":\"pfshim.report\")";
	if (!json_is_integer(version) || json_integer_value(version) < 1)
		return "a pfshim report without a valid \"version\"";
	if (json_integer_value(version) > SUMMARY_READS_VERSION)
		return "a report of a newer schema version than this pfshim reads";
	if (!json_is_integer(json_object_get(report, "pid")) || !json_is_array(events))
		return "a pfshim report without \"pid\" or \"events\"";
	if (seq && !json_is_null(seq) && !is_count(seq))
		return "a pfshim report with a malformed \"seq\"";
	json_array_foreach(events, i, e) {
		json_t *value = json_object_get(e, "value"), *delta = json_object_get(e, "delta");

		if (!json_is_string(json_object_get(e, "name")) ||
		    !(json_is_null(value) || is_count(value)) ||
		    (delta && !json_is_null(delta) && !is_count(delta)))
			return "a pfshim report with a malformed event";
	}
	return NULL;
}

const char *summary_machine_of(json_t *r)
{
	const char *boot_id = string_or(json_object_get(r, "boot_id"), "");

	return *boot_id ? boot_id : string_or(json_object_get(r, "hostname"), "");
}

static uint64_t process_hash(json_t *r)
{
	return summary_process_key(summary_machine_of(r),
				   count_or(json_object_get(r, "pid_ns"), 0),
				   json_integer_value(json_object_get(r, "pid")));
}

/*
 * Distinct processes and images are told apart by a 64-bit hash: two that
 * collide (about one chance in 10^11 among 10,000) would count as one.
 */
static void process_note(struct summary *s, uint64_t key)
{
	struct table_key_probe p = { s->process_keys, sizeof(uint64_t), key };

	if (table_find(&s->process_index, key, table_key_match, &p) >= 0)
		return;
	s->process_keys = xgrow(s->process_keys, s->processes, sizeof(uint64_t));
	s->process_keys[s->processes] = key;
	p.base = s->process_keys;
	table_add(&s->process_index, key, (int)s->processes, table_key_at, &p);
	s->processes++;
}

/* @key into the set (@index, @keys, @n). Return: whether it was not in it. */
static bool key_set_add(struct table_index *index, uint64_t **keys, int *n, uint64_t key)
{
	struct table_key_probe p = { *keys, sizeof(uint64_t), key };

	if (table_find(index, key, table_key_match, &p) >= 0)
		return false;
	*keys = xgrow(*keys, (size_t)*n, sizeof(uint64_t));
	(*keys)[*n] = key;
	p.base = *keys;
	table_add(index, key, (*n)++, table_key_at, &p);
	return true;
}

static void process_ended(struct summary *s, uint64_t key)
{
	key_set_add(&s->ended_index, &s->ended_keys, &s->nr_ended, key);
}

static struct summary_seen *seen_get(struct summary *s, uint64_t key)
{
	struct table_key_probe p = { s->seen, sizeof(*s->seen), key };
	int i = table_find(&s->seen_index, key, table_key_match, &p);

	if (i >= 0)
		return &s->seen[i];
	s->seen = xgrow(s->seen, (size_t)s->nr_seen, sizeof(*s->seen));
	s->seen[s->nr_seen] = (struct summary_seen){ .key = key, .pending = -1, .seq = -1 };
	p.base = s->seen;
	table_add(&s->seen_index, key, s->nr_seen, table_key_at, &p);
	return &s->seen[s->nr_seen++];
}

/* Is a report of (seq, wall) later than the one @seen holds? seq first, when both have one. */
static bool later(const struct summary_seen *seen, int64_t seq, int64_t wall_ns)
{
	if (seq >= 0 && seen->seq >= 0 && seq != seen->seq)
		return seq > seen->seq;
	return wall_ns > seen->wall_ns;
}

static void report_take(struct summary *s, json_t *r)
{
	const char *reason = string_or(json_object_get(r, "reason"), "");
	bool final = strcmp(reason, "exit") == 0 || strcmp(reason, "exec") == 0;
	uint64_t start = count_or(json_object_get(r, "start_ns"), 0), key = process_hash(r), image;
	int64_t seq = (int64_t)count_or(json_object_get(r, "seq"), (uint64_t)-1);
	int64_t wall = (int64_t)count_or(json_object_get(r, "wall_ns"), 0);
	struct summary_seen *seen;
	int group = summary_group_of(s, r);

	s->reports++;
	s->groups[group].reports++;
	process_note(s, key);
	if (strcmp(reason, "exec") != 0)
		process_ended(s, key);
	if (start && (!s->first_start_ns || start < s->first_start_ns))
		s->first_start_ns = start;
	if (!s->title || (start && start < s->title_start_ns)) {
		free(s->title);
		s->title = xstrdup(string_or(json_object_get(r, "argv0"),
					     string_or(json_object_get(r, "program"), "?")));
		s->title_start_ns = start;
	}
	image = hash_bytes(key, &start, sizeof(start));
	/*
	 * A report of a series once: in a directory an image's final report is
	 * both its file and its series' last line (and a file may be named twice).
	 */
	if (seq >= 0 && key_set_add(&s->series_index, &s->series_keys, &s->nr_series,
				    hash_bytes(image, &seq, sizeof(seq))))
		summary_series_add(s, r);
	seen = seen_get(s, image);
	if (seen->final)		/* its last report is counted; a copy read twice too */
		return;
	if (final) {
		if (seen->pending >= 0) {
			json_decref(s->pending[seen->pending].report);
			s->pending[seen->pending].report = NULL;
			seen->pending = -1;
		}
		seen->final = true;
		seen->seq = seq;
		seen->wall_ns = wall;
		summary_count(s, r);
		summary_share_count(s, r);
		summary_signal_end_count(s, r);
		return;
	}
	if (seen->pending < 0) {
		s->pending = xrealloc(s->pending, (size_t)(s->nr_pending + 1) * sizeof(*s->pending));
		s->pending[s->nr_pending].report = NULL;
		seen->pending = s->nr_pending++;
	} else if (!later(seen, seq, wall)) {
		return;
	}
	json_decref(s->pending[seen->pending].report);
	s->pending[seen->pending].report = arena_keep(r);	/* r dies with the arena */
	seen->seq = seq;
	seen->wall_ns = wall;
}

static void names_unmatched(const struct names *wanted, const struct names *had, const char *option)
{
	for (int i = 0; i < wanted->n; i++)
		if (names_find(had, wanted->name[i]) < 0)
			fprintf(stderr, "pfshim report: %s: no report has '%s'; left out\n", option,
				wanted->name[i]);
}

void summary_finish(struct summary *s)
{
	struct names events = { 0 };

	for (int i = 0; i < s->nr_pending; i++) {
		if (s->pending[i].report) {
			summary_count(s, s->pending[i].report);
			summary_share_count(s, s->pending[i].report);
			summary_signal_end_count(s, s->pending[i].report);
		}
		json_decref(s->pending[i].report);
		s->pending[i].report = NULL;
	}
	s->nr_pending = 0;
	for (int i = 0; i < s->nr_events; i++)
		names_add(&events, s->events[i].name);
	if (s->job)
		summary_job_finish(s);
	names_unmatched(&s->opt.events, &events, "--events");
	names_unmatched(&s->opt.regions, &s->region_names, "--regions");
	names_free(&events);
}

/*
 * Bytes a terminal acts on: C0 controls, DEL, and the C1 ones (U+0080 to
 * U+009F, 0xC2 0x80..0x9F in the UTF-8 jansson guarantees). Return: how
 * many bytes the one at @p takes, 0 when it is none.
 */
static size_t control_len(const unsigned char *p, size_t left)
{
	if (*p < 0x20 || *p == 0x7f)
		return 1;
	if (left >= 2 && p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
		return 2;
	return 0;
}

char *summary_shown(const char *text, size_t n, size_t *len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t k, out = 0;
	char *shown;

	for (k = 0; k < n && !control_len(s + k, n - k); k++)
		;
	if (k == n)
		return NULL;
	shown = xrealloc(NULL, 4 * n + 1);
	for (k = 0; k < n; k++) {
		size_t c = control_len(s + k, n - k);

		if (!c) {
			shown[out++] = (char)s[k];
			continue;
		}
		k += c - 1;	/* a C1 control is shown by its second byte's value */
		out += (size_t)snprintf(shown + out, 5, "\\x%02x", s[k]);
	}
	shown[out] = '\0';
	*len = out;
	return shown;
}

/*
 * Every string of @v with its control bytes shown as text (ESC as
 * "\x1b"), once, here where reports are read: no view can then send a
 * program's chosen name to a terminal as an escape sequence, or a line
 * break into a CSV cell or a text table.
 */
static void strings_shown(json_t *v)
{
	const char *key;
	json_t *item;
	size_t i;

	if (json_is_object(v)) {
		json_object_foreach(v, key, item)
			strings_shown(item);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, item)
			strings_shown(item);
	} else if (json_is_string(v)) {
		size_t len;
		char *shown = summary_shown(json_string_value(v), json_string_length(v), &len);

		if (shown)
			json_string_setn(v, shown, len);
		free(shown);
	}
}

/* A batch's objects, in order: each report checked and taken; then why the rest was skipped. */
static void batch_take(void *ctx, struct batch *b)
{
	struct summary *s = ctx;
	struct arena *was = arena_bind(&b->arena);	/* what report_take frees is in it */

	if (b->read_errno) {
		fprintf(stderr, "pfshim: %s: %s; skipped\n", b->path, strerror(b->read_errno));
		s->skipped++;
	}
	if (b->refused)
		skipped(s, b->path, b->refused, NULL);
	for (int i = 0; i < b->n; i++) {
		json_t *o = b->object[i];
		const char *schema = string_or(json_object_get(o, "schema"), "");
		const char *why = strcmp(schema, "pfshim.job") ? report_check(o) : summary_job_check(o);

		if (!why && !b->plain[i])	/* (a string the reader saw has no control byte) */
			strings_shown(o);
		if (why)
			skipped(s, b->path, why, NULL);
		else if (strcmp(schema, "pfshim.job") == 0)
			summary_job_take(s, o);
		else
			report_take(s, o);
	}
	if (b->error[0])
		skipped(s, b->path, b->error, NULL);
	for (int i = 0; i < b->torn; i++)
		skipped(s, b->path, "a report cut short in the spool (its process killed while "
			"writing it, or past its file size limit)", NULL);
	arena_bind(was);
}

void summary_add_text(struct summary *s, const char *path, const char *text, size_t len)
{
	struct batch b = { .path = path };

	batch_parse(&b, text, len);
	batch_take(s, &b);
	batch_free(&b);
}

struct file_list {
	char **path;
	struct input_rules *rules;
	int n, cap;
};

static void list_add(struct file_list *l, const char *path, struct input_rules rules)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->path = xrealloc(l->path, (size_t)l->cap * sizeof(*l->path));
		l->rules = xrealloc(l->rules, (size_t)l->cap * sizeof(*l->rules));
	}
	l->rules[l->n] = rules;
	l->path[l->n++] = xstrdup(path);
}

/* Byte order of names: alphasort()'s in the C locale the command runs in, without strcoll(). */
static int name_order(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/*
 * A report PFSHIM_FORMAT=text, csv, openmetrics (.om) or prometheus (.prom) wrote into a directory
 * (preload/process.c's extensions, series files too): not JSON, so not
 * read; one line for a directory says so, not one per file.
 */
static bool other_format(const char *name)
{
	static const char *const ext[] = { ".txt", ".csv", ".prom", ".om" };
	size_t n = strlen(name);

	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
		if (n > strlen(ext[i]) && strcmp(name + n - strlen(ext[i]), ext[i]) == 0)
			return true;
	return false;
}

/*
 * @path and what is below it, in name order. What the command line names is
 * taken as named (a link to a report is followed); below a directory nothing
 * is reached through a symbolic link (two links to "." would walk for ever;
 * another user's link would make root read a file of its choosing), and
 * only regular files are read, opened as input.h's rules say.
 */
static void list_walk(struct summary *s, struct file_list *l, const char *path, bool walked)
{
	struct input_rules rules = { .walked = walked, .any_owner = s->opt.any_owner };
	struct dirent **names;
	struct stat st;
	int n, others = 0;

	if ((walked ? lstat(path, &st) : stat(path, &st)) < 0) {
		fprintf(stderr, "pfshim: %s: %s; skipped\n", path, strerror(errno));
		s->skipped++;
		return;
	}
	if (S_ISREG(st.st_mode)) {
		list_add(l, path, rules);
		return;
	}
	if (S_ISLNK(st.st_mode)) {
		skipped(s, path, "a symbolic link in a directory: not followed", NULL);
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		skipped(s, path, "not a regular file or directory", NULL);
		return;
	}
	n = scandir(path, &names, NULL, name_order);
	if (n < 0) {
		fprintf(stderr, "pfshim: %s: %s; skipped\n", path, strerror(errno));
		s->skipped++;
		return;
	}
	for (int i = 0; i < n; i++) {
		/* ., .., and hidden temporary files; but a spool `pfshim run` did not split is reports */
		bool hidden = names[i]->d_name[0] == '.' &&
			      strncmp(names[i]->d_name, SPOOL_PREFIX, strlen(SPOOL_PREFIX)) != 0;

		if (!hidden && other_format(names[i]->d_name)) {
			others++;
		} else if (!hidden) {
			size_t len = strlen(path) + strlen(names[i]->d_name) + 2;
			char *child = xrealloc(NULL, len);

			snprintf(child, len, "%s%s%s", path,
				 path[strlen(path) - 1] == '/' ? "" : "/", names[i]->d_name);
			if (names[i]->d_type == DT_REG)	/* no lstat(): opening it checks it again */
				list_add(l, child, (struct input_rules){ true, s->opt.any_owner });
			else
				list_walk(s, l, child, true);
			free(child);
		}
		free(names[i]);
	}
	free(names);
	if (others) {
		fprintf(stderr, "pfshim: %s: %d report%s in text, CSV or OpenMetrics (PFSHIM_FORMAT) "
			"not read: pfshim report reads JSON, PFSHIM_OUTPUT=DIR/'s default; skipped\n",
			path, others, others == 1 ? "" : "s");
		s->skipped += (uint64_t)others;
	}
}

int summary_add_path(struct summary *s, const char *path)
{
	struct file_list l = { 0 };
	uint64_t skipped_before = s->skipped;

	if (strcmp(path, "-") == 0) {
		input_stdin(batch_take, s);
		return 0;
	}
	list_walk(s, &l, path, false);
	input_files(l.path, l.rules, l.n, batch_take, s);
	for (int i = 0; i < l.n; i++)
		free(l.path[i]);
	free(l.path);
	free(l.rules);
	return s->skipped > skipped_before && !l.n ? -1 : 0;
}
