/*
 * regions.c: the regions of a report (pfshim.h markers) in text, CSV and
 * JSON: per thread, then totalled over threads. Kept apart from the event
 * writers so that a report without markers is formatted exactly as before.
 * Documented in docs/output.md and docs/markers.md.
 *
 * Async-signal-safe: formats into the caller's buffer with export/buf.h;
 * no allocation, stdio, locale or locks.
 */
#include "export/regions.h"

#include "export/names.h"

/* ---- shared */

static const struct report_event *region_event(const struct report *r, int e)
{
	int i = r->regions->event[e];

	return i >= 0 && i < r->nr_events ? &r->events[i] : NULL;
}

static const char *region_event_name(const struct report *r, int e)
{
	const struct report_event *ev = region_event(r, e);

	return ev && ev->name ? ev->name : "?";
}

static uint64_t thread_unclosed(const struct report_thread *t)
{
	uint64_t n = 0;

	for (int i = 0; i < t->nr_regions; i++)
		n += t->regions[i].unclosed;
	return n;
}

/* ---- JSON */

static void json_key(struct buf *b, const char *key)
{
	buf_putc(b, '"');
	buf_puts(b, key);
	buf_puts(b, "\":");
}

static void json_u64(struct buf *b, const char *key, uint64_t v)
{
	json_key(b, key);
	buf_put_u64(b, v);
	buf_putc(b, ',');
}

/* REPORT_NONE (no call took a min) is null. */
static void json_u64_or_null(struct buf *b, const char *key, uint64_t v)
{
	json_key(b, key);
	if (v == REPORT_NONE)
		buf_puts(b, "null");
	else
		buf_put_u64(b, v);
	buf_putc(b, ',');
}

static void json_bool(struct buf *b, const char *key, int v)
{
	json_key(b, key);
	buf_puts(b, v ? "true," : "false,");
}

/* The last field of an object: no comma after it. */
static void json_string_last(struct buf *b, const char *key, const char *s)
{
	json_key(b, key);
	buf_put_json_string(b, s);
}

static void json_value(struct buf *b, const struct report *r, int e,
		       const struct report_region_value *v)
{
	buf_putc(b, '{');
	json_key(b, "name");
	buf_put_json_string(b, region_event_name(r, e));
	buf_putc(b, ',');
	json_key(b, "value");
	if (v->status == STATUS_COUNTED)
		buf_put_u64(b, v->value);
	else
		buf_puts(b, "null");
	buf_putc(b, ',');
	json_u64(b, "raw", v->raw);
	json_u64(b, "enabled_ns", v->enabled);
	json_u64(b, "running_ns", v->running);
	json_bool(b, "scaled", v->scaled);
	json_string_last(b, "status", report_status_name(v->status));
	buf_putc(b, '}');
}

static void json_region(struct buf *b, const struct report *r, const struct report_region *g)
{
	buf_putc(b, '{');
	json_key(b, "name");
	buf_put_json_string(b, g->name);
	buf_putc(b, ',');
	json_u64(b, "calls", g->calls);
	json_u64(b, "reentries", g->reentries);
	json_u64(b, "open", g->open);
	json_u64(b, "unclosed", g->unclosed);
	json_u64(b, "wall_ns", g->wall_ns);
	json_u64_or_null(b, "wall_min_ns", g->wall_min_ns);
	json_u64_or_null(b, "wall_max_ns", g->wall_max_ns);
	json_u64_or_null(b, "first_min", g->first_min);
	json_u64_or_null(b, "first_max", g->first_max);
	json_key(b, "events");
	buf_putc(b, '[');
	for (int e = 0; e < r->regions->nr_events; e++) {
		if (e)
			buf_putc(b, ',');
		json_value(b, r, e, &g->values[e]);
	}
	buf_puts(b, "]}");
}

