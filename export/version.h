/* SPDX-License-Identifier: MIT */
/*
 * version.h: pfshim's version ("0.1.0"), written into every report and
 * printed by `pfshim --version` (export/version.c).
 */
#ifndef PFSHIM_EXPORT_VERSION_H
#define PFSHIM_EXPORT_VERSION_H

extern const char pfshim_version[];

#endif
