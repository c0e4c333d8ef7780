/* SPDX-License-Identifier: MIT */
/*
 * fastread/sysfile.c: a small sysfs or procfs file read whole, the one reader
 * of such files in pfshim (fastread/access.c, preload/events/pmu.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "fastread/sysfile.h"

static int is_space(char c)
{
	return c == '\n' || c == ' ' || c == '\t' || c == '\r';
}

int sysfile_read(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	char extra;

	if (fd < 0)
		return -errno;
	while (len + 1 < size) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int err = -errno;

			close(fd);
			return err;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	/* A file that fills the buffer may be longer than it can hold. */
	if (len + 1 >= size && read(fd, &extra, 1) > 0) {
		close(fd);
		return -ENAMETOOLONG;
	}
	close(fd);
	while (len > 0 && is_space(buf[len - 1]))
		len--;
	if (size > 0)
		buf[len] = '\0';
	return (int)len;
}
