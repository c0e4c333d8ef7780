/* SPDX-License-Identifier: MIT */
/*
 * combine.c: one report, already chosen as its image's last (summary.c),
 * added into the combined picture: totals and its group's sums per event,
 * its regions per group (cells), its record for the tree; and any report
 * with a "seq", its deltas into the time series. Every field is checked for
 * its type: a report that passed summary.c's check may still hold anything
 * else, and what has the wrong type is left out.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export/report.h"	/* the status names the reports write */
#include "tools/pfshim/model/metrics.h"
#include "tools/pfshim/read/read.h"

/* The rank as the reports have it: an integer (a string of digits before version 1 was fixed). */
static int64_t rank_of(json_t *r)
{
	json_t *rank = json_object_get(r, "rank");
	const char *digits;
	char *end;
	long long v;

	if (is_count(rank))
		return json_integer_value(rank);
	digits = string_or(rank, "");
	if (!*digits)
		return -1;
	v = strtoll(digits, &end, 10);
	return *end || v < 0 ? -1 : v;
}

int summary_group_of(struct summary *s, json_t *r)
{
	const char *host = string_or(json_object_get(r, "hostname"), "?");
	int64_t pid = json_integer_value(json_object_get(r, "pid")), order = 0;
	char key[320];

	switch (s->opt.by) {
	case BY_PROGRAM:
		snprintf(key, sizeof(key), "%s", string_or(json_object_get(r, "program"), "?"));
		break;
	case BY_RANK:
		order = rank_of(r);
		snprintf(key, sizeof(key), order < 0 ? "-" : "%" PRId64, order);
		break;
	case BY_HOST:
		snprintf(key, sizeof(key), "%s", host);
		break;
	case BY_PROCESS:
		order = pid;
		if (is_count(json_object_get(r, "pid_ns")))	/* a container's pid 1 is not the host's */
			snprintf(key, sizeof(key), "%s:%" PRId64 "/%" PRIu64, host, pid,
				 count_or(json_object_get(r, "pid_ns"), 0));
		else
			snprintf(key, sizeof(key), "%s:%" PRId64, host, pid);
		break;
	}
	return summary_group_get(s, key, order);
}

/* An event the options keep: all without --events. */
static bool event_wanted(const struct summary *s, const char *name)
{
	return !s->opt.events.n || names_find(&s->opt.events, name) >= 0;
}

/* The longest argv line a tree shows, "..." included: 22 cc1 runs differ in their first words. */
#define ARGV_LINE_MAX 160

/*
 * A report's argv as one line, as a shell would take it back: an argument
 * with a blank, a quote or nothing in it single-quoted. Its control bytes
 * were shown as \xHH when it was read (summary.c), so the line holds none.
 * Cut at ARGV_LINE_MAX bytes, or where the report cut it, with "...".
 * NULL when the report has no argv (written before there was one).
 */
static char *argv_line(json_t *r)
{
	json_t *argv = json_object_get(r, "argv"), *a;
	char *line, *at;
	size_t i, used = 0, max = ARGV_LINE_MAX - 3;
	bool cut = json_is_true(json_object_get(r, "argv_truncated"));

	if (!json_is_array(argv))
		return NULL;
	line = xrealloc(NULL, ARGV_LINE_MAX + 1);
	json_array_foreach(argv, i, a) {
		const char *s = string_or(a, "?");
		bool quote = !*s || strpbrk(s, " \t'\"\\$`") != NULL;

		for (const char *c = i ? " " : ""; *c && used < max; c++)
			line[used++] = *c;
		if (quote && used < max)
			line[used++] = '\'';
		for (; *s && used < max; s++) {
			if (quote && *s == '\'') {
				for (const char *c = "'\\''"; *c && used < max; c++)
					line[used++] = *c;
				continue;
			}
			line[used++] = *s;
		}
		if (*s) {
			cut = true;
			break;
		}
		if (quote && used < max)
			line[used++] = '\'';
		if (used == max && i + 1 < json_array_size(argv)) {
			cut = true;
			break;
		}
	}
	/* A cut leaves no piece of a UTF-8 character: the line stays a JSON string (--json). */
	while (cut && used > 0 && ((unsigned char)line[used - 1] & 0x80))
		used--;
	at = line + used;
	strcpy(at, cut ? "..." : "");
	return line;
}

