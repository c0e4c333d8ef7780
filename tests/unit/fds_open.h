/* SPDX-License-Identifier: MIT */
/*
 * fds_open.h: how many descriptors this process holds, for the tests that
 * check the shim leaves a program's descriptors as it found them.
 */
#ifndef PFSHIM_TESTS_UNIT_FDS_OPEN_H
#define PFSHIM_TESTS_UNIT_FDS_OPEN_H

#include <dirent.h>

/* /proc/self/fd's entries, less ".", ".." and the directory's own descriptor; -1 without /proc. */
static inline int fds_open(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;

	if (!d)
		return -1;
	while (readdir(d))
		n++;
	closedir(d);
	return n - 3;
}

#endif
