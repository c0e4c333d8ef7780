/* SPDX-License-Identifier: MIT */
/*
 * name.c: long LIKWID tags and PAPI region names shortened to pfshim's
 * region name limit, the same way each time (name.h).
 */
#include "compat/name.h"

#include <stdint.h>
#include <string.h>

#define KEEP 54		/* bytes kept: KEEP + '~' + 8 hex digits < COMPAT_NAME_LEN */

const char *compat_region_name_long(const char *name, char buf[COMPAT_NAME_LEN])
{
	static const char hex[] = "0123456789abcdef";
	uint32_t h = 2166136261u;
	size_t keep = KEEP;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 16777619u;
	/* never half a UTF-8 character: a report must stay valid text */
	while (keep > 0 && ((unsigned char)name[keep] & 0xc0) == 0x80)
		keep--;
	memcpy(buf, name, keep);
	buf[keep] = '~';
	for (int i = 0; i < 8; i++)
		buf[keep + 1 + i] = hex[(h >> (28 - 4 * i)) & 0xf];
	buf[keep + 9] = '\0';
	return buf;
}
