/* SPDX-License-Identifier: MIT */
/*
 * openmetrics.c: the report as a Prometheus exposition, in either of its two
 * text dialects, the same families and samples in both:
 *
 * - OpenMetrics 1.0 (PFSHIM_FORMAT=openmetrics): a counter family X has the
 *   sample X_total, "# UNIT" lines, and "# EOF" last. What reads OpenMetrics
 *   reads it: Prometheus' own parser, promtool tsdb create-blocks-from
 *   openmetrics, prometheus_client's parser.
 * - The Prometheus text format 0.0.4 (PFSHIM_FORMAT=prometheus), which is
 *   what node_exporter's textfile collector and promtool check metrics
 *   parse: "# HELP" and "# TYPE" name the sample itself (a counter is
 *   "# TYPE X_total counter"), no "# UNIT", no "# EOF". Given OpenMetrics,
 *   node_exporter 1.5 served every counter "untyped" with a help of its
 *   own ("Metric read from FILE"), and promtool exited 3.
 *
 * Both: only counter and gauge families (node_exporter refuses "info" and
 * "stateset"), no timestamps (it refuses those too), HELP texts without
 * '\' or '"' and fixed per family (node_exporter merges all files, and a
 * family's HELP must be the same in each).
 *
 * Naming (docs/output.md "OpenMetrics"): each event is a counter family
 * pfshim_<name>[_<unit>] whose sample pfshim_<name>[_<unit>]_total carries the
 * event as the user wrote it in an "event" label. Sanitizing keeps
 * modifiers ("page-faults:u" is pfshim_page_faults_u, apart from
 * pfshim_page_faults); events whose names still sanitize alike
 * ("page_faults", "page-faults") are samples of one family, told apart by
 * that label, so two families never clash. A name that could meet one of
 * pfshim's own families is moved under pfshim_event_. Events that were not
 * counted (or that only the kernel can cause, counted in user space only:
 * zero_when_user_only) give no sample; pfshim_event_status says what became
 * of each.
 *
 * Async-signal-safe: formats into the caller's buffer with export/buf.h; no
 * allocation, stdio, locale or locks. Counts are printed from their u64.
 */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "export/buf.h"
#include "export/names.h"
#include "export/report.h"
#include "export/version.h"

/* Long enough for any real event's name; a longer one is cut (and shares a family). */
#define BASE_MAX 96
#define FAMILY_MAX 160
#define UNIT_MAX 32

/* ---- names */

static char ascii_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static bool starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/*
 * @s in lower case with each run of other characters than [a-z0-9] made one
 * '_', none at either end, cut to @size - 1: "L1-dcache-loads:u" is
 * "l1_dcache_loads_u", "cpu/event=0x3c/" is "cpu_event_0x3c".
 */
static size_t sanitize(const char *s, char *out, size_t size)
{
	size_t n = 0;
	bool gap = false;

	for (; s && *s && n + 1 < size; s++) {
		if (!is_alnum(*s)) {
			gap = n > 0;
			continue;
		}
		if (gap && n + 2 < size)
			out[n++] = '_';
		gap = false;
		out[n++] = ascii_lower(*s);
	}
	while (n > 0 && out[n - 1] == '_')
		n--;
	out[n] = '\0';
	return n;
}

/* A value shown in seconds: the clocks count ns and say "msec" with scale 1e-6. */
static bool in_seconds(const struct report_event *e)
{
	return e->unit && strcmp(e->unit, "msec") == 0 && e->scale == 1e-6;
}

/* @s (of length @n) ends with a counter's own suffix: "_total", "_created". */
static bool ends_as_counter(const char *s, size_t n)
{
	return ends_with(s, n, "_total") || ends_with(s, n, "_created");
}

/*
 * The family's unit: "seconds" for the clocks, a sysfs .unit sanitized
 * ("Joules" is "joules"), or "" (none). A unit that would end the family's
 * name as a counter's own suffix ("total", "grand_total") is dropped.
 */
static const char *event_unit(const struct report_event *e, char unit[UNIT_MAX])
{
	size_t n;

	if (in_seconds(e))
		return "seconds";
	if (!e->unit || !(n = sanitize(e->unit, unit, UNIT_MAX)))
		return "";
	if (strcmp(unit, "total") == 0 || strcmp(unit, "created") == 0 || ends_as_counter(unit, n))
		return "";
	return unit;
}

