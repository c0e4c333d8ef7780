/* SPDX-License-Identifier: MIT */
/* markers_disabled: markers_macros.c with the markers compiled away. */
#define PFSHIM_DISABLE_MARKERS
#include "markers_macros.c"
