/* SPDX-License-Identifier: MIT */
/*
 * fastread/sysfile.h: a small sysfs or procfs file read whole. Shared with
 * preload/events/ inside the tree (the shim links libfastread.a), not
 * installed: it is no part of fastread's API.
 */
#ifndef PFSHIM_FASTREAD_SYSFILE_H
#define PFSHIM_FASTREAD_SYSFILE_H

#include <stddef.h>

/*
 * sysfile_read - read the small file @path into @buf (@size bytes, NUL
 * included), trailing whitespace removed (sysfs ends its values with '\n').
 *
 * Return: the length kept, or -errno; -ENAMETOOLONG when the file does not
 * fit in @buf (nothing is taken from a value cut short). EINTR is retried.
 * Async-signal-safe: open(2), read(2), close(2).
 */
int sysfile_read(const char *path, char *buf, size_t size);

/*
 * sysfile_read_fd - sysfile_read() of a file already open at @fd (read from
 * its current offset; @fd stays open): for a file opened and checked by
 * descriptor first. Same return values and rules.
 */
int sysfile_read_fd(int fd, char *buf, size_t size);

#endif