/*
 * Names pfshim's own families take, so that no event's family can be one
 * of them or reserve one of their names (a counter X reserves X_total and
 * X_created: no event name ends so once sanitized).
 */
static bool name_reserved(const char *x)
{
	static const char *const exact[] = {
		"report_info", "wall_seconds", "start_time_seconds", "calls",
	};

	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (strcmp(x, exact[i]) == 0)
			return true;
	return starts_with(x, "event_") || starts_with(x, "region_") || starts_with(x, "markers_");
}

/*
 * The family of event @e, without its "pfshim_" (the region families put
 * "pfshim_region_" before the same text): "page_faults", "task_clock_seconds",
 * "event_wall_seconds" (an event named wall-seconds).
 */
static void event_family(const struct report_event *e, char family[FAMILY_MAX])
{
	char base[BASE_MAX], unit_buf[UNIT_MAX];
	const char *unit = event_unit(e, unit_buf);
	size_t n = sanitize(e->name, base, sizeof(base));
	struct buf b;

	/* "x_total" and "x" would clash (x reserves x_total): both become x. */
	while (ends_as_counter(base, n)) {
		n -= ends_with(base, n, "_total") ? 6 : 8;
		base[n] = '\0';
	}
	if (n == 0)
		strcpy(base, "event");
	buf_init(&b, family, FAMILY_MAX);
	buf_puts(&b, base);
	if (*unit && !(ends_with(base, strlen(base), unit) &&
		       (strlen(base) == strlen(unit) || base[strlen(base) - strlen(unit) - 1] == '_'))) {
		buf_putc(&b, '_');
		buf_puts(&b, unit);
	}
	buf_finish(&b);
	if (name_reserved(family)) {
		memmove(family + 6, family, strnlen(family, FAMILY_MAX - 7) + 1);
		memcpy(family, "event_", 6);
		family[FAMILY_MAX - 1] = '\0';
	}
}

/*
 * Which events share a family is asked for every pair of events, and a
 * family is a sanitized copy of a name: each event's is hashed once per
 * report (the first FAMILY_CACHE events: all that a shim's report holds,
 * EVENTS_MAX), and two are built and compared in full only when their
 * hashes agree. 64 distinct events took 1.6 ms to format without this.
 */
#define FAMILY_CACHE 64

struct family_cache {
	const struct report *r;
	uint64_t hash[FAMILY_CACHE];
};