static void json_thread(struct buf *b, const struct report *r, const struct report_thread *t)
{
	const char *err = t->open_error ? errno_name(t->open_error) : NULL;

	buf_putc(b, '{');
	json_key(b, "tid");
	buf_put_i64(b, t->tid);
	buf_putc(b, ',');
	json_key(b, "name");
	buf_put_json_string(b, t->name);
	buf_putc(b, ',');
	json_bool(b, "exited", t->exited);
	json_bool(b, "skipped", t->skipped);
	json_key(b, "open_error");
	if (err)
		buf_put_json_string(b, err);
	else
		buf_puts(b, "null");
	buf_putc(b, ',');
	json_u64(b, "user_reads", t->user_reads);
	json_u64(b, "syscall_reads", t->syscall_reads);
	json_u64(b, "read_errors", t->read_errors);
	json_key(b, "misuse");
	buf_putc(b, '{');
	json_u64(b, "end_without_begin", t->end_without_begin);
	json_u64(b, "bad_handle", t->bad_handle);
	json_u64(b, "table_full", t->table_full);
	json_key(b, "unclosed");
	buf_put_u64(b, thread_unclosed(t));
	buf_puts(b, "},");
	json_key(b, "regions");
	buf_putc(b, '[');
	for (int i = 0; i < t->nr_regions; i++) {
		if (i)
			buf_putc(b, ',');
		json_region(b, r, &t->regions[i]);
	}
	buf_puts(b, "]}");
}

static void json_stat(struct buf *b, const struct report_region_stat *s)
{
	json_key(b, "status");
	buf_put_json_string(b, report_status_name(s->status));
	buf_putc(b, ',');
	json_bool(b, "scaled", s->scaled);
	json_key(b, "threads");
	buf_put_i64(b, s->threads);
	buf_putc(b, ',');
	if (s->status != STATUS_COUNTED) {
		buf_puts(b, "\"sum\":null,\"min\":null,\"max\":null,\"mean\":null");
		return;
	}
	json_u64(b, "sum", s->sum);
	json_u64(b, "min", s->min);
	json_u64(b, "max", s->max);
	json_key(b, "mean");
	buf_put_u64(b, s->mean);
}

static void json_total(struct buf *b, const struct report *r, const struct report_region_total *t)
{
	buf_putc(b, '{');
	json_key(b, "name");
	buf_put_json_string(b, t->name);
	buf_putc(b, ',');
	json_key(b, "threads");
	buf_put_i64(b, t->threads);
	buf_putc(b, ',');
	json_u64(b, "calls", t->calls);
	json_u64(b, "reentries", t->reentries);
	json_u64(b, "unclosed", t->unclosed);
	json_u64_or_null(b, "first_min", t->first_min);
	json_u64_or_null(b, "first_max", t->first_max);
	json_key(b, "wall_ns");
	buf_putc(b, '{');
	json_stat(b, &t->wall);
	buf_puts(b, "},");
	json_key(b, "events");
	buf_putc(b, '[');
	for (int e = 0; e < r->regions->nr_events; e++) {
		if (e)
			buf_putc(b, ',');
		buf_putc(b, '{');
		json_key(b, "name");
		buf_put_json_string(b, region_event_name(r, e));
		buf_putc(b, ',');
		json_stat(b, &t->values[e]);
		buf_putc(b, '}');
	}
	buf_puts(b, "]}");
}

void regions_put_json(struct buf *b, const struct report *r)
{
	const struct report_regions *g = r->regions;

	if (!g)
		return;
	buf_putc(b, ',');
	json_key(b, "regions");
	buf_putc(b, '{');
	json_key(b, "events");
	buf_putc(b, '[');
	for (int e = 0; e < g->nr_events; e++) {
		if (e)
			buf_putc(b, ',');
		buf_put_json_string(b, region_event_name(r, e));
	}
	buf_puts(b, "],");
	json_key(b, "capacity");
	buf_put_i64(b, g->capacity);
	buf_putc(b, ',');
	json_u64(b, "threads_unlisted", g->threads_unlisted);
	json_u64(b, "names_refused", g->names_refused);
	json_u64(b, "threads_failed", g->threads_failed);
	json_key(b, "note");
	if (g->note)
		buf_put_json_string(b, g->note);
	else
		buf_puts(b, "null");
	buf_putc(b, ',');
	json_key(b, "user_read_problem");
	if (g->user_read_problem)
		buf_put_json_string(b, g->user_read_problem);
	else
		buf_puts(b, "null");
	buf_putc(b, ',');
	json_key(b, "threads");
	buf_putc(b, '[');
	for (int i = 0; i < g->nr_threads; i++) {
		if (i)
			buf_putc(b, ',');
		json_thread(b, r, &g->threads[i]);
	}
	buf_puts(b, "],");
	json_key(b, "totals");
	buf_putc(b, '[');
	for (int i = 0; i < g->nr_totals; i++) {
		if (i)
			buf_putc(b, ',');
		json_total(b, r, &g->totals[i]);
	}
	buf_puts(b, "]}");
}

