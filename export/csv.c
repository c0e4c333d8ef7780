/* SPDX-License-Identifier: MIT */
/*
 * csv.c: the report as CSV, one header line then one row per event, every
 * row self-contained (pid, program, reason repeated) so rows from several
 * reports can be concatenated and filtered with ordinary tools. The marker
 * regions, when the program used them, follow as a second table.
 *
 * Async-signal-safe: formats into the caller's buffer with export/buf.h;
 * no allocation, stdio, locale or locks.
 */
#include "export/buf.h"
#include "export/names.h"
#include "export/report.h"
#include "export/version.h"

/* Documented column by column in docs/output.md; keep them in step. */
static const char csv_header[] =
	"pid,program,reason,signal,wall_ns,event,value,unit,scale,raw,"
	"enabled_ns,running_ns,running_percent,status,user_only,"
	"zero_when_user_only,error,pid_ns,seq,interval_ns,delta,job_scheduler,job_id,job_step,"
	"pfshim_version\n";
static const char csv_regions_header[] =
	"pid,program,reason,scope,tid,thread,region,threads,calls,reentries,unclosed,"
	"wall_ns,event,value,raw,enabled_ns,running_ns,status,min,max,mean,compensated,"
	"job_scheduler,job_id,job_step,pfshim_version\n";

static const char csv_metrics_header[] =
	"pid,program,reason,metric_group,region,metric,value,unit,status,scaled,missing,formula,"
	"job_scheduler,job_id,job_step,pfshim_version\n";

/* The columns every table starts with. */
static void put_process(struct buf *b, const struct report *r)
{
	buf_put_i64(b, r->pid);
	buf_putc(b, ',');
	buf_put_csv_field(b, r->program);
	buf_putc(b, ',');
	buf_puts(b, report_reason_name(r->reason));
	buf_putc(b, ',');
}

/*
 * The last columns of every row of every table: the batch job (empty cells
 * outside one; job_step empty outside a Slurm step), and the pfshim that
 * wrote the row.
 */
static void put_row_end(struct buf *b, const struct report *r)
{
	buf_putc(b, ',');
	if (r->job) {
		buf_puts(b, r->job->scheduler);
		buf_putc(b, ',');
		buf_put_csv_field(b, r->job->id);
		buf_putc(b, ',');
		if (r->job->step)
			buf_put_csv_field(b, r->job->step);
	} else {
		buf_puts(b, ",,");
	}
	buf_putc(b, ',');
	buf_puts(b, pfshim_version);
	buf_putc(b, '\n');
}

static void put_error(struct buf *b, int error)
{
	const char *name = errno_name(error);

	if (name)
		buf_puts(b, name);
	else if (error)
		buf_put_i64(b, error < 0 ? -error : error);
}

static void put_row(struct buf *b, const struct report *r,
		    const struct report_event *e)
{
	put_process(b, r);
	if (r->reason == REPORT_SIGNAL)
		buf_put_i64(b, r->signo);
	buf_putc(b, ',');
	buf_put_u64(b, r->wall_ns);
	buf_putc(b, ',');
	buf_put_csv_field(b, e->name);
	buf_putc(b, ',');
	/* An empty value, never a plausible 0, when there is no count. */
	if (e->status == STATUS_COUNTED)
		buf_put_u64(b, e->value);
	buf_putc(b, ',');
	buf_put_csv_field(b, e->unit);
	buf_putc(b, ',');
	buf_put_double(b, e->scale);
	buf_putc(b, ',');
	buf_put_u64(b, e->raw);
	buf_putc(b, ',');
	buf_put_u64(b, e->enabled);
	buf_putc(b, ',');
	buf_put_u64(b, e->running);
	buf_putc(b, ',');
	if (e->enabled)
		buf_put_fixed(b, 100.0 * (double)e->running / (double)e->enabled, 2, 0);
	buf_putc(b, ',');
	buf_puts(b, report_status_name(e->status));
	buf_putc(b, ',');
	buf_putc(b, e->user_only ? '1' : '0');
	buf_putc(b, ',');
	buf_putc(b, e->zero_when_user_only ? '1' : '0');
	buf_putc(b, ',');
	put_error(b, e->error);
	buf_putc(b, ',');
	if (r->pid_ns)	/* empty in the initial pid namespace */
		buf_put_u64(b, r->pid_ns);
	buf_putc(b, ',');
	if (r->seq)	/* the series columns: empty without PFSHIM_INTERVAL */
		buf_put_u64(b, r->seq);
	buf_putc(b, ',');
	if (r->interval_ns)
		buf_put_u64(b, r->interval_ns);
	buf_putc(b, ',');
	if (e->status == STATUS_COUNTED && e->has_delta)
		buf_put_i64(b, e->delta);
	put_row_end(b, r);
}

