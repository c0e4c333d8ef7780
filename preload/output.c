/*
 * output.c: deliver a formatted report to its destination, one write(2) per
 * report. Async-signal-safe (reports are written from signal handlers):
 * only open/write/close, no stdio, no allocation; errno is preserved.
 */
#include "preload/output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "export/buf.h"
#include "preload/fd.h"
#include "preload/warn.h"

int output_expand(const char *template, const struct output_names *names, char *path, size_t size)
{
	struct buf b;

	buf_init(&b, path, size);
	for (const char *t = template; *t; t++) {
		if (*t != '%') {
			buf_putc(&b, *t);
			continue;
		}
		switch (*++t) {
		case 'p': buf_put_i64(&b, names->pid); break;
		case 'h': buf_puts(&b, names->host); break;
		case 'e': buf_puts(&b, names->program); break;
		case '%': buf_putc(&b, '%'); break;
		default: return -EINVAL;	/* also a '%' at the very end */
		}
	}
	return buf_finish(&b) < size ? 0 : -ENAMETOOLONG;
}

static int stream_dup(int fd)
{
	if (fcntl(fd, F_GETFD) < 0)
		return OUTPUT_STREAM_CLOSED;
	return fd_dup_high(fd);
}

int output_stream_open(const char *target)
{
	if (strcmp(target, "stderr") == 0)
		return stream_dup(STDERR_FILENO);
	if (strcmp(target, "stdout") == 0)
		return stream_dup(STDOUT_FILENO);
	return -1;
}

static void stream_write(int stream_fd, int fd, const char *buf, size_t len)
{
	if (stream_fd != OUTPUT_STREAM_CLOSED)
		fd_write_all(stream_fd >= 0 ? stream_fd : fd, buf, len);
}

void output_write(const char *target, int stream_fd, const struct output_names *names,
		  const char *buf, size_t len)
{
	int saved_errno = errno;
	char path[PATH_MAX];
	int err, fd;

	if (strcmp(target, "stderr") == 0) {
		stream_write(stream_fd, STDERR_FILENO, buf, len);
	} else if (strcmp(target, "stdout") == 0) {
		stream_write(stream_fd, STDOUT_FILENO, buf, len);
	} else if ((err = output_expand(target, names, path, sizeof(path))) < 0) {
		warn_line("PFSHIM_OUTPUT '", target, "': ",
			  err == -EINVAL ? "unknown % sequence (use %p, %h, %e or %%)" :
					   "path too long",
			  "; report written to stderr", NULL);
		fd_write_all(STDERR_FILENO, buf, len);
	} else if ((fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) < 0) {
		warn_line("cannot open '", path, "' (", strerrorname_np(errno) ?: "error",
			  "); report written to stderr", NULL);
		fd_write_all(STDERR_FILENO, buf, len);
	} else {
		fd_write_all(fd, buf, len);
		close(fd);
	}
	errno = saved_errno;
}
