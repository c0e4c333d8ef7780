/* SPDX-License-Identifier: MIT */
/*
 * text.c: the default report, laid out like `perf stat` so its readers feel
 * at home, but tagged "pfshim:" because it lands on the stderr of someone
 * else's program; then the marker regions, when the program used them.
 *
 * Async-signal-safe: formats into the caller's buffer with export/buf.h;
 * no allocation, stdio, locale or locks (PFSHIM_SIGNAL reports are written
 * from the signal handler).
 */
#include <string.h>

#include "export/buf.h"
#include "export/metrics.h"
#include "export/names.h"
#include "export/report.h"
#include "export/version.h"

/* Column widths of perf stat: counts right-aligned in 18, names in 33. */
#define VALUE_WIDTH	18
#define UNIT_WIDTH	4
#define NAME_WIDTH	33

/* Does the display need a unit and decimals (the clocks: ns -> msec)? */
static int event_has_unit(const struct report_event *e)
{
	return e && ((e->unit && e->unit[0]) || e->scale != 1.0);
}

static void put_value(struct buf *b, const struct report_event *e)
{
	if (e->status == STATUS_NOT_SUPPORTED)
		buf_puts(b, "<not supported>");
	else if (e->status == STATUS_NOT_COUNTED)
		buf_puts(b, "<not counted>");
	else if (e->status == STATUS_CLOSED)
		buf_puts(b, "<closed by program>");
	else if (event_has_unit(e))
		buf_put_fixed(b, (double)e->value * e->scale, 2, 1);
	else
		buf_put_u64_grouped(b, e->value);
}

/*
 * perf stat marks an event it had to restrict to user space with ":u"; an
 * event that already carries modifiers gets the note spelled out instead.
 */
static void put_name(struct buf *b, const struct report_event *e)
{
	const char *name = e->name ? e->name : "?";
	const char *colon = name;

	buf_put_printable(b, name);
	if (!e->user_only)
		return;
	while (*colon && *colon != ':')
		colon++;
	if (!*colon) {
		buf_puts(b, ":u");
		return;
	}
	for (const char *m = colon + 1; *m; m++)
		if (*m == 'u')
			return;
	buf_puts(b, " (user only)");
}

/* Width the output of @put would take, measured with a zero-size buffer. */
static size_t measure(void (*put)(struct buf *, const struct report_event *),
		      const struct report_event *e)
{
	struct buf count;

	buf_init(&count, 0, 0);
	put(&count, e);
	return count.len;
}

static void put_metric(struct buf *b, const struct metric *m)
{
	struct buf count;
	size_t width = m->percent ? 7 : 8;

	buf_init(&count, 0, 0);
	buf_put_fixed(&count, m->value, m->digits, 0);
	if (count.len < width)
		buf_pad(b, ' ', width - count.len);
	buf_put_fixed(b, m->value, m->digits, 0);
	if (m->percent)
		buf_putc(b, '%');
	buf_putc(b, ' ');
	buf_puts(b, m->text);
}

/* The "# ..." comment: what the number means, or why there is none. */
static int put_comment(struct buf *b, const struct report *r, int i)
{
	const struct report_event *e = &r->events[i];
	struct metric m;

	/*
	 * Software events such as context-switches are counted in kernel
	 * code: with the kernel excluded (":u", or the retry) they read 0
	 * whatever happened, and a bare 0 would read as "none happened".
	 */
	if (e->zero_when_user_only) {
		buf_puts(b, "# always 0 when counting user space only");
		return 1;
	}
	if (e->status == STATUS_NOT_SUPPORTED && e->error) {
		const char *name = errno_name(e->error);

		buf_puts(b, "# ");
		if (name) {
			buf_puts(b, name);
		} else {
			buf_puts(b, "errno ");
			buf_put_i64(b, e->error < 0 ? -e->error : e->error);
		}
		return 1;
	}
	if (metric_compute(r, i, &m) == 0) {
		buf_puts(b, "# ");
		put_metric(b, &m);
		return 1;
	}
	return 0;
}