/* ---- text */

/* The event list's columns: counts right-aligned in 18, a unit in 4, then the name. */
#define VALUE_WIDTH	18
#define UNIT_WIDTH	4
#define STAT_WIDTH	14

static int event_has_unit(const struct report_event *ev)
{
	return ev && ((ev->unit && ev->unit[0]) || ev->scale != 1.0);
}

/* A count as the event list shows it: the clocks in msec with 2 decimals. */
static void text_number(struct buf *b, const struct report_event *ev, uint64_t v)
{
	if (event_has_unit(ev))
		buf_put_fixed(b, (double)v * ev->scale, 2, 1);
	else
		buf_put_u64_grouped(b, v);
}

static void text_right_number(struct buf *b, size_t width, const struct report_event *ev,
			      uint64_t v)
{
	struct buf count;

	buf_init(&count, 0, 0);
	text_number(&count, ev, v);
	buf_pad(b, ' ', count.len < width ? width - count.len : 1);
	text_number(b, ev, v);
}

static void text_unit_name(struct buf *b, const struct report_event *ev, const char *unit,
			   const char *name)
{
	size_t w = 0;

	if (!unit)
		unit = event_has_unit(ev) && ev->unit ? ev->unit : "";
	buf_putc(b, ' ');
	buf_put_printable(b, unit);
	while (unit[w])
		w++;
	buf_pad(b, ' ', w < UNIT_WIDTH ? UNIT_WIDTH - w + 1 : 1);
	buf_put_printable(b, name);
}

/* A time per call: usec below a millisecond, where msec would print 0.00. */
static void text_duration(struct buf *b, uint64_t ns)
{
	if (ns < 1000000) {
		buf_put_fixed(b, (double)ns * 1e-3, 3, 1);
		buf_puts(b, " usec");
	} else {
		buf_put_fixed(b, (double)ns * 1e-6, 3, 1);
		buf_puts(b, " msec");
	}
}

static void text_value_line(struct buf *b, const struct report *r, int e,
			    const struct report_region_value *v)
{
	const struct report_event *ev = region_event(r, e);

	if (v->status == STATUS_COUNTED) {
		text_right_number(b, VALUE_WIDTH, ev, v->value);
		text_unit_name(b, ev, NULL, region_event_name(r, e));
	} else {
		buf_pad(b, ' ', VALUE_WIDTH - 13);
		buf_puts(b, "<not counted>");
		text_unit_name(b, ev, "", region_event_name(r, e));
	}
	/* perf stat's "(66.67%)": this thread's group shared the PMU with others. */
	if (v->scaled && v->enabled) {
		buf_puts(b, "  (");
		buf_put_fixed(b, 100.0 * (double)v->running / (double)v->enabled, 2, 0);
		buf_puts(b, "%, scaled)");
	}
	buf_putc(b, '\n');
}

static void text_region(struct buf *b, const struct report *r, const struct report_region *g)
{
	buf_puts(b, "   region '");
	buf_put_printable(b, g->name);
	buf_puts(b, "': ");
	buf_put_u64_grouped(b, g->calls);
	buf_puts(b, g->calls == 1 ? " call, " : " calls, ");
	text_duration(b, g->wall_ns);
	buf_puts(b, " wall");
	if (g->calls > 1) {
		buf_puts(b, " (per call ");
		text_duration(b, g->wall_min_ns);
		buf_puts(b, " .. ");
		text_duration(b, g->wall_max_ns);
		buf_putc(b, ')');
	}
	if (g->reentries) {
		buf_puts(b, ", ");
		buf_put_u64_grouped(b, g->reentries);
		buf_puts(b, " re-entries counted once");
	}
	if (g->open)
		buf_puts(b, ", open now");
	if (g->unclosed) {
		buf_puts(b, ", MISUSE: left open ");
		buf_put_u64_grouped(b, g->unclosed);
		buf_puts(b, g->unclosed == 1 ? " time" : " times");
	}
	buf_putc(b, '\n');
	for (int e = 0; e < r->regions->nr_events; e++)
		text_value_line(b, r, e, &g->values[e]);
}

