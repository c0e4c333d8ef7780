/* SPDX-License-Identifier: MIT */
/*
 * file_put.h: the unit tests' fake trees (sysfs, group files) are written
 * with this: @dir/@name (or @name alone when @dir is NULL) holding @text,
 * the test failing when it cannot be written.
 */
#ifndef PFSHIM_TESTS_UNIT_FILE_PUT_H
#define PFSHIM_TESTS_UNIT_FILE_PUT_H

#include <stdio.h>

static inline void file_put(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s%s", dir ? dir : "", dir ? "/" : "", name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
}

#endif