/* ---- the regions of the marker API (docs/markers.md) */

static void put_thread_rows(struct buf *b, const struct report *r, const struct report_thread *t)
{
	for (int i = 0; i < t->nr_regions; i++) {
		const struct report_region *g = &t->regions[i];

		for (int e = 0; e < r->regions->nr_events || (e == 0 && r->regions->nr_events == 0); e++) {
			const struct report_region_value *v = r->regions->nr_events ? &g->values[e] : NULL;

			put_process(b, r);
			buf_puts(b, "thread,");
			buf_put_i64(b, t->tid);
			buf_putc(b, ',');
			buf_put_csv_field(b, t->name);
			buf_putc(b, ',');
			buf_put_csv_field(b, g->name);
			buf_puts(b, ",1,");
			buf_put_u64(b, g->calls);
			buf_putc(b, ',');
			buf_put_u64(b, g->reentries);
			buf_putc(b, ',');
			buf_put_u64(b, g->unclosed);
			buf_putc(b, ',');
			buf_put_u64(b, g->wall_ns);
			buf_putc(b, ',');
			if (v) {
				buf_put_csv_field(b, report_region_event_name(r, e));
				buf_putc(b, ',');
				if (v->status == STATUS_COUNTED)
					buf_put_u64(b, v->value);
				buf_putc(b, ',');
				buf_put_u64(b, v->raw);
				buf_putc(b, ',');
				buf_put_u64(b, v->enabled);
				buf_putc(b, ',');
				buf_put_u64(b, v->running);
				buf_putc(b, ',');
				buf_puts(b, report_status_name(v->status));
			} else {
				buf_puts(b, ",,,,,");
			}
			buf_puts(b, r->regions->compensated ? ",,,,1" : ",,,,0");
			put_row_end(b, r);
		}
	}
}

/* A stat's `min,max,mean` columns, or their empty cells when it was not counted. */
static void put_min_max_mean(struct buf *b, const struct report_region_stat *s)
{
	if (s->status == STATUS_COUNTED) {
		buf_put_u64(b, s->min);
		buf_putc(b, ',');
		buf_put_u64(b, s->max);
		buf_putc(b, ',');
		buf_put_u64(b, s->mean);
	} else {
		buf_puts(b, ",,");
	}
}

static void put_total_rows(struct buf *b, const struct report *r, const struct report_region_total *t)
{
	for (int e = 0; e < r->regions->nr_events || (e == 0 && r->regions->nr_events == 0); e++) {
		const struct report_region_stat *s = r->regions->nr_events ? &t->values[e] : NULL;

		put_process(b, r);
		buf_puts(b, "total,,,");
		buf_put_csv_field(b, t->name);
		buf_putc(b, ',');
		buf_put_i64(b, t->threads);
		buf_putc(b, ',');
		buf_put_u64(b, t->calls);
		buf_putc(b, ',');
		buf_put_u64(b, t->reentries);
		buf_putc(b, ',');
		buf_put_u64(b, t->unclosed);
		buf_putc(b, ',');
		buf_put_u64(b, t->wall.sum);
		buf_putc(b, ',');
		if (!s) {
			buf_puts(b, r->regions->compensated ? ",,,,,,,,,1" : ",,,,,,,,,0");
			put_row_end(b, r);
			continue;
		}
		buf_put_csv_field(b, report_region_event_name(r, e));
		buf_putc(b, ',');
		if (s->status == STATUS_COUNTED)
			buf_put_u64(b, s->sum);
		buf_puts(b, ",,,,");
		buf_puts(b, report_status_name(s->status));
		buf_putc(b, ',');
		put_min_max_mean(b, s);
		buf_puts(b, r->regions->compensated ? ",1" : ",0");
		put_row_end(b, r);
	}
}

/*
 * The probe (pfshim's own count per call, preload/markers/probe.c): scope
 * "probe" per thread (value, raw: the count per call), "probe_total" over
 * threads (min, max, mean; no sum: a sum of per-call costs means nothing).
 */
