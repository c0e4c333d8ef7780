/* SPDX-License-Identifier: MIT */
/*
 * fuzz_report.c: the reader of `pfshim report` (tools/pfshim/read/input.c,
 * summary.c, combine.c) and its views, in one target (one run of the CI's
 * fuzz budget). The first byte picks the grouping and the mode:
 *
 * - text: the rest is any text, one report or JSON Lines, malformed,
 *   truncated, foreign or of another schema, with regions, interval
 *   reports and ppids that make cycles. Whatever it reads it must name or
 *   combine, without a crash or a leak.
 * - reports: the rest is read as choices that build well-formed reports
 *   (names of any bytes, control bytes and markup included, units, scales
 *   of 0 or 1e300, counts up to 2^63-1, regions, ranks, series), so that
 *   the views get what parses, not what the parser refuses.
 *
 * In text mode jsonread.c's fast path must agree with jansson wherever it
 * accepts the text. Every view (text with the tree, JSON, CSV, HTML) runs on what was
 * combined, and what it wrote is checked: no control byte but newline and
 * tab in text and CSV (C1 included), no CSV cell a spreadsheet runs as a
 * formula, no markup from a report in the HTML page, which has no script.
 * (What the reader says of a skipped input goes to stderr, the run's log.)
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tools/pfshim/read/jsonread.h"
#include "tools/pfshim/model/metrics.h"
#include "tools/pfshim/read/read.h"
#include "tools/pfshim/view/view.h"

struct choices {
	const uint8_t *p;
	size_t n;
};

static unsigned pick(struct choices *c, unsigned n)
{
	unsigned v = 0;

	if (c->n) {
		v = *c->p++;
		c->n--;
	}
	return n ? v % n : v;
}

static uint64_t big(struct choices *c)
{
	static const uint64_t edge[] = { 0, 1, 2, 999, 1000000, (uint64_t)INT64_MAX,
					 (uint64_t)INT64_MAX - 1, (uint64_t)1 << 32 };
	unsigned k = pick(c, 16);
	uint64_t v = 0;

	if (k < 8)
		return edge[k];
	for (int i = 0; i < 4; i++)
		v = v << 8 | pick(c, 256);
	return v;
}

/* A string of any characters (as UTF-8: a byte >= 0x80 is U+0080..U+00FF, C1 controls included). */
static json_t *text(struct choices *c)
{
	static const char *const words[] = { "task-clock", "page-faults", "cycles", "exit", "exec",
					     "interval", "signal", "msec", "<script>x</script>",
					     "=cmd|' /C calc'!A0", "\x1b]0;t\x07", "" };
	unsigned len = pick(c, 24);
	char s[2 * 24 + 1];
	size_t o = 0;

	if (len < (unsigned)(sizeof(words) / sizeof(words[0])))
		return json_string(words[len]);
	len -= 12;
	for (unsigned i = 0; i < len; i++) {
		unsigned b = pick(c, 256);

		if (!b)
			b = '<';
		if (b < 0x80) {
			s[o++] = (char)b;
		} else {
			s[o++] = (char)(0xc0 | b >> 6);
			s[o++] = (char)(0x80 | (b & 0x3f));
		}
	}
	return json_stringn(s, o);
}

static json_t *count_or_null(struct choices *c)
{
	return pick(c, 8) ? json_integer((json_int_t)(big(c) & (uint64_t)INT64_MAX)) : json_null();
}

static json_t *stat_of(struct choices *c, json_t *name)
{
	json_t *st = json_object();

	if (name)
		json_object_set_new(st, "name", name);
	json_object_set_new(st, "status", json_string(pick(c, 4) ? "counted" : "not-counted"));
	json_object_set_new(st, "threads", count_or_null(c));
	json_object_set_new(st, "sum", count_or_null(c));
	json_object_set_new(st, "min", count_or_null(c));
	json_object_set_new(st, "max", count_or_null(c));
	return st;
}

/*
 * A thread or two with paths: each node's parent any earlier node, itself,
 * a later one or none, so that the region tree is built from what the
 * reader keeps and the rest is left out.
 */