static void image_record(struct summary *s, json_t *r, const uint64_t *value, int nr_values)
{
	struct summary_image *im;

	s->image_list = xgrow(s->image_list, (size_t)s->nr_images, sizeof(*s->image_list));
	im = &s->image_list[s->nr_images++];
	*im = (struct summary_image){
		.host = names_add(&s->hosts, string_or(json_object_get(r, "hostname"), "?")),
		.machine = names_add(&s->machines, summary_machine_of(r)),
		.pid_ns = count_or(json_object_get(r, "pid_ns"), 0),
		.pid = (int)json_integer_value(json_object_get(r, "pid")),
		.ppid = (int)count_or(json_object_get(r, "ppid"), 0),
		.program = names_add(&s->programs, string_or(json_object_get(r, "program"), "?")),
		.argv0 = xstrdup(string_or(json_object_get(r, "argv0"), "")),
		.argv = argv_line(r),
		.reason = xstrdup(string_or(json_object_get(r, "reason"), "?")),
		.exit_status = is_count(json_object_get(r, "exit_status")) ?
			(int)json_integer_value(json_object_get(r, "exit_status")) : -1,
		.signal = is_count(json_object_get(r, "signal")) ?
			(int)json_integer_value(json_object_get(r, "signal")) : -1,
		.start_ns = count_or(json_object_get(r, "start_ns"), 0),
		.wall_ns = count_or(json_object_get(r, "wall_ns"), 0),
		.nr_values = nr_values,
	};
	im->value = xrealloc(NULL, (size_t)nr_values * sizeof(*im->value));
	memcpy(im->value, value, (size_t)nr_values * sizeof(*im->value));
}


/* One per-thread statistics object of a region total: {status, threads, sum, min, max}. */
static void cell_add_stats(struct summary_cell *c, json_t *st)
{
	if (strcmp(string_or(json_object_get(st, "status"), ""), report_status_name(STATUS_COUNTED)) ||
	    !is_count(json_object_get(st, "sum")))
		return;
	c->counted = true;
	count_add(&c->sum, count_or(json_object_get(st, "sum"), 0));
	count_add(&c->threads, count_or(json_object_get(st, "threads"), 0));
	if (is_count(json_object_get(st, "min")) &&
	    count_or(json_object_get(st, "min"), 0) < c->thread_min)
		c->thread_min = count_or(json_object_get(st, "min"), 0);
	if (count_or(json_object_get(st, "max"), 0) > c->thread_max)
		c->thread_max = count_or(json_object_get(st, "max"), 0);
}

/* One event's probe over a report's threads (a region_stat object), into the job's. */
static void probe_add(struct summary *s, json_t *st)
{
	const char *name = string_or(json_object_get(st, "name"), NULL);
	struct summary_probe *p = NULL;
	int metric;

	if (!name || !event_wanted(s, name) || !is_count(json_object_get(st, "min")) ||
	    !is_count(json_object_get(st, "max")) || !is_count(json_object_get(st, "sum")))
		return;
	metric = names_add(&s->metrics, name);
	for (int i = 0; i < s->nr_probes; i++)
		if (s->probes[i].metric == metric)
			p = &s->probes[i];
	if (!p) {
		s->probes = xrealloc(s->probes, (size_t)(s->nr_probes + 1) * sizeof(*s->probes));
		p = &s->probes[s->nr_probes++];
		*p = (struct summary_probe){ .metric = metric, .min = UINT64_MAX };
	}
	count_add(&p->sum, count_or(json_object_get(st, "sum"), 0));
	count_add(&p->threads, count_or(json_object_get(st, "threads"), 0));
	if (count_or(json_object_get(st, "min"), 0) < p->min)
		p->min = count_or(json_object_get(st, "min"), 0);
	if (count_or(json_object_get(st, "max"), 0) > p->max)
		p->max = count_or(json_object_get(st, "max"), 0);
}