static void put_probe_rows(struct buf *b, const struct report *r)
{
	const struct report_regions *g = r->regions;

	for (int i = 0; i < g->nr_threads; i++) {
		const struct report_thread *t = &g->threads[i];

		for (int e = 0; t->probe && e < g->nr_events; e++) {
			put_process(b, r);
			buf_puts(b, "probe,");
			buf_put_i64(b, t->tid);
			buf_putc(b, ',');
			buf_put_csv_field(b, t->name);
			buf_puts(b, ",,1,,,,,");
			buf_put_csv_field(b, report_region_event_name(r, e));
			buf_putc(b, ',');
			if (t->probe[e].status == STATUS_COUNTED) {
				buf_put_u64(b, t->probe[e].value);
				buf_putc(b, ',');
				buf_put_u64(b, t->probe[e].value);
			} else {
				buf_putc(b, ',');
			}
			buf_puts(b, ",,,");
			buf_puts(b, report_status_name(t->probe[e].status));
			buf_puts(b, g->compensated ? ",,,,1" : ",,,,0");
			put_row_end(b, r);
		}
	}
	for (int e = 0; g->probe && e < g->nr_events; e++) {
		const struct report_region_stat *s = &g->probe[e];

		put_process(b, r);
		buf_puts(b, "probe_total,,,,");
		buf_put_i64(b, s->threads);
		buf_puts(b, ",,,,,");
		buf_put_csv_field(b, report_region_event_name(r, e));
		buf_puts(b, ",,,,,");
		buf_puts(b, report_status_name(s->status));
		buf_putc(b, ',');
		put_min_max_mean(b, s);
		buf_puts(b, g->compensated ? ",1" : ",0");
		put_row_end(b, r);
	}
}

/* A second table, after an empty line: region rows need columns events do not. */
static void put_regions(struct buf *b, const struct report *r)
{
	const struct report_regions *g = r->regions;

	if (!g)
		return;
	buf_putc(b, '\n');
	buf_puts(b, csv_regions_header);
	for (int i = 0; i < g->nr_threads; i++)
		put_thread_rows(b, r, &g->threads[i]);
	for (int i = 0; i < g->nr_totals; i++)
		put_total_rows(b, r, &g->totals[i]);
	put_probe_rows(b, r);
}

/* One metric's row; @region empty for the process's totals. */
static void put_metric_row(struct buf *b, const struct report *r, const char *region,
			   const struct report_metric *m)
{
	put_process(b, r);
	buf_put_csv_field(b, r->metric_group);
	buf_putc(b, ',');
	if (region)
		buf_put_csv_field(b, region);
	buf_putc(b, ',');
	buf_put_csv_field(b, m->name);
	buf_putc(b, ',');
	if (m->status == METRIC_COMPUTED)	/* empty, never a plausible 0 */
		buf_put_double(b, m->value);
	buf_putc(b, ',');
	buf_put_csv_field(b, m->unit);
	buf_putc(b, ',');
	buf_puts(b, report_metric_status_name(m->status));
	buf_putc(b, ',');
	buf_putc(b, m->scaled ? '1' : '0');
	buf_putc(b, ',');
	if (m->missing)
		buf_put_csv_field(b, m->missing);
	buf_putc(b, ',');
	buf_put_csv_field(b, m->formula);
	put_row_end(b, r);
}

/*
 * The metrics table (PFSHIM_GROUP), after a blank line: the process's,
 * then each region's over its threads; nothing without a group.
 */
static void put_metrics(struct buf *b, const struct report *r)
{
	if (!r->metric_group)
		return;
	buf_putc(b, '\n');
	buf_puts(b, csv_metrics_header);
	for (int i = 0; i < r->nr_metrics; i++)
		put_metric_row(b, r, NULL, &r->metrics[i]);
	for (int t = 0; r->regions && r->region_metrics && t < r->regions->nr_totals; t++) {
		const struct report_region_total *total = &r->regions->totals[t];

		r->region_metrics(r, total, r->region_metrics_out);
		for (int i = 0; i < r->nr_metrics; i++)
			put_metric_row(b, r, total->name, &r->region_metrics_out[i]);
	}
}

size_t report_format_csv(const struct report *r, char *out, size_t size)
{
	struct buf b;

	buf_init(&b, out, size);
	buf_puts(&b, csv_header);
	for (int i = 0; i < r->nr_events; i++)
		put_row(&b, r, &r->events[i]);
	put_metrics(&b, r);
	put_regions(&b, r);
	return buf_finish(&b);
}
