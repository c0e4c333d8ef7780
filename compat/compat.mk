# SPDX-License-Identifier: MIT
# compat: owned by compat/. The C++ and Fortran marker APIs, and their
# examples and test programs; see docs/compat.md.

CXX ?= g++
FC  ?= gfortran
COMPAT_B := $(BUILD)/compat

# The C++ API is header-only: examples/*.cpp need only -Iinclude.
CXX_EXAMPLE_BIN := $(patsubst examples/%.cpp,$(BUILD)/examples/%,$(wildcard examples/*.cpp))

$(BUILD)/examples/%: examples/%.cpp include/pfshim.h include/pfshim/region.hpp | compat-deps
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CXX     $@")
	$(Q)$(CXX) -std=c++11 -O2 -g -Wall -Wextra -Iinclude -o $@ $<

# compat: the libraries, the module and the examples; compat-tests adds the
# test programs, some built against Debian's likwid and libpapi.
.PHONY: compat compat-tests
compat: $(CXX_EXAMPLE_BIN)
compat-tests: compat

e2e: compat-tests

# Fortran: the module pfshim (compat/pfshim.f90) and libpfshim_fortran.a, the
# C side that holds the weak references (compat/pfshim_fortran.c).
FORTRAN_LIB := $(BUILD)/libpfshim_fortran.a
FORTRAN_MOD := $(COMPAT_B)/pfshim.mod
F_EXAMPLE_BIN := $(patsubst examples/%.f90,$(BUILD)/examples/%,$(wildcard examples/*.f90))

$(COMPAT_B)/pfshim_fortran.o: compat/pfshim_fortran.c include/pfshim.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -fPIC -Iinclude -c -o $@ $<

# The archive holds both the module's procedures and the C side: a program
# needs pfshim.mod to compile and -lpfshim_fortran to link, nothing else.
$(FORTRAN_LIB): $(COMPAT_B)/pfshim_fortran.o $(COMPAT_B)/pfshim_mod.o
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

# One gfortran run writes both the object and pfshim.mod (-J): a grouped target.
$(COMPAT_B)/pfshim_mod.o $(FORTRAN_MOD) &: compat/pfshim.f90 | compat-fortran-deps
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FC      $<")
	$(Q)$(FC) -O2 -g -Wall -fPIC -J$(COMPAT_B) -c -o $(COMPAT_B)/pfshim_mod.o $<

$(BUILD)/examples/%: examples/%.f90 $(FORTRAN_MOD) $(FORTRAN_LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FC      $@")
	$(Q)$(FC) -O2 -g -Wall -I$(COMPAT_B) -o $@ $< -L$(BUILD) -lpfshim_fortran

compat: $(FORTRAN_LIB) $(FORTRAN_MOD) $(F_EXAMPLE_BIN)

.PHONY: compat-deps compat-fortran-deps
compat-fortran-deps:
	$(Q)tests/deps.sh gfortran

compat-deps:
	$(Q)tests/deps.sh gfortran g++ likwid libpapi-dev

# LIKWID marker and PAPI high-level calls on pfshim regions (compat/likwid.c, compat/papi_hl.c):
# a preload library (opt-in, beside libpfshim.so) and an archive for
# programs built against include/pfshim/likwid-marker.h or papi-hl.h.
COMPAT_SO := $(BUILD)/libpfshim-compat.so
COMPAT_A  := $(BUILD)/libpfshim-compat.a

# pfshim's own shortening of long names (preload/markers/long_name.c) keys the
# layers' tables as pfshim keys its regions: built here with the layers' flags,
# as the archive is linked into programs built without the sanitizers.
COMPAT_OBJ := $(COMPAT_B)/likwid.o $(COMPAT_B)/papi_hl.o $(COMPAT_B)/long_name.o

# -fomit-frame-pointer: each LIKWID or PAPI_hl region call is a check or two
# around one call into pfshim, whose frame record was an instruction a call
# on arm64 (GCC keeps them there by default; x86_64 omits them at -O2 anyway).
define compat_cc
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Wshadow -fPIC -fvisibility=hidden \
		-fomit-frame-pointer -D_GNU_SOURCE -I. -Iinclude -c -o $@ $<
endef

$(COMPAT_B)/%.o: compat/%.c compat/name.h compat/thread.h preload/markers/long_name.h compat/event_names.h preload/config.h include/pfshim.h include/pfshim/likwid-marker.h include/pfshim/papi-hl.h
	$(compat_cc)

$(COMPAT_B)/long_name.o: preload/markers/long_name.c preload/markers/long_name.h
	$(compat_cc)

# Only the preload reads LIKWID's and PAPI's variables for the shim (env.c):
# the archive is linked into programs, where libpfshim.so could not see it.
COMPAT_SO_OBJ := $(COMPAT_OBJ) $(COMPAT_B)/env.o $(COMPAT_B)/event_names.o \
	$(call obj,preload/events/likwid_names.c)

$(COMPAT_SO): $(COMPAT_SO_OBJ) compat/libpfshim-compat.map
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) -shared -Wl,--version-script=compat/libpfshim-compat.map -Wl,-z,now \
		-Wl,-soname,libpfshim-compat.so.$(SO_MAJOR) -o $@ $(COMPAT_SO_OBJ)

$(COMPAT_A): $(COMPAT_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

compat: $(COMPAT_SO) $(COMPAT_A)

# Unit tests of compat/ (tests/unit/compat/test_FILE.c for compat/FILE.c), run
# by `make unit` with the others: each links the file it tests, and the
# shim's archive for what it shares with the shim (LIKWID's event names).
$(BUILD)/tests/compat/test_%: tests/unit/compat/test_%.c $(COMPAT_B)/%.o $(BUILD)/libpfshim-core.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(PF_CFLAGS) -Itests/unit -o $@ $< $(COMPAT_B)/$*.o $(BUILD)/libpfshim-core.a -lcmocka

# Test programs (tests/e2e/compat.bats): each instrumented example built
# against the real library, against pfshim's headers, and natively.
CT := $(COMPAT_B)/tests
CT_CFLAGS := -std=gnu11 -O1 -g -Wall -D_GNU_SOURCE
COMPAT_TEST_BIN := $(CT)/likwid_example.pfshim $(CT)/likwid_example.native $(CT)/likwid_twice.pfshim \
	$(CT)/likwid_time.pfshim \
	$(CT)/likwid_many.pfshim $(CT)/likwid_get.pfshim \
	$(CT)/papi_hl_example.pfshim $(CT)/papi_hl_example.native

$(CT)/%.pfshim: tests/compat/%.c $(COMPAT_A) include/pfshim/likwid-marker.h include/pfshim/papi-hl.h
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CT_CFLAGS) -Iinclude -Iinclude/pfshim/compat -o $@ $< $(COMPAT_A) -lpthread

$(CT)/%.native: tests/compat/%.c include/pfshim.h
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CT_CFLAGS) -DNATIVE -Iinclude -o $@ $< -lpthread

# Against Debian's likwid and libpapi, when present (tests/deps.sh installs them).
$(CT)/likwid_example.real: tests/compat/likwid_example.c | compat-deps
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CT_CFLAGS) -o $@ $< -llikwid -lpthread

$(CT)/papi_hl_example.real: tests/compat/papi_hl_example.c | compat-deps
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CT_CFLAGS) -o $@ $< -lpapi -lpthread

$(CT)/papi_lowlevel $(CT)/papi_codes $(CT)/papi_mixed: $(CT)/%: tests/compat/%.c | compat-deps
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CT_CFLAGS) -o $@ $< -lpapi

compat-tests: $(COMPAT_TEST_BIN) $(CT)/likwid_example.real $(CT)/papi_hl_example.real $(CT)/papi_lowlevel \
	$(CT)/papi_codes $(CT)/papi_mixed

# The LIKWID- and PAPI_hl-style pairs through pfshim beside the native pair
# and the real PAPI_hl (docs/compat.md "Cost"). Prints, never asserts.
.PHONY: bench-compat
bench-compat: $(LIB) $(COMPAT_SO) $(COMPAT_B)/bench_compat | compat-deps
	$(Q)papi_out=$$(mktemp -d); \
	PFSHIM_EVENTS=task-clock,page-faults,context-switches,cpu-migrations PFSHIM_OUTPUT=/dev/null \
	PAPI_EVENTS=perf::TASK-CLOCK,perf::PAGE-FAULTS,perf::CONTEXT-SWITCHES,perf::CPU-MIGRATIONS \
	PAPI_OUTPUT_DIRECTORY=$$papi_out LD_PRELOAD=$(abspath $(LIB)) \
		$(COMPAT_B)/bench_compat $(abspath $(COMPAT_SO)) 200 500; \
	rc=$$?; rm -rf $$papi_out; exit $$rc

$(COMPAT_B)/bench_compat: compat/bench_compat.c tests/bench/bench.h include/pfshim.h | compat-deps
	@mkdir -p $(dir $@)
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -D_GNU_SOURCE -I. -Iinclude -Itests/bench -o $@ $< -lpapi
bench: bench-compat

# LIKWID's own Fortran module (Debian's likwid ships likwid.mod) and liblikwid.
$(CT)/likwid_fortran: tests/compat/likwid_fortran.f90 | compat-deps
	@mkdir -p $(dir $@)
	$(Q)$(FC) -O1 -g -J$(CT) -I/usr/include -o $@ $< -llikwid

compat-tests: $(CT)/likwid_fortran

# Installed beside pfshim.h: the C++ headers, the LIKWID/PAPI_hl headers and
# libraries, and, when gfortran is there, the Fortran module (pfshim.mod is
# gfortran's, of this gfortran version; pfshim.f90 is there for other
# compilers) and the archive a Fortran program links. Installing needs
# neither likwid nor libpapi.
HAVE_FC := $(shell command -v $(FC) 2>/dev/null)
install: install-compat
uninstall: uninstall-compat
.PHONY: install-compat uninstall-compat
install-compat: $(COMPAT_SO) $(COMPAT_A) $(if $(HAVE_FC),$(FORTRAN_LIB) $(FORTRAN_MOD))
	install -d $(DESTDIR)$(INCLUDEDIR)/pfshim/compat $(DESTDIR)$(LIBDIR)/pkgconfig
	install -m 0644 include/pfshim.hpp $(DESTDIR)$(INCLUDEDIR)/pfshim.hpp
	install -m 0644 include/pfshim/*.h* compat/pfshim.f90 compat/pfshim_fortran.c \
		$(DESTDIR)$(INCLUDEDIR)/pfshim/
	install -m 0644 include/pfshim/compat/*.h $(DESTDIR)$(INCLUDEDIR)/pfshim/compat/
	install -m 0644 $(COMPAT_SO) $(DESTDIR)$(LIBDIR)/libpfshim-compat.so.$(SO_MAJOR)
	ln -sf libpfshim-compat.so.$(SO_MAJOR) $(DESTDIR)$(LIBDIR)/libpfshim-compat.so
	install -m 0644 $(COMPAT_A) $(DESTDIR)$(LIBDIR)/libpfshim-compat.a
	sed $(PC_SED) compat/pfshim-compat.pc.in >$(DESTDIR)$(LIBDIR)/pkgconfig/pfshim-compat.pc
	$(if $(HAVE_FC),install -m 0644 $(FORTRAN_MOD) $(DESTDIR)$(INCLUDEDIR)/pfshim/)
	$(if $(HAVE_FC),install -m 0644 $(FORTRAN_LIB) $(DESTDIR)$(LIBDIR)/libpfshim_fortran.a)
	$(if $(HAVE_FC),sed $(PC_SED) compat/pfshim-fortran.pc.in \
		>$(DESTDIR)$(LIBDIR)/pkgconfig/pfshim-fortran.pc)

uninstall-compat:
	rm -rf $(DESTDIR)$(INCLUDEDIR)/pfshim
	rm -f $(DESTDIR)$(INCLUDEDIR)/pfshim.hpp $(DESTDIR)$(LIBDIR)/libpfshim_fortran.a \
		$(DESTDIR)$(LIBDIR)/libpfshim-compat.so $(DESTDIR)$(LIBDIR)/libpfshim-compat.so.$(SO_MAJOR) \
		$(DESTDIR)$(LIBDIR)/libpfshim-compat.a $(DESTDIR)$(LIBDIR)/pkgconfig/pfshim-compat.pc \
		$(DESTDIR)$(LIBDIR)/pkgconfig/pfshim-fortran.pc
