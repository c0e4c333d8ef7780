/*
 * output.h: where a report goes (PFSHIM_OUTPUT): stderr, stdout or a file
 * named by a template. Async-signal-safe.
 */
#ifndef PFSHIM_PRELOAD_OUTPUT_H
#define PFSHIM_PRELOAD_OUTPUT_H

#include <stddef.h>

#include <stdbool.h>
#include <stdint.h>

struct output_names {
	int pid;
	const char *host;
	const char *program;
	const char *rank;	/* %r: the launcher's rank, "" or NULL when none */
	uint64_t start_ns;	/* %t: CLOCK_REALTIME at the process's start */
	unsigned seq;		/* %n: raised until the name is free */
	const char *ext;	/* a directory's files end so: ".json", ".csv", ".txt" */
};

/*
 * output_expand - expand %p (pid), %h (host), %e (program), %r (rank),
 * %t (start time, 20261122T010203Z), %n (@names->seq) and %% of
 * @template into @path. In the expanded fields '/' and control bytes
 * become '_', and so does a '.' that would make a component of only dots:
 * a field never climbs out of the template's directory. Return: 0, or
 * -ENAMETOOLONG, or -EINVAL for an unknown or dangling %.
 */
int output_expand(const char *template, const struct output_names *names, char *path, size_t size);

/* How far %n goes looking for a free name before giving up (EEXIST). */
#define OUTPUT_SEQ_MAX 100000

struct buf;

/* output_put_time - %t: @ns since the epoch as 20261122T010203Z (UTC, sortable). */
void output_put_time(struct buf *b, uint64_t ns);

/* output_uses_seq - @template has a %n: the file is created O_EXCL, %n raised until free. */
bool output_uses_seq(const char *template);

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
 * -1 for a file target, or when no duplicate could be made. Later writes
 * use a stream only while fd_stream_target() proves it is still the same.
 */
int output_stream_open(const char *target);

/*
 * output_write - write @buf in one write(2) to @target: "stderr" or
 * "stdout" (the duplicate output_stream_open() took, or fd 2/1, whichever
 * is still provably the stream the program started with; nowhere if
 * neither), or a template expanded and written by report_file_write(). A
 * file that cannot be written gets one "pfshim:" line and the report goes
 * to stderr instead. @stream_fd is unused (kept for callers; fd.c holds it).
 */
void output_write(const char *target, int stream_fd, const struct output_names *names,
		  const char *buf, size_t len);

#endif