/*
 * One thread's paths into the job's region tree. A node's parent is an
 * earlier node of the same array (as the shim lists them); one that is not,
 * one deeper than REGION_TREE_DEPTH_MAX, or a region --regions leaves out,
 * leaves its node, and so its subtree, out of the tree.
 */
static void paths_add(struct summary *s, json_t *paths)
{
	size_t n = json_array_size(paths), i, j;
	int *node_of;
	json_t *p, *e;

	if (!n)
		return;
	node_of = xrealloc(NULL, n * sizeof(*node_of));
	json_array_foreach(paths, i, p) {
		const char *name = string_or(json_object_get(p, "name"), NULL);
		json_t *parent = json_object_get(p, "parent");
		json_int_t up = json_is_integer(parent) ? json_integer_value(parent) : -2;
		int node;

		node_of[i] = -1;
		if (!name || up < -1 || up >= (json_int_t)i || (up >= 0 && node_of[up] < 0) ||
		    (up >= 0 && s->region_tree.node[node_of[up]].depth + 1 >= REGION_TREE_DEPTH_MAX) ||
		    (s->opt.regions.n && names_find(&s->opt.regions, name) < 0))
			continue;
		node = region_tree_node(&s->region_tree, up >= 0 ? node_of[up] : -1,
					names_add(&s->region_names, name));
		node_of[i] = node;
		count_add(&s->region_tree.node[node].calls, count_or(json_object_get(p, "calls"), 0));
		count_add(&s->region_tree.node[node].reentries,
			  count_or(json_object_get(p, "reentries"), 0));
		if (is_count(json_object_get(p, "wall_ns")))
			region_tree_add(&s->region_tree, node, 0,
					count_or(json_object_get(p, "wall_ns"), 0));
		json_array_foreach(json_object_get(p, "events"), j, e) {
			const char *ev = string_or(json_object_get(e, "name"), NULL);

			if (!ev || !event_wanted(s, ev) || !is_count(json_object_get(e, "value")) ||
			    strcmp(string_or(json_object_get(e, "status"), ""),
				   report_status_name(STATUS_COUNTED)))
				continue;
			region_tree_add(&s->region_tree, node, names_add(&s->metrics, ev),
					count_or(json_object_get(e, "value"), 0));
		}
	}
	free(node_of);
}

static void regions_add(struct summary *s, int group, json_t *regions)
{
	json_t *threads = json_object_get(regions, "threads"), *totals = json_object_get(regions, "totals");
	json_t *t, *total, *e;
	size_t i, j;

	count_add(&s->misuse.names_refused, count_or(json_object_get(regions, "names_refused"), 0));
	s->region_reports++;
	s->compensated_reports += json_is_true(json_object_get(regions, "compensated"));
	json_array_foreach(json_object_get(regions, "probe"), i, e)
		probe_add(s, e);
	json_array_foreach(threads, i, t) {
		json_t *m = json_object_get(t, "misuse");

		count_add(&s->misuse.end_without_begin, count_or(json_object_get(m, "end_without_begin"), 0));
		count_add(&s->misuse.bad_handle, count_or(json_object_get(m, "bad_handle"), 0));
		count_add(&s->misuse.table_full, count_or(json_object_get(m, "table_full"), 0));
		count_add(&s->misuse.unnested, count_or(json_object_get(m, "unnested"), 0));
	}
	json_array_foreach(totals, i, total) {
		const char *name = string_or(json_object_get(total, "name"), NULL);
		struct summary_cell *c;
		int region;

		if (!name || (s->opt.regions.n && names_find(&s->opt.regions, name) < 0))
			continue;
		region = names_add(&s->region_names, name);
		c = summary_cell_get(s, region, group, 0);
		count_add(&c->calls, count_or(json_object_get(total, "calls"), 0));
		count_add(&c->reentries, count_or(json_object_get(total, "reentries"), 0));
		count_add(&c->unclosed, count_or(json_object_get(total, "unclosed"), 0));
		cell_add_stats(c, json_object_get(total, "wall_ns"));
		json_array_foreach(json_object_get(total, "events"), j, e) {
			const char *ev = string_or(json_object_get(e, "name"), NULL);

			if (!ev || !event_wanted(s, ev))
				continue;
			c = summary_cell_get(s, region, group, names_add(&s->metrics, ev));
			cell_add_stats(c, e);
		}
	}
	/* After the totals: the regions and metrics keep the order the totals give them. */
	json_array_foreach(threads, i, t)
		paths_add(s, json_object_get(t, "paths"));
	count_add(&s->region_tree.threads_unlisted,
		  count_or(json_object_get(regions, "threads_unlisted"), 0));
}

