/*
 * report.h: the report model, the one structure every writer formats.
 *
 * preload/ fills a struct report from what it read; export/ turns it into
 * text, CSV or JSON. The writers are async-signal-safe (PFSHIM_SIGNAL reports
 * are formatted inside a signal handler): they only write into the caller's
 * buffer, never allocate, lock or use stdio.
 */
#ifndef PFSHIM_EXPORT_REPORT_H
#define PFSHIM_EXPORT_REPORT_H

#include <stddef.h>
#include <stdint.h>

#define REPORT_SCHEMA_VERSION 1

enum report_reason {
	REPORT_EXIT,		/* exit(), return from main, _exit(), _Exit() */
	REPORT_EXEC,		/* just before an exec*() replaces the image */
	REPORT_SIGNAL,		/* the PFSHIM_SIGNAL signal arrived */
	REPORT_EXPLICIT,	/* pfshim_report() */
};

enum report_status {
	STATUS_COUNTED,		/* value is meaningful (maybe scaled) */
	STATUS_NOT_COUNTED,	/* opened, but never ran (running == 0) */
	STATUS_NOT_SUPPORTED,	/* open failed: ENOENT, EOPNOTSUPP, ... */
};

struct report_event {
	const char *name;	/* as the user wrote it, modifiers included */
	const char *unit;	/* "msec" for the clocks, sysfs .unit, or "" */
	double scale;		/* multiply value by this for display (1.0 if none) */
	uint64_t raw;		/* the count as read */
	uint64_t value;		/* raw scaled by enabled/running */
	uint64_t enabled;	/* ns */
	uint64_t running;	/* ns */
	enum report_status status;
	int error;		/* errno of the failed open when NOT_SUPPORTED */
	unsigned user_only : 1;	/* retried with exclude_kernel/hv (permissions) */
	unsigned zero_when_user_only : 1; /* the kernel never counts it in user mode */
	unsigned scaled : 1;	/* enabled != running: value was extrapolated */
};

struct report {
	const char *program;	/* basename of /proc/self/exe */
	const char *argv0;
	int pid;
	int ppid;
	const char *hostname;
	uint64_t start_ns;	/* CLOCK_REALTIME at the constructor */
	uint64_t wall_ns;	/* CLOCK_MONOTONIC from constructor to report */
	enum report_reason reason;
	int signo;		/* with REPORT_SIGNAL */
	int nr_events;
	const struct report_event *events;
};

/*
 * report_format_text/csv/json - format @r into @buf (at most @size bytes,
 * always NUL-terminated when size > 0).
 *
 * Return: the length the whole report needs, excluding the NUL, as snprintf
 * does: a result >= @size means the output was truncated and the caller
 * should retry with a larger buffer. Async-signal-safe.
 */
size_t report_format_text(const struct report *r, char *buf, size_t size);
size_t report_format_csv(const struct report *r, char *buf, size_t size);
size_t report_format_json(const struct report *r, char *buf, size_t size);

const char *report_reason_name(enum report_reason reason);
const char *report_status_name(enum report_status status);

#endif
