/* SPDX-License-Identifier: MIT */
/*
 * exec_search.c: the PATH walk of execvp(), written once (exec_search.h).
 */
#include "preload/exec_search.h"

#include <limits.h>
#include <string.h>

bool exec_search(const char *file, const char *path,
		 bool (*take)(const char *candidate, void *arg), void *arg)
{
	size_t name = strlen(file);
	char candidate[PATH_MAX];
	const char *dir, *end;

	if (!name)
		return false;
	for (dir = path ? path : "/bin:/usr/bin"; ; dir = end + 1) {
		size_t len;

		end = strchrnul(dir, ':');
		len = (size_t)(end - dir);
		if (len + 1 + name < sizeof(candidate)) {
			memcpy(candidate, dir, len);
			if (len)
				candidate[len++] = '/';
			memcpy(candidate + len, file, name + 1);
			if (take(candidate, arg))
				return true;
		}
		if (!*end)
			return false;
	}
}
