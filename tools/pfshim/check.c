/* SPDX-License-Identifier: MIT */
/*
 * check.c: `pfshim check`, a regression gate for CI: bounds on the combined
 * reports (bound.c), one line each, and an exit status a pipeline acts on.
 * A bound that names nothing in the reports is an error, never a pass.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/pfshim/model/bound.h"
#include "tools/pfshim/check.h"
#include "tools/pfshim/read/read.h"

static const char usage_check[] =
"Usage: pfshim check [--max 'SCOPE EVENT[/call|/image] VALUE']... [--min ...]...\n"
"                    [FILE|DIR|-]...\n"
"\n"
"Check bounds on reports combined as `pfshim report` combines them (the same\n"
"inputs; '-' for stdin, the default with no argument), for a CI pipeline: one\n"
"line per bound, \"ok\" or \"BROKEN\", with the value measured.\n"
"\n"
"  --max BOUND          the value must be at most VALUE\n"
"  --min BOUND          the value must be at least VALUE\n"
"  -A, --any-owner      read other users' files found in directories too\n"
"  -h, --help           this text\n"
"\n"
"BOUND is three words, SCOPE EVENT VALUE:\n"
"  SCOPE   total (the job's totals), program:NAME (the sum over its images), or\n"
"          region:NAME (the region's sum over its threads and processes)\n"
"  EVENT   an event as the reports name it; for a region also wall (its time)\n"
"          and calls. EVENT/call: per call of the region; EVENT/image: per\n"
"          process image, for total and program:NAME\n"
"  VALUE   a number (1e6, 5000) in the reports' unit of \"value\": the clocks\n"
"          (task-clock, cpu-clock, wall) in ns, or with ns, us, ms or s after it\n"
"\n"
"Examples: --max 'region:solve instructions/call 1.2e6'\n"
"          --max 'total page-faults 5000' --min 'program:cc1 task-clock 1ms'\n"
"\n"
"Exit status: 0 when every bound holds, 1 when one is broken, 2 for a usage\n"
"error, no report read, or a bound whose program, region or event no report has\n"
"or that was not counted there (said on stderr).\n";

struct check_bounds {
	struct bound *b;
	char **text;
	int n;
};

static int bounds_add(struct check_bounds *l, const char *text, enum bound_kind kind)
{
	const char *why;

	l->b = xrealloc(l->b, (size_t)(l->n + 1) * sizeof(*l->b));
	l->text = xrealloc(l->text, (size_t)(l->n + 1) * sizeof(*l->text));
	if (bound_parse(text, kind, &l->b[l->n], &why) < 0) {
		fprintf(stderr, "pfshim check: %s '%s': %s\n", kind == BOUND_MAX ? "--max" : "--min",
			text, why);
		return -EINVAL;
	}
	l->text[l->n++] = xstrdup(text);
	return 0;
}

static void bounds_free(struct check_bounds *l)
{
	for (int i = 0; i < l->n; i++) {
		bound_free(&l->b[i]);
		free(l->text[i]);
	}
	free(l->b);
	free(l->text);
}

/* A value as a person compares it with the bound: whole when it is, else 6 digits. */
static void value_format(double v, char *out, size_t size)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(out, size, "%.0f", v);
	else
		snprintf(out, size, "%.6g", v);
}

/* "a, b, c" of @n names (the first 10), or "none". */
static void names_format(char *const *name, int n, char *out, size_t size)
{
	size_t at = 0;

	snprintf(out, size, n ? "" : "none");
	for (int i = 0; i < n && i < 10 && at < size; i++)
		at += (size_t)snprintf(out + at, size - at, "%s%s", i ? ", " : "", name[i]);
	if (n > 10 && at < size)
		snprintf(out + at, size - at, ", ...");
}

