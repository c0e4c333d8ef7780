/* SPDX-License-Identifier: MIT */
/*
 * output.c: deliver a formatted report to its destination, one write(2) per
 * report: a standard stream only while it is provably the one the program
 * started with (fd.c), a file through report_file.c; a pipe or FIFO that
 * other processes write too in this process's turn (pipe_turn.c). Async-signal-safe
 * (reports are written from signal handlers): no stdio, no allocation;
 * errno is preserved.
 */
#include "preload/output/output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/buf.h"
#include "preload/fd.h"
#include "preload/output/dir.h"
#include "preload/output/file.h"
#include "preload/output/pipe_turn.h"
#include "preload/output/trusted.h"
#include "preload/sandbox.h"
#include "preload/warn.h"

bool output_is_dir(const char *target)
{
	size_t n = strlen(target);

	return n > 0 && target[n - 1] == '/';
}

/*
 * The new file @path in its directory, reached by trusted_dir_open() (the
 * '/' before the name a NUL for the walk, then put back). Return: the
 * file's descriptor and *@dir_fd, or a negative errno (*@why for a refusal).
 */
static int seq_create(char *path, int *dir_fd, const char **why)
{
	char *slash = strrchr(path, '/');
	const char *name = path;
	struct stat st;
	int fd;

	if (slash) {
		char *cut = slash + (slash == path);	/* "/name": the directory is "/" */
		char saved = *cut;

		*cut = '\0';
		*dir_fd = trusted_dir_open(path, false, 0, &st, why);
		*cut = saved;
		name = slash + 1;
	} else {
		*dir_fd = trusted_dir_open(".", false, 0, &st, why);
	}
	if (*dir_fd < 0)
		return *dir_fd;
	fd = openat(*dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		    0644);
	if (fd < 0) {
		fd = -errno;
		close(*dir_fd);
	}
	return fd;
}

/* A template with %n: the first free name, created O_EXCL. */
static int template_open_seq(const char *template, struct output_names *names, char *path,
			     size_t size, int *dir_fd, const char **why)
{
	for (names->seq = 0; names->seq < OUTPUT_SEQ_MAX; names->seq++) {
		int fd, err = output_expand(template, names, path, size);

		if (err < 0)
			return err;
		fd = seq_create(path, dir_fd, why);
		if (fd != -EEXIST)
			return fd;
	}
	return -EEXIST;
}

/*
 * Whether the file or directory @target cannot take a report as things
 * stand at start: it, or where it is not there yet (the report makes it)
 * the directory above, is not writable by this process (another's,
 * read-only, missing too). A name with a % sequence is known only at the
 * report: then the directory above alone, when that has none. Return:
 * false when it may well be written.
 */
static bool target_unwritable(const char *target)
{
	char path[PATH_MAX], dir[PATH_MAX];
	size_t len = strlen(target), n;
	const char *slash;

	while (len > 1 && target[len - 1] == '/')	/* a directory target: the directory */
		len--;
	if (len >= sizeof(path))
		return false;
	memcpy(path, target, len);
	path[len] = '\0';
	slash = strrchr(path, '/');
	n = slash ? (size_t)(slash - path) : 0;
	if (!strchr(path, '%') && faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0)
		return false;
	if (!strchr(path, '%') && errno != ENOENT)
		return true;
	if (memchr(path, '%', n))
		return false;
	if (!slash) {
		strcpy(dir, ".");
	} else if (n == 0) {
		strcpy(dir, "/");
	} else {
		memcpy(dir, path, n);
		dir[n] = '\0';
	}
	return faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) < 0;
}

/*
 * Standard error is recorded whatever the target (warnings go there, and a
 * file that cannot be written falls back to it), but duplicated only when
 * it is the target, or a file or directory target that cannot be written
 * at start: its report and the line why would otherwise go to a stderr the
 * program may have closed by then (coreutils' programs close it at exit).
 * A file target that can be written costs the host no descriptor.
 */
