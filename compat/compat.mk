# compat: owned by compat/. The C++ and Fortran marker APIs, and their
# examples and test programs; see docs/compat.md.

CXX ?= g++
FC  ?= gfortran
COMPAT_B := $(BUILD)/compat

# The C++ API is header-only: examples/*.cpp need only -Iinclude.
CXX_EXAMPLE_BIN := $(patsubst examples/%.cpp,$(BUILD)/examples/%,$(wildcard examples/*.cpp))

$(BUILD)/examples/%: examples/%.cpp include/pfshim.h include/pfshim/region.hpp
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CXX     $@")
	$(Q)$(CXX) -std=c++11 -O2 -g -Wall -Wextra -Iinclude -o $@ $<

.PHONY: compat
compat: $(CXX_EXAMPLE_BIN)

e2e: compat
