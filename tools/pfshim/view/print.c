/* SPDX-License-Identifier: MIT */
/*
 * print.c: a summary as text (like perf stat's, for a person), JSON (schema
 * pfshim.summary) or CSV, for scripts. docs/pfshim.md has the schemas; the
 * HTML page is html.c's.
 */
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "tools/pfshim/view/view.h"
#include "export/buf.h"
#include "export/version.h"	/* the summary names the pfshim that wrote it */

/* 1234567 -> "1,234,567"; a scaled value (the clocks) -> "1234.57", "0.0265". */
void summary_value_format(const struct summary_event *e, uint64_t value, char *out, size_t size)
{
	struct buf b;

	if (e->scale != 1.0) {	/* below 1, the digits that matter: 0.00265 msec, not 0.00 */
		double v = (double)value * e->scale;

		snprintf(out, size, v >= 1 || v == 0 ? "%.2f" : "%.3g", v);
		return;
	}
	buf_init(&b, out, size);
	buf_put_u64_grouped(&b, value);
	buf_finish(&b);
}

/*
 * One rule for a mean in every view that prints one as text: as its event's
 * values are shown (a clock's with 2 decimals), and a count whole when it is
 * whole, else with 2 decimals. Never cut or rounded to a whole number: the
 * imbalance (max / mean) is computed from the exact mean, and the printed
 * max over the printed mean must give the printed imbalance (2 / 1.67 =
 * 1.20, where "mean 1" said 2.00). JSON and CSV carry the exact mean.
 */
void summary_mean_format(const struct summary_event *e, double mean, char *out, size_t size)
{
	uint64_t cents;
	size_t n;

	if (e->scale != 1.0) {
		double v = mean * e->scale;

		snprintf(out, size, fabs(v) >= 1 || v == 0 ? "%.2f" : "%.3g", v);
		return;
	}
	/* (no libm: integer arithmetic; below 1e15, 2 decimals are still exact in a double) */
	if (!(mean > 0) || mean >= 1e15 || mean == (double)(uint64_t)mean) {
		summary_value_format(e, mean > 0 ? (uint64_t)(mean + 0.5) : 0, out, size);
		return;
	}
	cents = (uint64_t)(mean * 100 + 0.5);
	summary_value_format(e, cents / 100, out, size);
	n = strlen(out);
	snprintf(out + n, size - n, ".%02u", (unsigned)(cents % 100));
}

static void sum_format(const struct summary_event *e, const struct summary_sum *v, char *out,
		       size_t size)
{
	if (!v->counted)	/* as perf stat says it, and the shim's own report */
		snprintf(out, size, v->not_supported ? "<not supported>" :
			 v->closed ? "<closed by program>" : "<not counted>");
	else
		summary_value_format(e, v->value, out, size);
}

struct summary_event summary_metric_event(const struct summary *s, int metric)
{
	if (metric == 0)
		return (struct summary_event){ "wall", "msec", 1e-6 };
	for (int i = 0; i < s->nr_events; i++)
		if (strcmp(s->events[i].name, s->metrics.name[metric]) == 0)
			return s->events[i];
	return (struct summary_event){ s->metrics.name[metric], "", 1.0 };
}

