/* SPDX-License-Identifier: MIT */
/*
 * likwid_group.c: read a LIKWID performance group file (see
 * likwid_group.h). Lines are read in place; each field kept is a copy, so
 * the group outlives the file's text.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "preload/metrics/likwid_group.h"

enum section { SECTION_NONE, SECTION_EVENTSET, SECTION_METRICS, SECTION_LONG };

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static char *copy(const char *s, size_t n)
{
	while (n && is_space(*s))
		s++, n--;
	while (n && is_space(s[n - 1]))
		n--;
	return strndup(s, n);
}

static int starts_word(const char *line, size_t n, const char *word)
{
	size_t len = strlen(word);

	return n >= len && !memcmp(line, word, len) && (n == len || is_space(line[len]));
}

/* "PMC0  INST_RETIRED": a counter and an event, nothing after. */
static int add_event(struct likwid_group *g, const char *line, size_t n)
{
	size_t a = 0, b;

	while (a < n && !is_space(line[a]))
		a++;
	for (b = a; b < n && is_space(line[b]); b++)
		;
	if (a == 0 || b == n)
		return -EINVAL;

	struct likwid_group_event *events =
		realloc(g->events, (g->nr_events + 1) * sizeof(*events));

	if (!events)
		return -ENOMEM;
	g->events = events;

	struct likwid_group_event *e = &events[g->nr_events];

	e->counter = copy(line, a);
	e->event = copy(line + b, n - b);
	if (!e->counter || !e->event) {
		free(e->counter);
		free(e->event);
		return -ENOMEM;
	}
	g->nr_events++;
	return 0;
}

/*
 * "NAME [UNIT] FORMULA": try the line's tails from the longest down, each
 * starting at a word after the first; the first that compiles is the
 * formula.
 */
static int add_metric(struct likwid_group *g, const char *line, size_t n)
{
	struct likwid_group_metric m = { 0 };
	size_t start = 0;
	int err = -EINVAL;

	for (size_t i = 1; i < n && err == -EINVAL; i++) {
		if (!is_space(line[i - 1]) || is_space(line[i]))
			continue;
		free(m.text);
		m.text = copy(line + i, n - i);
		if (!m.text)
			return -ENOMEM;
		err = formula_compile(m.text, &m.formula, NULL);
		start = i;
	}
	if (err) {
		free(m.text);
		return err;
	}

	/* The name is what precedes; a trailing "[UNIT]" is its unit. */
	size_t name_end = start;

	while (name_end && is_space(line[name_end - 1]))
		name_end--;

	size_t unit_open = name_end, unit_len = 0;

	if (name_end && line[name_end - 1] == ']') {
		const char *open = memrchr(line, '[', name_end);

		if (open) {
			unit_open = open - line;
			unit_len = name_end - 1 - (unit_open + 1);
		}
	}
	m.name = copy(line, unit_open);
	m.unit = copy(line + unit_open + 1, unit_len);

	struct likwid_group_metric *metrics =
		realloc(g->metrics, (g->nr_metrics + 1) * sizeof(*metrics));

	if (!m.name || !m.unit || !metrics) {
		free(m.name);
		free(m.unit);
		free(m.text);
		if (metrics)
			g->metrics = metrics;
		return -ENOMEM;
	}
	g->metrics = metrics;
	metrics[g->nr_metrics++] = m;
	/* The names point into m.text, which moved with m: still the same heap copy. */
	return 0;
}

int likwid_group_parse(const char *text, struct likwid_group *g, int *line)
{
	enum section section = SECTION_NONE;
	int err = 0, nr = 0;

	memset(g, 0, sizeof(*g));
	for (const char *p = text; *p && !err && section != SECTION_LONG;) {
		const char *end = strchr(p, '\n');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		size_t lead = 0;

		nr++;
		while (lead < n && is_space(p[lead]))
			lead++;
		if (lead == n || p[lead] == '#') {
			/* blank or a comment */
		} else if (starts_word(p + lead, n - lead, "SHORT")) {
			free(g->short_text);
			g->short_text = copy(p + lead + 5, n - lead - 5);
			err = g->short_text ? 0 : -ENOMEM;
		} else if (starts_word(p + lead, n - lead, "REQUIRE_NOHT")) {
			g->require_noht = 1;
		} else if (starts_word(p + lead, n - lead, "EVENTSET")) {
			section = SECTION_EVENTSET;
		} else if (starts_word(p + lead, n - lead, "METRICS")) {
			section = SECTION_METRICS;
		} else if (starts_word(p + lead, n - lead, "LONG")) {
			section = SECTION_LONG;
		} else if (section == SECTION_EVENTSET) {
			err = add_event(g, p + lead, n - lead);
		} else if (section == SECTION_METRICS) {
			err = add_metric(g, p + lead, n - lead);
		} else {
			err = -EINVAL;
		}
		p = end ? end + 1 : p + n;
	}
	if (!err && !g->nr_events)
		err = -EINVAL;
	if (err) {
		likwid_group_free(g);
		if (line)
			*line = nr;
	}
	return err;
}

void likwid_group_free(struct likwid_group *g)
{
	for (int i = 0; i < g->nr_events; i++) {
		free(g->events[i].counter);
		free(g->events[i].event);
	}
	for (int i = 0; i < g->nr_metrics; i++) {
		free(g->metrics[i].name);
		free(g->metrics[i].unit);
		free(g->metrics[i].text);
	}
	free(g->events);
	free(g->metrics);
	free(g->short_text);
	memset(g, 0, sizeof(*g));
}
