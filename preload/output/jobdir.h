/* SPDX-License-Identifier: MIT */
/*
 * jobdir.h: a job directory's storage: its descendants' reports, counted in
 * a ledger so that the root can say how many were lost, capped, and
 * removed when old. Async-signal-safe.
 */
#ifndef PFSHIM_PRELOAD_OUTPUT_JOBDIR_H
#define PFSHIM_PRELOAD_OUTPUT_JOBDIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "preload/output/name.h"

/* The default of PFSHIM_JOB_MAX: reports kept per job (a tmpfs page each). */
#define JOBDIR_MAX_DEFAULT 10000
/* The default of PFSHIM_JOB_EXPIRE, in seconds: one day. */
#define JOBDIR_EXPIRE_DEFAULT (24 * 3600)

/*
 * jobdir_write - a descendant's report into the job directory: the one
 * @job_fd holds (jobfd.h), or with -1 the one at @dir (reached, and made
 * 0700 when missing, with trusted_dir_open()). An image's @first report is
 * counted in the ledger first; an image counted past @cap reports nothing
 * (*@over set, -EDQUOT) and neither do its later reports.
 * Return: 0 or a negative errno.
 */
int jobdir_write(int job_fd, const char *dir, const struct output_names *names, bool first,
		 uint64_t cap, bool *over, const char *buf, size_t len);

/*
 * jobdir_reserve - output_dir_reserve() in the job directory jobdir_write()
 * would write into (@job_fd, else @dir): its next report's file made now.
 * Return: 0 or a negative errno (nothing reserved).
 */
int jobdir_reserve(int job_fd, const char *dir);

struct jobdir_tally {
	uint64_t reports;	/* files NAME.json in the directory */
	uint64_t counted;	/* images that set out to write one (the ledger) */
};

/*
 * jobdir_tally - what the job directory holds: the one @job_fd holds, or
 * with -1 the one at @dir. Return: 0, or -ENOENT without a directory or
 * with an empty one (its root made it, and no descendant wrote in it).
 */
int jobdir_tally(int job_fd, const char *dir, struct jobdir_tally *tally);

/*
 * jobdir_expire - remove the job directories in the runtime directory
 * @base_fd last written more than @max_age seconds before @now (seconds
 * since the epoch), ours, whose root (the pid in their name) is gone.
 */
void jobdir_expire(int base_fd, uint64_t max_age, uint64_t now);

#endif
