/* SPDX-License-Identifier: MIT */
/*
 * json.c: the report as one JSON object on one line, so that reports from
 * several processes appended to one file form JSON Lines; the marker
 * regions, when the program used them, as its "regions" member.
 *
 * Async-signal-safe: formats into the caller's buffer with export/buf.h;
 * no allocation, stdio, locale or locks. Counts are printed from their u64
 * directly, never through a double, so they stay exact above 2^53.
 */
#include <stdbool.h>

#include "export/buf.h"
#include "export/names.h"
#include "export/report.h"
#include "export/version.h"

static void put_key(struct buf *b, const char *key)
{
	buf_putc(b, '"');
	buf_puts(b, key);
	buf_putn(b, "\":", 2);
}

static void put_u64_field(struct buf *b, const char *key, uint64_t v)
{
	put_key(b, key);
	buf_put_u64(b, v);
	buf_putc(b, ',');
}

static void put_i64_field(struct buf *b, const char *key, int64_t v)
{
	put_key(b, key);
	buf_put_i64(b, v);
	buf_putc(b, ',');
}

static void put_string_field(struct buf *b, const char *key, const char *s)
{
	put_key(b, key);
	buf_put_json_string(b, s);
	buf_putc(b, ',');
}

/* A string, or null where there is none (an errno without a name, no note). */
static void put_string_or_null_field(struct buf *b, const char *key, const char *s)
{
	put_key(b, key);
	if (s)
		buf_put_json_string(b, s);
	else
		buf_puts(b, "null");
	buf_putc(b, ',');
}

/* REPORT_NONE (no call took a min) is null. */
static void put_u64_or_null_field(struct buf *b, const char *key, uint64_t v)
{
	put_key(b, key);
	if (v == REPORT_NONE)
		buf_puts(b, "null");
	else
		buf_put_u64(b, v);
	buf_putc(b, ',');
}

static void put_bool_field(struct buf *b, const char *key, int v)
{
	put_key(b, key);
	buf_puts(b, v ? "true," : "false,");
}

/*
 * pfshim's own share of the counts (report.h): what the shim measured of
 * itself in this image; null when it measured nothing (a fork child's
 * unforked copy, a report built by hand).
 */
static void put_share_counts(struct buf *b, uint64_t faults, uint64_t switches, uint64_t cpu_ns)
{
	put_u64_field(b, "page_faults", faults);
	put_u64_field(b, "context_switches", switches);
	put_key(b, "task_clock_ns");
	buf_put_u64(b, cpu_ns);
}

static void put_share(struct buf *b, const struct report_share *sh)
{
	put_key(b, "pfshim_share");
	if (!sh->measured) {
		buf_puts(b, "null,");
		return;
	}
	buf_putc(b, '{');
	put_share_counts(b, sh->page_faults, sh->context_switches, sh->task_clock_ns);
	buf_puts(b, ",\"setup\":{");
	put_share_counts(b, sh->setup_page_faults, sh->setup_context_switches,
			 sh->setup_task_clock_ns);
	buf_puts(b, "},");
	put_u64_field(b, "forks", sh->forks);
	put_bool_field(b, "loaded", sh->loaded);
	put_bool_field(b, "setup_measured", sh->setup_measured);
	put_key(b, "reports_measured");
	buf_puts(b, sh->reports_measured ? "true}," : "false},");
}

/* A count that means nothing unless counted: null then, never a plausible 0. */
static void put_count_field(struct buf *b, const char *key, enum report_status status,
			    uint64_t v)
{
	put_key(b, key);
	if (status == STATUS_COUNTED)
		buf_put_u64(b, v);
	else
		buf_puts(b, "null");
	buf_putc(b, ',');
}

/* JSON has no NaN or infinity: a scale that is not a number is null. */
static void put_double(struct buf *b, double v)
{
	if (v != v || v > 1.7976931348623157e308 || v < -1.7976931348623157e308)
		buf_puts(b, "null");
	else
		buf_put_double(b, v);
}

/* Hybrid machines only: a part's "pmu", a sum's "parts" (names); nothing otherwise. */
static void put_core_pmu_fields(struct buf *b, const struct report *r,
				const struct report_event *e)
{
	if (e->pmu)
		put_string_field(b, "pmu", e->pmu);
	if (e->nr_parts <= 0)
		return;
	put_key(b, "parts");
	buf_putc(b, '[');
	for (int k = 0; k < e->nr_parts; k++) {
		int i = e->parts[k];

		if (k)
			buf_putc(b, ',');
		buf_put_json_string(b, i >= 0 && i < r->nr_events ? r->events[i].name : "?");
	}
	buf_puts(b, "],");
}

