/* SPDX-License-Identifier: MIT */
/*
 * summary.c: the model's own operations (model/summary.h): its life, its
 * lookups and the orders and statistics every view shows. Nothing here
 * reads JSON or prints.
 */
#include "tools/pfshim/model/summary.h"

#include <stdlib.h>
#include <string.h>

#include "tools/pfshim/model/metrics.h"

const char *const summary_kind_names[KINDS] = {
	[KIND_STATIC] = "static", [KIND_NO_SHIM] = "no-shim", [KIND_NO_REPORT] = "no-report",
	[KIND_LOST] = "lost", [KIND_UNKNOWN] = "unknown", [KIND_RUNNING] = "running",
	[KIND_UNCOUNTED] = "uncounted",
};

/* Why a process is in no row, by kind (summary.h): what it is, and what may have made it so. */
const char *const summary_kind_what[KINDS] = {
	[KIND_STATIC] = "of a static or non-ELF program",
	[KIND_NO_SHIM] = "that did not load the shim",
	[KIND_NO_REPORT] = "that loaded the shim but left no report",
	[KIND_LOST] = "whose report could not be written",
	[KIND_UNKNOWN] = "whose last program left no report",
	[KIND_RUNNING] = "still running when the command ended",
	[KIND_UNCOUNTED] = "that exec'd a setuid, setgid or file-capability program, or one it may"
			   " not read",
};
const char *const summary_kind_why[KINDS] = {
	[KIND_STATIC] = "no preload can load there",
	[KIND_NO_SHIM] = "LD_PRELOAD removed from its environment, or a setuid program the kernel"
			 " still counts (its user's own)",
	[KIND_NO_REPORT] = "killed by SIGKILL or ended by a raw exit_group (the kernel does not say"
			   " which), a vfork() child that did not exec, pfshim off in it"
			   " (PFSHIM_DISABLE), or its report lost",
	[KIND_LOST] = "the output directory refused it (the error beside each program)",
	[KIND_UNKNOWN] = "killed by SIGKILL or before the shim started, static, setuid, a raw"
			 " exit_group, or the report lost",
	[KIND_RUNNING] = "orphaned or detached, each reports into the directory when it ends,"
			 " for pfshim report there; counted up to the command's end",
	[KIND_UNCOUNTED] = "the kernel stops counting a process at an exec that leaves it not"
			   " dumpable (another user's rights, or a program it may not read), for"
			   " perf stat too",
};

const char *const summary_kind_counts[KINDS] = {
	[KIND_STATIC] = "their counts are in the totals, not in a row",
	[KIND_NO_SHIM] = "their counts are in the totals, not in a row",
	[KIND_NO_REPORT] = "their counts are in the totals, not in a row",
	[KIND_LOST] = "their counts are in the totals, not in a row",
	[KIND_UNKNOWN] = "their counts are in the totals, not in a row",
	[KIND_RUNNING] = "their counts are in the totals, not in a row",
	[KIND_UNCOUNTED] = "their counts up to that exec are in the totals; after it, theirs and"
			   " their children's are in none",
};

const char *const summary_share_names[SHARE_FIELDS] = {
	[SHARE_PAGE_FAULTS] = "page_faults",
	[SHARE_TASK_CLOCK] = "task_clock_ns",
	[SHARE_CONTEXT_SWITCHES] = "context_switches",
};

void summary_init(struct summary *s, const struct summary_options *opt)
{
	memset(s, 0, sizeof(*s));
	if (opt)
		s->opt = *opt;
	names_add(&s->metrics, "wall");
	region_tree_init(&s->region_tree);
}

