/* SPDX-License-Identifier: MIT */
/*
 * suggest.h: the closest known name to an unknown one, for "(did you mean
 * 'cycles'?)". Feed every candidate to suggest_consider(); no allocation.
 */
#ifndef PFSHIM_PRELOAD_EVENTS_SUGGEST_H
#define PFSHIM_PRELOAD_EVENTS_SUGGEST_H

#include <stddef.h>
#include "preload/events/spec.h"	/* EVENTS_NAME_MAX */

struct suggest {
	const char *word;
	size_t len;
	int best;			/* distance of @name, or the cut-off */
	char name[EVENTS_NAME_MAX];	/* best candidate so far, or "" */
};

/* Edits (insert, delete, replace, swap of neighbours) from @a to @b. */
int suggest_distance(const char *a, size_t alen, const char *b, size_t blen);

/* Start looking for a name close to @word (which must outlive @s). */
void suggest_init(struct suggest *s, const char *word);

/* Consider @name (ctx is the struct suggest, so this fits callbacks). */
void suggest_consider(void *ctx, const char *name);

/* " (did you mean 'x'?)" in @buf, or "" when nothing was close enough. */
const char *suggest_text(const struct suggest *s, char *buf, size_t size);

#endif