static void put_event(struct buf *b, const struct report *r, const struct report_event *e)
{
	const char *err = errno_name(e->error);

	buf_putc(b, '{');
	put_string_field(b, "name", e->name);
	put_string_field(b, "status", report_status_name(e->status));
	put_core_pmu_fields(b, r, e);
	put_count_field(b, "value", e->status, e->value);
	put_u64_field(b, "raw", e->raw);
	put_u64_field(b, "enabled_ns", e->enabled);
	put_u64_field(b, "running_ns", e->running);
	put_bool_field(b, "scaled", e->scaled);
	put_bool_field(b, "user_only", e->user_only);
	put_bool_field(b, "zero_when_user_only", e->zero_when_user_only);
	put_string_field(b, "unit", e->unit ? e->unit : "");
	put_key(b, "scale");
	put_double(b, e->scale);
	buf_putc(b, ',');
	put_i64_field(b, "errno", e->error < 0 ? -e->error : e->error);
	put_key(b, "error");
	if (err)
		buf_put_json_string(b, err);
	else
		buf_puts(b, "null");
	buf_putc(b, ',');
	put_key(b, "delta");	/* null unless counted: a plausible 0 would lie */
	if (e->status == STATUS_COUNTED && e->has_delta)
		buf_put_i64(b, e->delta);
	else
		buf_puts(b, "null");
	buf_putc(b, '}');
}

/*
 * `"inputs":[...]`: what each name of the formula stands for (an event by
 * its name in "events", the time, the clock's constant), so the metric can
 * be computed again from other counts: pfshim report --metrics sums them.
 */
static void put_metric_inputs(struct buf *b, const struct report *r, const struct report_metric *m)
{
	put_key(b, "inputs");
	buf_putc(b, '[');
	for (unsigned i = 0; i < m->nr_inputs; i++) {
		const struct report_metric_input *in = &m->inputs[i];
		bool event = in->source == INPUT_EVENT && in->event >= 0 && in->event < r->nr_events;

		buf_puts(b, i ? ",{" : "{");
		put_string_field(b, "name", in->name ? in->name : "?");
		put_string_field(b, "source", report_input_source_name(in->source));
		put_string_or_null_field(b, "event", event ? r->events[in->event].name : NULL);
		put_key(b, "value");
		if (in->source == INPUT_INVERSE_CLOCK)
			put_double(b, in->value);
		else
			buf_puts(b, "null");
		buf_putc(b, '}');
	}
	buf_putc(b, ']');
}

/*
 * `"metrics":[...]`: each metric, its value null unless computed; its
 * inputs in the report's own (a region's are the same metrics, in order).
 */
static void put_metric_array(struct buf *b, const struct report *r,
			     const struct report_metric *metrics, int nr, bool inputs)
{
	put_key(b, "metrics");
	buf_putc(b, '[');
	for (int i = 0; i < nr; i++) {
		const struct report_metric *m = &metrics[i];

		buf_puts(b, i ? ",{" : "{");
		put_string_field(b, "name", m->name);
		put_string_field(b, "unit", m->unit);
		put_key(b, "value");
		if (m->status == METRIC_COMPUTED)
			put_double(b, m->value);
		else
			buf_puts(b, "null");
		buf_putc(b, ',');
		put_string_field(b, "status", report_metric_status_name(m->status));
		put_bool_field(b, "scaled", m->scaled);
		put_string_or_null_field(b, "missing", m->missing);
		put_string_or_null_field(b, "why", m->why);
		put_key(b, "formula");
		buf_put_json_string(b, m->formula);
		if (inputs) {
			buf_putc(b, ',');
			put_metric_inputs(b, r, m);
		}
		buf_putc(b, '}');
	}
	buf_putc(b, ']');
}

/* ---- the regions of the marker API (docs/markers.md) */

static uint64_t thread_unclosed(const struct report_thread *t)
{
	uint64_t n = 0;

	for (int i = 0; i < t->nr_regions; i++)
		n += t->regions[i].unclosed;
	return n;
}