void summary_free(struct summary *s)
{
	for (int i = 0; i < s->nr_events; i++) {
		free(s->events[i].name);
		free(s->events[i].unit);
	}
	for (int i = 0; i < s->nr_groups; i++) {
		free(s->groups[i].name);
		free(s->groups[i].program);
		free(s->groups[i].sums);
	}
	for (int i = 0; i < s->nr_images; i++) {
		free(s->image_list[i].argv0);
		free(s->image_list[i].argv);
		free(s->image_list[i].reason);
		free(s->image_list[i].value);
	}
	metric_sums_free(s->metric_sums);
	free(s->events);
	free(s->totals);
	free(s->groups);
	free(s->cells);
	free(s->probes);
	free(s->points);
	free(s->image_list);
	free(s->seen);
	free(s->ends);
	free(s->pending);
	free(s->process_keys);
	free(s->ended_keys);
	table_free(&s->ended_index);
	free(s->series_keys);
	table_free(&s->series_index);
	free(s->title);
	if (s->job)
		summary_job_free(s->job);
	free(s->job);
	free(s->signal_end_count);
	names_free(&s->signal_ends);
	names_free(&s->group_keys);
	names_free(&s->hosts);
	names_free(&s->machines);
	names_free(&s->programs);
	names_free(&s->region_names);
	region_tree_free(&s->region_tree);
	names_free(&s->metrics);
	names_free(&s->opt.events);
	names_free(&s->opt.regions);
	table_free(&s->cell_index);
	table_free(&s->point_index);
	table_free(&s->seen_index);
	table_free(&s->process_index);
	memset(s, 0, sizeof(*s));
}

/* (machine, pid namespace, pid), and with start_ns: one image of it. */
uint64_t summary_process_key(const char *machine, uint64_t pid_ns, int64_t pid)
{
	uint64_t h = hash_string(HASH_SEED, machine);

	h = hash_bytes(h, &pid_ns, sizeof(pid_ns));
	return hash_bytes(h, &pid, sizeof(pid));
}

bool summary_process_ended(const struct summary *s, uint64_t key)
{
	struct table_key_probe p = { s->ended_keys, sizeof(uint64_t), key };

	return table_find(&s->ended_index, key, table_key_match, &p) >= 0;
}

const char *summary_by_name(enum summary_by by)
{
	static const char *const name[] = { "program", "rank", "host", "process" };

	return name[by];
}

int summary_event_index(struct summary *s, const char *name, const char *unit, double scale)
{
	int i;

	for (i = 0; i < s->nr_events; i++)
		if (strcmp(s->events[i].name, name) == 0)
			return i;
	s->events = xrealloc(s->events, (size_t)(i + 1) * sizeof(*s->events));
	s->events[i] = (struct summary_event){ xstrdup(name), xstrdup(unit), scale };
	s->totals = xrealloc(s->totals, (size_t)(i + 1) * sizeof(*s->totals));
	s->totals[i] = (struct summary_sum){ 0 };
	for (int g = 0; g < s->nr_groups; g++) {
		s->groups[g].sums = xrealloc(s->groups[g].sums,
					     (size_t)(i + 1) * sizeof(struct summary_sum));
		s->groups[g].sums[i] = (struct summary_sum){ 0 };
	}
	s->nr_events = i + 1;
	return i;
}

int summary_group_get(struct summary *s, const char *key, int64_t order)
{
	int g = names_find(&s->group_keys, key);

	if (g >= 0)
		return g;
	g = names_add(&s->group_keys, key);
	s->groups = xrealloc(s->groups, (size_t)(g + 1) * sizeof(*s->groups));
	s->groups[g] = (struct summary_group){ .name = xstrdup(key), .order = order };
	s->groups[g].sums = xrealloc(NULL, (size_t)s->nr_events * sizeof(struct summary_sum));
	memset(s->groups[g].sums, 0, (size_t)s->nr_events * sizeof(struct summary_sum));
	s->nr_groups = g + 1;
	return g;
}

struct cell_key {
	const struct summary *s;
	int region, group, metric;
};

static uint64_t cell_hash(int region, int group, int metric)
{
	int k[3] = { region, group, metric };

	return hash_bytes(HASH_SEED, k, sizeof(k));
}

static bool cell_match(const void *ctx, int pos)
{
	const struct cell_key *k = ctx;
	const struct summary_cell *c = &k->s->cells[pos];

	return c->region == k->region && c->group == k->group && c->metric == k->metric;
}

static uint64_t cell_hash_at(const void *ctx, int pos)
{
	const struct summary_cell *c = &((const struct summary *)ctx)->cells[pos];

	return cell_hash(c->region, c->group, c->metric);
}

