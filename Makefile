# pfshim: the front door. `make help` lists every target. The usual ones:
# `make` (the libraries), `make unit` and `make e2e` (the fast suites),
# `make check` (those and `test-arm64`, under QEMU), `make demo`, `make bench`,
# `make install PREFIX=/usr/local DESTDIR=`. V=1 shows every command.

PREFIX  ?= /usr/local
# LIBDIR: where the libraries, pkg-config and CMake files go; a Debian
# package sets the multiarch one (/usr/lib/x86_64-linux-gnu). pfshim run looks
# for the shim there (it is compiled in), after beside itself and ../lib.
LIBDIR  ?= $(PREFIX)/lib
DESTDIR ?=
CC      ?= cc
CFLAGS  ?= -O2 -g
BUILD   ?= build

ifeq ($(V),1)
Q :=
else
Q := @
endif

# -fvisibility=hidden plus the version script: only pfshim_* and the
# interposed libc functions leave libpfshim.so.
# -ffunction-sections lets the .so's link drop what it never calls (--gc-sections).
PF_CFLAGS := -std=gnu11 -Wall -Wextra -Wshadow -fPIC -fvisibility=hidden \
	-fno-strict-aliasing -ffunction-sections -D_GNU_SOURCE -I. -Iinclude $(CFLAGS)

# The version, in one place: VERSION. export/version.c holds it for every
# report and for pfshim --version; SO_MAJOR is the libraries' SONAME number.
PFSHIM_VERSION := $(shell cat VERSION)
SO_MAJOR       := 1
PF_CFLAGS      += -DPFSHIM_VERSION='"$(PFSHIM_VERSION)"'