static void put_region_value(struct buf *b, const struct report *r, int e,
			     const struct report_region_value *v)
{
	buf_putc(b, '{');
	put_string_field(b, "name", report_region_event_name(r, e));
	put_count_field(b, "value", v->status, v->value);
	put_u64_field(b, "raw", v->raw);
	put_u64_field(b, "enabled_ns", v->enabled);
	put_u64_field(b, "running_ns", v->running);
	put_bool_field(b, "scaled", v->scaled);
	put_key(b, "status");
	buf_put_json_string(b, report_status_name(v->status));
	buf_putc(b, '}');
}

/* @node: a path node, with its parent's index. */
static void put_region(struct buf *b, const struct report *r, const struct report_region *g,
		       bool node)
{
	buf_putc(b, '{');
	put_string_field(b, "name", g->name);
	if (node)
		put_i64_field(b, "parent", g->parent);
	put_u64_field(b, "calls", g->calls);
	put_u64_field(b, "reentries", g->reentries);
	put_u64_field(b, "open", g->open);
	put_u64_field(b, "unclosed", g->unclosed);
	put_u64_field(b, "wall_ns", g->wall_ns);
	put_u64_or_null_field(b, "wall_min_ns", g->wall_min_ns);
	put_u64_or_null_field(b, "wall_max_ns", g->wall_max_ns);
	put_u64_or_null_field(b, "first_min", g->first_min);
	put_u64_or_null_field(b, "first_max", g->first_max);
	put_key(b, "events");
	buf_putc(b, '[');
	for (int e = 0; e < r->regions->nr_events; e++) {
		if (e)
			buf_putc(b, ',');
		put_region_value(b, r, e, &g->values[e]);
	}
	buf_puts(b, "]}");
}

/* `"probe":[{"name":..,"value":..,"status":..},...]` or null: pfshim's own count per call. */
static void put_thread_probe(struct buf *b, const struct report *r, const struct report_thread *t)
{
	put_key(b, "probe");
	if (!t->probe) {
		buf_puts(b, "null,");
		return;
	}
	buf_putc(b, '[');
	for (int e = 0; e < r->regions->nr_events; e++) {
		if (e)
			buf_putc(b, ',');
		buf_putc(b, '{');
		put_string_field(b, "name", report_region_event_name(r, e));
		put_count_field(b, "value", t->probe[e].status, t->probe[e].value);
		put_key(b, "status");
		buf_put_json_string(b, report_status_name(t->probe[e].status));
		buf_putc(b, '}');
	}
	buf_puts(b, "],");
}

static void put_thread(struct buf *b, const struct report *r, const struct report_thread *t)
{
	buf_putc(b, '{');
	put_i64_field(b, "tid", t->tid);
	put_string_field(b, "name", t->name);
	put_bool_field(b, "exited", t->exited);
	put_bool_field(b, "skipped", t->skipped);
	put_string_or_null_field(b, "open_error", t->open_error ? errno_name(t->open_error) : NULL);
	put_u64_field(b, "user_reads", t->user_reads);
	put_u64_field(b, "syscall_reads", t->syscall_reads);
	put_u64_field(b, "read_errors", t->read_errors);
	put_key(b, "misuse");
	buf_putc(b, '{');
	put_u64_field(b, "end_without_begin", t->end_without_begin);
	put_u64_field(b, "bad_handle", t->bad_handle);
	put_u64_field(b, "table_full", t->table_full);
	put_u64_field(b, "unnested", t->unnested);
	put_key(b, "unclosed");
	buf_put_u64(b, thread_unclosed(t));
	buf_puts(b, "},");
	put_thread_probe(b, r, t);
	put_key(b, "regions");
	buf_putc(b, '[');
	for (int i = 0; i < t->nr_regions; i++) {
		if (i)
			buf_putc(b, ',');
		put_region(b, r, &t->regions[i], false);
	}
	buf_puts(b, "],");
	/* The nesting paths: each node a region entry with its parent's index (-1: top). */
	put_key(b, "paths");
	buf_putc(b, '[');
	for (int i = 0; i < t->nr_paths; i++) {
		if (i)
			buf_putc(b, ',');
		put_region(b, r, &t->paths[i], true);
	}
	buf_puts(b, "]}");
}

static void put_stat(struct buf *b, const struct report_region_stat *s)
{
	put_string_field(b, "status", report_status_name(s->status));
	put_bool_field(b, "scaled", s->scaled);
	put_i64_field(b, "threads", s->threads);
	if (s->status != STATUS_COUNTED) {
		buf_puts(b, "\"sum\":null,\"min\":null,\"max\":null,\"mean\":null");
		return;
	}
	put_u64_field(b, "sum", s->sum);
	put_u64_field(b, "min", s->min);
	put_u64_field(b, "max", s->max);
	put_key(b, "mean");
	buf_put_u64(b, s->mean);
}