void summary_count(struct summary *s, json_t *r)
{
	int g = summary_group_of(s, r);
	json_t *events = json_object_get(r, "events"), *e, *regions = json_object_get(r, "regions");
	struct summary_end *end;
	const char *reason;
	uint64_t *values = NULL;
	size_t i;

	s->images++;
	s->groups[g].images++;
	reason = string_or(json_object_get(r, "reason"), "");
	s->images_unended += strcmp(reason, "exit") && strcmp(reason, "exec") && strcmp(reason, "signal");
	s->ends = xgrow(s->ends, (size_t)s->nr_ends, sizeof(*s->ends));
	end = &s->ends[s->nr_ends++];
	*end = (struct summary_end){
		.start_ns = count_or(json_object_get(r, "start_ns"), 0),
		.end_ns = count_or(json_object_get(r, "start_ns"), 0) +
			  count_or(json_object_get(r, "wall_ns"), 0),
		.process = summary_process_key(summary_machine_of(r),
					       count_or(json_object_get(r, "pid_ns"), 0),
					       json_integer_value(json_object_get(r, "pid"))),
		.faults_event = -1,
		.program = names_add(&s->programs, string_or(json_object_get(r, "program"), "?")),
		.exec_end = strcmp(reason, "exec") == 0,
	};
	if (s->opt.by == BY_PROCESS) {	/* the image that started last is the process's program now */
		free(s->groups[g].program);
		s->groups[g].program = xstrdup(string_or(json_object_get(r, "program"), "?"));
	}
	if (s->opt.images) {
		values = xrealloc(NULL, 2 * (json_array_size(events) + 1) * sizeof(*values));
		for (i = 0; i < 2 * json_array_size(events); i++)
			values[i] = UINT64_MAX;
	}
	json_array_foreach(events, i, e) {
		const char *name = json_string_value(json_object_get(e, "name"));
		json_t *value = json_object_get(e, "value"), *scale = json_object_get(e, "scale");
		int k;

		if (!event_wanted(s, name))
			continue;
		k = summary_event_index(s, name, string_or(json_object_get(e, "unit"), ""),
				json_is_number(scale) ? json_number_value(scale) : 1.0);
		if (values) {	/* (event, value) pairs, laid out by event below */
			values[2 * i] = (uint64_t)k;
			values[2 * i + 1] = json_is_integer(value) ? (uint64_t)json_integer_value(value)
								   : UINT64_MAX;
		}
		if (!json_is_integer(value)) {
			const char *status = string_or(json_object_get(e, "status"), "");

			if (!strcmp(status, report_status_name(STATUS_NOT_SUPPORTED))) {
				s->totals[k].not_supported++;
				s->groups[g].sums[k].not_supported++;
			} else if (!strcmp(status, report_status_name(STATUS_CLOSED))) {
				s->totals[k].closed++;
				s->groups[g].sums[k].closed++;
			}
			continue;
		}
		count_add(&s->totals[k].value, (uint64_t)json_integer_value(value));
		s->totals[k].counted++;
		if (end->faults_event < 0 && summary_share_field(name) == SHARE_PAGE_FAULTS) {
			end->faults_event = k;
			end->faults = (uint64_t)json_integer_value(value);
		}
		count_add(&s->groups[g].sums[k].value, (uint64_t)json_integer_value(value));
		s->groups[g].sums[k].counted++;
	}
	if (s->opt.images) {
		uint64_t *by_event = xrealloc(NULL, (size_t)s->nr_events * sizeof(*by_event));

		for (int k = 0; k < s->nr_events; k++)
			by_event[k] = UINT64_MAX;
		for (size_t k = 0; values && k < json_array_size(events); k++)
			if (values[2 * k] != UINT64_MAX)
				by_event[values[2 * k]] = values[2 * k + 1];
		image_record(s, r, by_event, s->nr_events);
		free(by_event);
	}
	free(values);
	if (json_is_object(regions))
		regions_add(s, g, regions);
	if (s->opt.metrics)
		metric_sums_add(s, g, r);
}

