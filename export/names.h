/* SPDX-License-Identifier: MIT */
/*
 * names.h: symbolic names for signals and errno values, for the reports.
 *
 * Async-signal-safe: plain tables, because strsignal() and strerror() may
 * allocate or consult the locale and so cannot run in a signal handler.
 */
#ifndef PFSHIM_EXPORT_NAMES_H
#define PFSHIM_EXPORT_NAMES_H

/* signal_name - "SIGUSR1" for 10 (on x86_64), or NULL when unknown. */
const char *signal_name(int signo);

/*
 * signal_number - the signal called @name, with or without its SIG, in any
 * case ("USR1", "sigusr1"), from the same table as signal_name(); 0 when unknown.
 */
int signal_number(const char *name);

/* errno_name - "ENOENT" for ENOENT or -ENOENT, or NULL when unknown. */
const char *errno_name(int err);

#endif