/*
 * The unit column between a count and its name: " msec " or blanks, in
 * UNIT_WIDTH, less @over (what the count took past its column, as
 * "<closed by program>" does), so that the name keeps its column.
 */
static void put_unit_column(struct buf *b, const char *unit, size_t over)
{
	size_t w = 0;

	buf_putc(b, ' ');
	buf_put_printable(b, unit);
	while (unit[w])
		w++;
	w += over;
	buf_pad(b, ' ', w < UNIT_WIDTH ? UNIT_WIDTH - w + 1 : 1);
}

/*
 * perf stat's "(66.67%)": the share of enabled time the event ran; for a
 * part of a hybrid machine, the share the program ran on its PMU's cores.
 */
static void put_running_share(struct buf *b, const struct report_event *e)
{
	if (!(e->scaled || e->pmu) || e->status != STATUS_COUNTED || e->enabled == 0)
		return;
	buf_puts(b, "  (");
	buf_put_fixed(b, 100.0 * (double)e->running / (double)e->enabled, 2, 0);
	buf_puts(b, "%)");
}

static void put_event_line(struct buf *b, const struct report *r, int i)
{
	const struct report_event *e = &r->events[i];
	size_t w = measure(put_value, e);
	struct buf comment;

	if (w < VALUE_WIDTH)
		buf_pad(b, ' ', VALUE_WIDTH - w);
	put_value(b, e);
	put_unit_column(b, e->status == STATUS_COUNTED && event_has_unit(e) && e->unit ?
				   e->unit : "", w > VALUE_WIDTH ? w - VALUE_WIDTH : 0);
	put_name(b, e);

	buf_init(&comment, 0, 0);
	if (put_comment(&comment, r, i)) {
		w = measure(put_name, e);
		buf_pad(b, ' ', w < NAME_WIDTH ? NAME_WIDTH - w : 1);
		put_comment(b, r, i);
	}
	put_running_share(b, e);
	buf_putc(b, '\n');
}

/* "signal 10 (SIGUSR1)", or "signal 40" for a signal without a name. */
static void put_signal(struct buf *b, int signo)
{
	const char *name = signal_name(signo);

	buf_puts(b, "signal ");
	buf_put_i64(b, signo);
	if (name) {
		buf_puts(b, " (");
		buf_puts(b, name);
		buf_putc(b, ')');
	}
}

static void put_reason(struct buf *b, const struct report *r)
{
	switch (r->reason) {
	case REPORT_EXIT:	buf_puts(b, "at exit"); break;
	case REPORT_EXEC:	buf_puts(b, "before exec"); break;
	case REPORT_SIGNAL:	buf_puts(b, "on "); put_signal(b, r->signo); break;
	case REPORT_EXPLICIT:	buf_puts(b, "by pfshim_report()"); break;
	case REPORT_INTERVAL:	buf_puts(b, "at an interval"); break;
	default:		buf_puts(b, "for an unknown reason"); break;
	}
}

/* @ns as seconds with 9 decimals, exact from integer ns, right-aligned in @width. */
static void put_seconds(struct buf *b, uint64_t ns, size_t width)
{
	struct buf count;

	buf_init(&count, 0, 0);
	buf_put_u64(&count, ns / 1000000000u);
	/* integer digits + '.' + 9 decimals */
	if (count.len + 10 < width)
		buf_pad(b, ' ', width - count.len - 10);
	buf_put_u64(b, ns / 1000000000u);
	buf_putc(b, '.');
	buf_put_u64_width(b, ns % 1000000000u, 9);
}

/* "       0.001234567 seconds time elapsed", right-aligned like the counts. */
static void put_elapsed(struct buf *b, uint64_t ns)
{
	put_seconds(b, ns, VALUE_WIDTH);
	buf_puts(b, " seconds time elapsed\n");
}

