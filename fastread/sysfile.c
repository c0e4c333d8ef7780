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

int sysfile_read_fd(int fd, char *buf, size_t size)
{
	size_t len = 0;
	char extra;

	while (len + 1 < size) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	/* A file that fills the buffer may be longer than it can hold. */
	if (len + 1 >= size && read(fd, &extra, 1) > 0)
		return -ENAMETOOLONG;
	while (len > 0 && is_space(buf[len - 1]))
		len--;
	if (size > 0)
		buf[len] = '\0';
	return (int)len;
}

int sysfile_read(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), len;

	if (fd < 0)
		return -errno;
	len = sysfile_read_fd(fd, buf, size);
	close(fd);
	return len;
}
