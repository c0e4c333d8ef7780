/* SPDX-License-Identifier: MIT */
/*
 * bound.c: a bound of `pfshim check` read from its text, and the value it
 * bounds found in a combined summary: a total, a program's sum, a region's
 * sum over its groups, or one of those per call or per image.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools/pfshim/model/bound.h"

/* The next word of @*p (split at blanks) into a new string, or NULL at the end. */
static char *word_take(const char **p)
{
	const char *start = *p + strspn(*p, " \t"), *end = start + strcspn(start, " \t");
	char *w;

	*p = end;
	if (end == start)
		return NULL;
	w = xrealloc(NULL, (size_t)(end - start) + 1);
	memcpy(w, start, (size_t)(end - start));
	w[end - start] = '\0';
	return w;
}

/* A limit: a number, for a clock optionally with a time unit (then in ns). */
static int limit_parse(const char *text, struct bound *b)
{
	static const struct { const char *suffix; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char *end;
	double v = strtod(text, &end);

	if (end == text || !isfinite(v) || v < 0)
		return -EINVAL;
	if (*end) {
		size_t i;

		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strcmp(end, units[i].suffix) == 0)
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return -EINVAL;
		v *= units[i].ns;
		b->timed = true;
	}
	b->limit = v;
	return 0;
}

int bound_parse(const char *text, enum bound_kind kind, struct bound *b, const char **why)
{
	const char *p = text;
	char *scope = word_take(&p), *event = word_take(&p), *limit = word_take(&p), *rest = word_take(&p);
	char *slash;
	int ret = -EINVAL;

	*b = (struct bound){ .kind = kind };
	if (!scope || !event || !limit || rest) {
		*why = "not three words: SCOPE EVENT[/call|/image] VALUE";
		goto out;
	}
	if (strcmp(scope, "total") == 0) {
		b->scope = SCOPE_TOTAL;
	} else if (strncmp(scope, "program:", 8) == 0 && scope[8]) {
		b->scope = SCOPE_PROGRAM;
		b->name = xstrdup(scope + 8);
	} else if (strncmp(scope, "region:", 7) == 0 && scope[7]) {
		b->scope = SCOPE_REGION;
		b->name = xstrdup(scope + 7);
	} else {
		*why = "SCOPE is not total, program:NAME or region:NAME";
		goto out;
	}
	slash = strrchr(event, '/');
	if (slash && strcmp(slash, "/call") == 0)
		b->per = PER_CALL;
	else if (slash && strcmp(slash, "/image") == 0)
		b->per = PER_IMAGE;
	else if (slash) {
		*why = "EVENT ends in '/' but not in /call or /image";
		goto out;
	}
	if (slash)
		*slash = '\0';
	if (!*event) {
		*why = "no EVENT";
		goto out;
	}
	if (b->per == PER_CALL && b->scope != SCOPE_REGION) {
		*why = "/call is a region's: region:NAME EVENT/call";
		goto out;
	}
	if (b->per == PER_IMAGE && b->scope == SCOPE_REGION) {
		*why = "/image is for total and program:NAME, not a region (use /call)";
		goto out;
	}
	if (b->scope != SCOPE_REGION && (!strcmp(event, "calls") || !strcmp(event, "wall"))) {
		*why = "calls and wall are a region's: region:NAME calls VALUE";
		goto out;
	}
	if (limit_parse(limit, b) < 0) {
		*why = "VALUE is not a number at least 0 (a clock's may end in ns, us, ms or s)";
		goto out;
	}
	b->event = event;
	event = NULL;
	ret = 0;
out:
	if (ret < 0) {
		free(b->name);
		b->name = NULL;
	}
	free(scope);
	free(event);
	free(limit);
	free(rest);
	return ret;
}

void bound_free(struct bound *b)
{
	free(b->name);
	free(b->event);
	b->name = b->event = NULL;
}

static int event_find(const struct summary *s, const char *name)
{
	for (int i = 0; i < s->nr_events; i++)
		if (strcmp(s->events[i].name, name) == 0)
			return i;
	return -1;
}

static int group_find(const struct summary *s, const char *name)
{
	int g = names_find(&s->group_keys, name);

	return g >= 0 && s->groups[g].images ? g : -1;
}

/* A region's metric: its sum over the groups, or its calls. */
static int region_value(const struct summary *s, const struct bound *b, double *value, const char **why)
{
	int r = names_find(&s->region_names, b->name), m;
	struct summary_stats calls, st;

	if (r < 0) {
		*why = "region";
		return -ENOENT;
	}
	summary_region_stats(s, r, 0, &calls);
	if (strcmp(b->event, "calls") == 0) {
		*value = (double)calls.calls;
		return 0;
	}
	m = names_find(&s->metrics, b->event);
	if (m < 0) {
		*why = "event";
		return -ENOENT;
	}
	summary_region_stats(s, r, m, &st);
	if (!st.counted || (b->per == PER_CALL && !calls.calls))
		return -ENODATA;
	*value = b->per == PER_CALL ? (double)st.sum / (double)calls.calls : (double)st.sum;
	return 0;
}

int bound_value(const struct summary *s, const struct bound *b, double *value, const char **why)
{
	const struct summary_sum *sum;
	uint64_t images;
	int e, g = -1;

	if (b->scope == SCOPE_REGION)
		return region_value(s, b, value, why);
	e = event_find(s, b->event);
	if (b->scope == SCOPE_PROGRAM) {
		g = group_find(s, b->name);
		if (g < 0) {
			*why = "program";
			return -ENOENT;
		}
	}
	if (e < 0) {
		*why = "event";
		return -ENOENT;
	}
	if (b->scope == SCOPE_PROGRAM) {
		sum = &s->groups[g].sums[e];
		images = s->groups[g].images;
	} else {
		sum = s->job ? &s->job->total_sums[e] : &s->totals[e];
		images = s->images;
	}
	if (!sum->counted || (b->per == PER_IMAGE && !images))
		return -ENODATA;
	*value = b->per == PER_IMAGE ? (double)sum->value / (double)images : (double)sum->value;
	return 0;
}

bool bound_holds(const struct bound *b, double value)
{
	return b->kind == BOUND_MAX ? value <= b->limit : value >= b->limit;
}