static void text_misuse(struct buf *b, const char *what, uint64_t n)
{
	if (!n)
		return;
	buf_puts(b, "   MISUSE: ");
	buf_put_u64_grouped(b, n);
	buf_putc(b, ' ');
	buf_puts(b, what);
	buf_putc(b, '\n');
}

static void text_thread(struct buf *b, const struct report *r, const struct report_thread *t)
{
	buf_puts(b, " thread ");
	buf_put_i64(b, t->tid);
	buf_puts(b, " '");
	buf_put_printable(b, t->name);
	buf_puts(b, t->exited ? "' (exited): " : "': ");
	buf_put_u64_grouped(b, t->user_reads);
	buf_puts(b, " counter reads from user space, ");
	buf_put_u64_grouped(b, t->syscall_reads);
	buf_puts(b, " with read(2)\n");
	if (t->skipped) {
		buf_puts(b, "   (left out: the report interrupted a marker call of this thread)\n");
		return;
	}
	if (t->open_error) {
		const char *name = errno_name(t->open_error);

		buf_puts(b, "   some counters could not be opened in this thread (");
		buf_puts(b, name ? name : "error");
		buf_puts(b, "): they read <not counted>\n");
	}
	text_misuse(b, "end without begin", t->end_without_begin);
	text_misuse(b, "bad region handle", t->bad_handle);
	text_misuse(b, "begin refused: this thread's region table is full", t->table_full);
	for (int i = 0; i < t->nr_regions; i++)
		text_region(b, r, &t->regions[i]);
}

static void text_stat(struct buf *b, const struct report_event *ev, const char *unit,
		      const char *name, const struct report_region_stat *s)
{
	if (s->status != STATUS_COUNTED) {
		buf_pad(b, ' ', 4 * STAT_WIDTH - 13);
		buf_puts(b, "<not counted>");
		text_unit_name(b, ev, "", name);
		buf_putc(b, '\n');
		return;
	}
	text_right_number(b, STAT_WIDTH, ev, s->sum);
	text_right_number(b, STAT_WIDTH, ev, s->min);
	text_right_number(b, STAT_WIDTH, ev, s->max);
	text_right_number(b, STAT_WIDTH, ev, s->mean);
	text_unit_name(b, ev, unit, name);
	if (s->scaled)
		buf_puts(b, "  (scaled)");
	buf_putc(b, '\n');
}

static void text_total(struct buf *b, const struct report *r, const struct report_region_total *t)
{
	/* Wall time in the clocks' own display: ns scaled to msec. */
	static const struct report_event wall = { .unit = "msec", .scale = 1e-6 };

	buf_puts(b, "   region '");
	buf_put_printable(b, t->name);
	buf_puts(b, "': ");
	buf_put_i64(b, t->threads);
	buf_puts(b, t->threads == 1 ? " thread, " : " threads, ");
	buf_put_u64_grouped(b, t->calls);
	buf_puts(b, t->calls == 1 ? " call" : " calls");
	if (t->unclosed) {
		buf_puts(b, ", MISUSE: left open ");
		buf_put_u64_grouped(b, t->unclosed);
		buf_puts(b, t->unclosed == 1 ? " time" : " times");
	}
	buf_putc(b, '\n');
	text_stat(b, &wall, "msec", "wall", &t->wall);
	for (int e = 0; e < r->regions->nr_events; e++)
		text_stat(b, region_event(r, e), NULL, region_event_name(r, e), &t->values[e]);
}

static int any_syscall_reads(const struct report_regions *g)
{
	for (int i = 0; i < g->nr_threads; i++)
		if (g->threads[i].syscall_reads)
			return 1;
	return 0;
}

