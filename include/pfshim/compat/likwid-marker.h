/* SPDX-License-Identifier: MIT */
/* for programs that include <likwid-marker.h>: build with -I.../pfshim/compat */
#include "../likwid-marker.h"