/*
 * "       0.001000000 seconds user" and "sys", as perf stat prints them
 * (getrusage's, since the exec); nothing where they were not read.
 */
static void put_cpu_times(struct buf *b, const struct report *r)
{
	if (!r->has_cpu_times)
		return;
	put_seconds(b, r->user_ns, VALUE_WIDTH);
	buf_puts(b, " seconds user\n");
	put_seconds(b, r->system_ns, VALUE_WIDTH);
	buf_puts(b, " seconds sys\n\n");
}

/*
 * pfshim's own share, as it measured it (report.h): set-up and reports.
 * The set-up began before the counters where they did not count from the
 * exec (LD_PRELOAD alone: the event list's parse, a vendor name's libpfm4),
 * so the line does not call it a share of the counts above. Loading the
 * library is not in it (pfshim run's summary adds it: docs/pfshim.md
 * "pfshim's own share").
 */
static void put_share(struct buf *b, const struct report_share *sh)
{
	if (!sh->measured)
		return;
	buf_puts(b, " pfshim: pfshim's own share: ");
	buf_put_u64_grouped(b, sh->page_faults);
	buf_puts(b, " page-faults, ");
	buf_put_fixed(b, (double)sh->task_clock_ns / 1e6, 3, 0);
	buf_puts(b, " msec task-clock, ");
	buf_put_u64_grouped(b, sh->context_switches);
	buf_puts(b, " context-switches (its set-up, which these counts hold from their start on, "
		 "and its reports up to this one");
	if (!sh->reports_measured)
		buf_puts(b, ", but not those under the program's seccomp filter");
	buf_puts(b, "; loading the library is not in it)\n");
}

static int any_user_only(const struct report *r)
{
	for (int i = 0; i < r->nr_events; i++)
		if (r->events[i].user_only)
			return 1;
	return 0;
}

/* ---- the regions of the marker API (docs/markers.md) */

/* The totals' columns: sum, min, max, mean. */
#define STAT_WIDTH	14

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
	if (!unit)
		unit = event_has_unit(ev) && ev->unit ? ev->unit : "";
	put_unit_column(b, unit, 0);
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
	const struct report_event *ev = report_region_event(r, e);

	if (v->status == STATUS_COUNTED) {
		text_right_number(b, VALUE_WIDTH, ev, v->value);
		text_unit_name(b, ev, NULL, report_region_event_name(r, e));
	} else {
		buf_pad(b, ' ', VALUE_WIDTH - 13);
		buf_puts(b, "<not counted>");
		text_unit_name(b, ev, "", report_region_event_name(r, e));
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

/*
 * A per-call count of pfshim itself: a clock's ns as a duration (the event
 * list's msec would print 0.00), other units with two decimals.
 */
static void text_probe_number(struct buf *b, const struct report_event *ev, uint64_t v)
{
	if (ev && (ev->kind == REPORT_KIND_TASK_CLOCK || ev->kind == REPORT_KIND_CPU_CLOCK)) {
		text_duration(b, v);
		return;
	}
	text_number(b, ev, v);
	if (event_has_unit(ev) && ev->unit && ev->unit[0]) {
		buf_putc(b, ' ');
		buf_put_printable(b, ev->unit);
	}
}

/*
 * The probe beside a thread's regions: what an empty begin/end pair counted
 * at the thread's set-up, which each call of every region holds too
 * (or had subtracted, with PFSHIM_COMPENSATE=1).
 */
static void text_probe(struct buf *b, const struct report *r, const struct report_thread *t)
{
	const struct report_regions *g = r->regions;

	if (!t->probe || g->nr_events == 0)
		return;
	buf_puts(b, g->compensated ? "   subtracted from each call (PFSHIM_COMPENSATE=1): " :
				     "   each call includes ");
	for (int e = 0; e < g->nr_events; e++) {
		const struct report_event *ev = report_region_event(r, e);

		if (e)
			buf_puts(b, ", ");
		if (t->probe[e].status == STATUS_COUNTED) {
			buf_putc(b, '~');
			text_probe_number(b, ev, t->probe[e].value);
		} else {
			buf_puts(b, "<not counted>");
		}
		buf_putc(b, ' ');
		buf_put_printable(b, report_region_event_name(r, e));
	}
	buf_puts(b, " of pfshim itself\n");
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
	text_misuse(b, "ended while a region begun inside it was open", t->unnested);
	text_probe(b, r, t);
	for (int i = 0; i < t->nr_regions; i++)
		text_region(b, r, &t->regions[i]);
}

/*
 * A region's statistics over threads: a metric that fewer than @threads
 * counted (the threads with a call: wall's) says so; 0: no such note.
 */
static void text_stat(struct buf *b, const struct report_event *ev, const char *unit,
		      const char *name, const struct report_region_stat *s, int threads)
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
	if (threads && s->threads < threads) {
		buf_puts(b, "  (counted in ");
		buf_put_i64(b, s->threads);
		buf_puts(b, " of ");
		buf_put_i64(b, threads);
		buf_puts(b, " threads)");
	}
	buf_putc(b, '\n');
}

