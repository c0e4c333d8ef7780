/* SPDX-License-Identifier: MIT */
/*
 * jobfd.h: a job's directory held open by each of its processes, so that a
 * new process learns its job from its parent's descriptor (/proc/PPID/fd/N)
 * and never from a name in a directory others may write in.
 * Async-signal-safe apart from jobfd_keep() (fd_move_away(): the
 * constructor or a fork child only).
 */
#ifndef PFSHIM_PRELOAD_OUTPUT_JOBFD_H
#define PFSHIM_PRELOAD_OUTPUT_JOBFD_H

#include <stddef.h>
#include <sys/types.h>

struct jobfd {
	int fd;			/* O_PATH, close-on-exec, above the soft limit or in the band; -1 */
	dev_t dev;		/* what it was when kept: the program may close the number */
	ino_t ino;
};

/*
 * jobfd_keep - judge @fd (a directory of the effective user's, mode 0700)
 * and keep it out of the program's way in @j. @fd is closed either way.
 * Return: 0, or a negative errno (no room for it, or not such a directory).
 */
int jobfd_keep(struct jobfd *j, int fd);

/*
 * jobfd_get - @j's descriptor while it is still the job's directory and
 * that directory still exists (the program may have closed or reused the
 * number; the runtime directory may have been removed). Return: it, or -1.
 */
int jobfd_get(const struct jobfd *j);

/*
 * jobfd_from_parent - the job directory the parent @ppid holds, kept in @j,
 * its path (with a final '/') in @dir: opened through /proc/PPID/fd/N (the
 * kernel's link to the directory itself, no name looked up anywhere), judged
 * as jobfd_keep() does, and believed only if @ppid is still the parent
 * afterwards (its pid cannot have been reused meanwhile). Fails when the
 * parent holds none (no shim, another user's, closed by the program) or its
 * descriptors may not be read (not dumpable). Return: 0 or a negative errno.
 */
int jobfd_from_parent(struct jobfd *j, int ppid, char *dir, size_t size);

/*
 * jobfd_base - the runtime directory that holds @j's job directory, reached
 * as its "..", judged private. Return: an O_PATH descriptor, or a negative
 * errno.
 */
int jobfd_base(const struct jobfd *j);

void jobfd_close(struct jobfd *j);

#endif
