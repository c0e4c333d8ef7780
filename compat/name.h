/* SPDX-License-Identifier: MIT */
/*
 * name.h: a LIKWID tag or PAPI region name as a pfshim region name. LIKWID
 * and PAPI take names of any length; pfshim's are shorter than 64 bytes.
 */
#ifndef PFSHIM_COMPAT_NAME_H
#define PFSHIM_COMPAT_NAME_H

#define COMPAT_NAME_LEN 64	/* pfshim's limit (REGIONS_NAME_LEN), with the NUL */

/*
 * compat_region_name - @name itself when pfshim takes it as it is (shorter
 * than COMPAT_NAME_LEN), else, in @buf, its first bytes (at most 54, cut at
 * a UTF-8 character's start), '~' and the 8 hex digits of a 32-bit FNV-1a
 * hash of the whole name: distinct long names stay distinct regions, and
 * the same long name is always the same region.
 */
const char *compat_region_name(const char *name, char buf[COMPAT_NAME_LEN]);

#endif
