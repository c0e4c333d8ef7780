/* SPDX-License-Identifier: MIT */
/*
 * warn.c: one "pfshim:" line per problem, in one write(2) so that lines of
 * concurrent processes never interleave. Async-signal-safe: no stdio, no
 * allocation; errno is preserved because the host program may be reading it.
 */
#include "preload/warn.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "preload/fd.h"
#include "preload/prefault.h"

#define WARN_LINE_MAX 1024

static size_t append(char *line, size_t len, const char *s)
{
	size_t n = strlen(s);

	if (n > WARN_LINE_MAX - 1 - len)
		n = WARN_LINE_MAX - 1 - len;
	memcpy(line + len, s, n);
	return len + n;
}

/* Written at start by a job's descendants: in .data, where it took a .bss page's fault. */
static bool muted PREFAULT_DATA;

void warn_mute(void)
{
	muted = true;
}

void warn_linev(const char *part, va_list ap)
{
	char line[WARN_LINE_MAX];
	int saved_errno = errno;
	size_t len = append(line, 0, "pfshim: ");
	int fd;

	if (muted)
		return;
	for (const char *s = part; s; s = va_arg(ap, const char *))
		len = append(line, len, s);
	line[len++] = '\n';
	/* Only to the stderr the program started with: never into a file it opened as fd 2 since. */
	fd = fd_stream_target(STDERR_FILENO);
	if (fd >= 0)
		fd_write_all(fd, line, len);
	errno = saved_errno;
}

void warn_line(const char *part, ...)
{
	va_list ap;

	va_start(ap, part);
	warn_linev(part, ap);
	va_end(ap);
}

void warn_message(void *ctx, const char *message)
{
	if (ctx)
		warn_line((const char *)ctx, ": ", message, NULL);
	else
		warn_line(message, NULL);
}
