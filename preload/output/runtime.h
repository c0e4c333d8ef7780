/* SPDX-License-Identifier: MIT */
/*
 * runtime.h: the private runtime directory of a user's jobs, where the
 * crumbs and the job directories live: $XDG_RUNTIME_DIR/pfshim, else
 * /dev/shm/pfshim-UID, else /tmp/pfshim-UID. Async-signal-safe apart from
 * runtime_find().
 */
#ifndef PFSHIM_PRELOAD_OUTPUT_RUNTIME_H
#define PFSHIM_PRELOAD_OUTPUT_RUNTIME_H

#include <stddef.h>
#include <sys/stat.h>

#include "preload/config.h"

/*
 * runtime_find - find (or make, 0700) the runtime directory and name it in
 * @base. $XDG_RUNTIME_DIR is taken only when it is the effective user's own
 * directory, closed to other writers, reached by trusted_dir_open() (root
 * under `sudo -E` passes over the invoking user's). In the shared /dev/shm
 * or /tmp, a pfshim-UID that is not ours (another user made it first: a
 * denial of service) is passed over for a pfshim-UID.XXXXXX of our own,
 * found again by every process of the user as the first such name that is
 * theirs; *@note then says so, for the root's one line.
 *
 * Return: an O_PATH descriptor of it, or a negative errno with *@why set
 * (a place that exists but fails the checks is refused, not passed over).
 */
int runtime_find(config_getenv_fn get_env, char *base, size_t size, const char **why,
		 const char **note);

/*
 * runtime_open - the directory runtime_find() named, reached and judged
 * again: ours, a directory, mode 0700. Return: an O_PATH descriptor or a
 * negative errno.
 */
int runtime_open(const char *base);

/*
 * runtime_judge - NULL when @st is a directory of the effective user's that
 * nobody else may enter (mode 0700 or less: the runtime directory and each
 * job directory), else why not.
 */
const char *runtime_judge(const struct stat *st);

#endif
