/* pfshim.hpp: the C++ marker API; see pfshim/region.hpp. */
#include <pfshim/region.hpp>
