/* SPDX-License-Identifier: MIT */
/*
 * claim.h: one `pfshim run` at a time in an output directory. A second run
 * into the directory of a live one would read the first's reports as its
 * own and fail to write its job count beside them (both summaries mixed),
 * so each runner holds the directory's claim from before its command runs
 * until it exits, and a second one finds it held and refuses the directory.
 */
#ifndef PFSHIM_TOOLS_CLAIM_H
#define PFSHIM_TOOLS_CLAIM_H

#include <stdbool.h>

/* The claim's file in the output directory: hidden, so pfshim report reads past it. */
#define CLAIM_FILE ".pfshim-run"

/*
 * run_claim - claim the directory @dirfd for this runner: an exclusive
 * flock(2) on its CLAIM_FILE (made with @create when missing), which then
 * holds this process's pid. The lock lives as long as the returned
 * descriptor (close-on-exec), and the kernel drops it with the runner: one
 * killed by SIGKILL claims nothing. The file is never removed (a runner
 * that removed it could leave a later runner locking a name no one else
 * finds).
 *
 * Return: the descriptor, to keep open; -EWOULDBLOCK when a live runner
 * holds it (*@holder: its pid, 0 while it has not written it yet);
 * -ENOENT without @create and without the file; -EPERM when what is at
 * the name is not a regular file of this user's with one name (*@why says
 * what it is); another negative errno when it cannot be made (a directory
 * that takes no new file).
 */
int run_claim(int dirfd, bool create, int *holder, const char **why);

#endif
