/* SPDX-License-Identifier: MIT */
/*
 * names.c: names of signals, errno values, report reasons and statuses,
 * and of the events a report's regions count.
 *
 * Async-signal-safe: lookups in constant tables only. Tables are indexed
 * by the platform's own constants, so they are right on every architecture
 * (SIGUSR1 is 10 on x86_64 and arm64, but 16 on MIPS).
 */
#include <errno.h>
#include <signal.h>

#include "export/names.h"
#include "export/report.h"

#define NAME(x) [x] = #x

static const char *const signal_names[] = {
	NAME(SIGHUP), NAME(SIGINT), NAME(SIGQUIT), NAME(SIGILL),
	NAME(SIGTRAP), NAME(SIGABRT), NAME(SIGBUS), NAME(SIGFPE),
	NAME(SIGKILL), NAME(SIGUSR1), NAME(SIGSEGV), NAME(SIGUSR2),
	NAME(SIGPIPE), NAME(SIGALRM), NAME(SIGTERM), NAME(SIGCHLD),
	NAME(SIGCONT), NAME(SIGSTOP), NAME(SIGTSTP), NAME(SIGTTIN),
	NAME(SIGTTOU), NAME(SIGURG), NAME(SIGXCPU), NAME(SIGXFSZ),
	NAME(SIGVTALRM), NAME(SIGPROF), NAME(SIGWINCH), NAME(SIGIO),
	NAME(SIGPWR), NAME(SIGSYS),
#ifdef SIGSTKFLT
	NAME(SIGSTKFLT),
#endif
};

/* The errors perf_event_open, mmap and ioctl report (docs/kernel-notes.md "Errors"), and ECHILD: a child made without fork() (preload/process.c). */
static const char *const errno_names[] = {
	NAME(EPERM), NAME(ENOENT), NAME(ESRCH), NAME(EINTR), NAME(EIO), NAME(ECHILD),
	NAME(ENXIO), NAME(E2BIG), NAME(EBADF), NAME(EAGAIN), NAME(ENOMEM),
	NAME(EACCES), NAME(EFAULT), NAME(EBUSY), NAME(EEXIST), NAME(ENODEV),
	NAME(EINVAL), NAME(ENFILE), NAME(EMFILE), NAME(ENOSPC), NAME(ERANGE),
	NAME(ENOSYS), NAME(EOVERFLOW), NAME(EOPNOTSUPP),
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

const char *signal_name(int signo)
{
	if (signo <= 0 || (unsigned)signo >= ARRAY_SIZE(signal_names))
		return 0;
	return signal_names[signo];
}

static char ascii_upper(char c)
{
	return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

/* @a begins with @prefix (upper case), ignoring ASCII case: no locale in a signal handler. */
static const char *prefix_skip(const char *a, const char *prefix)
{
	for (; *prefix; a++, prefix++)
		if (ascii_upper(*a) != *prefix)
			return 0;
	return a;
}

int signal_number(const char *name)
{
	const char *bare = prefix_skip(name, "SIG");
	const char *end;

	if (!bare)
		bare = name;
	for (unsigned i = 1; *bare && i < ARRAY_SIZE(signal_names); i++)
		if (signal_names[i] && (end = prefix_skip(bare, signal_names[i] + 3)) && !*end)
			return (int)i;
	return 0;
}

const char *errno_name(int err)
{
	if (err < 0)
		err = -err;
	if (err == 0 || (unsigned)err >= ARRAY_SIZE(errno_names))
		return 0;
	return errno_names[err];
}

const char *report_reason_name(enum report_reason reason)
{
	switch (reason) {
	case REPORT_EXIT:	return "exit";
	case REPORT_EXEC:	return "exec";
	case REPORT_SIGNAL:	return "signal";
	case REPORT_EXPLICIT:	return "explicit";
	case REPORT_INTERVAL:	return "interval";
	}
	return "unknown";
}

const char *report_status_name(enum report_status status)
{
	switch (status) {
	case STATUS_COUNTED:		return "counted";
	case STATUS_NOT_COUNTED:	return "not-counted";
	case STATUS_NOT_SUPPORTED:	return "not-supported";
	case STATUS_CLOSED:		return "closed-by-program";
	}
	return "unknown";
}

const char *report_metric_status_name(enum report_metric_status status)
{
	switch (status) {
	case METRIC_COMPUTED:		return "computed";
	case METRIC_NOT_COUNTED:	return "not-counted";
	case METRIC_UNDEFINED:		return "undefined";
	}
	return "unknown";
}

const char *report_input_source_name(enum report_input_source source)
{
	switch (source) {
	case INPUT_EVENT:		return "event";
	case INPUT_TIME:		return "time";
	case INPUT_INVERSE_CLOCK:	return "inverse-clock";
	case INPUT_NONE:		return "none";
	}
	return "unknown";
}

const struct report_event *report_region_event(const struct report *r, int e)
{
	int i = r->regions->event[e];

	return i >= 0 && i < r->nr_events ? &r->events[i] : NULL;
}

const char *report_region_event_name(const struct report *r, int e)
{
	const struct report_event *ev = report_region_event(r, e);

	return ev && ev->name ? ev->name : "?";
}
