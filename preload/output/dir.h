/* SPDX-License-Identifier: MIT */
/*
 * dir.h: PFSHIM_OUTPUT=DIR/ and the job directory: one file per
 * process image, that a reader sees whole or not at all. Async-signal-safe.
 */
#ifndef PFSHIM_PRELOAD_OUTPUT_DIR_H
#define PFSHIM_PRELOAD_OUTPUT_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "preload/output/name.h"

/*
 * output_dir_name - the file name of this process image's reports in a
 * directory: HOST.rRANK.pPID.TIME.N.EXT, with RANK (6 digits, or "-" without
 * one) and PID (7 digits) zero-padded so that names sort by host, rank, pid
 * and start; N is @names->seq. Return: 0 or -ENAMETOOLONG.
 */
int output_dir_name(const struct output_names *names, char *name, size_t size);

/*
 * output_dir_write - publish @buf as this image's file in @dir (which ends
 * in '/'; created with its parents, mode @mode, when missing). Every
 * directory on the way is reached and judged by trusted_dir_open(): one
 * another user controls is refused (-EPERM, *@why says which rule). The text is
 * written to an unnamed file (O_TMPFILE; a hidden ".pfshim.PID.TID.tmp"
 * where the file system has none) and linked into place complete: a reader
 * never sees half a report, and a process killed at any instant leaves none.
 * The first report of an image takes the first free N; later ones (a
 * signal, exec) replace that same file with rename(2). Threads may write
 * the same image's reports at once: each is written, into the one file
 * (one that cannot wait for the first to be published, into its own). With
 * @names->series, each report is also appended, in one write(2), to
 * output_dir_series_name()'s file beside it: the whole series of an image;
 * with @names->series_only (an interval report), it is only appended there.
 * A series name held by anything but our own regular file is refused.
 * Return: 0 or a negative errno; *@why a phrase for a refusal, else NULL.
 */
int output_dir_write_mode(const char *dir, const struct output_names *names, mode_t mode,
			  const char *buf, size_t len, const char **why);

/*
 * output_dir_write_at - output_dir_write_mode() into the directory @dirfd,
 * already opened and judged (trusted.h); @dir is its path, which tells an
 * image's later reports from its first.
 */
int output_dir_write_at(int dirfd, const char *dir, const struct output_names *names,
			const char *buf, size_t len, const char **why);

/*
 * output_dir_series_name - @name (HOST.rRANK.pPID.TIME.N.EXT) with EXT
 * replaced by ".series.EXT" (".series.jsonl" for ".json": one report per
 * line). Return: 0 or -ENAMETOOLONG.
 */
int output_dir_series_name(const char *name, const char *ext, char *series, size_t size);

/*
 * output_dir_prefault - write-fault now the statics a later
 * output_dir_write_mode() writes (the published name), so that writing a
 * report faults nothing after its counters were read (preload/prefault.h).
 */
void output_dir_prefault(void);

/*
 * output_dir_reserve - open the directory @dir (as output_dir_write_mode()
 * would, made with @mode) and the unnamed file of the report about to be
 * written there, now: the next output_dir_write_mode() into @dir (or
 * output_dir_write_at() into that directory) takes them instead of making
 * its own. A report calls it before its last read of the counters, so that
 * making the file, the costly part on a disk file system, is in the share
 * it measures (preload/share.h). output_dir_reserve_at - the same in the
 * directory @dirfd, already opened and judged. output_dir_release - close
 * what no write took (call it when the report is done). Return: 0, or a
 * negative errno (nothing reserved: the write makes its own as before).
 */
int output_dir_reserve(const char *dir, mode_t mode);
int output_dir_reserve_at(int dirfd);
void output_dir_release(void);

/*
 * output_dir_remove - remove the file this image published in @dir (the
 * same @names->pid), if any: a Prometheus file lives as long as its image
 * (docs/output.md). Return: 0 (nothing published is 0 too) or a negative errno.
 */
int output_dir_remove(const char *dir, const struct output_names *names);

/*
 * output_dir_write_noted - output_dir_write() that also notes the outcome
 * of an image's report in the directory's ledger, when `pfshim run` made
 * one there (ledger.h): *@noted then true, and the report's fate is the
 * runner's to say, not this process's.
 */
int output_dir_write_noted(const char *dir, const struct output_names *names, const char *buf,
			   size_t len, const char **why, bool *noted);

/* output_dir_write - output_dir_write_mode() with 0755 directories (PFSHIM_OUTPUT=DIR/). */
int output_dir_write(const char *dir, const struct output_names *names, const char *buf,
		     size_t len, const char **why);

/*
 * output_replace_at - replace the entry @name of the directory @dirfd by a
 * file holding exactly @buf, the way output_dir_write() replaces a report:
 * the text is written whole to an unnamed file (or a hidden
 * ".pfshim.PID.TID.tmp"), linked as ".NAME.TID.tmp" and renamed over @name, so
 * a reader sees the old file or the new one, never a mix. Whatever @name
 * was (a file, a symbolic link, nothing) is replaced, never written
 * through: the caller decides whether it may be. Return: 0 or a negative errno.
 */
int output_replace_at(int dirfd, const char *name, const char *buf, size_t len);

#endif