/* Why a bound could not be evaluated, once on stderr, with what the reports have. */
static void say_missing(const struct summary *s, const struct bound *b, int err, const char *what)
{
	char have[600];

	const char *scope = b->scope == SCOPE_TOTAL ? "total" :
			    b->scope == SCOPE_PROGRAM ? "program" : "region";

	if (err == -ENODATA) {
		fprintf(stderr, "pfshim check: %s%s%s %s: not counted in the reports%s\n", scope,
			b->name ? ":" : "", b->name ? b->name : "", b->event,
			b->per == PER_CALL ? " (or no calls)" : "");
		return;
	}
	if (strcmp(what, "event") == 0) {
		char **names = xrealloc(NULL, (size_t)(s->nr_events + 1) * sizeof(*names));

		for (int i = 0; i < s->nr_events; i++)
			names[i] = s->events[i].name;
		names_format(names, s->nr_events, have, sizeof(have));
		free(names);
		fprintf(stderr, "pfshim check: %s%s%s: no report has event '%s' (events: %s%s)\n", scope,
			b->name ? ":" : "", b->name ? b->name : "", b->event, have,
			b->scope == SCOPE_REGION ? "; and a region's wall and calls" : "");
	}
	else {
		if (strcmp(what, "region") == 0)
			names_format(s->region_names.name, s->region_names.n, have, sizeof(have));
		else
			names_format(s->group_keys.name, s->group_keys.n, have, sizeof(have));
		fprintf(stderr, "pfshim check: no report has %s '%s' (%ss: %s)\n", what, b->name, what,
			have);
	}
}

/* Whether @b bounds a clock (in ns): a region's wall, or an event the reports show in msec. */
static bool bound_is_clock(const struct summary *s, const struct bound *b)
{
	if (b->scope == SCOPE_REGION && strcmp(b->event, "wall") == 0)
		return true;
	for (int i = 0; i < s->nr_events; i++)
		if (strcmp(s->events[i].name, b->event) == 0)
			return s->events[i].scale != 1.0;
	return false;
}

int cmd_check(int argc, char **argv)
{
	static const struct option options[] = {
		{ "max", required_argument, NULL, 'M' },
		{ "min", required_argument, NULL, 'm' },
		{ "any-owner", no_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct summary_options opt = { .by = BY_PROGRAM };
	struct check_bounds l = { 0 };
	struct summary s;
	int c, ret = 0;
	bool unreadable = false;

	while ((c = getopt_long(argc, argv, "Ah", options, NULL)) != -1) {
		switch (c) {
		case 'M':
		case 'm':
			if (bounds_add(&l, optarg, c == 'M' ? BOUND_MAX : BOUND_MIN) == 0)
				break;
			bounds_free(&l);
			return 2;
		case 'A': opt.any_owner = true; break;
		case 'h': fputs(usage_check, stdout); bounds_free(&l); return 0;
		default: fputs(usage_check, stderr); bounds_free(&l); return 2;
		}
	}
	if (!l.n) {
		fprintf(stderr, "pfshim check: no bound: give --max or --min (pfshim check --help)\n");
		return 2;
	}
	summary_init(&s, &opt);
	if (optind >= argc)
		summary_add_path(&s, "-");
	for (int i = optind; i < argc; i++)
		unreadable |= summary_add_path(&s, argv[i]) < 0;
	summary_finish(&s);
	if (unreadable || (!s.reports && !s.job)) {
		fprintf(stderr, "pfshim check: %s: nothing checked\n",
			unreadable ? "an input could not be read" : "no report read");
		summary_free(&s);
		bounds_free(&l);
		return 2;
	}
	for (int i = 0; i < l.n; i++) {
		const struct bound *b = &l.b[i];
		const char *what = "", *unit = bound_is_clock(&s, b) ? " ns" : "";
		char label[400], v[48], lim[48];
		double value;
		int err = bound_value(&s, b, &value, &what);

		snprintf(label, sizeof(label), "%s%s %s%s",
			 b->scope == SCOPE_TOTAL ? "total" : b->scope == SCOPE_PROGRAM ? "program:" : "region:",
			 b->name ? b->name : "", b->event,
			 b->per == PER_CALL ? "/call" : b->per == PER_IMAGE ? "/image" : "");
		value_format(b->limit, lim, sizeof(lim));
		if (err == 0 && b->timed && !*unit) {
			fprintf(stderr, "pfshim check: %s: a time unit, but %s is not a clock\n", label,
				b->event);
			err = -EINVAL;
		} else if (err < 0) {
			say_missing(&s, b, err, what);
		}
		if (err < 0) {
			printf("%-7s %s (%s %s%s): no value\n", "MISSING", label,
			       b->kind == BOUND_MAX ? "max" : "min", lim, unit);
			ret = 2;
			continue;
		}
		value_format(value, v, sizeof(v));
		printf("%-7s %s = %s%s (%s %s%s)\n", bound_holds(b, value) ? "ok" : "BROKEN", label, v,
		       unit, b->kind == BOUND_MAX ? "max" : "min", lim, unit);
		if (!bound_holds(b, value) && ret == 0)
			ret = 1;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "pfshim check: stdout: %s\n", strerror(errno ? errno : EIO));
		ret = 2;
	}
	summary_free(&s);
	bounds_free(&l);
	return ret;
}