FASTREAD_SRC := $(wildcard fastread/*.c)
# preload/shim.c holds the constructor and the interposed libc functions: it
# goes only into libpfshim.so, never into the archive unit tests link.
SHIM_SRC     := preload/shim.c
CORE_SRC     := $(filter-out $(SHIM_SRC),$(wildcard preload/*.c preload/*/*.c)) \
	$(wildcard export/*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

# Code that runs once per process (reading the configuration, formatting
# the report) is built for size: fault-around maps all of the small .so's
# text the first time any of it runs, so its size is resident memory in
# every process. The read and marker paths keep $(CFLAGS). A new file in
# preload/events/, preload/output/ or export/ is built for size by itself.
COLD_SRC     := $(wildcard export/*.c preload/events/*.c preload/output/*.c) \
	$(addprefix preload/,config.c warn.c markers/report.c markers/state.c)
$(call obj,$(COLD_SRC)): PF_CFLAGS += -Os

FASTREAD_OBJ := $(call obj,$(FASTREAD_SRC))
CORE_OBJ     := $(call obj,$(CORE_SRC))
$(call obj,export/version.c): VERSION
SHIM_OBJ     := $(call obj,$(SHIM_SRC))

# tests/unit/ mirrors the source: tests/unit/events/test_pmu.c for
# preload/events/pmu.c, tests/unit/fastread/test_read.c for fastread/read.c.
UNIT_SRC  := $(wildcard tests/unit/test_*.c tests/unit/*/test_*.c)
UNIT_BIN  := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
PROG_SRC  := $(wildcard tests/progs/*.c)
PROG_BIN  := $(patsubst tests/progs/%.c,$(BUILD)/progs/%,$(PROG_SRC))
# Libraries the end-to-end tests preload beside the shim.
PROG_LIB_SRC := $(wildcard tests/progs/lib/*.c)
PROG_BIN  += $(patsubst tests/progs/lib/%.c,$(BUILD)/progs/lib%.so,$(PROG_LIB_SRC))
# examples/mpi_*.c are MPI programs: built with mpicc, apart (below).
MPI_EXAMPLE_SRC := $(wildcard examples/mpi_*.c)
MPI_EXAMPLE_BIN := $(patsubst examples/%.c,$(BUILD)/examples/%,$(MPI_EXAMPLE_SRC))
EXAMPLE_SRC := $(filter-out $(MPI_EXAMPLE_SRC),$(wildcard examples/*.c))
EXAMPLE_BIN := $(patsubst examples/%.c,$(BUILD)/examples/%,$(EXAMPLE_SRC))

LIB := $(BUILD)/libpfshim.so

# The pfshim command (tools/pfshim/): run a job under the shim, sum reports,
# list events.
# It links libjansson (Debian libjansson-dev); the shim never does. `make`
# builds it when jansson is installed; `make e2e` and `make tool` install it.
TOOL     := $(BUILD)/pfshim
TOOL_SRC := $(wildcard tools/pfshim/*.c)
# run -I checks its interval with the shim's own parser (PFSHIM_INTERVAL).
HAVE_JANSSON := $(shell pkg-config --exists jansson 2>/dev/null && echo yes)

# The MPI examples need Open MPI's mpicc (Debian openmpi-bin libopenmpi-dev);
# the shim never links MPI. `make` builds them when mpicc is installed;
# `make mpi`, `make demo-mpi` and `make e2e` install Open MPI first.
MPICC ?= mpicc
HAVE_MPICC := $(shell command -v $(MPICC) 2>/dev/null)

.PHONY: all check unit e2e demo bench install uninstall clean deps help tool mpi mpi-deps
all: $(LIB) $(BUILD)/libfastread.a $(if $(HAVE_JANSSON),$(TOOL)) \
	$(if $(HAVE_MPICC),$(MPI_EXAMPLE_BIN))

tool: deps
	$(Q)$(MAKE) --no-print-directory $(TOOL)

mpi: mpi-deps
	$(Q)$(MAKE) --no-print-directory $(MPI_EXAMPLE_BIN)

mpi-deps:
	$(Q)tests/deps.sh openmpi-bin libopenmpi-dev

# `pfshim list` takes its names from the shim's own resolvers: libpfshim-core.a
# (and libfastread.a, whose sysfile_read() pmu.c reads sysfs with).
$(TOOL): $(TOOL_SRC) $(wildcard tools/pfshim/*.h) export/report.h $(BUILD)/libpfshim-core.a \
		$(BUILD)/libfastread.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) -std=gnu11 -Wall -Wextra -Wshadow -D_GNU_SOURCE -I. $(CFLAGS) -o $@ \
		$(TOOL_SRC) $(BUILD)/libpfshim-core.a $(BUILD)/libfastread.a \
		$$(pkg-config --cflags --libs jansson) -pthread

# Every target a person types; the fragments' own are listed here too.
help:
	@echo 'Build'
	@echo '  make, make all       build/libpfshim.so and build/libfastread.a (V=1: every command),'
	@echo '                       build/pfshim when libjansson-dev is installed, and'
	@echo '                       build/examples/mpi_halo when mpicc is'
	@echo '  make tool            build/pfshim (pfshim run / report / list), installing libjansson-dev'
	@echo '  make mpi             build/examples/mpi_halo with mpicc, installing Open MPI (make mpi-deps)'
	@echo '  make install         the libraries, pfshim.h, fastread/fastread.h, their pkg-config'
	@echo '                       files, bin/pfshim and its man page under PREFIX (/usr/local),'
	@echo '                       staged under DESTDIR'
	@echo '  make uninstall       remove what install wrote'
	@echo '  make clean           remove build/ (the arm64 kernel cache stays)'
	@echo 'Test'
	@echo '  make unit            cmocka unit tests (tests/unit/) and make fuzz-replay, seconds'
	@echo '  make fuzz-replay     every input of tests/fuzz/corpus/ fed once to its fuzz target (gcc)'
	@echo '  make e2e             bats end-to-end tests on real programs (tests/e2e/), about 20 s;'
	@echo '                       installs chromium for the HTML report test (report-html.bats)'
	@echo '  make test-arm64      fastread and the shim on an emulated arm64 PMU under QEMU, ~1 min;'
	@echo '                       the first run downloads a Debian arm64 kernel (network)'
	@echo '  make test-arm64-max, make test-arm64-cortex-a57   one CPU model of test-arm64'
	@echo '  make arm64-initramfs the guest image test-arm64 boots (built by it)'
	@echo '  make arm64-bench-initramfs the guest image bench-arm64 boots (built by it; adds PAPI 7)'
	@echo '  make check           unit, e2e and test-arm64; as root it installs the Debian'
	@echo '                       packages it needs with apt-get (tests/deps.sh)'
	@echo '  make deps            only that: the test packages (named, when not root)'
	@echo '  make arm64-deps      the packages of the arm64 harness'
	@echo '  make check-sanitize  unit and e2e under ASan+UBSan (make check-asan), threaded tests'
	@echo '                       under TSan (make check-tsan); docs/testing.md'
	@echo '  make fuzz            each libFuzzer target FUZZ_TIME seconds (20); make fuzz-events,'
	@echo '                       fuzz-sysfs, fuzz-output, fuzz-signal, fuzz-config, fuzz-report,'
	@echo '                       fuzz-writers: one; make fuzz-build builds them, make fuzz-deps'
	@echo '                       installs clang'
	@echo 'Look and measure'
	@echo '  make demo            run examples/ under the shim'
	@echo '  make demo-matmul     regions per phase of a matrix multiply'
	@echo '  make demo-threads    regions per thread'
	@echo '  make demo-mpi        an MPI job of 4 ranks under mpirun: a report per rank, regions, imbalance'
	@echo '  make bench           costs side by side with perf stat and PAPI (prints, asserts nothing)'
	@echo '  make bench-report    pfshim report over 1,000 and 10,000 generated reports: time, max RSS'
	@echo '  make bench-arm64     instruction counts of a read and a marker pair under QEMU'
	@echo '  make bench-deps      the packages bench needs'
	@echo '  make bench-compat    LIKWID- and PAPI_hl-style pairs through pfshim beside real PAPI_hl'
	@echo 'Compatibility (docs/compat.md)'
	@echo '  make compat          libpfshim-compat.so/.a, the Fortran module, the C++ and Fortran examples'
	@echo '  make compat-tests    compat, and the test programs built against likwid and libpapi'
	@echo '  make compat-deps, make compat-fortran-deps   their Debian packages'
	@echo '  make install-compat, make uninstall-compat   done by make install / uninstall'
	@echo '  make help            this list'

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(PF_CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/libfastread.a: $(FASTREAD_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/libpfshim-core.a: $(CORE_OBJ)
	@$(if $(Q),echo "  AR      $@")
	$(Q)rm -f $@ && ar rcs $@ $^

# The shim links nothing beyond libc (dlsym is in libc since glibc 2.34);
# LDFLAGS is empty but for the sanitizer builds (tests/sanitize.mk).
$(LIB): $(SHIM_OBJ) $(CORE_OBJ) $(FASTREAD_OBJ) preload/libpfshim.map
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -shared -Wl,--version-script=preload/libpfshim.map -Wl,-z,defs \
		-Wl,-z,now -Wl,--gc-sections -o $@ $(SHIM_OBJ) $(CORE_OBJ) $(FASTREAD_OBJ)

# Unit tests link the archives, so each test sees the hidden functions.
$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libpfshim-core.a $(BUILD)/libfastread.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(PF_CFLAGS) -Itests/unit -o $@ $< $(BUILD)/libpfshim-core.a \
		$(BUILD)/libfastread.a -lcmocka -lpthread -lm

# tests/unit/tools/ tests the pfshim command's own files (tools/pfshim/, but
# main.c, list.c and handover.c, which use libpfshim-core.a), which
# link libjansson instead of the shim's archives.
TOOL_LIB_SRC := $(filter-out tools/pfshim/main.c tools/pfshim/list.c tools/pfshim/handover.c,$(TOOL_SRC))
$(BUILD)/tests/tools/%: tests/unit/tools/%.c $(TOOL_LIB_SRC) $(wildcard tools/pfshim/*.h) export/report.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) -std=gnu11 -Wall -Wextra -Wshadow -D_GNU_SOURCE -I. $(CFLAGS) -o $@ $< \
		$(TOOL_LIB_SRC) -lcmocka $$(pkg-config --cflags --libs jansson) -lm -pthread

# Programs the end-to-end tests run under the shim: plain C, no pfshim code
# except through pfshim.h.
$(BUILD)/progs/%: tests/progs/%.c include/pfshim.h $(wildcard tests/progs/*.h)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) -std=gnu11 -D_GNU_SOURCE -O1 -g -Wall -Iinclude -o $@ $< -lpthread -lm

$(BUILD)/progs/lib%.so: tests/progs/lib/%.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) -std=gnu11 -D_GNU_SOURCE -O1 -g -Wall -shared -fPIC -o $@ $<

$(BUILD)/examples/%: examples/%.c include/pfshim.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Iinclude -o $@ $< -lpthread -lm

# An MPI program needs only pfshim.h, like any other: the shim finds it at run time.
$(BUILD)/examples/mpi_%: examples/mpi_%.c include/pfshim.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  MPICC   $@")
	$(Q)$(MPICC) -std=gnu11 -O2 -g -Wall -Wextra -Iinclude -o $@ $<

# Test dependencies: installed with apt-get when root, named otherwise.
deps:
	$(Q)tests/deps.sh

# cmocka must be installed before a unit test links, even under make -j.
$(UNIT_BIN): | deps

unit: deps $(UNIT_BIN)
	$(Q)set -e; for t in $(UNIT_BIN); do echo "== $$t"; $$t; done

# report-html.bats renders pfshim report's page in headless Chromium (~100 MB
# of packages, installed here, not by `make unit`); install.bats renders
# pfshim.1 with man (man-db) and compiles the installed fastread/inline.h
# with clang too (as make fuzz needs it).
e2e: deps $(LIB) $(PROG_BIN) $(EXAMPLE_BIN)
	$(Q)tests/deps.sh chromium man-db clang autoconf
	$(Q)$(MAKE) --no-print-directory $(TOOL) $(MPI_EXAMPLE_BIN)
	$(Q)bats --print-output-on-failure tests/e2e

check: unit e2e test-arm64

demo: $(LIB) $(EXAMPLE_BIN)
	$(Q)examples/demo.sh $(BUILD)

# The marker API on a real program: regions per phase, and per thread.
# PFSHIM_EVENTS from the environment, or the defaults.
.PHONY: demo-matmul demo-threads
demo-matmul: $(LIB) $(BUILD)/examples/matmul
	$(Q)LD_PRELOAD=$(abspath $(LIB)) $(BUILD)/examples/matmul

demo-threads: $(LIB) $(BUILD)/examples/threads
	$(Q)LD_PRELOAD=$(abspath $(LIB)) $(BUILD)/examples/threads

# An MPI job of 4 ranks under mpirun, each rank's report in one directory (docs/jobs.md).
.PHONY: demo-mpi
demo-mpi: mpi $(LIB)
	$(Q)$(if $(HAVE_JANSSON),$(MAKE) --no-print-directory $(TOOL) &&) examples/demo-mpi.sh $(BUILD)

# fastread's header goes where its own #include "fastread/fastread.h" finds
# it: <prefix>/include/fastread/. It includes only libc and kernel headers;
# fastread/inline.h (the inlined read) brings cached.h and the arch headers.
FASTREAD_INLINE_H := fastread/inline.h fastread/cached.h fastread/arch.h
FASTREAD_ARCH_H   := $(wildcard fastread/arch/*.h)
install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/fastread/arch \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 0755 $(LIB) $(DESTDIR)$(PREFIX)/lib/libpfshim.so
	install -m 0644 $(BUILD)/libfastread.a $(DESTDIR)$(PREFIX)/lib/libfastread.a
	install -m 0644 include/pfshim.h $(DESTDIR)$(PREFIX)/include/pfshim.h
	install -m 0644 fastread/fastread.h $(DESTDIR)$(PREFIX)/include/fastread/fastread.h
	install -m 0644 $(FASTREAD_INLINE_H) $(DESTDIR)$(PREFIX)/include/fastread/
	install -m 0644 $(FASTREAD_ARCH_H) $(DESTDIR)$(PREFIX)/include/fastread/arch/
	$(if $(wildcard $(TOOL)),install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 && \
		install -m 0755 $(TOOL) $(DESTDIR)$(PREFIX)/bin/pfshim && \
		install -m 0644 tools/pfshim/pfshim.1 $(DESTDIR)$(PREFIX)/share/man/man1/pfshim.1)
	sed -e 's|@PREFIX@|$(PREFIX)|g' pfshim.pc.in >$(DESTDIR)$(PREFIX)/lib/pkgconfig/pfshim.pc
	sed -e 's|@PREFIX@|$(PREFIX)|g' fastread/fastread.pc.in \
		>$(DESTDIR)$(PREFIX)/lib/pkgconfig/fastread.pc

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/lib/libpfshim.so $(DESTDIR)$(PREFIX)/lib/libfastread.a \
		$(DESTDIR)$(PREFIX)/include/pfshim.h $(DESTDIR)$(PREFIX)/lib/pkgconfig/pfshim.pc \
		$(DESTDIR)$(PREFIX)/include/fastread/fastread.h \
		$(addprefix $(DESTDIR)$(PREFIX)/include/,$(FASTREAD_INLINE_H) $(FASTREAD_ARCH_H)) \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig/fastread.pc $(DESTDIR)$(PREFIX)/bin/pfshim \
		$(DESTDIR)$(PREFIX)/share/man/man1/pfshim.1
	rmdir $(DESTDIR)$(PREFIX)/include/fastread/arch $(DESTDIR)$(PREFIX)/include/fastread \
		2>/dev/null || true

clean:
	rm -rf $(BUILD)

# Each fragment owns its targets: test-arm64 (QEMU harness), bench,
# check-sanitize (ASan+UBSan, TSan) and fuzz (libFuzzer).
include tests/arm64/arm64.mk
include tests/bench/bench.mk
include compat/compat.mk
include tests/sanitize.mk
include tests/fuzz/fuzz.mk

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
