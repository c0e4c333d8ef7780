/* SPDX-License-Identifier: MIT */
/* pfshim.hpp: the C++ marker API; see pfshim/region.hpp. */
#include <pfshim/region.hpp>
