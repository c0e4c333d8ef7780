/* SPDX-License-Identifier: MIT */
/*
 * name.h: what a report file is named from: the process's names and
 * the PFSHIM_OUTPUT template's % sequences, expanded so that no field can
 * climb out of the template's directory. A leaf: output.c, output_dir.c
 * and job.c all name files with it. Async-signal-safe.
 */
#ifndef PFSHIM_PRELOAD_OUTPUT_NAME_H
#define PFSHIM_PRELOAD_OUTPUT_NAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct output_names {
	int pid;
	const char *host;
	const char *program;
	const char *rank;	/* %r: the launcher's rank, "" or NULL when none */
	uint64_t start_ns;	/* %t: CLOCK_REALTIME at the process's start */
	unsigned seq;		/* %n: raised until the name is free */
	const char *ext;	/* a directory's files end so: ".json", ".csv", ".txt" */
	const char *prefix;	/* and begin so, or NULL: "rank_" for PAPI's format, as PAPI's files */
	bool series;		/* PFSHIM_INTERVAL: a directory also keeps NAME.series.EXT */
	bool series_only;	/* an interval report: a directory appends it to the series only */
	bool spool;		/* a JSON report of `pfshim run`'s job: to its spool when there is one */
	/*
	 * A missing directory is made the user's alone (0700), not 0755: pfshim
	 * run's job, whose directory (made 0700) is gone only if removed under it.
	 */
	bool private_dir;
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

#endif
