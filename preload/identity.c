/* SPDX-License-Identifier: MIT */
/*
 * identity.c: the argument vector a report carries, copied by the
 * constructor (the program may rewrite its argv later, as setproctitle()
 * does; the report says what it was started with), bounded so that a
 * report stays small whatever a build system passes a compiler.
 */
#include "preload/identity.h"

#include <string.h>

/* The length of @s's first @n bytes less a UTF-8 sequence the cut would split (@s[n] exists). */
static size_t utf8_cut(const char *s, size_t n)
{
	size_t k = n;

	/* Back over continuation bytes to the lead byte of the character at the cut. */
	while (k > 0 && ((unsigned char)s[k] & 0xc0) == 0x80)
		k--;
	return k;
}

size_t identity_argv_copy(char *text, int argc, char *const *argv, int *kept, bool *truncated)
{
	size_t used = 0;

	*kept = 0;
	*truncated = false;
	for (int i = 0; argv && i < argc && argv[i]; i++) {
		size_t len = strlen(argv[i]), room = IDENTITY_ARGV_BYTES - used;

		if (*kept == IDENTITY_ARGV_MAX || room == 0) {
			*truncated = true;
			break;
		}
		if (len + 1 > room) {
			len = utf8_cut(argv[i], room - 1);
			*truncated = true;
		}
		memcpy(text + used, argv[i], len);
		text[used + len] = '\0';
		used += len + 1;
		(*kept)++;
		if (*truncated)
			break;
	}
	return used;
}
