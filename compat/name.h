/* SPDX-License-Identifier: MIT */
/*
 * name.h: a LIKWID tag or PAPI region name as the key of the compat layers'
 * own tables, the name pfshim keeps for it: LIKWID and PAPI take names of
 * any length, pfshim's are shorter than 64 bytes, and pfshim shortens a
 * longer one itself (preload/markers/long_name.h), so the fast paths hand
 * it the name as it is.
 */
#ifndef PFSHIM_COMPAT_NAME_H
#define PFSHIM_COMPAT_NAME_H

#include "preload/markers/long_name.h"

#define COMPAT_NAME_LEN REGIONS_NAME_LEN	/* a key's bytes, with the NUL */

/* compat_region_name - @name as pfshim keeps it: itself, or shortened in @buf. */
static inline const char *compat_region_name(const char *name, char buf[COMPAT_NAME_LEN])
{
	return region_name_key(name, buf);
}

#endif