/* One metric as an event line: the value right-aligned, its name and unit, why it has none. */
static void put_metric_line(struct buf *b, const struct report_metric *m, size_t width)
{
	char value[64];
	struct buf v;

	buf_init(&v, value, sizeof(value));
	if (m->status == METRIC_COMPUTED)
		buf_put_metric(&v, m->value);
	else
		buf_puts(&v, m->status == METRIC_UNDEFINED ? "<undefined>" : "<not counted>");
	buf_finish(&v);
	buf_pad(b, ' ', v.len < width ? width - v.len : 1);
	buf_puts(b, value);
	buf_puts(b, "      ");
	buf_put_printable(b, m->name);
	if (*m->unit) {
		buf_puts(b, " [");
		buf_put_printable(b, m->unit);
		buf_putc(b, ']');
	}
	if (m->status == METRIC_NOT_COUNTED) {
		buf_puts(b, "  (");
		buf_put_printable(b, m->missing);
		buf_puts(b, ": ");
		buf_puts(b, m->why);
		buf_putc(b, ')');
	} else if (m->status == METRIC_UNDEFINED) {
		buf_puts(b, "  (a division by zero)");
	} else if (m->scaled) {
		buf_puts(b, "  (from multiplexed counts)");
	}
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
	text_stat(b, &wall, "msec", "wall", &t->wall, 0);
	for (int e = 0; e < r->regions->nr_events; e++)
		text_stat(b, report_region_event(r, e), NULL, report_region_event_name(r, e),
			  &t->values[e], t->wall.threads);
	if (r->region_metrics) {	/* PFSHIM_GROUP's metrics of the region, its sums' */
		r->region_metrics(r, t, r->region_metrics_out);
		for (int i = 0; i < r->nr_metrics; i++)
			put_metric_line(b, &r->region_metrics_out[i], 18);
	}
}

