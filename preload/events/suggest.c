/* SPDX-License-Identifier: MIT */
/*
 * suggest.c: "did you mean" for unknown names. Optimal string alignment
 * distance (Levenshtein plus adjacent swaps), so the commonest typo, two
 * letters swapped ("cylces", "pgae-faults"), is one edit away.
 */
#include "preload/events/suggest.h"

#include <stdio.h>
#include <string.h>

/* Optimal string alignment distance: a swapped pair ("cylces") costs 1. */
int suggest_distance(const char *a, size_t alen, const char *b, size_t blen)
{
	int rows[3][EVENTS_NAME_MAX + 1];
	int *pp = rows[0], *prev = rows[1], *cur = rows[2];

	if (alen > EVENTS_NAME_MAX || blen > EVENTS_NAME_MAX)
		return 1 << 20;
	for (size_t j = 0; j <= blen; j++)
		prev[j] = (int)j;
	for (size_t i = 1; i <= alen; i++) {
		int *t;

		cur[0] = (int)i;
		for (size_t j = 1; j <= blen; j++) {
			int cost = a[i - 1] != b[j - 1];
			int best = prev[j - 1] + cost;

			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    pp[j - 2] + 1 < best)
				best = pp[j - 2] + 1;
			cur[j] = best;
		}
		t = pp;
		pp = prev;
		prev = cur;
		cur = t;
	}
	return prev[blen];
}


void suggest_init(struct suggest *s, const char *word)
{
	size_t len = strlen(word);

	s->word = word;
	s->len = len;
	/* Beyond this many edits a suggestion is noise rather than help. */
	s->best = (len <= 4 ? 1 : len <= 8 ? 2 : 3) + 1;
	s->name[0] = '\0';
}

void suggest_consider(void *ctx, const char *name)
{
	struct suggest *s = ctx;
	size_t len = strlen(name);
	int d;

	if ((len > s->len ? len - s->len : s->len - len) >= (size_t)s->best)
		return;
	d = suggest_distance(s->word, s->len, name, len);
	if (d < s->best && d > 0) {
		s->best = d;
		snprintf(s->name, sizeof(s->name), "%s", name);
	}
}

/* " (did you mean 'x'?)" or "" */
const char *suggest_text(const struct suggest *s, char *buf, size_t size)
{
	if (!s->name[0])
		return "";
	snprintf(buf, size, " (did you mean '%s'?)", s->name);
	return buf;
}