static const char *plural(uint64_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

/* "3 ranks", "1 process", "5 processes" */
static const char *by_plural(enum summary_by by, uint64_t n)
{
	static const char *const many[] = { "programs", "ranks", "hosts", "processes" };

	return n == 1 ? summary_by_name(by) : many[by];
}

static void group_label(const struct summary *s, int g, char *out, size_t size)
{
	if (s->opt.by == BY_PROCESS)
		snprintf(out, size, "%s %s", s->groups[g].name,
			 s->groups[g].program ? s->groups[g].program : "");
	else
		snprintf(out, size, "%s", s->groups[g].name);
}

/* Width of event @i's column: its heading, at least 14, and a "<closed by program>" cell's. */
static int column_width(const struct summary *s, int i)
{
	size_t w = strlen(s->events[i].name) +
		   (*s->events[i].unit ? strlen(s->events[i].unit) + 1 : 0);
	size_t least = s->totals[i].closed ? strlen("<closed by program>") : 14;

	return (int)(w > least ? w : least);
}

static void print_header(const struct summary *s, const char *label, int name_width,
			 const char *second, FILE *out)
{
	fprintf(out, "\n %-*s %8s", name_width, label, second);
	for (int i = 0; i < s->nr_events; i++) {
		char head[96];

		snprintf(head, sizeof(head), "%s%s%s", s->events[i].name,
			 *s->events[i].unit ? " " : "", s->events[i].unit);
		fprintf(out, " %*s", column_width(s, i), head);
	}
	fputc('\n', out);
}

static void print_row(const struct summary *s, const char *label, int name_width,
		      const char *second, const struct summary_sum *sums, FILE *out)
{
	char v[48];

	fprintf(out, " %-*s %8s", name_width, label, second);
	for (int i = 0; i < s->nr_events; i++) {
		sum_format(&s->events[i], &sums[i], v, sizeof(v));
		fprintf(out, " %*s", column_width(s, i), v);
	}
	fputc('\n', out);
}

/* The first column's width: the longest group label, at least 20. */
static int groups_name_width(const struct summary *s)
{
	int name_width = 20;
	char label[400];

	for (int g = 0; g < s->nr_groups; g++) {
		group_label(s, g, label, sizeof(label));
		if ((int)strlen(label) > name_width)
			name_width = (int)strlen(label);
	}
	return name_width;
}

static void print_groups(const struct summary *s, const int *sorted, FILE *out)
{
	int name_width = groups_name_width(s);
	char label[400], images[24];

	snprintf(label, sizeof(label), "per %s", summary_by_name(s->opt.by));
	print_header(s, label, name_width, "images", out);
	for (int k = 0; k < s->nr_groups; k++) {
		int g = sorted[k];

		if (!s->groups[g].images)	/* only interval reports so far: in the series */
			continue;
		group_label(s, g, label, sizeof(label));
		snprintf(images, sizeof(images), "%" PRIu64, s->groups[g].images);
		print_row(s, label, name_width, images, s->groups[g].sums, out);
	}
}

/* A share row: an event whose share the shim cannot measure says so. */
static void print_share_row(const struct summary *s, const char *label,
			    const struct summary_sum *sums, FILE *out)
{
	char v[48];

	fprintf(out, " %-*s %8s", groups_name_width(s), label, "");
	for (int i = 0; i < s->nr_events; i++) {
		if (sums[i].counted)
			summary_value_format(&s->events[i], sums[i].value, v, sizeof(v));
		fprintf(out, " %*s", column_width(s, i), sums[i].counted ? v : "<not measured>");
	}
	fputc('\n', out);
}

/*
 * The images whose last report was written at a signal, one line per
 * signal: under PFSHIM_ON_FATAL, killed by it, and in the rows.
 */
static void print_signal_ends(const struct summary *s, FILE *out)
{
	bool *done = xrealloc(NULL, (size_t)(s->signal_ends.n + 1) * sizeof(bool));

	memset(done, 0, (size_t)(s->signal_ends.n + 1) * sizeof(bool));
	for (int a = 0; a < s->signal_ends.n; a++) {
		size_t len = strcspn(s->signal_ends.name[a], "\t");
		uint64_t total = 0;
		bool first = true;

		if (done[a])
			continue;
		for (int b = a; b < s->signal_ends.n; b++)
			if (!strncmp(s->signal_ends.name[b], s->signal_ends.name[a], len + 1))
				total += s->signal_end_count[b];
		fprintf(out, "\n pfshim: %" PRIu64 " %s killed by %.*s (", total,
			plural(total, "process", "processes"), (int)len, s->signal_ends.name[a]);
		for (int b = a; b < s->signal_ends.n; b++) {
			if (strncmp(s->signal_ends.name[b], s->signal_ends.name[a], len + 1))
				continue;
			done[b] = true;
			fprintf(out, "%s%s", first ? "" : ", ", s->signal_ends.name[b] + len + 1);
			if (s->signal_end_count[b] > 1)
				fprintf(out, " x%" PRIu64, s->signal_end_count[b]);
			first = false;
		}
		fprintf(out, "): %s report written at the signal (PFSHIM_ON_FATAL): in the rows\n",
			total == 1 ? "its" : "each one's");
	}
	free(done);
}

/* The most images of group @g (or of all, -1) whose program closed one of their counters. */
static uint64_t closed_images(const struct summary *s, int g)
{
	uint64_t most = 0;

	for (int k = 0; k < s->nr_events; k++) {
		uint64_t n = g < 0 ? s->totals[k].closed : s->groups[g].sums[k].closed;

		most = n > most ? n : most;
	}
	return most;
}

/*
 * Images whose program closed pfshim's counters (a closefrom(), a loop
 * closing every descriptor): a row's sum lacks them, said, with the rows
 * and the events.
 */
static void print_closed(const struct summary *s, FILE *out)
{
	uint64_t images = closed_images(s, -1);
	bool first = true;

	if (!images)
		return;
	fprintf(out, "\n pfshim: %" PRIu64 " %s closed pfshim's counters (", images,
		images == 1 ? "image's program" : "images' programs");
	for (int g = 0; g < s->nr_groups; g++) {
		uint64_t n = closed_images(s, g);

		if (!n)
			continue;
		fprintf(out, "%s%s", first ? "" : ", ", s->groups[g].name);
		if (n > 1)
			fprintf(out, " x%" PRIu64, n);
		first = false;
	}
	fprintf(out, "): what %s counted of ", images == 1 ? "it" : "they");
	first = true;
	for (int k = 0; k < s->nr_events; k++) {
		if (!s->totals[k].closed)
			continue;
		fprintf(out, "%s%s", first ? "" : ", ", s->events[k].name);
		first = false;
	}
	fprintf(out, " is in no row%s\n", s->job ? " (the totals hold it)" : "");
}

/* Images counted by a report that is not their end: up to it only. */
static void print_unended(const struct summary *s, FILE *out)
{
	if (s->images_unended)
		fprintf(out, "\n pfshim: %" PRIu64 " %s whose last report read is not %s end (an"
			" interval or explicit report: still running, or killed after it): counted up"
			" to that report\n", s->images_unended,
			plural(s->images_unended, "image", "images"),
			s->images_unended == 1 ? "its" : "their");
}

/* How the share was counted, in one line; what of it is missing, said. */
static void print_share_note(const struct summary *s, FILE *out)
{
	const struct summary_job *job = s->job;
	bool calibrated = false, priced = false, recorded = false;
	uint64_t faults = 0;

	for (int f = 0; f < SHARE_FIELDS; f++) {
		calibrated |= job->calibration[f].known;
		priced |= job->calibration[f].per_1000_faults || job->calibration[f].per_fork;
		recorded |= job->calibration[f].known && job->calibration[f].per_exec;
	}
	for (int k = 0; k < s->nr_events; k++)
		if (job->calibration[SHARE_PAGE_FAULTS].known &&
		    job->calibration[SHARE_PAGE_FAULTS].event == k && s->totals[k].counted)
			faults = s->totals[k].value;
	fprintf(out, "\n pfshim: pfshim's own share: its set-up and reports as %" PRIu64 " %s measured"
		" them", s->share.images, plural(s->share.images, "image", "images"));
	if (calibrated && job->shim_images >= 0)
		fprintf(out, ", and loading it in %" PRId64 " %s, as measured on %s "
			"(calibrated in %.0f ms%s)",
			job->shim_images, plural((uint64_t)job->shim_images, "image", "images"),
			job->calibration_program ? job->calibration_program : "?",
			(double)job->calibration_cost_ns / 1e6,
			job->calibration_cached ? ", by an earlier run" : "");
	else
		fprintf(out, "; loading it is not in it (%s)", job->calibration_error ?
			job->calibration_error : "not calibrated");
	if (calibrated && priced)
		fprintf(out, "; %" PRIu64 " %s and %" PRIu64 " %s at the calibration's price each",
			faults, plural(faults, "page fault", "page faults"), s->share.forks,
			plural(s->share.forks, "fork", "forks"));
	if (recorded && job->execs)
		fprintf(out, "; the kernel's records of %" PRIu64 " %s, beyond perf stat's counting",
			job->execs, plural(job->execs, "exec", "execs"));
	if (s->share.unmeasured)
		fprintf(out, "; %" PRIu64 " %s could not measure a part (a seccomp filter)",
			s->share.unmeasured, plural(s->share.unmeasured, "image", "images"));
	fprintf(out, " (docs/pfshim.md)\n");
}

/* "in no row" where rows hold more than the totals: not known, but for an event counted nowhere. */
static void print_rest_unknown(const struct summary *s, FILE *out)
{
	char v[48];

	fprintf(out, " %-*s %8s", groups_name_width(s), "in no row", "");
	for (int i = 0; i < s->nr_events; i++) {
		if (s->job->rest_sums[i].not_supported)
			sum_format(&s->events[i], &s->job->rest_sums[i], v, sizeof(v));
		else
			snprintf(v, sizeof(v), "not known");
		fprintf(out, " %*s", column_width(s, i), v);
	}
	fputc('\n', out);
}

/* Images whose reports came after the command's end: why "in no row" is not known. */
static void print_outlived(const struct summary *s, FILE *out)
{
	const struct summary_job *job = s->job;

	if (!job->outlived)
		return;
	fprintf(out, "\n pfshim: %" PRIu64 " %s reported after the command ended (",
		job->outlived, plural(job->outlived, "image", "images"));
	for (int n = 0; n < job->outlived_programs.n; n++)
		fprintf(out, "%s%s", n ? ", " : "", job->outlived_programs.name[n]);
	fprintf(out, "): the totals hold %s up to the command's end, %s whole, so what no"
		" row holds is not known; pfshim's own share holds %s loading and set-up"
		" (docs/usage.md, Limits)\n", job->outlived == 1 ? "it" : "them",
		job->outlived == 1 ? "its row" : "their rows", job->outlived == 1 ? "its" : "their");
}

/* Processes the kernel stopped counting that reported all the same: rows beyond the totals. */
static void print_uncounted_reported(const struct summary *s, FILE *out)
{
	const struct summary_job *job = s->job;

	if (!job->uncounted_reported)
		return;
	fprintf(out, "\n pfshim: %" PRIu64 " %s the kernel stopped counting at an exec reported all the"
		" same (", job->uncounted_reported,
		plural(job->uncounted_reported, "process", "processes"));
	for (int n = 0; n < job->uncounted_programs.n; n++)
		fprintf(out, "%s%s", n ? ", " : "", job->uncounted_programs.name[n]);
	fprintf(out, "): a program its user may run but not read, where the loader still preloads"
		" the shim; %s hold%s what the totals do not, so what no row holds is not known"
		" (docs/usage.md, Limits)\n", job->uncounted_reported == 1 ? "its row" : "their rows",
		job->uncounted_reported == 1 ? "s" : "");
}

/*
 * What the job's totals hold beyond the rows: each reported image's work
 * before the shim started in it and after its report, and the processes
 * whose last program left no report, named.
 */
static void print_job_rest(const struct summary *s, FILE *out)
{
	const struct summary_job *job = s->job;

	if (job->rest_unknown)	/* rows past the totals: print_outlived() says why */
		print_rest_unknown(s, out);
	else
		print_row(s, "in no row", groups_name_width(s), "", job->rest_sums, out);
	print_share_row(s, "pfshim's own share", job->share_sums, out);
	print_share_row(s, "less pfshim's share", job->less_share_sums, out);
	print_share_note(s, out);
	print_outlived(s, out);
	print_uncounted_reported(s, out);
	print_signal_ends(s, out);
	for (int k = 0; k < KINDS; k++) {
		if (!job->kind_count[k])
			continue;
		fprintf(out, "\n pfshim: %" PRIu64 " %s %s (", job->kind_count[k],
			plural(job->kind_count[k], "process", "processes"), summary_kind_what[k]);
		for (int n = 0; n < job->unreported_programs[k].n; n++) {
			const char *name = job->unreported_programs[k].name[n];
			size_t len = k == KIND_LOST ? strcspn(name, "\t") : 0;

			fprintf(out, "%s%s", n ? ", " : "", name + (len ? len + 1 : 0));
			if (job->unreported_count[k][n] > 1)
				fprintf(out, " x%" PRIu64, job->unreported_count[k][n]);
			if (len)
				fprintf(out, ": %.*s", (int)len, name);
		}
		fprintf(out, "): %s; %s (docs/usage.md, Limits)\n", summary_kind_why[k],
			summary_kind_counts[k]);
	}
	if (job->unnamed)
		fprintf(out, "\n pfshim: the kernel could not name the job's processes: those"
			" without a report are in the totals, unnamed\n");
	if (job->lost_records)
		fprintf(out, "\n pfshim: the kernel lost %" PRIu64 " records naming processes:"
			" some without a report may be unnamed\n", job->lost_records);
	if (job->ledger_malformed)
		fprintf(out, "\n pfshim: %" PRIu64 " line%s of the reports' ledger (.pfshim-ledger)"
			" could not be read (cut short by a full disk?), and %s skipped: a process"
			" whose report was lost may be counted as leaving no report\n",
			job->ledger_malformed, job->ledger_malformed == 1 ? "" : "s",
			job->ledger_malformed == 1 ? "was" : "were");
}

/* The markers' own count per call (each thread's probe): least, most and mean over threads. */
static void print_probe(const struct summary *s, FILE *out)
{
	if (!s->nr_probes)
		return;
	fprintf(out, "\n   pfshim itself in each call, per thread (min, max, mean over %" PRIu64
		" threads' probes)", s->probes[0].threads);
	if (s->compensated_reports == s->region_reports)
		fputs(": subtracted from every region (PFSHIM_COMPENSATE=1)\n", out);
	else if (s->compensated_reports)
		fprintf(out, ": subtracted in %" PRIu64 " of %" PRIu64 " reports only (PFSHIM_COMPENSATE=1)\n",
			s->compensated_reports, s->region_reports);
	else
		fputs(": included in every region\n", out);
	for (int i = 0; i < s->nr_probes; i++) {
		const struct summary_probe *p = &s->probes[i];
		struct summary_event e = summary_metric_event(s, p->metric);
		char mn[48], mx[48], mean[48];

		summary_value_format(&e, p->min, mn, sizeof(mn));
		summary_value_format(&e, p->max, mx, sizeof(mx));
		summary_mean_format(&e, p->threads ? (double)p->sum / (double)p->threads : 0, mean,
				    sizeof(mean));
		fprintf(out, " %14s %13s %13s %13s %-5s %s\n", "-", mn, mx, mean, e.unit, e.name);
	}
}

static void print_regions(const struct summary *s, FILE *out)
{
	const char *by = summary_by_name(s->opt.by);

	fprintf(out, "\n pfshim: regions, each %s's sum over its threads and images; sum, min, max\n"
		" and mean over the %s that have it, imbalance = max/mean; per thread: min..max\n",
		by, by_plural(s->opt.by, 2));
	print_probe(s, out);
	for (int r = 0; r < s->region_names.n; r++) {
		struct summary_stats st;
		char calls[48];

		summary_region_stats(s, r, 0, &st);
		summary_value_format(&(struct summary_event){ .scale = 1.0 }, st.calls, calls, sizeof(calls));
		fprintf(out, "\n   region '%s': %s %s, %" PRIu64 " %s, %d %s", s->region_names.name[r],
			calls, plural(st.calls, "call", "calls"), st.threads,
			plural(st.threads, "thread", "threads"), st.groups,
			by_plural(s->opt.by, (uint64_t)st.groups));
		if (st.reentries)
			fprintf(out, ", %" PRIu64 " re-entries counted once", st.reentries);
		if (st.unclosed)
			fprintf(out, ", MISUSE: left open %" PRIu64 " times", st.unclosed);
		fprintf(out, "\n %14s %13s %13s %13s %9s %25s\n", "sum", "min", "max", "mean",
			"imbalance", "per thread min..max");
		for (int m = 0; m < s->metrics.n; m++) {
			struct summary_event e = summary_metric_event(s, m);
			char sum[48], mn[48], mx[48], mean[48], tmin[48], tmax[48], range[100];

			summary_region_stats(s, r, m, &st);
			if (!st.counted) {
				if (summary_cell(s, r, 0, m) || m == 0)
					fprintf(out, " %14s %-5s %s\n", "<not counted>", e.unit, e.name);
				continue;
			}
			summary_value_format(&e, st.sum, sum, sizeof(sum));
			summary_value_format(&e, st.min, mn, sizeof(mn));
			summary_value_format(&e, st.max, mx, sizeof(mx));
			summary_mean_format(&e, st.mean, mean, sizeof(mean));
			summary_value_format(&e, st.thread_min, tmin, sizeof(tmin));
			summary_value_format(&e, st.thread_max, tmax, sizeof(tmax));
			snprintf(range, sizeof(range), "%s..%s", tmin, tmax);
			fprintf(out, " %14s %13s %13s %13s %9.2f %25s %-5s %s\n", sum, mn, mx, mean,
				st.imbalance, range, e.unit, e.name);
		}
	}
	if (s->misuse.end_without_begin || s->misuse.bad_handle || s->misuse.table_full ||
	    s->misuse.names_refused)
		fprintf(out, "\n   MISUSE: %" PRIu64 " end without begin, %" PRIu64 " bad region handles, %"
			PRIu64 " begins refused (table full), %" PRIu64 " region names refused\n",
			s->misuse.end_without_begin, s->misuse.bad_handle, s->misuse.table_full,
			s->misuse.names_refused);
}

static int point_cmp(const void *a, const void *b)
{
	const struct summary_point *x = a, *y = b;

	if (x->event != y->event)
		return x->event - y->event;
	if (x->bucket != y->bucket)
		return x->bucket < y->bucket ? -1 : 1;
	return x->group - y->group;
}

struct summary_point *summary_points_sorted(const struct summary *s)
{
	struct summary_point *p = xrealloc(NULL, (size_t)s->nr_points * sizeof(*p));

	if (s->nr_points)
		memcpy(p, s->points, (size_t)s->nr_points * sizeof(*p));
	qsort(p, (size_t)s->nr_points, sizeof(*p), point_cmp);
	return p;
}

int64_t summary_bucket_time(const struct summary *s, int64_t bucket)
{
	/* (unsigned: a step's time is at most INT64_MAX + step / 2, combine.c) */
	uint64_t at = (uint64_t)bucket * s->bucket_ns;

	if (bucket <= 0 || at <= s->series_start_ns)
		return 0;
	return at - s->series_start_ns > (uint64_t)INT64_MAX ? INT64_MAX
							     : (int64_t)(at - s->series_start_ns);
}

static int bucket_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The series summed over groups: one row per step that has a point, one column per event. */
static void print_series(const struct summary *s, FILE *out)
{
	int64_t *bucket = xrealloc(NULL, (size_t)s->nr_points * sizeof(*bucket));
	uint64_t *sum;
	bool *have;
	int nb = 0;
	char v[48];

	for (int i = 0; i < s->nr_points; i++)
		bucket[i] = s->points[i].bucket;
	qsort(bucket, (size_t)s->nr_points, sizeof(*bucket), bucket_cmp);
	for (int i = 0; i < s->nr_points; i++)
		if (!nb || bucket[nb - 1] != bucket[i])
			bucket[nb++] = bucket[i];
	sum = xrealloc(NULL, (size_t)nb * (size_t)s->nr_events * sizeof(*sum));
	have = xrealloc(NULL, (size_t)nb * (size_t)s->nr_events * sizeof(*have));
	memset(sum, 0, (size_t)nb * (size_t)s->nr_events * sizeof(*sum));
	memset(have, 0, (size_t)nb * (size_t)s->nr_events * sizeof(*have));
	for (int i = 0; i < s->nr_points; i++) {
		const int64_t *at = bsearch(&s->points[i].bucket, bucket, (size_t)nb, sizeof(*bucket),
					    bucket_cmp);
		size_t cell = (size_t)(at - bucket) * (size_t)s->nr_events + (size_t)s->points[i].event;

		sum[cell] += s->points[i].delta;
		have[cell] = true;
	}
	fprintf(out, "\n pfshim: interval series, every %.3f s (each event's change per step, summed"
		" over the %s; --json, --csv and --html have each %s's)\n\n %10s",
		(double)s->bucket_ns / 1e9, by_plural(s->opt.by, 2), summary_by_name(s->opt.by),
		"time s");
	for (int i = 0; i < s->nr_events; i++) {
		char head[96];

		snprintf(head, sizeof(head), "%s%s%s", s->events[i].name,
			 *s->events[i].unit ? " " : "", s->events[i].unit);
		fprintf(out, " %*s", (int)(strlen(head) > 14 ? strlen(head) : 14), head);
	}
	fputc('\n', out);
	for (int b = 0; b < nb; b++) {
		fprintf(out, " %10.3f", (double)summary_bucket_time(s, bucket[b]) / 1e9);
		for (int e = 0; e < s->nr_events; e++) {
			size_t w = strlen(s->events[e].name) +
				   (*s->events[e].unit ? strlen(s->events[e].unit) + 1 : 0);
			size_t cell = (size_t)b * (size_t)s->nr_events + (size_t)e;

			if (have[cell])
				summary_value_format(&s->events[e], sum[cell], v, sizeof(v));
			else
				snprintf(v, sizeof(v), "-");
			fprintf(out, " %*s", (int)(w > 14 ? w : 14), v);
		}
		fputc('\n', out);
	}
	free(bucket);
	free(sum);
	free(have);
}

void summary_print_tree(const struct summary *s, FILE *out)
{
	int *order, *depth, n = summary_tree(s, &order, &depth);
	char v[48];

	fprintf(out, "\n pfshim: process tree (by pid and ppid; '>' an exec, same pid; [why the "
		"report was written])\n\n");
	for (int k = 0; k < n; k++) {
		const struct summary_image *im = &s->image_list[order[k]];
		bool exec = k && summary_images_one_process(&s->image_list[order[k - 1]], im);

		fprintf(out, " %*s%s%s%s%d %s [%s", 2 * depth[k], "", exec ? "> " : "",
			s->hosts.n > 1 ? s->hosts.name[im->host] : "pid", s->hosts.n > 1 ? ":" : " ",
			im->pid, s->programs.name[im->program], im->reason);
		if (im->exit_status >= 0)
			fprintf(out, " %d", im->exit_status);
		if (im->signal > 0)
			fprintf(out, " SIG%s", sigabbrev_np(im->signal) ? sigabbrev_np(im->signal) : "?");
		fputc(']', out);
		for (int e = 0; e < s->nr_events && e < im->nr_values; e++) {
			if (im->value[e] == UINT64_MAX)
				continue;
			summary_value_format(&s->events[e], im->value[e], v, sizeof(v));
			fprintf(out, "%s %s%s%s %s", e ? "," : " ", v, *s->events[e].unit ? " " : "",
				s->events[e].unit, s->events[e].name);
		}
		if (im->argv)	/* 22 runs of cc1 told apart */
			fprintf(out, "  $ %s", im->argv);
		fputc('\n', out);
	}
	free(order);
	free(depth);
}

/* A clock event of the job (task-clock, cpu-clock, with or without modifiers)? */
static bool is_clock(const char *name)
{
	size_t n = strcspn(name, ":");

	return (n == 10 && !strncmp(name, "task-clock", n)) ||
	       (n == 9 && !strncmp(name, "cpu-clock", n));
}

/*
 * "   #    1.234 CPUs utilized" after a clock's total, as perf stat prints
 * it: the job's CPU time over its elapsed time (pfshim run's, which alone
 * knows it).
 */
static void print_utilized(const struct summary *s, int i, const struct summary_sum *total,
			   FILE *out)
{
	double ns = (double)total->value * s->events[i].scale * 1e6;	/* msec to ns */

	if (!s->job || !s->job->elapsed_ns || !total->counted || !is_clock(s->events[i].name) ||
	    strcmp(s->events[i].unit, "msec"))
		return;
	fprintf(out, "   # %8.3f CPUs utilized", ns / (double)s->job->elapsed_ns);
}

void summary_print_text(const struct summary *s, const char *title, const char *where, FILE *out)
{
	int *sorted = summary_groups_sorted(s);
	char v[48];

	const struct summary_sum *totals = s->job ? s->job->total_sums : s->totals;

	fprintf(out, "\n pfshim: Performance counter stats for %s%s%s (", title ? "'" : "",
		title ? title : "the job", title ? "'" : "");
	if (s->job)	/* the totals are the kernel's, the rows the reports' */
		fprintf(out, "%d %s counted by the kernel; ", s->job->nr_processes,
			plural((uint64_t)s->job->nr_processes, "process", "processes"));
	fprintf(out, "%" PRIu64 " %s, %" PRIu64 " %s, %" PRIu64 " %s, %d %s):\n\n",
		s->processes, plural(s->processes, "process", "processes"),
		s->images, plural(s->images, "image", "images"), s->reports,
		plural(s->reports, "report", "reports"), s->nr_groups,
		by_plural(s->opt.by, (uint64_t)s->nr_groups));
	for (int i = 0; i < s->nr_events; i++) {
		sum_format(&s->events[i], &totals[i], v, sizeof(v));
		fprintf(out, " %18s %-5s %s", v, s->events[i].unit, s->events[i].name);
		print_utilized(s, i, &totals[i], out);
		fputc('\n', out);
	}
	if (s->job && s->job->elapsed_ns)
		fprintf(out, "\n %18.9f seconds time elapsed\n", (double)s->job->elapsed_ns / 1e9);
	print_groups(s, sorted, out);
	if (s->job)
		print_job_rest(s, out);
	print_closed(s, out);
	print_unended(s, out);
	if (s->region_names.n)
		print_regions(s, out);
	if (s->region_tree.n)
		region_tree_print_text(s, out);
	if (s->nr_points)
		print_series(s, out);
	if (s->opt.tree)
		summary_print_tree(s, out);
	if (s->skipped)
		fprintf(out, "\n pfshim: %" PRIu64 " %s skipped (named above)\n", s->skipped,
			plural(s->skipped, "input", "inputs"));
	summary_print_where(where, out);
	free(sorted);
}

void summary_print_where(const char *where, FILE *out)
{
	if (where)
		fprintf(out, "\n pfshim: the reports are in %s (pfshim report %s)\n", where, where);
	fputc('\n', out);
}

static json_t *sum_json(const struct summary_sum *v)
{
	return v->counted ? json_integer((json_int_t)v->value) : json_null();
}

static json_t *sum_object(const struct summary_event *e, const struct summary_sum *v)
{
	return json_pack("{s:s, s:o, s:I, s:I, s:I}", "name", e->name, "value", sum_json(v),
			 "counted", (json_int_t)v->counted, "not_supported", (json_int_t)v->not_supported,
			 "closed", (json_int_t)v->closed);
}

static json_t *regions_json(const struct summary *s, const int *sorted)
{
	json_t *regions = json_array();

	for (int r = 0; r < s->region_names.n; r++) {
		json_t *metrics = json_array();
		struct summary_stats st;

		summary_region_stats(s, r, 0, &st);
		json_t *region = json_pack("{s:s, s:I, s:I, s:I, s:I}", "name", s->region_names.name[r],
					   "calls", (json_int_t)st.calls, "reentries",
					   (json_int_t)st.reentries, "unclosed", (json_int_t)st.unclosed,
					   "threads", (json_int_t)st.threads);
		json_t *calls = json_array();

		for (int k = 0; k < s->nr_groups; k++) {	/* the calls of each group, as its wall cell holds them */
			const struct summary_cell *c = summary_cell(s, r, sorted[k], 0);

			if (c)
				json_array_append_new(calls, json_pack("{s:s, s:I, s:I, s:I}",
					"group", s->groups[sorted[k]].name, "calls", (json_int_t)c->calls,
					"unclosed", (json_int_t)c->unclosed, "threads", (json_int_t)c->threads));
		}
		json_object_set_new(region, "group_calls", calls);

		for (int m = 0; m < s->metrics.n; m++) {
			struct summary_event e = summary_metric_event(s, m);
			json_t *values = json_array();

			summary_region_stats(s, r, m, &st);
			for (int k = 0; k < s->nr_groups; k++) {
				const struct summary_cell *c = summary_cell(s, r, sorted[k], m);

				if (c)
					json_array_append_new(values, json_pack("{s:s, s:o, s:I}",
						"group", s->groups[sorted[k]].name,
						"value", c->counted ? json_integer((json_int_t)c->sum) : json_null(),
						"threads", (json_int_t)c->threads));
			}
			if (!json_array_size(values)) {
				json_decref(values);
				continue;
			}
			json_array_append_new(metrics, json_pack("{s:s, s:s, s:f, s:b, s:i, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
				"name", e.name, "unit", e.unit, "scale", e.scale, "counted", st.counted,
				"groups", st.groups,
				"sum", st.counted ? json_integer((json_int_t)st.sum) : json_null(),
				"min", st.counted ? json_integer((json_int_t)st.min) : json_null(),
				"max", st.counted ? json_integer((json_int_t)st.max) : json_null(),
				"mean", st.counted ? json_real(st.mean) : json_null(),
				"imbalance", st.counted ? json_real(st.imbalance) : json_null(),
				"thread_min", st.counted ? json_integer((json_int_t)st.thread_min) : json_null(),
				"thread_max", st.counted ? json_integer((json_int_t)st.thread_max) : json_null(),
				"values", values));
		}
		json_object_set_new(region, "metrics", metrics);
		json_array_append_new(regions, region);
	}
	return regions;
}

/* `"region_probe"`: each event's probe over threads; with how many reports subtracted it. */
static json_t *probe_json(const struct summary *s)
{
	json_t *events = json_array();

	for (int i = 0; i < s->nr_probes; i++) {
		const struct summary_probe *p = &s->probes[i];
		struct summary_event e = summary_metric_event(s, p->metric);

		json_array_append_new(events, json_pack("{s:s, s:s, s:f, s:I, s:I, s:I, s:f}",
			"name", e.name, "unit", e.unit, "scale", e.scale,
			"threads", (json_int_t)p->threads, "min", (json_int_t)p->min,
			"max", (json_int_t)p->max,
			"mean", p->threads ? (double)p->sum / (double)p->threads : 0.0));
	}
	return json_pack("{s:o, s:I, s:I}", "events", events, "reports", (json_int_t)s->region_reports,
			 "compensated_reports", (json_int_t)s->compensated_reports);
}

static json_t *series_json(const struct summary *s)
{
	struct summary_point *p = summary_points_sorted(s);
	json_t *events = json_array(), *groups = NULL, *points = NULL;
	int event = -1, group = -1;

	/* p is by event, then time: gather each (event, group) series in a map */
	for (int e = 0; e < s->nr_events; e++) {
		json_t *by_group = json_object();

		event = e;
		for (int i = 0; i < s->nr_points; i++) {
			json_t *list;

			if (p[i].event != e)
				continue;
			group = p[i].group;
			list = json_object_get(by_group, s->groups[group].name);
			if (!list) {
				list = json_array();
				json_object_set_new(by_group, s->groups[group].name, list);
			}
			json_array_append_new(list, json_pack("{s:I, s:I, s:I}",
				"t_ns", (json_int_t)summary_bucket_time(s, p[i].bucket),
				"delta", (json_int_t)p[i].delta, "reports", (json_int_t)p[i].reports));
		}
		if (!json_object_size(by_group)) {
			json_decref(by_group);
			continue;
		}
		groups = json_array();
		{
			const char *key;
			json_t *value;

			json_object_foreach(by_group, key, value)
				json_array_append_new(groups, json_pack("{s:s, s:O}", "group", key,
									"points", value));
		}
		json_decref(by_group);
		json_array_append_new(events, json_pack("{s:s, s:s, s:f, s:o}", "name",
			s->events[event].name, "unit", s->events[event].unit, "scale",
			s->events[event].scale, "groups", groups));
	}
	(void)points;
	free(p);
	return json_pack("{s:I, s:I, s:o}", "step_ns", (json_int_t)s->bucket_ns, "start_ns",
			 (json_int_t)s->series_start_ns, "events", events);
}

static json_t *tree_json(const struct summary *s)
{
	int *order, *depth, n = summary_tree(s, &order, &depth);
	json_t *tree = json_array();

	for (int k = 0; k < n; k++) {
		const struct summary_image *im = &s->image_list[order[k]];
		json_t *values = json_object();

		for (int e = 0; e < s->nr_events && e < im->nr_values; e++)
			json_object_set_new(values, s->events[e].name, im->value[e] == UINT64_MAX ?
					    json_null() : json_integer((json_int_t)im->value[e]));
		json_array_append_new(tree, json_pack("{s:i, s:s, s:o, s:i, s:i, s:s, s:s, s:o, s:s, s:o, s:o, "
						      "s:I, s:I, s:o}",
			"depth", depth[k], "hostname", s->hosts.name[im->host],
			"pid_ns", im->pid_ns ? json_integer((json_int_t)im->pid_ns) : json_null(),
			"pid", im->pid, "ppid", im->ppid, "program", s->programs.name[im->program],
			"argv0", im->argv0, "argv", im->argv ? json_string(im->argv) : json_null(),
			"reason", im->reason,
			"exit_status", im->exit_status >= 0 ? json_integer(im->exit_status) : json_null(),
			"signal", im->signal > 0 ? json_integer(im->signal) : json_null(),
			"start_ns", (json_int_t)im->start_ns,
			"wall_ns", (json_int_t)im->wall_ns, "events", values));
	}
	free(order);
	free(depth);
	return tree;
}

/* The job as the kernel counted it: its totals, their part in no row, what left no report. */
static json_t *job_json(const struct summary *s)
{
	const struct summary_job *job = s->job;
	json_t *totals = json_array(), *rest = json_array(), *programs = json_array();

	for (int i = 0; i < s->nr_events; i++) {
		json_array_append_new(totals, sum_object(&s->events[i], &job->total_sums[i]));
		json_array_append_new(rest, sum_object(&s->events[i], &job->rest_sums[i]));
	}
	json_t *share = json_array(), *less = json_array(), *signals = json_array();

	for (int i = 0; i < s->nr_events; i++) {
		json_array_append_new(share, json_pack("{s:s, s:o}", "name", s->events[i].name,
			"value", job->share_sums[i].counted ?
				 json_integer((json_int_t)job->share_sums[i].value) : json_null()));
		json_array_append_new(less, json_pack("{s:s, s:o}", "name", s->events[i].name,
			"value", job->less_share_sums[i].counted ?
				 json_integer((json_int_t)job->less_share_sums[i].value) : json_null()));
	}
	for (int n = 0; n < s->signal_ends.n; n++) {
		size_t len = strcspn(s->signal_ends.name[n], "\t");
		char sig[64];

		snprintf(sig, sizeof(sig), "%.*s", (int)len, s->signal_ends.name[n]);
		json_array_append_new(signals, json_pack("{s:s, s:s, s:I}", "program",
			s->signal_ends.name[n] + len + 1, "signal", sig,
			"processes", (json_int_t)s->signal_end_count[n]));
	}
	for (int k = 0; k < KINDS; k++)
		for (int n = 0; n < job->unreported_programs[k].n; n++) {
			const char *name = job->unreported_programs[k].name[n];
			size_t len = k == KIND_LOST ? strcspn(name, "\t") : 0;
			char error[64];

			snprintf(error, sizeof(error), "%.*s", (int)len, name);
			json_array_append_new(programs, json_pack("{s:s, s:I, s:s, s:s*}",
				"program", name + (len ? len + 1 : 0),
				"processes", (json_int_t)job->unreported_count[k][n],
				"kind", summary_kind_names[k], "error", len ? error : NULL));
		}
	json_t *outlived = json_array(), *uncounted = json_array();

	for (int n = 0; n < job->outlived_programs.n; n++)
		json_array_append_new(outlived, json_string(job->outlived_programs.name[n]));
	for (int n = 0; n < job->uncounted_programs.n; n++)
		json_array_append_new(uncounted, json_string(job->uncounted_programs.name[n]));
	return json_pack("{s:i, s:o, s:o, s:o, s:I, s:o, s:o, s:o, s:o, s:b, s:I, s:I, s:o, s:o, s:o, "
			 "s:I, s:I, s:I, s:o, s:I, s:o, s:I, s:o}",
		"pid", job->pid,
		"exit", job->end_exit >= 0 ? json_integer(job->end_exit) : json_null(),
		"signal", job->end_signal >= 0 ? json_integer(job->end_signal) : json_null(),
		"elapsed_ns", job->elapsed_ns ? json_integer((json_int_t)job->elapsed_ns) : json_null(),
		"processes", (json_int_t)job->nr_processes,
		"events", totals, "in_no_row", rest, "unreported", programs,
		"killed_reported", signals,
		"named", !job->unnamed, "lost_records", (json_int_t)job->lost_records,
		"ledger_malformed", (json_int_t)job->ledger_malformed,
		"pfshim_share", share, "less_pfshim_share", less,
		"shim_images", job->shim_images >= 0 ? json_integer(job->shim_images) : json_null(),
		"share_images", (json_int_t)s->share.images,
		"share_forks", (json_int_t)s->share.forks,
		"execs", (json_int_t)job->execs,
		"calibrated", json_boolean(job->calibration[SHARE_PAGE_FAULTS].known ||
					   job->calibration[SHARE_TASK_CLOCK].known),
		"outlived", (json_int_t)job->outlived, "outlived_programs", outlived,
		"uncounted_reported", (json_int_t)job->uncounted_reported,
		"uncounted_reported_programs", uncounted);
}

void summary_print_json(const struct summary *s, FILE *out)
{
	json_t *root = json_object(), *events = json_array(), *groups = json_array();
	int *sorted = summary_groups_sorted(s);

	json_object_set_new(root, "schema", json_string("pfshim.summary"));
	json_object_set_new(root, "version", json_integer(4));
	json_object_set_new(root, "pfshim_version", json_string(pfshim_version));
	json_object_set_new(root, "by", json_string(summary_by_name(s->opt.by)));
	json_object_set_new(root, "title", s->title ? json_string(s->title) : json_null());
	json_object_set_new(root, "start_ns", json_integer((json_int_t)s->first_start_ns));
	json_object_set_new(root, "reports", json_integer((json_int_t)s->reports));
	json_object_set_new(root, "images", json_integer((json_int_t)s->images));
	json_object_set_new(root, "processes", json_integer((json_int_t)s->processes));
	json_object_set_new(root, "skipped", json_integer((json_int_t)s->skipped));
	for (int i = 0; i < s->nr_events; i++) {
		json_t *e = sum_object(&s->events[i], &s->totals[i]);

		json_object_set_new(e, "unit", json_string(s->events[i].unit));
		json_object_set_new(e, "scale", json_real(s->events[i].scale));
		json_array_append_new(events, e);
	}
	for (int k = 0; k < s->nr_groups; k++) {
		const struct summary_group *g = &s->groups[sorted[k]];
		json_t *sums = json_array(), *o;

		for (int i = 0; i < s->nr_events; i++)
			json_array_append_new(sums, sum_object(&s->events[i], &g->sums[i]));
		o = json_pack("{s:s, s:I, s:I, s:o}", "group", g->name, "reports",
			      (json_int_t)g->reports, "images", (json_int_t)g->images, "events", sums);
		if (s->opt.by == BY_PROCESS)
			json_object_set_new(o, "program", g->program ? json_string(g->program) : json_null());
		json_array_append_new(groups, o);
	}
	json_object_set_new(root, "events", events);
	json_object_set_new(root, "groups", groups);
	json_object_set_new(root, "regions", regions_json(s, sorted));
	json_object_set_new(root, "region_tree", region_tree_json(s));
	json_object_set_new(root, "region_tree_threads_unlisted",
			    json_integer((json_int_t)s->region_tree.threads_unlisted));
	json_object_set_new(root, "region_probe", probe_json(s));
	json_object_set_new(root, "misuse", json_pack("{s:I, s:I, s:I, s:I}",
		"end_without_begin", (json_int_t)s->misuse.end_without_begin,
		"bad_handle", (json_int_t)s->misuse.bad_handle,
		"table_full", (json_int_t)s->misuse.table_full,
		"names_refused", (json_int_t)s->misuse.names_refused));
	json_object_set_new(root, "series", s->nr_points ? series_json(s) : json_null());
	json_object_set_new(root, "tree", s->opt.tree ? tree_json(s) : json_null());
	json_object_set_new(root, "job", s->job ? job_json(s) : json_null());
	json_dumpf(root, out, JSON_COMPACT | JSON_REAL_PRECISION(15));
	fputc('\n', out);
	json_decref(root);
	free(sorted);
}

/* export/buf.c's rule, the reports' own: the same name reads the same in both CSVs. */
void csv_field(FILE *out, const char *s)
{
	size_t size = 2 * strlen(s) + 4;	/* every byte doubled ('"'), the quotes and a ' */
	char stack[512], *text = size <= sizeof(stack) ? stack : xrealloc(NULL, size);
	struct buf b;

	buf_init(&b, text, size);
	buf_put_csv_field(&b, s);
	buf_finish(&b);
	fputs(text, out);
	if (text != stack)
		free(text);
}

static void csv_row(FILE *out, const char *scope, const char *group, uint64_t reports,
		    uint64_t images, const struct summary_event *e, const struct summary_sum *v)
{
	fprintf(out, "%s,", scope);
	csv_field(out, group);
	fprintf(out, ",%" PRIu64 ",%" PRIu64 ",", reports, images);
	csv_field(out, e->name);
	if (v->counted)
		fprintf(out, ",%" PRIu64, v->value);
	else
		fputc(',', out);
	fprintf(out, ",%" PRIu64 ",%" PRIu64 ",", v->counted, v->not_supported);
	csv_field(out, e->unit);
	fprintf(out, ",%.15g\n", e->scale);
}

/* The job's totals, their part in no row, pfshim's own share and the totals less it. */
static void csv_job_rows(const struct summary *s, FILE *out)
{
	static const char *const scopes[] = { "job", "in-no-row", "pfshim-share", "less-pfshim-share" };
	const struct summary_job *job = s->job;
	const struct summary_sum *sums[] = {
		job->total_sums, job->rest_sums, job->share_sums, job->less_share_sums,
	};

	for (size_t r = 0; r < sizeof(scopes) / sizeof(scopes[0]); r++)
		for (int i = 0; i < s->nr_events; i++)
			csv_row(out, scopes[r], "", s->reports, s->images, &s->events[i], &sums[r][i]);
}

static void csv_u64(FILE *out, bool have, uint64_t v)
{
	if (have)
		fprintf(out, ",%" PRIu64, v);
	else
		fputc(',', out);
}

static void csv_regions(const struct summary *s, const int *sorted, FILE *out)
{
	const char *by = summary_by_name(s->opt.by);

	fprintf(out, "\nscope,%s,region,metric,unit,scale,calls,unclosed,threads,groups,value,min,max,"
		"mean,imbalance,thread_min,thread_max\n", by);
	for (int r = 0; r < s->region_names.n; r++) {
		for (int m = 0; m < s->metrics.n; m++) {
			struct summary_event e = summary_metric_event(s, m);
			struct summary_stats st;

			summary_region_stats(s, r, m, &st);
			if (!st.counted && m)
				continue;
			for (int k = 0; k < s->nr_groups; k++) {
				const struct summary_cell *c = summary_cell(s, r, sorted[k], m);
				const struct summary_cell *c0 = summary_cell(s, r, sorted[k], 0);

				if (!c)
					continue;
				fputs("region", out);
				fputc(',', out);
				csv_field(out, s->groups[sorted[k]].name);
				fputc(',', out);
				csv_field(out, s->region_names.name[r]);
				fputc(',', out);
				csv_field(out, e.name);
				fputc(',', out);
				csv_field(out, e.unit);
				fprintf(out, ",%.15g,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",1", e.scale,
					c0 ? c0->calls : 0, c0 ? c0->unclosed : 0, c->threads);
				csv_u64(out, c->counted, c->sum);
				fputs(",,,,", out);
				csv_u64(out, c->counted, c->thread_min);
				csv_u64(out, c->counted, c->thread_max);
				fputc('\n', out);
			}
			fputs("region-total,,", out);
			csv_field(out, s->region_names.name[r]);
			fputc(',', out);
			csv_field(out, e.name);
			fputc(',', out);
			csv_field(out, e.unit);
			fprintf(out, ",%.15g,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%d", e.scale, st.calls,
				st.unclosed, st.threads, st.groups);
			csv_u64(out, st.counted, st.sum);
			csv_u64(out, st.counted, st.min);
			csv_u64(out, st.counted, st.max);
			if (st.counted)
				fprintf(out, ",%.15g,%.15g", st.mean, st.imbalance);
			else
				fputs(",,", out);
			csv_u64(out, st.counted, st.thread_min);
			csv_u64(out, st.counted, st.thread_max);
			fputc('\n', out);
		}
	}
	/* Each event's probe: threads, mean and the per-thread min..max (no sum: it means nothing). */
	for (int i = 0; i < s->nr_probes; i++) {
		const struct summary_probe *p = &s->probes[i];
		struct summary_event e = summary_metric_event(s, p->metric);

		fputs("probe,,,", out);
		csv_field(out, e.name);
		fputc(',', out);
		csv_field(out, e.unit);
		fprintf(out, ",%.15g,,,%" PRIu64 ",,,,,%.15g,", e.scale, p->threads,
			p->threads ? (double)p->sum / (double)p->threads : 0.0);
		csv_u64(out, true, p->min);
		csv_u64(out, true, p->max);
		fputc('\n', out);
	}
}

static void csv_series(const struct summary *s, FILE *out)
{
	struct summary_point *p = summary_points_sorted(s);

	fprintf(out, "\nscope,%s,event,t_ns,delta,reports,unit,scale\n", summary_by_name(s->opt.by));
	for (int i = 0; i < s->nr_points; i++) {
		const struct summary_event *e = &s->events[p[i].event];

		fputs("series,", out);
		csv_field(out, s->groups[p[i].group].name);
		fputc(',', out);
		csv_field(out, e->name);
		fprintf(out, ",%" PRId64 ",%" PRIu64 ",%" PRIu64 ",", summary_bucket_time(s, p[i].bucket),
			p[i].delta, p[i].reports);
		csv_field(out, e->unit);
		fprintf(out, ",%.15g\n", e->scale);
	}
	free(p);
}

void summary_print_csv(const struct summary *s, FILE *out)
{
	int *sorted = summary_groups_sorted(s);
	const char *by = summary_by_name(s->opt.by);

	fprintf(out, "scope,%s,reports,images,event,value,counted,not_supported,unit,scale\n", by);
	for (int i = 0; i < s->nr_events; i++)
		csv_row(out, "total", "", s->reports, s->images, &s->events[i], &s->totals[i]);
	if (s->job)	/* the kernel's count of the job (pfshim run), as the text's first lines */
		csv_job_rows(s, out);
	for (int k = 0; k < s->nr_groups; k++)
		for (int i = 0; i < s->nr_events; i++)
			csv_row(out, by, s->groups[sorted[k]].name, s->groups[sorted[k]].reports,
				s->groups[sorted[k]].images, &s->events[i], &s->groups[sorted[k]].sums[i]);
	if (s->region_names.n)
		csv_regions(s, sorted, out);
	if (s->nr_points)
		csv_series(s, out);
	free(sorted);
}