int output_stream_open(const char *target)
{
	bool to_stderr = strcmp(target, "stderr") == 0;
	int saved_errno = errno;
	bool fallback = !to_stderr && strcmp(target, "stdout") && target_unwritable(target);
	int err_dup = fd_stream_record(STDERR_FILENO, to_stderr || fallback);

	errno = saved_errno;
	if (to_stderr)
		return err_dup == FD_STREAM_WAS_CLOSED ? OUTPUT_STREAM_CLOSED : err_dup;
	if (strcmp(target, "stdout") == 0) {
		int out_dup = fd_stream_record(STDOUT_FILENO, true);

		return out_dup == FD_STREAM_WAS_CLOSED ? OUTPUT_STREAM_CLOSED : out_dup;
	}
	return -1;
}

/* The one line for a report written to a shared pipe without its turn (pipe_turn.h). */
static void warn_turn_missed(const char *target)
{
	warn_line("the report to ", target, " waited 2 s for other processes' reports, with "
		  "nothing read, and was written without its turn: it may interleave with theirs",
		  NULL);
}

/*
 * A standard stream, through the descriptor fd.c can prove is still it: a
 * pipe that other processes write too gets the report whole (pipe_turn.h).
 * Return: 0, or the errno of a failed write (ENOENT: nothing provably ours).
 */
static int stream_write(int std_fd, const char *buf, size_t len)
{
	int fd = fd_stream_target(std_fd), err;
	bool missed;

	if (fd < 0)
		return ENOENT;
	pipe_turn_write(fd, buf, len, FD_WRITE_WAIT_MS, &err, &missed);
	if (missed)
		warn_turn_missed(std_fd == STDOUT_FILENO ? "stdout" : "stderr");
	return err;
}

/*
 * A report its target could not take: one line why (warn_line()'s parts)
 * and the report on stderr instead. Neither in a process of pfshim run's
 * job (@runner_names_lost): the runner names each process whose report is
 * not in its directory, from the ledger or as one that left none, and the
 * process's stderr is the program's, which the job may be reading as data
 * (docs/pfshim.md: the command's streams are untouched).
 */
static void report_to_stderr(bool runner_names_lost, const char *buf, size_t len,
			     const char *part, ...)
{
	va_list ap;

	if (runner_names_lost)
		return;
	va_start(ap, part);
	warn_linev(part, ap);
	va_end(ap);
	stream_write(STDERR_FILENO, buf, len);
}

/* A report the file could not take goes to stderr instead, with one line saying why. */
static void file_write(char *path, bool runner_names_lost, bool replace, const char *buf,
		       size_t len)
{
	const char *why;
	int err = replace ? report_file_replace(path, buf, len, &why) :
			    report_file_write(path, buf, len, &why);

	if (err == REPORT_FILE_TURN_MISSED)
		warn_turn_missed(path);
	if (err >= 0)
		return;
	report_to_stderr(runner_names_lost, buf, len, "cannot write '", path, "' (",
			 strerrorname_np(-err) ?: "error", why ? ": " : "", why ? why : "",
			 "); report written to stderr", NULL);
}

/*
 * A template with %n: the first free name, created O_EXCL (so never through
 * a link, never into another's file) and holding the whole report or removed.
 */
static void seq_write(const char *template, bool runner_names_lost, struct output_names *names,
		      char *path, const char *buf, size_t len)
{
	const char *why = NULL;
	int dir_fd, err = 0;
	int fd = template_open_seq(template, names, path, PATH_MAX, &dir_fd, &why);

	if (fd >= 0) {
		fd_write_bounded(fd, buf, len, FD_WRITE_WAIT_MS, &err);
		close(fd);
		if (err)
			unlinkat(dir_fd, strrchr(path, '/') ? strrchr(path, '/') + 1 : path, 0);
		close(dir_fd);
		if (!err)
			return;
		fd = -err;
	}
	report_to_stderr(runner_names_lost, buf, len, "cannot write '", path, "' (",
			 strerrorname_np(-fd) ?: "error", why ? ": " : "", why ? why : "",
			 "); report written to stderr", NULL);
}

