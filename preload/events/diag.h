/* SPDX-License-Identifier: MIT */
/*
 * diag.h: the parser's messages. Every problem of the event list is one
 * sentence through the caller's warn function, at most DIAG_WARN_MAX of
 * them, then one summary line, so that a megabyte of garbage costs eight
 * lines. Shared by the syntax, the resolvers and the driver, so that their
 * messages keep the order of the text and one budget.
 */
#ifndef PFSHIM_PRELOAD_EVENTS_DIAG_H
#define PFSHIM_PRELOAD_EVENTS_DIAG_H

#include <stdbool.h>
#include <stddef.h>

#include "preload/events/suggest.h"

#define DIAG_WARN_MAX 8
#define DIAG_EXCERPT_MAX 32	/* bytes of user text a message quotes */
#define DIAG_EXCERPT_SIZE (DIAG_EXCERPT_MAX + 4)

struct diag {
	void (*warn)(void *ctx, const char *message);	/* events_warn_fn, or NULL */
	void *ctx;
	int warned;		/* messages passed to warn */
	int suppressed;		/* problems beyond DIAG_WARN_MAX */
};

/* The budget is spent: further problems are only counted. Callers skip
 * work that only a message would use (the did-you-mean candidates). */
bool diag_quiet(const struct diag *d);

__attribute__((format(printf, 2, 3)))
void diag_warn(struct diag *d, const char *fmt, ...);

/*
 * diag_unknown - the one shape of every "unknown name" message: @fmt's
 * sentence, then " (did you mean 'x'?)" when @s found a close name, then
 * "; the event is skipped".
 */
__attribute__((format(printf, 3, 4)))
void diag_unknown(struct diag *d, const struct suggest *s, const char *fmt, ...);

/* A printable, bounded copy of user text for a message, in @buf. */
const char *diag_excerpt(char buf[DIAG_EXCERPT_SIZE], const char *s, size_t len);

/* The summary of what the budget left out ("... and 12 more problems"), if any. */
void diag_finish(struct diag *d);

#endif