/* `[{"name":..,<stat>},...]`: one stat per region event, in the regions' order. */
static void put_named_stats(struct buf *b, const struct report *r,
			    const struct report_region_stat *stats)
{
	buf_putc(b, '[');
	for (int e = 0; e < r->regions->nr_events; e++) {
		if (e)
			buf_putc(b, ',');
		buf_putc(b, '{');
		put_string_field(b, "name", report_region_event_name(r, e));
		put_stat(b, &stats[e]);
		buf_putc(b, '}');
	}
	buf_putc(b, ']');
}

static void put_total(struct buf *b, const struct report *r, const struct report_region_total *t)
{
	buf_putc(b, '{');
	put_string_field(b, "name", t->name);
	put_i64_field(b, "threads", t->threads);
	put_u64_field(b, "calls", t->calls);
	put_u64_field(b, "reentries", t->reentries);
	put_u64_field(b, "unclosed", t->unclosed);
	put_u64_or_null_field(b, "first_min", t->first_min);
	put_u64_or_null_field(b, "first_max", t->first_max);
	put_key(b, "wall_ns");
	buf_putc(b, '{');
	put_stat(b, &t->wall);
	buf_puts(b, "},");
	put_key(b, "events");
	put_named_stats(b, r, t->values);
	if (r->region_metrics) {	/* PFSHIM_GROUP's metrics of the region */
		r->region_metrics(r, t, r->region_metrics_out);
		buf_putc(b, ',');
		put_metric_array(b, r, r->region_metrics_out, r->nr_metrics, false);
	}
	buf_putc(b, '}');
}

/* `,"regions":{...}`, just before the report's closing brace; nothing without markers. */
static void put_regions(struct buf *b, const struct report *r)
{
	const struct report_regions *g = r->regions;

	if (!g)
		return;
	buf_putc(b, ',');
	put_key(b, "regions");
	buf_putc(b, '{');
	put_key(b, "events");
	buf_putc(b, '[');
	for (int e = 0; e < g->nr_events; e++) {
		if (e)
			buf_putc(b, ',');
		buf_put_json_string(b, report_region_event_name(r, e));
	}
	buf_puts(b, "],");
	put_i64_field(b, "capacity", g->capacity);
	put_u64_field(b, "threads_unlisted", g->threads_unlisted);
	put_u64_field(b, "names_refused", g->names_refused);
	put_u64_field(b, "threads_failed", g->threads_failed);
	put_string_or_null_field(b, "note", g->note);
	put_string_or_null_field(b, "user_read_problem", g->user_read_problem);
	put_bool_field(b, "compensated", g->compensated);
	put_key(b, "probe");
	if (g->probe)
		put_named_stats(b, r, g->probe);
	else
		buf_puts(b, "null");
	buf_putc(b, ',');
	put_key(b, "threads");
	buf_putc(b, '[');
	for (int i = 0; i < g->nr_threads; i++) {
		if (i)
			buf_putc(b, ',');
		put_thread(b, r, &g->threads[i]);
	}
	buf_puts(b, "],");
	put_key(b, "totals");
	buf_putc(b, '[');
	for (int i = 0; i < g->nr_totals; i++) {
		if (i)
			buf_putc(b, ',');
		put_total(b, r, &g->totals[i]);
	}
	buf_puts(b, "]}");
}

/* "job": the batch job, null outside one; its step null outside a Slurm step. */
static void put_job(struct buf *b, const struct report_job *job)
{
	put_key(b, "job");
	if (!job) {
		buf_puts(b, "null,");
		return;
	}
	buf_putc(b, '{');
	put_string_field(b, "scheduler", job->scheduler);
	put_string_field(b, "id", job->id);
	put_key(b, "step");
	if (job->step)
		buf_put_json_string(b, job->step);
	else
		buf_puts(b, "null");
	buf_puts(b, "},");
}

/*
 * `,"metric_group":..,"metrics_ns":N,"metrics":[...]` with PFSHIM_GROUP or
 * PFSHIM_METRICS; nothing without. metrics_ns: the span they cover.
 */
static void put_metrics(struct buf *b, const struct report *r)
{
	if (!r->metric_group)
		return;
	buf_putc(b, ',');
	put_string_field(b, "metric_group", r->metric_group);
	put_u64_field(b, "metrics_ns", r->metrics_ns);
	put_metric_array(b, r, r->metrics, r->nr_metrics, true);
}

