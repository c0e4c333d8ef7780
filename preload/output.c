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
#include "preload/output_dir.h"
#include "preload/warn.h"

/* %t: sortable, UTC, to the second: 20261122T010203Z. */
void output_put_time(struct buf *b, uint64_t ns)
{
	uint64_t s = ns / 1000000000u;
	unsigned month, day;
	int64_t year;

	civil_from_days((int64_t)(s / 86400), &year, &month, &day);
	buf_put_u64_width(b, (uint64_t)year, 4);
	buf_put_u64_width(b, month, 2);
	buf_put_u64_width(b, day, 2);
	buf_putc(b, 'T');
	buf_put_u64_width(b, s % 86400 / 3600, 2);
	buf_put_u64_width(b, s % 3600 / 60, 2);
	buf_put_u64_width(b, s % 60, 2);
	buf_putc(b, 'Z');
}

bool output_uses_seq(const char *template)
{
	for (const char *t = template; *t; t++)
		if (*t == '%' && *++t == 'n')
			return true;
		else if (!*t)
			break;
	return false;
}

bool output_is_dir(const char *target)
{
	size_t n = strlen(target);

	return n > 0 && target[n - 1] == '/';
}

/* A template with %n: the first free name, created O_EXCL. */
static int template_open_seq(const char *template, struct output_names *names, char *path,
			     size_t size)
{
	for (names->seq = 0; names->seq < OUTPUT_SEQ_MAX; names->seq++) {
		int fd, err = output_expand(template, names, path, size);

		if (err < 0)
			return err;
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0 || errno != EEXIST)
			return fd < 0 ? -errno : fd;
	}
	return -EEXIST;
}

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
		case 'r': buf_puts(&b, names->rank ? names->rank : ""); break;
		case 't': output_put_time(&b, names->start_ns); break;
		case 'n': buf_put_u64(&b, names->seq); break;
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
	struct output_names named = *names;
	char path[PATH_MAX];
	int err, fd;

	if (strcmp(target, "stderr") == 0) {
		stream_write(stream_fd, STDERR_FILENO, buf, len);
	} else if (strcmp(target, "stdout") == 0) {
		stream_write(stream_fd, STDOUT_FILENO, buf, len);
	} else if ((err = output_expand(target, &named, path, sizeof(path))) < 0) {
		warn_line("PFSHIM_OUTPUT '", target, "': ",
			  err == -EINVAL ? "unknown % sequence (use %p, %h, %e, %r, %t, %n or %%)" :
					   "path too long",
			  "; report written to stderr", NULL);
		fd_write_all(STDERR_FILENO, buf, len);
	} else if (output_is_dir(path)) {
		if ((err = output_dir_write(path, &named, buf, len)) < 0) {
			warn_line("cannot write a report into '", path, "' (",
				  strerrorname_np(-err) ?: "error", "); report written to stderr",
				  NULL);
			fd_write_all(STDERR_FILENO, buf, len);
		}
	} else if ((fd = output_uses_seq(target) ?
			      template_open_seq(target, &named, path, sizeof(path)) :
			      open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) < 0) {
		if (fd < -1)
			errno = -fd;
		warn_line("cannot open '", path, "' (", strerrorname_np(errno) ?: "error",
			  "); report written to stderr", NULL);
		fd_write_all(STDERR_FILENO, buf, len);
	} else {
		fd_write_all(fd, buf, len);
		close(fd);
	}
	errno = saved_errno;
}
