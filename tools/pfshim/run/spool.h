/* SPDX-License-Identifier: MIT */
/*
 * spool.h: `pfshim run`'s side of the spool (preload/output/spool.h): made
 * before the job, then closed to the job's late writers and split into the
 * file per image the job's processes would have written themselves.
 */
#ifndef PFSHIM_TOOLS_SPOOL_H
#define PFSHIM_TOOLS_SPOOL_H

#include <stdbool.h>
#include <stdint.h>

/* Told of each report whose file could not be written: its process and the errno. */
typedef void spool_lost_fn(void *ctx, int pid, int err);

struct spool_split_result {
	uint64_t records;	/* whole records read */
	uint64_t files;		/* files written: one per image, its last record */
	uint64_t torn;		/* records cut short (a process killed inside its write): dropped */
	uint64_t kept;		/* reports whose file could not be written, kept in a new spool */
	uint64_t lost;		/* reports neither written nor kept (*err says why) */
	int err;		/* the first such failure's errno */
	bool unwaited;		/* a writer held its lock past SPOOL_WAIT_MS: not waited for */
};

/*
 * run_spool_create - the spool of this host in the directory @dirfd, new
 * and empty; one left there by an earlier runner that could not split it
 * (killed) is split first into @left. Return: its descriptor (read and
 * write, close-on-exec), or -1 (the job's processes then write their own
 * files, as without a spool, or append to the spool of a runner still
 * running into @dirfd, which it alone splits).
 */
int run_spool_create(int dirfd, struct spool_split_result *left);

/*
 * run_spool_split - unlink the spool @fd (made by run_spool_create() in
 * @dirfd), wait for the writes begun before, and write each image's last
 * record as its file in @dirfd: the name the record gives, its %n raised
 * past any file already there. Closes @fd. Never follows a link, never
 * replaces a file. @lost (when not NULL) is told of each report whose file
 * could not be written.
 */
void run_spool_split(int dirfd, int fd, struct spool_split_result *r, spool_lost_fn *lost,
		     void *ctx);

/* spool_split_buffer - run_spool_split()'s work on @n bytes at @data (the spool's); unit-tested. */
void spool_split_buffer(int dirfd, const char *data, uint64_t n, struct spool_split_result *r,
			spool_lost_fn *lost, void *ctx);

#endif