static json_t *threads_of(struct choices *c)
{
	json_t *threads = json_array();

	for (unsigned t = 1 + pick(c, 2); t > 0; t--) {
		json_t *thread = json_object(), *paths = json_array(), *misuse = json_object();

		for (unsigned i = 0, n = pick(c, 8); i < n; i++) {
			json_t *p = json_object(), *evs = json_array();

			json_object_set_new(p, "name", text(c));
			json_object_set_new(p, "parent", json_integer((json_int_t)pick(c, i + 3) - 1));
			json_object_set_new(p, "calls", count_or_null(c));
			json_object_set_new(p, "reentries", count_or_null(c));
			json_object_set_new(p, "wall_ns", count_or_null(c));
			for (unsigned k = pick(c, 3); k > 0; k--) {
				json_t *e = json_object();

				json_object_set_new(e, "name", text(c));
				json_object_set_new(e, "value", count_or_null(c));
				json_object_set_new(e, "status",
						    json_string(pick(c, 4) ? "counted" : "not-counted"));
				json_array_append_new(evs, e);
			}
			json_object_set_new(p, "events", evs);
			json_array_append_new(paths, p);
		}
		json_object_set_new(misuse, "unnested", count_or_null(c));
		json_object_set_new(thread, "misuse", misuse);
		json_object_set_new(thread, "paths", paths);
		json_array_append_new(threads, thread);
	}
	return threads;
}

static json_t *report_of(struct choices *c)
{
	static const double scales[] = { 1, 1e-6, 0, -1, 1e300, 1e-300, 0.5, 1e6 };
	static const char *const reasons[] = { "exit", "exec", "signal", "interval", "explicit" };
	json_t *r = json_object(), *events = json_array();
	unsigned nr = pick(c, 9);

	json_object_set_new(r, "schema", json_string("pfshim.report"));
	json_object_set_new(r, "version", json_integer(1 + pick(c, 4)));
	json_object_set_new(r, "program", text(c));
	json_object_set_new(r, "argv0", text(c));
	json_object_set_new(r, "pid", json_integer(pick(c, 16)));
	json_object_set_new(r, "ppid", json_integer(pick(c, 16)));
	json_object_set_new(r, "pid_ns", pick(c, 4) ? json_null() : json_integer(pick(c, 4)));
	json_object_set_new(r, "hostname", pick(c, 4) ? json_string("h") : text(c));
	json_object_set_new(r, "rank", pick(c, 2) ? json_integer(pick(c, 8)) : text(c));
	json_object_set_new(r, "start_ns", json_integer((json_int_t)(big(c) & (uint64_t)INT64_MAX)));
	json_object_set_new(r, "wall_ns", json_integer((json_int_t)(big(c) & (uint64_t)INT64_MAX)));
	json_object_set_new(r, "reason", pick(c, 8) ? json_string(reasons[pick(c, 5)]) : text(c));
	json_object_set_new(r, "seq", pick(c, 2) ? json_integer(pick(c, 8)) : json_null());
	json_object_set_new(r, "interval_ns", count_or_null(c));
	for (unsigned i = 0; i < nr; i++) {
		json_t *e = json_object();

		json_object_set_new(e, "name", text(c));
		json_object_set_new(e, "status", json_string(pick(c, 4) ? "counted" : "not-supported"));
		json_object_set_new(e, "value", count_or_null(c));
		json_object_set_new(e, "delta", count_or_null(c));
		json_object_set_new(e, "unit", text(c));
		json_object_set_new(e, "scale", json_real(scales[pick(c, 8)]));
		json_array_append_new(events, e);
	}
	json_object_set_new(r, "events", events);
	if (pick(c, 2)) {
		json_t *regions = json_object(), *totals = json_array(), *probe = json_array();

		for (unsigned i = pick(c, 4); i > 0; i--) {
			json_t *t = json_object(), *evs = json_array();

			json_object_set_new(t, "name", text(c));
			json_object_set_new(t, "calls", count_or_null(c));
			json_object_set_new(t, "unclosed", count_or_null(c));
			json_object_set_new(t, "reentries", count_or_null(c));
			json_object_set_new(t, "wall_ns", stat_of(c, NULL));
			for (unsigned k = pick(c, 3); k > 0; k--)
				json_array_append_new(evs, stat_of(c, text(c)));
			json_object_set_new(t, "events", evs);
			json_array_append_new(totals, t);
		}
		if (pick(c, 2))
			json_array_append_new(probe, stat_of(c, text(c)));
		if (pick(c, 2))
			json_object_set_new(regions, "threads", threads_of(c));
		json_object_set_new(regions, "totals", totals);
		json_object_set_new(regions, "probe", probe);
		json_object_set_new(regions, "compensated", json_boolean(pick(c, 2)));
		json_object_set_new(r, "regions", regions);
	}
	return r;
}

/* Well-formed reports from the choices, as JSON Lines. Return: the text (malloc'd), its length. */
static char *reports_text(struct choices *c, size_t *len)
{
	size_t cap = 4096, n = 0;
	char *out = malloc(cap);

	while (c->n && out) {
		json_t *r = report_of(c);
		size_t need = json_dumpb(r, NULL, 0, JSON_COMPACT);

		while (out && n + need + 1 > cap)
			out = realloc(out, cap *= 2);
		if (out) {
			n += json_dumpb(r, out + n, need, JSON_COMPACT);
			out[n++] = '\n';
		}
		json_decref(r);
	}
	*len = n;
	return out;
}

