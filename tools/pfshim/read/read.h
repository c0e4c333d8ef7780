/* SPDX-License-Identifier: MIT */
/*
 * read.h: the reader, the only code that parses JSON: pfshim.report objects
 * (files, directories walked in name order, JSON Lines, stdin) and pfshim
 * run's pfshim.job into the model (model/summary.h). What is not a whole
 * report is named on stderr and skipped; nothing from a report is trusted
 * to have the type it should.
 */
#ifndef PFSHIM_TOOLS_READ_H
#define PFSHIM_TOOLS_READ_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "tools/pfshim/model/summary.h"

/* Report schema versions this reader knows: 3 added interval reports. */
#define SUMMARY_READS_VERSION 4

/* JSON helpers for untrusted input: the value when it has the type, else @otherwise. */
static inline bool is_count(json_t *v)
{
	return json_is_integer(v) && json_integer_value(v) >= 0;
}

static inline uint64_t count_or(json_t *v, uint64_t otherwise)
{
	return is_count(v) ? (uint64_t)json_integer_value(v) : otherwise;
}

static inline const char *string_or(json_t *v, const char *otherwise)
{
	return json_is_string(v) ? json_string_value(v) : otherwise;
}

/*
 * summary_add_path - read @path: a file of one report or JSON Lines, a
 * directory (recursively; names beginning with '.' are skipped: hidden
 * temporary files), or "-" for stdin. Return: 0, or -1 when @path itself
 * could not be read (said on stderr).
 */
int summary_add_path(struct summary *s, const char *path);

/*
 * summary_add_text - add @len bytes read from @path (named in messages): one
 * report or JSON Lines. Stops at the first malformed object, said on stderr;
 * a report of another schema or a newer version is named and skipped.
 */
void summary_add_text(struct summary *s, const char *path, const char *text, size_t len);

/*
 * summary_finish - count the images whose last report was not an exit or
 * exec one (killed after a signal report, or still running), and say on
 * stderr which --events/--regions names no report had. Call once, after the
 * last input and before printing.
 */
void summary_finish(struct summary *s);

/*
 * summary_shown - @n bytes of @text with their control bytes (C0, DEL, C1)
 * shown as text ("\x1b"), in a new string of *@len bytes; NULL when it has
 * none. What reaches a terminal from a program's chosen text goes through it.
 */
char *summary_shown(const char *text, size_t n, size_t *len);

/*
 * job.c: pfshim run's count of the whole job. summary_job_check - NULL when
 * @o is a pfshim.job this reader knows, else why not. summary_job_take -
 * keep a checked one (several: their sums). summary_job_finish - which of its
 * processes no report was read of; called by summary_finish().
 */
const char *summary_job_check(json_t *o);
void summary_job_take(struct summary *s, json_t *o);
void summary_job_finish(struct summary *s);

/*
 * own_share.c: a counted image's report's pfshim_share into summary.share and
 * its summary_end (the last: call right after summary_count() of @report).
 * summary_share_field - the share field an event name counts (perf's names
 * and aliases, any modifier), or -1.
 */
void summary_share_count(struct summary *s, json_t *report);
int summary_share_field(const char *event_name);
/* job.c: a counted image's report written at a signal into summary.signal_ends. */
void summary_signal_end_count(struct summary *s, json_t *report);
/* own_share.c: the job's share by event, from the reports' and the calibration (summary_job_finish). */
void summary_share_finish(struct summary *s);

/* combine.c: count one checked report as its image's last one. */
void summary_count(struct summary *s, json_t *report);
/* combine.c: a report with a "seq": its deltas into the series. */
void summary_series_add(struct summary *s, json_t *report);
/*
 * summary.c: the machine a report's process ran on, its identity with its
 * pid namespace and pid: its boot_id where it says one (pfshim run's job:
 * a process that takes a new host name in a UTS namespace is still the
 * same), else its host name ("" without one).
 */
const char *summary_machine_of(json_t *report);
/* combine.c: the group of a report under --by, created when new. */
int summary_group_of(struct summary *s, json_t *report);

/* metrics.c: the metrics of @report, the last one of its image, into group @group. */
void metric_sums_add(struct summary *s, int group, json_t *report);

#endif