struct point_key {
	const struct summary *s;
	int group, event;
	int64_t bucket;
};

static uint64_t point_hash(int group, int event, int64_t bucket)
{
	int64_t k[3] = { group, event, bucket };

	return hash_bytes(HASH_SEED, k, sizeof(k));
}

static bool point_match(const void *ctx, int pos)
{
	const struct point_key *k = ctx;
	const struct summary_point *p = &k->s->points[pos];

	return p->group == k->group && p->event == k->event && p->bucket == k->bucket;
}

static uint64_t point_hash_at(const void *ctx, int pos)
{
	const struct summary_point *p = &((const struct summary *)ctx)->points[pos];

	return point_hash(p->group, p->event, p->bucket);
}

/*
 * The series: each report's deltas at its time (start_ns + wall_ns), summed
 * per group at the nearest multiple of the first interval_ns read. Steps
 * are counted from the Unix epoch, so the processes of a job share them
 * whenever they started: with 0.1 s steps, reports at 1.26 s and 1.33 s are
 * both put at 1.3 s (a timer fires a little late, never early).
 */
void summary_series_add(struct summary *s, json_t *r)
{
	uint64_t interval = count_or(json_object_get(r, "interval_ns"), 0);
	uint64_t t = count_or(json_object_get(r, "start_ns"), 0);	/* its time: at most INT64_MAX */
	int g = summary_group_of(s, r);
	json_t *e;
	size_t i;

	uint64_t start = count_or(json_object_get(r, "start_ns"), 0);

	count_add(&t, count_or(json_object_get(r, "wall_ns"), 0));
	if (start && (!s->series_start_ns || start < s->series_start_ns))
		s->series_start_ns = start;
	if (!s->bucket_ns && interval)
		s->bucket_ns = interval;
	if (!s->bucket_ns)
		return;		/* a "seq" without an "interval_ns": no step to put it on */
	json_array_foreach(json_object_get(r, "events"), i, e) {
		const char *name = json_string_value(json_object_get(e, "name"));
		json_t *delta = json_object_get(e, "delta"), *scale = json_object_get(e, "scale");
		struct point_key k = { s, g, 0, (int64_t)((t + s->bucket_ns / 2) / s->bucket_ns) };
		int p;

		if (!is_count(delta) || !event_wanted(s, name))
			continue;
		k.event = summary_event_index(s, name, string_or(json_object_get(e, "unit"), ""),
				      json_is_number(scale) ? json_number_value(scale) : 1.0);
		p = table_find(&s->point_index, point_hash(g, k.event, k.bucket), point_match, &k);
		if (p < 0) {
			s->points = xrealloc(s->points, (size_t)(s->nr_points + 1) * sizeof(*s->points));
			s->points[s->nr_points] = (struct summary_point){ g, k.event, k.bucket, 0, 0 };
			p = s->nr_points++;
			table_add(&s->point_index, point_hash(g, k.event, k.bucket), p, point_hash_at, s);
		}
		count_add(&s->points[p].delta, (uint64_t)json_integer_value(delta));
		s->points[p].reports++;
	}
}