/* No byte a terminal acts on but newline and tab: C0, DEL, C1 (as UTF-8). */
static void check_no_controls(const char *what, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char b = (unsigned char)s[i];

		if ((b < 0x20 && b != '\n' && b != '\t') || b == 0x7f ||
		    (b == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 &&
		     (unsigned char)s[i + 1] <= 0x9f)) {
			fprintf(stderr, "%s: control byte 0x%02x at %zu\n", what, b, i);
			abort();
		}
	}
}

/*
 * No cell begins with = or @ (unquoted, or just inside its quotes). A cell
 * begins at the start, or after a comma or a line end outside quotes: a
 * quoted "a,=b" is one cell that begins with a.
 */
static void check_csv(const char *s, size_t n)
{
	bool quoted = false;

	for (size_t i = 0; i < n; i++) {
		bool starts = !quoted && (i == 0 || s[i - 1] == ',' || s[i - 1] == '\n');

		if (starts && (s[i] == '=' || s[i] == '@' ||
			       (s[i] == '"' && i + 1 < n && (s[i + 1] == '=' || s[i + 1] == '@')))) {
			fprintf(stderr, "csv: a formula cell at %zu: %.40s\n", i, s + i);
			abort();
		}
		if (s[i] == '"')
			quoted = !quoted;	/* a doubled "" inside quotes turns twice */
	}
}

/* No script, and no tag the page does not write: its own are lower case, but <!DOCTYPE. */
static void check_html(const char *s, size_t n)
{
	for (size_t i = 0; i + 1 < n; i++) {
		if (s[i] != '<')
			continue;
		if ((s[i + 1] >= 'A' && s[i + 1] <= 'Z' && strncmp(s + i, "<!DOCTYPE", 9)) ||
		    (n - i >= 7 && !strncasecmp(s + i, "<script", 7))) {
			fprintf(stderr, "html: markup from a report at %zu: %.40s\n", i, s + i);
			abort();
		}
	}
}

/* What jsonread.c's fast path accepts, jansson parses to an equal tree, ending at the same byte. */
static void same_as_jansson(const uint8_t *data, size_t size)
{
	json_error_t err;
	size_t used;
	bool plain;
	json_t *fast = json_read_fast((const char *)data, size, &used, &plain);
	json_t *slow = json_loadb((const char *)data, size, JSON_DISABLE_EOF_CHECK, &err);

	if (fast && (!slow || !json_equal(fast, slow) || used != (size_t)err.position)) {
		fprintf(stderr, "jsonread: fast path differs from jansson (%s; used %zu, jansson %d)\n",
			slow ? "another tree" : err.text, used, err.position);
		abort();
	}
	json_decref(fast);
	json_decref(slow);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct summary_options opt = { .images = true, .tree = true, .metrics = true };
	struct choices c = { data + !!size, size ? size - 1 : 0 };
	struct summary s;
	char *text = NULL, *out;
	size_t len, n;
	FILE *f;

	/* the first byte picks the grouping, so that each is explored, and the mode */
	opt.by = size ? (enum summary_by)(data[0] % 4) : BY_PROGRAM;
	summary_init(&s, &opt);
	if (size && data[0] & 0x80) {
		text = reports_text(&c, &len);
		if (text)
			summary_add_text(&s, "fuzz", text, len);
	} else {
		summary_add_text(&s, "fuzz", (const char *)data, size);	/* the byte is text too */
		same_as_jansson(data, size);
	}
	summary_finish(&s);
	for (int view = 0; view < 4; view++) {
		f = open_memstream(&out, &n);
		if (!f)
			abort();
		if (view == 0) {
			summary_print_text(&s, "fuzz", "nowhere", f);
			summary_print_tree(&s, f);
			metric_sums_print_text(&s, f);
		} else if (view == 1) {
			summary_print_json(&s, f);
			metric_sums_print_json(&s, f);
		} else if (view == 2) {
			summary_print_csv(&s, f);
			fputc('\n', f);	/* the metrics' table after the others' (pfshim report --metrics --csv) */
			metric_sums_print_csv(&s, f);
		} else {
			summary_print_html(&s, "fuzz", f);
		}
		fclose(f);
		if (view == 0 || view == 2)
			check_no_controls(view ? "csv" : "text", out, n);
		if (view == 2)
			check_csv(out, n);
		if (view == 3)
			check_html(out, n);
		free(out);
	}
	summary_free(&s);
	free(text);
	return 0;
}
