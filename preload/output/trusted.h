/* SPDX-License-Identifier: MIT */
/*
 * trusted.h: the one set of rules for every directory the shim writes into
 * (the job's runtime directory, the job directory, PFSHIM_OUTPUT=DIR/ and
 * its series files, PAPI_OUTPUT_DIRECTORY's pfshim_output/): a path is
 * walked component by component from a descriptor, each one opened without
 * following a link and judged on that descriptor, so that no directory
 * another user controls is ever resolved. Async-signal-safe.
 */
#ifndef PFSHIM_PRELOAD_OUTPUT_TRUSTED_H
#define PFSHIM_PRELOAD_OUTPUT_TRUSTED_H

#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * trusted_dir_open - an O_PATH descriptor of the directory @path, reached
 * from "/" (or from the working directory, itself judged, for a relative
 * path). Every directory on the way, the last included, must be:
 *
 * - a directory, owned by the effective user or by root;
 * - closed to writers other than its owner (no group or other write), or
 *   sticky (/tmp): there others may add entries, but not rename ours.
 *
 * A symbolic link on the way is followed only when it belongs to the
 * effective user or root, sits in a directory nobody else may write in
 * (or, in a sticky one, is the effective user's own) and has no other name
 * (a hard link of root's link planted in /tmp); the directory it leads to
 * is judged as any other. With @create, a missing component is made with
 * @mode (under the umask) and judged like the rest.
 *
 * *@st: the directory's stat (the last one judged). *@why: a phrase for a
 * refusal ("a directory on the way belongs to another user"), NULL for a
 * system call's own error.
 *
 * Return: the descriptor, or a negative errno: -EPERM for a refusal.
 */
int trusted_dir_open(const char *path, bool create, mode_t mode, struct stat *st,
		     const char **why);

/*
 * trusted_dir_at - one step of trusted_dir_open(): the entry @name of the
 * judged directory @parent_fd (its stat @parent), opened and judged by the
 * same rules. Return: an O_PATH descriptor or a negative errno.
 */
int trusted_dir_at(int parent_fd, const struct stat *parent, const char *name, bool create,
		   mode_t mode, struct stat *st, const char **why);

/*
 * trusted_dir_shared - others may add entries to @dir (world-writable, or
 * group-writable, for sticky directories such as /tmp): there an entry is
 * trusted only when it is the effective user's (or the directory owner's,
 * for report_file_write()'s rules).
 */
bool trusted_dir_shared(const struct stat *dir);

/*
 * trusted_file_ours - the open file @fd is one this user's process made and
 * may append to: a regular file, owned by the effective user, with no
 * other name. *@st: its stat. Return: 0, or -EPERM with *@why set.
 */
int trusted_file_ours(int fd, struct stat *st, const char **why);

#endif
