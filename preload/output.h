/*
 * output.h: where a report goes (PFSHIM_OUTPUT): stderr, stdout or a file
 * named by a template. Async-signal-safe.
 */
#ifndef PFSHIM_PRELOAD_OUTPUT_H
#define PFSHIM_PRELOAD_OUTPUT_H

#include <stddef.h>

struct output_names {
	int pid;
	const char *host;
	const char *program;
};

/*
 * output_expand - expand %p (pid), %h (host), %e (program) and %% of
 * @template into @path. Return: 0, or -ENAMETOOLONG, or -EINVAL for an
 * unknown or dangling %.
 */
int output_expand(const char *template, const struct output_names *names, char *path, size_t size);

/* output_stream_open() when the stream was closed at start: the report goes nowhere. */
#define OUTPUT_STREAM_CLOSED (-2)

/*
 * output_stream_open - for the targets "stderr" and "stdout", a high,
 * close-on-exec duplicate of fd 2 or 1 taken at start, so that the report
 * still reaches them when the program closes its own at exit (coreutils'
 * close_stdout() closes stderr). OUTPUT_STREAM_CLOSED when the program was
 * started without that stream: the number is free for a file of its own.
 * -1 for a file target, or when no duplicate could be made.
 */
int output_stream_open(const char *target);

/*
 * output_write - write @buf in one write(2) to @target: "stderr" or
 * "stdout" (through @stream_fd from output_stream_open(), or fd 2/1 when it
 * is -1, nowhere when OUTPUT_STREAM_CLOSED), or a template opened O_WRONLY|O_CREAT|O_APPEND|O_CLOEXEC, so that
 * reports of concurrent processes never interleave. A file that cannot be
 * opened gets one "pfshim:" line and the report goes to stderr instead.
 */
void output_write(const char *target, int stream_fd, const struct output_names *names,
		  const char *buf, size_t len);

#endif
