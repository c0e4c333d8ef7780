/* SPDX-License-Identifier: MIT */
/*
 * warn.h: the one way the shim speaks to a person: a single "pfshim: ..."
 * line on stderr, written with one write(2). Async-signal-safe.
 */
#ifndef PFSHIM_PRELOAD_WARN_H
#define PFSHIM_PRELOAD_WARN_H

#include <stdarg.h>

/* warn_line - write "pfshim: " + the NULL-terminated parts + "\n" to fd 2. */
void warn_line(const char *part, ...) __attribute__((sentinel));

/* warn_linev - warn_line() with its parts in @ap, for a function that says a line of its caller's. */
void warn_linev(const char *part, va_list ap);

/*
 * warn_mute - no "pfshim:" line from this process on: a job's descendant
 * (preload/output/job.c) says nothing on the streams a script may read as data.
 */
void warn_mute(void);

/* warn_message - events_warn_fn-compatible: @ctx is a prefix such as "PFSHIM_EVENTS". */
void warn_message(void *ctx, const char *message);

#endif
