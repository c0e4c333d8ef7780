/* SPDX-License-Identifier: MIT */
/*
 * ledger.h: the outcome of each report written into `pfshim run`'s output
 * directory, so that the runner says which processes' reports were lost and
 * why, and the processes say nothing on streams the job may be capturing.
 * Async-signal-safe.
 */
#ifndef PFSHIM_PRELOAD_OUTPUT_LEDGER_H
#define PFSHIM_PRELOAD_OUTPUT_LEDGER_H

#include <stdbool.h>

/* Made by `pfshim run` in its output directory before the job starts (docs/output.md). */
#define LEDGER_FILE ".pfshim-ledger"
/* The room it is given then, so that appending needs no new block of a full disk. */
#define LEDGER_RESERVE (256 * 1024)

/*
 * ledger_note - append "PID ERR\n" (@err: 0 when the report was written,
 * else its positive errno) to the ledger in the directory @dirfd, when
 * there is one: a regular file of this user's with one name, opened without
 * following a link and without creating it. One of the directory's owner
 * (the runner's, this process having dropped privileges) takes no line.
 * Return: true when the directory has the runner's ledger (the report's
 * fate is the runner's to say, even if no line could be added), false
 * when it has none.
 */
bool ledger_note(int dirfd, int pid, int err);

#endif
