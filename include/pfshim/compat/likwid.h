/* SPDX-License-Identifier: MIT */
/* for programs that include <likwid.h> for the marker API only: build with -I.../pfshim/compat */
#include "../likwid-marker.h"