const struct summary_cell *summary_cell(const struct summary *s, int region, int group, int metric)
{
	struct cell_key k = { s, region, group, metric };
	int i = table_find(&s->cell_index, cell_hash(region, group, metric), cell_match, &k);

	return i < 0 ? NULL : &s->cells[i];
}

struct summary_cell *summary_cell_get(struct summary *s, int region, int group, int metric)
{
	const struct summary_cell *c = summary_cell(s, region, group, metric);

	if (c)
		return (struct summary_cell *)c;
	s->cells = xrealloc(s->cells, (size_t)(s->nr_cells + 1) * sizeof(*s->cells));
	s->cells[s->nr_cells] = (struct summary_cell){ .region = region, .group = group,
						       .metric = metric, .thread_min = UINT64_MAX };
	table_add(&s->cell_index, cell_hash(region, group, metric), s->nr_cells, cell_hash_at, s);
	return &s->cells[s->nr_cells++];
}

void summary_region_stats(const struct summary *s, int region, int metric, struct summary_stats *st)
{
	*st = (struct summary_stats){ .min = UINT64_MAX, .thread_min = UINT64_MAX };
	for (int g = 0; g < s->nr_groups; g++) {
		const struct summary_cell *c = summary_cell(s, region, g, metric);
		const struct summary_cell *c0 = summary_cell(s, region, g, 0);

		if (c0) {
			count_add(&st->calls, c0->calls);
			count_add(&st->reentries, c0->reentries);
			count_add(&st->unclosed, c0->unclosed);
		}
		if (!c || !c->counted)
			continue;
		st->counted = true;
		st->groups++;
		count_add(&st->sum, c->sum);
		count_add(&st->threads, c->threads);
		if (c->sum < st->min)
			st->min = c->sum;
		if (c->sum > st->max)
			st->max = c->sum;
		if (c->thread_min < st->thread_min)
			st->thread_min = c->thread_min;
		if (c->thread_max > st->thread_max)
			st->thread_max = c->thread_max;
	}
	if (!st->counted) {
		st->min = st->thread_min = 0;
		return;
	}
	st->mean = (double)st->sum / st->groups;
	st->imbalance = st->mean > 0 ? st->max / st->mean : 1.0;
}

static const struct summary *sort_s;	/* qsort has no context argument */

static int group_cmp(const void *a, const void *b)
{
	const struct summary_group *x = &sort_s->groups[*(const int *)a];
	const struct summary_group *y = &sort_s->groups[*(const int *)b];

	if (sort_s->opt.by == BY_RANK || sort_s->opt.by == BY_PROCESS) {
		if (x->order != y->order)	/* no rank ("-", -1) first */
			return x->order < y->order ? -1 : 1;
	} else if (sort_s->nr_events) {	/* largest first event (task-clock by default) first */
		uint64_t vx = x->sums[0].value, vy = y->sums[0].value;

		if (vx != vy)
			return vx < vy ? 1 : -1;
	}
	return strcmp(x->name, y->name);
}

int *summary_groups_sorted(const struct summary *s)
{
	int *order = xrealloc(NULL, (size_t)s->nr_groups * sizeof(*order));

	for (int g = 0; g < s->nr_groups; g++)
		order[g] = g;
	sort_s = s;
	qsort(order, (size_t)s->nr_groups, sizeof(*order), group_cmp);
	return order;
}

void summary_job_free(struct summary_job *job)
{
	for (int p = 0; p < job->nr_processes; p++) {
		free(job->process[p].program);
		free(job->process[p].report_error);
	}
	free(job->process);
	free(job->keys);
	free(job->host);
	free(job->boot_id);
	free(job->event);
	free(job->total);
	for (int k = 0; k < KINDS; k++) {
		free(job->unreported_count[k]);
		names_free(&job->unreported_programs[k]);
	}
	names_free(&job->outlived_programs);
	names_free(&job->uncounted_programs);
	free(job->uncounted_keys);
	free(job->calibration_error);
	free(job->calibration_program);
	free(job->total_sums);
	free(job->rest_sums);
	free(job->share_sums);
	free(job->less_share_sums);
}

