/* SPDX-License-Identifier: MIT */
/*
 * output.h: where a report goes (PFSHIM_OUTPUT): stderr, stdout or a file
 * named by a template. Async-signal-safe.
 */
#ifndef PFSHIM_PRELOAD_OUTPUT_OUTPUT_H
#define PFSHIM_PRELOAD_OUTPUT_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "preload/output/name.h"

/* output_is_dir - @target ends in '/': one file per process in that directory (output_dir.c). */
bool output_is_dir(const char *target);

/* output_stream_open() when the stream was closed at start: the report goes nowhere. */
#define OUTPUT_STREAM_CLOSED (-2)

/*
 * output_stream_open - record what fd 2 (and fd 1 for "stdout") is at
 * start (fd_stream_record()), and for the targets "stderr" and "stdout"
 * take a high, close-on-exec duplicate of it, so that the report still
 * reaches them when the program closes its own at exit (coreutils'
 * close_stdout() closes stderr). OUTPUT_STREAM_CLOSED when the program was
 * started without that stream: the number is free for a file of its own.
 * A file or directory target that this process cannot write at start gets
 * the duplicate of stderr too (its report falls back there). -1 for a file
 * target, or when no duplicate could be made. Later writes
 * use a stream only while fd_stream_target() proves it is still the same.
 */
int output_stream_open(const char *target);

/*
 * output_write - write @buf in one write(2) to @target: "stderr" or
 * "stdout" (the duplicate output_stream_open() took, or fd 2/1, whichever
 * is still provably the stream the program started with; nowhere if
 * neither), or a template expanded and written by report_file_write(). A
 * file that cannot be written gets one "pfshim:" line and the report goes
 * to stderr instead. With @replace, a file named by a template without %n
 * is replaced by each report instead of appended to (report_file_replace()):
 * for a format whose text cannot follow another (OpenMetrics, PAPI's JSON). With
 * @runner_names_lost (a process of pfshim run's job), a report that cannot
 * be written (a directory it may not reach, a full descriptor table, the
 * program's seccomp filter) is lost with no line and nothing on stderr: the
 * runner names the process in its summary, from the ledger (kind lost) or
 * as one that left no report.
 */
void output_write(const char *target, bool runner_names_lost, const struct output_names *names,
		  bool replace, const char *buf, size_t len);

/*
 * output_reserve - before a report's last read of its counters: when
 * @target expands to a directory, its directory and the report's unnamed
 * file made now (output_dir_reserve()), for the output_write() that
 * follows. Nothing for a stream or a template file, or under the program's
 * seccomp filter. output_release - what that write did not take, closed.
 */
void output_reserve(const char *target, const struct output_names *names);
void output_release(void);

/*
 * output_remove - when @target expands to a directory, remove this image's
 * file there (output_dir_remove()): a Prometheus file of a process that
 * ended. A failure gets one "pfshim:" line. Return: true when @target is a
 * directory (its report is dealt with), false for a stream or a template
 * file, or under the program's seccomp filter (write the report there).
 */
bool output_remove(const char *target, const struct output_names *names);

#endif
