/* SPDX-License-Identifier: MIT */
/*
 * file.h: a report written to a file path the way careful tools
 * write into directories other users share (docs/security.md, class 2).
 * Async-signal-safe.
 */
#ifndef PFSHIM_PRELOAD_OUTPUT_FILE_H
#define PFSHIM_PRELOAD_OUTPUT_FILE_H

#include <stddef.h>

/*
 * report_file_write - append @buf to the file @path, or create it holding
 * exactly @buf.
 *
 * - The last component is not followed when it is a symbolic link that
 *   sits in a shared directory (world-writable like /tmp, or sticky and
 *   group-writable) and belongs neither to
 *   us nor to the directory's owner (the kernel's protected_symlinks rule).
 * - The open never blocks (O_NONBLOCK): a FIFO nobody reads is ENXIO.
 * - Only a regular file, a character device (/dev/null, a tty) or a FIFO
 *   with a reader is written; never a block device.
 * - In a shared directory, a file or FIFO owned by another user than us
 *   and the directory's owner is refused (protected_regular,
 *   protected_fifos), and so is a regular file with more than one link (a
 *   hard link to a file elsewhere).
 * - A new file is written under a temporary name in the same directory and
 *   renamed into place without replacing anything (RENAME_NOREPLACE), so it
 *   appears whole or not at all; an append that falls short (ENOSPC, EFBIG)
 *   is cut back to where it began.
 *
 * @path is borrowed: the '/' before its last component is a NUL for the
 * moment the directory is opened (no copy on a small signal stack).
 *
 * Return: 0, REPORT_FILE_TURN_MISSED (a FIFO other processes write too
 * was written without its turn: pipe_turn.h), or a negative errno with
 * *@why set to a phrase for the warning ("ELOOP: a symbolic link in a
 * shared directory", ...).
 */
int report_file_write(char *path, const char *buf, size_t len, const char **why);

/* Written whole to a FIFO, but without waiting its turn (pipe_turn.h): the caller says so. */
#define REPORT_FILE_TURN_MISSED 1

/*
 * report_file_replace - report_file_write(), but the file is made to hold
 * exactly @buf, the latest report, for a format whose text cannot be
 * appended to (an OpenMetrics exposition ends with "# EOF"). The same
 * checks decide which names may be written; a regular file (or a name not
 * yet taken) is then replaced atomically: the text is written whole
 * elsewhere in the same directory and rename(2)d over the name. A
 * character device or a FIFO gets one write, as report_file_write() does;
 * a symbolic link to a regular file is refused (-ELOOP), since renaming
 * over the link would replace the link.
 */
int report_file_replace(char *path, const char *buf, size_t len, const char **why);

#endif