/* `"argv":[...],"argc":N,"argv_truncated":B,`; null and null where unknown. */
static void put_argv(struct buf *b, const struct report *r)
{
	const char *a = r->argv;

	put_key(b, "argv");
	if (!a) {
		buf_puts(b, "null,\"argc\":null,\"argv_truncated\":false,");
		return;
	}
	buf_putc(b, '[');
	for (int i = 0; i < r->argv_kept; i++) {
		if (i)
			buf_putc(b, ',');
		buf_put_json_string(b, a);
		while (*a)
			a++;
		a++;
	}
	buf_puts(b, "],");
	put_i64_field(b, "argc", r->argc);
	put_bool_field(b, "argv_truncated", r->argv_truncated);
}

/* A count of ns, or null when @known is 0. */
static void put_ns_or_null_field(struct buf *b, const char *key, int known, uint64_t v)
{
	put_key(b, key);
	if (known)
		buf_put_u64(b, v);
	else
		buf_puts(b, "null");
	buf_putc(b, ',');
}

size_t report_format_json(const struct report *r, char *out, size_t size)
{
	struct buf b;

	buf_init(&b, out, size);
	buf_putc(&b, '{');
	put_string_field(&b, "schema", "pfshim.report");
	put_i64_field(&b, "version", REPORT_SCHEMA_VERSION);
	put_string_field(&b, "pfshim_version", pfshim_version);
	put_string_field(&b, "program", r->program);
	put_string_field(&b, "argv0", r->argv0);
	put_argv(&b, r);
	put_string_or_null_field(&b, "cwd", r->cwd);
	put_i64_field(&b, "pid", r->pid);
	put_i64_field(&b, "ppid", r->ppid);
	put_key(&b, "pid_ns");	/* null in the initial pid namespace */
	if (r->pid_ns)
		buf_put_u64(&b, r->pid_ns);
	else
		buf_puts(&b, "null");
	buf_putc(&b, ',');
	put_string_field(&b, "hostname", r->hostname);
	put_string_or_null_field(&b, "boot_id", r->boot_id);
	put_key(&b, "rank");
	if (r->rank)
		buf_puts(&b, r->rank);	/* digits only: preload/config.c */
	else
		buf_puts(&b, "null");
	buf_putc(&b, ',');
	put_job(&b, r->job);
	put_u64_field(&b, "start_ns", r->start_ns);
	put_key(&b, "start_time");
	buf_putc(&b, '"');
	buf_put_utc(&b, r->start_ns);
	buf_puts(&b, "\",");
	put_u64_field(&b, "wall_ns", r->wall_ns);
	put_ns_or_null_field(&b, "user_ns", r->has_cpu_times, r->user_ns);
	put_ns_or_null_field(&b, "system_ns", r->has_cpu_times, r->system_ns);
	put_string_field(&b, "reason", report_reason_name(r->reason));
	put_key(&b, "signal");
	if (r->reason == REPORT_SIGNAL) {
		buf_put_i64(&b, r->signo);
		buf_putc(&b, ',');
		put_string_field(&b, "signal_name", signal_name(r->signo));
	} else {
		buf_puts(&b, "null,\"signal_name\":null,");
	}
	put_key(&b, "exit_status");	/* null but at exit, and there when exit()/_exit() said it */
	if (r->has_exit_status)
		buf_put_i64(&b, r->exit_status);
	else
		buf_puts(&b, "null");
	buf_putc(&b, ',');
	put_key(&b, "seq");	/* null without PFSHIM_INTERVAL */
	if (r->seq)
		buf_put_u64(&b, r->seq);
	else
		buf_puts(&b, "null");
	buf_putc(&b, ',');
	put_key(&b, "interval_ns");
	if (r->interval_ns)
		buf_put_u64(&b, r->interval_ns);
	else
		buf_puts(&b, "null");
	buf_putc(&b, ',');
	put_share(&b, &r->share);
	put_key(&b, "events");
	buf_putc(&b, '[');
	for (int i = 0; i < r->nr_events; i++) {
		if (i)
			buf_putc(&b, ',');
		put_event(&b, r, &r->events[i]);
	}
	buf_putc(&b, ']');
	put_metrics(&b, r);
	put_regions(&b, r);
	buf_puts(&b, "}\n");
	return buf_finish(&b);
}