void regions_put_text(struct buf *b, const struct report *r)
{
	const struct report_regions *g = r->regions;

	if (!g)
		return;
	buf_puts(b, " pfshim: regions per thread (counts include nested regions):\n\n");
	for (int i = 0; i < g->nr_threads; i++)
		text_thread(b, r, &g->threads[i]);
	if (g->threads_unlisted) {
		buf_puts(b, " (");
		buf_put_u64_grouped(b, g->threads_unlisted);
		buf_puts(b, " more exited threads are counted in the totals only)\n");
	}
	buf_puts(b, "\n pfshim: regions over all threads, per thread:\n\n");
	buf_pad(b, ' ', STAT_WIDTH - 3);
	buf_puts(b, "sum");
	buf_pad(b, ' ', STAT_WIDTH - 3);
	buf_puts(b, "min");
	buf_pad(b, ' ', STAT_WIDTH - 3);
	buf_puts(b, "max");
	buf_pad(b, ' ', STAT_WIDTH - 4);
	buf_puts(b, "mean\n");
	for (int i = 0; i < g->nr_totals; i++)
		text_total(b, r, &g->totals[i]);
	if (g->names_refused) {
		buf_puts(b, " pfshim: MISUSE: ");
		buf_put_u64_grouped(b, g->names_refused);
		buf_puts(b, " region names refused (empty, longer than 63 bytes, or past 256 names)\n");
	}
	if (g->threads_failed) {
		buf_puts(b, " pfshim: ");
		buf_put_u64_grouped(b, g->threads_failed);
		buf_puts(b, " threads could not set up their marker state (out of memory)\n");
	}
	if (g->note) {
		buf_puts(b, " pfshim: ");
		buf_puts(b, g->note);
		buf_putc(b, '\n');
	}
	if (g->user_read_problem && any_syscall_reads(g)) {
		buf_puts(b, " pfshim: counter reads took read(2): ");
		buf_put_printable(b, g->user_read_problem);
		buf_putc(b, '\n');
	}
	buf_putc(b, '\n');
}

/* ---- CSV */

/* Documented column by column in docs/output.md; keep them in step. */
static const char csv_regions_header[] =
	"pid,program,reason,scope,tid,thread,region,threads,calls,reentries,unclosed,"
	"wall_ns,event,value,raw,enabled_ns,running_ns,status,min,max,mean\n";

static void csv_prefix(struct buf *b, const struct report *r, const char *scope)
{
	buf_put_i64(b, r->pid);
	buf_putc(b, ',');
	buf_put_csv_field(b, r->program);
	buf_putc(b, ',');
	buf_puts(b, report_reason_name(r->reason));
	buf_putc(b, ',');
	buf_puts(b, scope);
	buf_putc(b, ',');
}

static void csv_thread_rows(struct buf *b, const struct report *r, const struct report_thread *t)
{
	for (int i = 0; i < t->nr_regions; i++) {
		const struct report_region *g = &t->regions[i];

		for (int e = 0; e < r->regions->nr_events || (e == 0 && r->regions->nr_events == 0); e++) {
			const struct report_region_value *v = r->regions->nr_events ? &g->values[e] : NULL;

			csv_prefix(b, r, "thread");
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
				buf_put_csv_field(b, region_event_name(r, e));
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
			buf_puts(b, ",,,\n");
		}
	}
}

static void csv_total_rows(struct buf *b, const struct report *r, const struct report_region_total *t)
{
	for (int e = 0; e < r->regions->nr_events || (e == 0 && r->regions->nr_events == 0); e++) {
		const struct report_region_stat *s = r->regions->nr_events ? &t->values[e] : NULL;

		csv_prefix(b, r, "total");
		buf_puts(b, ",,");
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
			buf_puts(b, ",,,,,,,,\n");
			continue;
		}
		buf_put_csv_field(b, region_event_name(r, e));
		buf_putc(b, ',');
		if (s->status == STATUS_COUNTED)
			buf_put_u64(b, s->sum);
		buf_puts(b, ",,,,");
		buf_puts(b, report_status_name(s->status));
		buf_putc(b, ',');
		if (s->status == STATUS_COUNTED) {
			buf_put_u64(b, s->min);
			buf_putc(b, ',');
			buf_put_u64(b, s->max);
			buf_putc(b, ',');
			buf_put_u64(b, s->mean);
		} else {
			buf_puts(b, ",,");
		}
		buf_putc(b, '\n');
	}
}

void regions_put_csv(struct buf *b, const struct report *r)
{
	const struct report_regions *g = r->regions;

	if (!g)
		return;
	/* A second table, after an empty line: region rows need columns events do not. */
	buf_putc(b, '\n');
	buf_puts(b, csv_regions_header);
	for (int i = 0; i < g->nr_threads; i++)
		csv_thread_rows(b, r, &g->threads[i]);
	for (int i = 0; i < g->nr_totals; i++)
		csv_total_rows(b, r, &g->totals[i]);
}
