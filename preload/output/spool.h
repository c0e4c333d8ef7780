/* SPDX-License-Identifier: MIT */
/*
 * spool.h: `pfshim run`'s spool: the job's reports appended, each in one
 * write, to one file the runner made in its output directory, and split by
 * the runner into the usual file per image once the job has ended. Making
 * a file is most of what a report costs on a disk file system (an inode,
 * a bitmap searched: 60-800 us of CPU on ext4 here, against 4 us for an
 * append), and it lands inside the job being measured; the spool moves it
 * after the job. Async-signal-safe.
 */
#ifndef PFSHIM_PRELOAD_OUTPUT_SPOOL_H
#define PFSHIM_PRELOAD_OUTPUT_SPOOL_H

#include <errno.h>
#include <stddef.h>

#include "preload/output/name.h"

/*
 * Made by `pfshim run` in its output directory before the job starts
 * (docs/output.md), named for the runner's host: SPOOL_PREFIX, then the
 * host name with '/' and control bytes as '_' (spool_name()). A process on
 * another host sharing the directory (NFS does not append atomically
 * across hosts) finds no spool of its host's and writes its own file.
 */
#define SPOOL_PREFIX ".pfshim-spool."

/* spool_name - the spool's name for @host into @name (@size bytes). Return: 0 or -ENAMETOOLONG. */
static inline int spool_name(char *name, size_t size, const char *host)
{
	size_t at = 0;

	for (const char *p = SPOOL_PREFIX; *p && at + 1 < size; p++)
		name[at++] = *p;
	for (const char *h = host && *host ? host : "localhost"; *h; h++) {
		if (at + 1 >= size)
			return -ENAMETOOLONG;
		name[at++] = *h == '/' || (unsigned char)*h < 0x20 || *h == 0x7f ? '_' : *h;
	}
	name[at] = '\0';
	return 0;
}

/*
 * A record: SPOOL_RS, the image's key (its pid, '.', its start_ns), ' ',
 * the file name it would have had with %n 0, ' ', the length of what
 * follows in decimal, '\n', then that many bytes: the report. The image's
 * last record is its report (a report at exec, then one at exit: the
 * second replaces the first, as its file would be). A record cut short (a
 * process killed inside its write) fails its length: it is dropped, and
 * the next record found at the next SPOOL_RS, a byte no JSON text holds.
 */
#define SPOOL_RS '\x1e'

/* How long a writer or the runner waits for the other's lock before going on without it. */
#define SPOOL_WAIT_MS 2000

/*
 * spool_append - the report @buf (@len bytes) as a record of the spool in
 * @dirfd: opened by its name without following a link or creating it, and
 * taken only if it is a regular file of ours with one name, still linked
 * once a shared lock is held (the runner unlinks it and takes the lock
 * exclusively before it splits, so no record is added after it read them).
 * Return: 0, or a negative errno: -ENOENT without a spool (or one the
 * runner has closed, or another's lock held past SPOOL_WAIT_MS), -EIO or
 * the write's errno for a record cut short. The caller then writes a file
 * of its own.
 */
int spool_append(int dirfd, const struct output_names *names, const char *buf, size_t len);

#endif