static uint64_t family_hash(const struct report_event *e)
{
	char family[FAMILY_MAX];
	uint64_t h = 14695981039346656037ull;	/* FNV-1a */

	event_family(e, family);
	for (const char *p = family; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h;
}

static void family_cache_fill(struct family_cache *c, const struct report *r)
{
	c->r = r;
	for (int i = 0; i < r->nr_events && i < FAMILY_CACHE; i++)
		c->hash[i] = family_hash(&r->events[i]);
}

/* @e is one of the report's events (report_region_event() gives those too). */
static uint64_t cached_hash(const struct family_cache *c, const struct report_event *e)
{
	ptrdiff_t i = e - c->r->events;

	return i >= 0 && i < FAMILY_CACHE && i < c->r->nr_events ? c->hash[i] : family_hash(e);
}

/* Events @a and @b are samples of one family. */
static bool same_family(const struct family_cache *c, const struct report_event *a,
			const struct report_event *b)
{
	char fa[FAMILY_MAX], fb[FAMILY_MAX];

	if (a == b)
		return true;
	if (cached_hash(c, a) != cached_hash(c, b))
		return false;
	event_family(a, fa);
	event_family(b, fb);
	return strcmp(fa, fb) == 0;
}

/* ---- values */

/* @ns as seconds, exactly: 2300123 is 0.002300123. */
static void put_seconds(struct buf *b, uint64_t ns)
{
	buf_put_u64(b, ns / 1000000000u);
	buf_putc(b, '.');
	buf_put_u64_width(b, ns % 1000000000u, 9);
}

/* A counter's sample is a finite number >= 0: a scale that makes it anything else gives none. */
static bool value_usable(const struct report_event *e, uint64_t v)
{
	double d = (double)v * e->scale;

	return in_seconds(e) || e->scale == 1.0 || (d == d && d >= 0 && d <= 1.7976931348623157e308);
}

static void put_value(struct buf *b, const struct report_event *e, uint64_t v)
{
	if (in_seconds(e))
		put_seconds(b, v);
	else if (e->scale == 1.0)
		buf_put_u64(b, v);
	else
		buf_put_double(b, (double)v * e->scale);
}

/* ---- lines */

/* The text dialect written: see the top of this file. */
enum dialect { OPENMETRICS, PROMETHEUS_TEXT };

static void put_meta(struct buf *b, const char *key, const char *prefix, const char *name,
		     const char *suffix, const char *rest)
{
	buf_puts(b, key);
	buf_puts(b, prefix);
	buf_puts(b, name);
	buf_puts(b, suffix);
	buf_putc(b, ' ');
	buf_puts(b, rest);
	buf_putc(b, '\n');
}

/* A family's metadata lines; @unit is "" or NULL for none. */
static void put_family(struct buf *b, enum dialect d, const char *prefix, const char *name,
		       const char *type, const char *unit, const char *help)
{
	/* The text format names the sample: a counter's is its family's name and "_total". */
	const char *suffix = d == PROMETHEUS_TEXT && strcmp(type, "counter") == 0 ? "_total" : "";

	if (d == PROMETHEUS_TEXT) {
		put_meta(b, "# HELP ", prefix, name, suffix, help);
		put_meta(b, "# TYPE ", prefix, name, suffix, type);
		return;
	}
	put_meta(b, "# TYPE ", prefix, name, "", type);
	if (unit && *unit)
		put_meta(b, "# UNIT ", prefix, name, "", unit);
	put_meta(b, "# HELP ", prefix, name, "", help);
}

static void put_label(struct buf *b, const char *name, const char *value)
{
	buf_putc(b, ',');
	buf_puts(b, name);
	buf_puts(b, "=\"");
	buf_put_label_value(b, value);
	buf_putc(b, '"');
}

/*
 * "NAME{program=...,pid=...,host=...,rank=..." : the labels of the process,
 * on every sample. rank is "" without one, so that every file's samples of
 * a family have the same label names (Prometheus's registry refuses a
 * family whose samples differ in them).
 */
static void sample_begin(struct buf *b, const char *prefix, const char *name, const char *suffix,
			 const struct report *r)
{
	buf_puts(b, prefix);
	buf_puts(b, name);
	buf_puts(b, suffix);
	buf_puts(b, "{program=\"");
	buf_put_label_value(b, r->program);
	buf_puts(b, "\",pid=\"");
	buf_put_i64(b, r->pid);
	buf_putc(b, '"');
	put_label(b, "host", r->hostname);
	put_label(b, "rank", r->rank ? r->rank : "");
}

static void sample_end_u64(struct buf *b, uint64_t v)
{
	buf_puts(b, "} ");
	buf_put_u64(b, v);
	buf_putc(b, '\n');
}

static void sample_end_seconds(struct buf *b, uint64_t ns)
{
	buf_puts(b, "} ");
	put_seconds(b, ns);
	buf_putc(b, '\n');
}

/* ---- the process */

static void put_process(struct buf *b, enum dialect d, const struct report *r)
{
	const char *sig = r->reason == REPORT_SIGNAL ? signal_name(r->signo) : "";
	char num[24];
	struct buf nb;

	put_family(b, d, "pfshim_", "report_info", "gauge", NULL,
		   "The process a pfshim report is about and why it was written (value 1)");
	sample_begin(b, "pfshim_", "report_info", "", r);
	put_label(b, "argv0", r->argv0);
	buf_init(&nb, num, sizeof(num));
	buf_put_i64(&nb, r->ppid);
	buf_finish(&nb);
	put_label(b, "ppid", num);
	buf_init(&nb, num, sizeof(num));
	if (r->pid_ns)
		buf_put_u64(&nb, r->pid_ns);
	buf_finish(&nb);
	put_label(b, "pid_ns", num);
	put_label(b, "reason", report_reason_name(r->reason));
	if (r->reason == REPORT_SIGNAL && !sig) {
		buf_init(&nb, num, sizeof(num));
		buf_put_i64(&nb, r->signo);
		buf_finish(&nb);
		sig = num;
	}
	put_label(b, "signal", sig);
	/* job_*, not job: Prometheus gives its own job label to every target it scrapes. */
	put_label(b, "job_scheduler", r->job ? r->job->scheduler : "");
	put_label(b, "job_id", r->job ? r->job->id : "");
	put_label(b, "job_step", r->job && r->job->step ? r->job->step : "");
	put_label(b, "pfshim_version", pfshim_version);
	sample_end_u64(b, 1);

	put_family(b, d, "pfshim_", "wall_seconds", "gauge", "seconds",
		   "Wall-clock time from the process start to this report");
	sample_begin(b, "pfshim_", "wall_seconds", "", r);
	sample_end_seconds(b, r->wall_ns);
	if (!r->start_ns)
		return;	/* unknown (a copy made without fork) */
	put_family(b, d, "pfshim_", "start_time_seconds", "gauge", "seconds",
		   "Start time of the process since the Unix epoch");
	sample_begin(b, "pfshim_", "start_time_seconds", "", r);
	sample_end_seconds(b, r->start_ns);
}

/* ---- the events */

/* Listed twice as written: one sample only (a scrape refuses two alike). */
static bool event_repeated(const struct report *r, int i)
{
	for (int j = 0; j < i; j++)
		if (strcmp(r->events[j].name, r->events[i].name) == 0)
			return true;
	return false;
}

static bool event_sampled(const struct report *r, int i)
{
	const struct report_event *e = &r->events[i];

	/* A user-only count of what only the kernel does is a 0 that looks like a count. */
	return e->status == STATUS_COUNTED && !e->zero_when_user_only && !event_repeated(r, i) &&
	       value_usable(e, e->value);
}

static void put_event_families(struct buf *b, enum dialect d, const struct report *r,
			       const struct family_cache *c)
{
	char family[FAMILY_MAX], unit[UNIT_MAX];

	for (int i = 0; i < r->nr_events; i++) {
		bool done = false;

		if (!event_sampled(r, i))
			continue;
		for (int j = 0; j < i && !done; j++)
			done = same_family(c, &r->events[j], &r->events[i]) && event_sampled(r, j);
		if (done)
			continue;	/* sampled with the first event of its family */
		event_family(&r->events[i], family);
		put_family(b, d, "pfshim_", family, "counter", event_unit(&r->events[i], unit),
			   "A perf event counted by pfshim over the process, named in the event label");
		for (int k = i; k < r->nr_events; k++) {
			const struct report_event *e = &r->events[k];

			if (k > i && (!same_family(c, &r->events[i], e) || !event_sampled(r, k)))
				continue;
			sample_begin(b, "pfshim_", family, "_total", r);
			put_label(b, "event", e->name);
			buf_puts(b, "} ");
			put_value(b, e, e->value);
			buf_putc(b, '\n');
		}
	}
}

/* What became of each event: one sample of value 1 per event, counted or not. */
static void put_event_status(struct buf *b, enum dialect d, const struct report *r)
{
	put_family(b, d, "pfshim_", "event_status", "gauge", NULL,
		   "What became of each event: counted, not-counted, not-supported, closed-by-program or zero-when-user-only (value 1)");
	for (int i = 0; i < r->nr_events; i++) {
		const struct report_event *e = &r->events[i];
		const char *err = errno_name(e->error);
		char num[24];
		struct buf nb;

		if (!err && e->error) {	/* an errno without a name in export/names.c */
			buf_init(&nb, num, sizeof(num));
			buf_put_i64(&nb, e->error < 0 ? -e->error : e->error);
			buf_finish(&nb);
			err = num;
		}

		if (event_repeated(r, i))
			continue;
		sample_begin(b, "pfshim_", "event_status", "", r);
		put_label(b, "event", e->name);
		put_label(b, "status", e->status == STATUS_COUNTED && e->zero_when_user_only ?
					       "zero-when-user-only" : report_status_name(e->status));
		put_label(b, "error", err ? err : "");
		put_label(b, "user_only", e->user_only ? "true" : "false");
		sample_end_u64(b, 1);
	}
}

/* enabled and running times: how much of the run an event was counted (multiplexing). */
static void put_event_times(struct buf *b, enum dialect d, const struct report *r)
{
	static const char *const names[] = { "event_enabled_seconds", "event_running_seconds" };
	static const char *const helps[] = {
		"Time each counted event was enabled",
		"Time each counted event was running on a counter (less than enabled: scaled)",
	};

	for (int t = 0; t < 2; t++) {
		put_family(b, d, "pfshim_", names[t], "counter", "seconds", helps[t]);
		for (int i = 0; i < r->nr_events; i++) {
			const struct report_event *e = &r->events[i];

			if (!event_sampled(r, i))
				continue;
			sample_begin(b, "pfshim_", names[t], "_total", r);
			put_label(b, "event", e->name);
			sample_end_seconds(b, t == 0 ? e->enabled : e->running);
		}
	}
}

/* ---- the regions of the marker API: their totals over threads */

static void region_sample_begin(struct buf *b, const char *name, const struct report *r,
				const struct report_region_total *t)
{
	sample_begin(b, "pfshim_region_", name, "_total", r);
	put_label(b, "region", t->name);
}

static bool region_value_sampled(const struct report *r, int e,
				 const struct report_region_total *t)
{
	const struct report_event *ev = report_region_event(r, e);

	return ev && t->values[e].status == STATUS_COUNTED && value_usable(ev, t->values[e].sum);
}

/* A region event listed twice as written (an event listed twice): one sample only. */
static bool region_event_repeated(const struct report *r, int k)
{
	const char *name = report_region_event_name(r, k);

	for (int j = 0; j < k; j++)
		if (strcmp(report_region_event_name(r, j), name) == 0)
			return true;
	return false;
}

/* Whether an earlier region event than @e has its family already. */
static bool region_family_seen(const struct report *r, int e, const struct family_cache *c)
{
	const struct report_event *ev = report_region_event(r, e);

	for (int j = 0; j < e; j++) {
		const struct report_event *other = report_region_event(r, j);

		if (other && same_family(c, other, ev))
			return true;
	}
	return false;
}

static void put_region_event(struct buf *b, enum dialect d, const struct report *r, int e,
			     const struct family_cache *c)
{
	const struct report_regions *g = r->regions;
	const struct report_event *first = report_region_event(r, e);
	char family[FAMILY_MAX], unit[UNIT_MAX];
	bool any = false;

	if (!first || region_family_seen(r, e, c))
		return;
	event_family(first, family);
	for (int k = e; k < g->nr_events; k++) {
		const struct report_event *ev = report_region_event(r, k);

		if (!ev || (k > e && !same_family(c, first, ev)) || region_event_repeated(r, k))
			continue;
		for (int i = 0; i < g->nr_totals; i++) {
			const struct report_region_total *t = &g->totals[i];

			if (!region_value_sampled(r, k, t))
				continue;
			if (!any)
				put_family(b, d, "pfshim_region_", family, "counter",
					   event_unit(ev, unit),
					   "A perf event counted inside a region, summed over its calls in all threads");
			any = true;
			region_sample_begin(b, family, r, t);
			put_label(b, "event", ev->name);
			buf_puts(b, "} ");
			put_value(b, ev, t->values[k].sum);
			buf_putc(b, '\n');
		}
	}
}

/*
 * The probe (preload/markers/probe.c): pfshim's own count per call, the mean
 * of the threads' probes, each event in its own unit (clocks in seconds);
 * and whether the region families above had it subtracted.
 */
static void put_region_probe(struct buf *b, enum dialect d, const struct report *r)
{
	const struct report_regions *g = r->regions;
	bool any = false;

	for (int e = 0; g->probe && e < g->nr_events; e++) {
		const struct report_event *ev = report_region_event(r, e);

		if (!ev || g->probe[e].status != STATUS_COUNTED || region_event_repeated(r, e))
			continue;
		if (!any)
			put_family(b, d, "pfshim_", "markers_probe", "gauge", NULL,
				   "pfshim's own count in each region call, per event in its unit "
				   "(clocks in seconds): the mean over threads of an empty begin/end "
				   "pair measured at thread set-up");
		any = true;
		sample_begin(b, "pfshim_", "markers_probe", "", r);
		put_label(b, "event", ev->name);
		buf_puts(b, "} ");
		put_value(b, ev, g->probe[e].mean);
		buf_putc(b, '\n');
	}
	put_family(b, d, "pfshim_", "markers_compensated", "gauge", NULL,
		   "1 when PFSHIM_COMPENSATE=1 took the probe out of every region call's counts");
	sample_begin(b, "pfshim_", "markers_compensated", "", r);
	sample_end_u64(b, (uint64_t)g->compensated);
}

static void put_regions(struct buf *b, enum dialect d, const struct report *r,
			const struct family_cache *c)
{
	const struct report_regions *g = r->regions;

	if (!g || g->nr_totals == 0)
		return;
	put_family(b, d, "pfshim_", "region_calls", "counter", NULL,
		   "Completed outermost calls of a region, in all threads");
	for (int i = 0; i < g->nr_totals; i++) {
		region_sample_begin(b, "calls", r, &g->totals[i]);
		sample_end_u64(b, g->totals[i].calls);
	}
	put_family(b, d, "pfshim_", "region_wall_seconds", "counter", "seconds",
		   "Wall-clock time inside a region, summed over its calls in all threads");
	for (int i = 0; i < g->nr_totals; i++) {
		if (g->totals[i].wall.status != STATUS_COUNTED)
			continue;
		region_sample_begin(b, "wall_seconds", r, &g->totals[i]);
		sample_end_seconds(b, g->totals[i].wall.sum);
	}
	for (int e = 0; e < g->nr_events; e++)
		put_region_event(b, d, r, e, c);
	put_region_probe(b, d, r);
}

/* ---- the metrics of PFSHIM_GROUP: gauges, the computed ones only */

static void put_metric_samples(struct buf *b, const char *name, const struct report *r,
			       const struct report_region_total *t,
			       const struct report_metric *metrics)
{
	for (int i = 0; i < r->nr_metrics; i++) {
		const struct report_metric *m = &metrics[i];

		if (m->status != METRIC_COMPUTED || m->value != m->value ||
		    m->value > 1.7976931348623157e308 || m->value < -1.7976931348623157e308)
			continue;	/* no value, or none a scraper could parse */
		sample_begin(b, "pfshim_", name, "", r);
		if (t)
			put_label(b, "region", t->name);
		put_label(b, "group", r->metric_group);
		put_label(b, "metric", m->name);
		put_label(b, "unit", m->unit);
		buf_puts(b, "} ");
		buf_put_double(b, m->value);
		buf_putc(b, '\n');
	}
}

static void put_metrics(struct buf *b, enum dialect d, const struct report *r)
{
	const struct report_regions *g = r->regions;

	if (!r->metric_group)
		return;
	put_family(b, d, "pfshim_", "metric", "gauge", NULL,
		   "A metric of the performance group PFSHIM_GROUP, named in the metric label");
	put_metric_samples(b, "metric", r, NULL, r->metrics);
	if (!g || !g->nr_totals || !r->region_metrics)
		return;
	put_family(b, d, "pfshim_", "region_metric", "gauge", NULL,
		   "A metric of the performance group PFSHIM_GROUP over a region, in all threads");
	for (int i = 0; i < g->nr_totals; i++) {
		r->region_metrics(r, &g->totals[i], r->region_metrics_out);
		put_metric_samples(b, "region_metric", r, &g->totals[i], r->region_metrics_out);
	}
}

static size_t format(const struct report *r, enum dialect d, char *out, size_t size)
{
	struct family_cache families;
	struct buf b;

	family_cache_fill(&families, r);
	buf_init(&b, out, size);
	put_process(&b, d, r);
	put_event_families(&b, d, r, &families);
	put_event_status(&b, d, r);
	put_event_times(&b, d, r);
	put_regions(&b, d, r, &families);
	put_metrics(&b, d, r);
	if (d == OPENMETRICS)
		buf_puts(&b, "# EOF\n");
	return buf_finish(&b);
}

size_t report_format_openmetrics(const struct report *r, char *out, size_t size)
{
	return format(r, OPENMETRICS, out, size);
}

size_t report_format_prometheus(const struct report *r, char *out, size_t size)
{
	return format(r, PROMETHEUS_TEXT, out, size);
}