/* The probe over threads, in the totals' columns: its sum over threads means nothing. */
static void text_probe_totals(struct buf *b, const struct report *r)
{
	const struct report_regions *g = r->regions;

	if (!g->probe || g->nr_events == 0)
		return;
	buf_puts(b, g->compensated ?
		    "   pfshim itself in each call, per thread, subtracted (PFSHIM_COMPENSATE=1):\n" :
		    "   pfshim itself in each call, per thread (included in every region):\n");
	for (int e = 0; e < g->nr_events; e++) {
		const struct report_event *ev = report_region_event(r, e);
		const struct report_region_stat *s = &g->probe[e];
		struct report_event per_call = *ev;

		if (event_has_unit(ev) && ev->unit && strcmp(ev->unit, "msec") == 0) {
			/* a call's microseconds, where msec would print 0.00 */
			per_call.unit = "usec";
			per_call.scale = ev->scale * 1000;
		}
		ev = &per_call;
		if (s->status != STATUS_COUNTED) {
			buf_pad(b, ' ', 4 * STAT_WIDTH - 13);
			buf_puts(b, "<not counted>");
			text_unit_name(b, ev, "", report_region_event_name(r, e));
			buf_putc(b, '\n');
			continue;
		}
		buf_pad(b, ' ', STAT_WIDTH - 1);
		buf_putc(b, '-');
		text_right_number(b, STAT_WIDTH, ev, s->min);
		text_right_number(b, STAT_WIDTH, ev, s->max);
		text_right_number(b, STAT_WIDTH, ev, s->mean);
		text_unit_name(b, ev, NULL, report_region_event_name(r, e));
		buf_putc(b, '\n');
	}
}

static int any_syscall_reads(const struct report_regions *g)
{
	for (int i = 0; i < g->nr_threads; i++)
		if (g->threads[i].syscall_reads)
			return 1;
	return 0;
}

static void put_regions(struct buf *b, const struct report *r)
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
	text_probe_totals(b, r);
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

/* ---- the series of PFSHIM_INTERVAL: perf stat -I's columns (time, change, event) */

/* "every 100 ms", "every 2 s": PFSHIM_INTERVAL is whole milliseconds (preload/config.c). */
static void put_every(struct buf *b, uint64_t ns)
{
	buf_puts(b, "every ");
	if (ns % 1000000000u == 0) {
		buf_put_u64(b, ns / 1000000000u);
		buf_puts(b, " s");
	} else {
		buf_put_u64(b, ns / 1000000u);
		buf_puts(b, " ms");
	}
}

/* Seconds since the start with 9 decimals, in perf stat -I's 16 columns. */
#define TIME_WIDTH	16

static void put_time(struct buf *b, uint64_t ns)
{
	put_seconds(b, ns, TIME_WIDTH);
}

/* A change, signed: a scaled (multiplexed) count can move back. */
static void put_delta(struct buf *b, const struct report_event *e)
{
	if (e->status != STATUS_COUNTED || !e->has_delta) {
		put_value(b, e);
		return;
	}
	if (e->delta < 0)
		buf_putc(b, '-');
	if (event_has_unit(e)) {
		uint64_t v = e->delta < 0 ? -(uint64_t)e->delta : (uint64_t)e->delta;

		buf_put_fixed(b, (double)v * e->scale, 2, 1);
	} else {
		buf_put_u64_grouped(b, e->delta < 0 ? -(uint64_t)e->delta : (uint64_t)e->delta);
	}
}

static void put_series_line(struct buf *b, const struct report *r, const struct report_event *e)
{
	size_t w = measure(put_delta, e);

	put_time(b, r->wall_ns);
	buf_pad(b, ' ', w < VALUE_WIDTH ? VALUE_WIDTH - w + 1 : 1);
	put_delta(b, e);
	put_unit_column(b, e->status == STATUS_COUNTED && event_has_unit(e) && e->unit ?
				   e->unit : "", 0);
	put_name(b, e);
	if (e->status == STATUS_COUNTED) {
		w = measure(put_name, e);
		buf_pad(b, ' ', w < NAME_WIDTH ? NAME_WIDTH - w : 1);
		buf_puts(b, "total ");
		put_value(b, e);
		if (event_has_unit(e) && e->unit && e->unit[0]) {
			buf_putc(b, ' ');
			buf_put_printable(b, e->unit);
		}
	}
	buf_putc(b, '\n');
}

/*
 * The change of each event since the previous report of the series, with
 * the running total beside it. An interval report is this table alone;
 * any other report in interval mode ends with it.
 */
