/* SPDX-License-Identifier: MIT */
/* long_name.h: region names of REGIONS_NAME_LEN bytes or more, shortened (long_name.c). */
#ifndef PFSHIM_PRELOAD_MARKERS_LONG_NAME_H
#define PFSHIM_PRELOAD_MARKERS_LONG_NAME_H

#include <string.h>

#include "preload/markers/regions.h"

/*
 * region_name_shorten - @name, REGIONS_NAME_LEN bytes or longer, in @buf as
 * a region name: its first bytes (at most 54, cut at a UTF-8 character's
 * start), '~' and the 8 hex digits of a 32-bit FNV-1a hash of the whole
 * name, so that distinct long names stay distinct regions and the same long
 * name is always the same region. Return: @buf.
 */
const char *region_name_shorten(const char *name, char buf[REGIONS_NAME_LEN]);

/* region_name_key - @name itself when it is shorter than REGIONS_NAME_LEN, else shortened in @buf. */
static inline const char *region_name_key(const char *name, char buf[REGIONS_NAME_LEN])
{
	return strnlen(name, REGIONS_NAME_LEN) < REGIONS_NAME_LEN ? name
								  : region_name_shorten(name, buf);
}

#endif
