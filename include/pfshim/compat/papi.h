/* SPDX-License-Identifier: MIT */
/* for programs that include <papi.h> for the high-level API only: build with -I.../pfshim/compat */
#include "../papi-hl.h"
