/* SPDX-License-Identifier: MIT */
/*
 * exec_search.h: the directories execvp() searches for a file name, walked
 * once for everyone who must know what an exec will run (the exec report,
 * the counters' hand-over).
 */
#ifndef PFSHIM_PRELOAD_EXEC_SEARCH_H
#define PFSHIM_PRELOAD_EXEC_SEARCH_H

#include <stdbool.h>

/*
 * exec_search - offer @take the paths execvp() tries for @file, a name with
 * no '/', in its order: each element of @path ("/bin:/usr/bin", glibc's
 * default, when NULL; an empty element is the working directory) joined
 * with @file; a path longer than PATH_MAX is skipped. Stops at the first
 * that @take(candidate, @arg) takes.
 * Return: whether one was taken (false for an empty @file). Async-signal-safe
 * as long as @take is; errno is @take's to keep.
 */
bool exec_search(const char *file, const char *path,
		 bool (*take)(const char *candidate, void *arg), void *arg);

#endif
