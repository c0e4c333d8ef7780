/* SPDX-License-Identifier: MIT */
/*
 * long_name.c: a region name of any length as one pfshim keeps (shorter
 * than REGIONS_NAME_LEN), the same way each time: the names table
 * (regions.c) interns and looks up every long name so, and the LIKWID and
 * PAPI_hl layers (compat/) key their own tables the same way.
 */
#include "preload/markers/long_name.h"

#include <stdint.h>
#include <string.h>

#define KEEP 54		/* bytes kept: KEEP + '~' + 8 hex digits < REGIONS_NAME_LEN */

_Static_assert(KEEP + 1 + 8 < REGIONS_NAME_LEN, "a shortened name fits with its NUL");

const char *region_name_shorten(const char *name, char buf[REGIONS_NAME_LEN])
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
