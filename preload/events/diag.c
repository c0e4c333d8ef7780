/* SPDX-License-Identifier: MIT */
/*
 * diag.c: the parser's messages (see diag.h): the budget, the excerpts of
 * user text, and the did-you-mean sentence.
 */
#include "preload/events/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MSG_MAX 512

bool diag_quiet(const struct diag *d)
{
	return d->warned >= DIAG_WARN_MAX;
}

/* Spend one message of the budget: false when it is spent or nobody listens. */
static bool diag_take(struct diag *d)
{
	if (diag_quiet(d)) {
		d->suppressed++;
		return false;
	}
	d->warned++;
	return d->warn != NULL;
}

void diag_warn(struct diag *d, const char *fmt, ...)
{
	char msg[MSG_MAX];
	va_list ap;

	if (!diag_take(d))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	d->warn(d->ctx, msg);
}

void diag_unknown(struct diag *d, const struct suggest *s, const char *fmt, ...)
{
	char msg[MSG_MAX], hint[EVENTS_NAME_MAX + 32];
	va_list ap;
	int n;

	if (!diag_take(d))
		return;
	va_start(ap, fmt);
	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - (size_t)n, "%s; the event is skipped",
			 suggest_text(s, hint, sizeof(hint)));
	d->warn(d->ctx, msg);
}

const char *diag_excerpt(char buf[DIAG_EXCERPT_SIZE], const char *s, size_t len)
{
	size_t n = len < DIAG_EXCERPT_MAX ? len : DIAG_EXCERPT_MAX;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		buf[i] = (c >= 0x20 && c < 0x7f && c != '\'') ? (char)c : '?';
	}
	strcpy(buf + n, len > n ? "..." : "");
	return buf;
}

void diag_finish(struct diag *d)
{
	char msg[96];

	if (!d->suppressed || !d->warn)
		return;
	snprintf(msg, sizeof(msg), "... and %d more problems in the event list", d->suppressed);
	d->warn(d->ctx, msg);
}
