/* SPDX-License-Identifier: MIT */
/*
 * version.c: the version of pfshim, the one string every report and the
 * pfshim command name (from the VERSION file, through the Makefile's
 * -DPFSHIM_VERSION). A constant: naming it costs a report nothing.
 */
#include "export/version.h"

#ifndef PFSHIM_VERSION
#error "PFSHIM_VERSION is set by the Makefile, from the VERSION file"
#endif

const char pfshim_version[] = PFSHIM_VERSION;