static void put_series(struct buf *b, const struct report *r)
{
	buf_puts(b, r->reason == REPORT_INTERVAL ? "\n pfshim: interval report " :
						  " pfshim: report ");
	buf_put_u64(b, r->seq);
	buf_puts(b, " of '");
	buf_put_printable(b, r->program ? r->program : "?");
	buf_puts(b, "' (pid ");
	buf_put_i64(b, r->pid);
	buf_puts(b, ", ");
	put_every(b, r->interval_ns);
	buf_puts(b, "), change since the previous one:\n"
		 "#           time             change unit event\n");
	for (int i = 0; i < r->nr_events; i++)
		put_series_line(b, r, &r->events[i]);
	if (r->metric_group && r->reason == REPORT_INTERVAL) {	/* the interval's, as perf stat -I */
		buf_puts(b, "# metrics of group ");
		buf_put_printable(b, r->metric_group);
		buf_puts(b, " over this interval:\n");
		for (int i = 0; i < r->nr_metrics; i++)
			put_metric_line(b, &r->metrics[i], 34);
	}
	if (r->reason != REPORT_INTERVAL)
		buf_putc(b, '\n');
}

/* " pfshim: in slurm job 1234, step 0": which job's report this is, beside the others. */
static void put_job(struct buf *b, const struct report_job *job)
{
	buf_puts(b, " pfshim: in ");
	buf_puts(b, job->scheduler);
	buf_puts(b, " job ");
	buf_put_printable(b, job->id);
	if (job->step) {
		buf_puts(b, ", step ");
		buf_put_printable(b, job->step);
	}
	buf_putc(b, '\n');
}

/* " pfshim: metrics of group BRANCH:" and one line per metric, as the event lines. */
static void put_metrics(struct buf *b, const struct report *r)
{
	if (!r->metric_group)
		return;
	buf_puts(b, "\n pfshim: metrics of group ");
	buf_put_printable(b, r->metric_group);
	buf_puts(b, ":\n\n");
	for (int i = 0; i < r->nr_metrics; i++)
		put_metric_line(b, &r->metrics[i], 18);
}

size_t report_format_text(const struct report *r, char *out, size_t size)
{
	struct buf b;

	buf_init(&b, out, size);
	if (r->reason == REPORT_INTERVAL) {
		put_series(&b, r);
		return buf_finish(&b);
	}
	buf_puts(&b, "\n pfshim: Performance counter stats for '");
	buf_put_printable(&b, r->program ? r->program : "?");
	buf_puts(&b, "' (pid ");
	buf_put_i64(&b, r->pid);
	if (r->pid_ns) {
		buf_puts(&b, " in pid namespace ");
		buf_put_u64(&b, r->pid_ns);
	}
	buf_puts(&b, ", ");
	buf_puts(&b, report_reason_name(r->reason));
	if (r->reason == REPORT_SIGNAL) {
		const char *name = signal_name(r->signo);

		buf_putc(&b, ' ');
		if (name)
			buf_puts(&b, name);
		else
			buf_put_i64(&b, r->signo);
	}
	buf_puts(&b, "):\n\n");

	for (int i = 0; i < r->nr_events; i++)
		put_event_line(&b, r, i);
	put_metrics(&b, r);

	buf_putc(&b, '\n');
	put_elapsed(&b, r->wall_ns);
	buf_putc(&b, '\n');
	put_cpu_times(&b, r);
	put_share(&b, &r->share);
	buf_puts(&b, " pfshim: reported ");
	put_reason(&b, r);
	buf_puts(&b, " by pfshim ");
	buf_puts(&b, pfshim_version);
	buf_putc(&b, '\n');
	if (r->job)
		put_job(&b, r->job);
	if (any_user_only(r))
		buf_puts(&b, " pfshim: ':u' events count user space only: the kernel"
			 " refused kernel counting (perf_event_paranoid)\n");
	buf_putc(&b, '\n');
	if (r->seq)
		put_series(&b, r);
	put_regions(&b, r);
	return buf_finish(&b);
}