bool output_remove(const char *target, const struct output_names *names)
{
	int saved_errno = errno, err;
	struct output_names named = *names;
	char path[PATH_MAX];

	if (sandbox_filtered() || strcmp(target, "stderr") == 0 || strcmp(target, "stdout") == 0 ||
	    output_expand(target, &named, path, sizeof(path)) < 0 || !output_is_dir(path)) {
		errno = saved_errno;
		return false;
	}
	if ((err = output_dir_remove(path, &named)) < 0)
		warn_line("cannot remove this process's report from '", path, "' (",
			  strerrorname_np(-err) ?: "error", "): it stays there", NULL);
	errno = saved_errno;
	return true;
}

void output_reserve(const char *target, const struct output_names *names)
{
	int saved_errno = errno;
	char path[PATH_MAX];

	/* A report for the spool makes no file (it makes one only if the spool is gone). */
	if (!names->spool && !sandbox_filtered() && strcmp(target, "stderr") != 0 &&
	    strcmp(target, "stdout") != 0 &&
	    output_expand(target, names, path, sizeof(path)) == 0 && output_is_dir(path))
		output_dir_reserve(path, names->private_dir ? 0700 : 0755);
	errno = saved_errno;
}

void output_release(void)
{
	int saved_errno = errno;

	if (!sandbox_filtered())
		output_dir_release();
	errno = saved_errno;
}

void output_write(const char *target, bool runner_names_lost, const struct output_names *names,
		  bool replace, const char *buf, size_t len)
{
	int saved_errno = errno;
	struct output_names named = *names;
	char path[PATH_MAX];
	int err;

	if (strcmp(target, "stderr") == 0) {
		/* Lost on stderr: a warning could only go where the report could not. */
		stream_write(STDERR_FILENO, buf, len);
	} else if (strcmp(target, "stdout") == 0) {
		err = stream_write(STDOUT_FILENO, buf, len);
		if (err && err != ENOENT)
			warn_line("the report could not be written to stdout (",
				  strerrorname_np(err) ?: "error",
				  err == EAGAIN ? ": the reader took nothing for 2 s" : "",
				  "); it is lost", NULL);
	} else if (sandbox_filtered()) {
		/* A file needs open(2) and more: system calls the filter may kill the program for. */
		report_to_stderr(runner_names_lost, buf, len, "cannot write a report to '", target,
				 "' under the program's seccomp filter (after it pfshim makes no "
				 "system call but read and write); report written to stderr", NULL);
	} else if ((err = output_expand(target, &named, path, sizeof(path))) < 0) {
		report_to_stderr(runner_names_lost, buf, len, "PFSHIM_OUTPUT '", target, "': ",
				 err == -EINVAL ?
					 "unknown % sequence (use %p, %h, %e, %r, %t, %n or %%)" :
					 "path too long",
				 "; report written to stderr", NULL);
	} else if (output_is_dir(path)) {
		const char *why;
		bool noted;

		/* Noted in pfshim run's ledger: the runner names the lost report, with its error. */
		err = output_dir_write_noted(path, &named, buf, len, &why, &noted);
		if (err < 0 && !noted)
			report_to_stderr(runner_names_lost, buf, len, "cannot write a report into '",
					 path, "' (", strerrorname_np(-err) ?: "error",
					 why ? ": " : "", why ? why : "", "); report written to stderr",
					 NULL);
	} else if (output_uses_seq(target)) {
		seq_write(target, runner_names_lost, &named, path, buf, len);
	} else {
		file_write(path, runner_names_lost, replace, buf, len);
	}
	errno = saved_errno;
}
