# SPDX-License-Identifier: MIT
# pfshim: the front door. `make help` lists every target. The usual ones:
# `make` (the libraries), `make unit` and `make e2e` (the fast suites),
# `make check` (those and `test-arm64`, under QEMU), `make demo`, `make bench`,
# `make install PREFIX=/usr/local DESTDIR=`. V=1 shows every command.

# `make` alone builds `all`, whatever rule an included fragment or a line below states first.
.DEFAULT_GOAL := all

PREFIX  ?= /usr/local
# LIBDIR: where the libraries, pkg-config and CMake files go; a Debian
# package sets the multiarch one (/usr/lib/x86_64-linux-gnu). pfshim run looks
# for the shim there: relative to itself, then at LIBDIR (compiled in).
LIBDIR  ?= $(PREFIX)/lib
BINDIR  ?= $(PREFIX)/bin
INCLUDEDIR ?= $(PREFIX)/include
MANDIR  ?= $(PREFIX)/share/man
DOCDIR  ?= $(PREFIX)/share/doc/pfshim
# The pfshim Python module (python/pfshim/): where Debian's python3 looks,
# /usr/lib/python3/dist-packages for PREFIX=/usr, the versioned
# dist-packages under any other prefix.
PYTHON_VERSION := $(shell python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
PYTHONDIR ?= $(if $(filter /usr,$(PREFIX)),$(PREFIX)/lib/python3/dist-packages,$(PREFIX)/lib/python$(PYTHON_VERSION)/dist-packages)
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

# The read and marker paths, whose instructions land in what they measure:
# no loop alignment, whose padding is a nop run on the path that falls
# into the loop's head (GCC 12, arm64: one in a 2-event begin by name).
HOT_SRC      := fastread/read.c preload/markers/markers.c
$(call obj,$(HOT_SRC)): PF_CFLAGS += -falign-loops=4

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
TOOL_SRC := $(wildcard tools/pfshim/*.c tools/pfshim/*/*.c)
TOOL_HDR := $(wildcard tools/pfshim/*.h tools/pfshim/*/*.h)
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
	$(if $(HAVE_JANSSON),,@echo 'pfshim: $(TOOL) (pfshim run, report, list) needs libjansson-dev: make tool installs it and builds it')

tool: deps
	$(Q)$(MAKE) --no-print-directory $(TOOL)

mpi: mpi-deps
	$(Q)$(MAKE) --no-print-directory $(MPI_EXAMPLE_BIN)

mpi-deps:
	$(Q)tests/deps.sh openmpi-bin libopenmpi-dev

# Where pfshim run finds the installed shim: LIBDIR as seen from BINDIR (a
# copy unpacked elsewhere, dpkg -x, finds its own), then LIBDIR itself.
# $(BUILD)/libdir changes only with them, so the command is rebuilt when they do.
LIBDIR_REL := $(if $(and $(filter $(PREFIX)/bin,$(BINDIR)),$(filter $(PREFIX)/%,$(LIBDIR))),../$(patsubst $(PREFIX)/%,%,$(LIBDIR)),../lib)
$(BUILD)/libdir: FORCE
	@mkdir -p $(dir $@)
	$(Q)echo '$(LIBDIR) $(LIBDIR_REL)' | cmp -s - $@ || echo '$(LIBDIR) $(LIBDIR_REL)' >$@
.PHONY: FORCE
FORCE:

# `pfshim list` takes its names from the shim's own resolvers: libpfshim-core.a
# (and libfastread.a, whose sysfile_read() pmu.c reads sysfs with).
$(TOOL): $(TOOL_SRC) $(TOOL_HDR) export/report.h $(BUILD)/libpfshim-core.a \
		$(BUILD)/libfastread.a $(BUILD)/libdir
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) -std=gnu11 -Wall -Wextra -Wshadow -D_GNU_SOURCE -I. $(CFLAGS) $(LDFLAGS) -o $@ \
		-DPFSHIM_LIBDIR='"$(LIBDIR)"' -DPFSHIM_LIBDIR_REL='"$(LIBDIR_REL)"' \
		$(TOOL_SRC) $(BUILD)/libpfshim-core.a $(BUILD)/libfastread.a \
		$$(pkg-config --cflags --libs jansson) -lm -pthread

# Every target a person types; the fragments' own are listed here too.
help:
	@echo 'Build'
	@echo '  make, make all       build/libpfshim.so and build/libfastread.a (V=1: every command),'
	@echo '                       build/pfshim when libjansson-dev is installed, and'
	@echo '                       build/examples/mpi_halo when mpicc is'
	@echo '  make tool            build/pfshim (pfshim run / report / list), installing libjansson-dev'
	@echo '  make mpi             build/examples/mpi_halo with mpicc, installing Open MPI (make mpi-deps)'
	@echo '  make install         the libraries (SONAME libpfshim.so.1), the headers, pkg-config and'
	@echo '                       CMake files, bin/pfshim, pfshim(1), libpfshim(7) and docs/ under'
	@echo '                       PREFIX (/usr/local); LIBDIR (PREFIX/lib, or multiarch), staged'
	@echo '                       under DESTDIR (docs/install.md)'
	@echo '  make uninstall       remove what install wrote'
	@echo '  make deb             Debian packages libpfshim1, pfshim, libpfshim-dev, python3-pfshim'
	@echo '                       in build/deb/, checked by lintian (make deb-deps: dpkg-dev, lintian)'
	@echo '  make clean           remove build/ (the arm64 kernel cache stays)'
	@echo 'Test'
	@echo '  make unit            cmocka unit tests (tests/unit/) and make fuzz-replay, 30-40 s'
	@echo '  make fuzz-replay     every input of tests/fuzz/corpus/ fed once to its fuzz target (gcc)'
	@echo '  make e2e             bats end-to-end tests on real programs (tests/e2e/), about 2 min;'
	@echo '                       installs chromium for the HTML report test (report-html.bats)'
	@echo '  make test-arm64      fastread and the shim on an emulated arm64 PMU under QEMU, ~70 s;'
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
	@echo '  make mutate          mutation testing: each mutant of tests/mutate/mutants.txt applied'
	@echo '                       alone, rebuilt, its tests run; fails below MUTATE_MIN (95) %;'
	@echo '                       make mutate-sample: the sample .ci/run runs; MUTANTS=id,id: those;'
	@echo '                       make mutate-check: every mutant still applies (none stale);'
	@echo '                       make e2e-progs: what make e2e runs, built, without running it'
	@echo '  make fuzz            each libFuzzer target FUZZ_TIME seconds (20); make fuzz-events,'
	@echo '                       fuzz-sysfs, fuzz-output, fuzz-signal, fuzz-config, fuzz-report,'
	@echo '                       fuzz-writers, fuzz-answers: one; make fuzz-build builds them,'
	@echo '                       make fuzz-deps installs clang'
	@echo 'Look and measure'
	@echo '  make demo            run examples/ under the shim'
	@echo '  make demo-matmul     regions per phase of a matrix multiply'
	@echo '  make demo-threads    regions per thread'
	@echo '  make demo-mpi        an MPI job of 4 ranks under mpirun: a report per rank, regions, imbalance'
	@echo '  make bench           costs side by side with perf stat and PAPI (prints, asserts nothing)'
	@echo '  make bench-report    pfshim report over 10,000 and 100,000 generated reports against cat and Python'
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
# preload/layout.ld puts the code no report runs after its read apart, so
# that it is not resident in every process (prefault.c).
# Its ~400 relative relocations packed (DT_RELR: binutils 2.38 on x86_64,
# glibc 2.36) take 112 bytes instead of 9.6 KB: 3 pages fewer that every
# process maps. Only where a test link comes out with DT_RELR: a linker
# that ignores the option (Debian 12's aarch64 ld) says so on a warning.
# Deferred (=): probed when the library is linked, not at every make.
RELR_LDFLAGS = $(shell f=$$(mktemp) && printf 'int x; int *p = &x;\n' | \
	$(CC) $(LDFLAGS) -shared -fPIC -x c - -Wl,-z,pack-relative-relocs -o $$f 2>/dev/null && \
	readelf -d $$f 2>/dev/null | grep -q '(RELR)' && echo -Wl,-z,pack-relative-relocs; rm -f $$f)
$(LIB): $(SHIM_OBJ) $(CORE_OBJ) $(FASTREAD_OBJ) preload/libpfshim.map preload/layout.ld
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) -shared -Wl,--version-script=preload/libpfshim.map -Wl,-z,defs \
		-Wl,-z,now $(RELR_LDFLAGS) -Wl,--gc-sections -Wl,-T,preload/layout.ld \
		-Wl,-soname,libpfshim.so.$(SO_MAJOR) \
		-o $@ $(SHIM_OBJ) $(CORE_OBJ) $(FASTREAD_OBJ)

# Unit tests link the archives, so each test sees the hidden functions.
$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libpfshim-core.a $(BUILD)/libfastread.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(PF_CFLAGS) -Itests/unit -o $@ $< $(BUILD)/libpfshim-core.a \
		$(BUILD)/libfastread.a -lcmocka -lpthread -lm

# tests/e2e/metrics.bats reads every LIKWID group file through this and
# compares with tests/tools/likwid_groups.py's own reading.
GROUP_EVAL := $(BUILD)/tests/likwid_group_eval
$(GROUP_EVAL): tests/tools/likwid_group_eval.c $(BUILD)/libpfshim-core.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(PF_CFLAGS) -o $@ $< $(BUILD)/libpfshim-core.a

# tests/e2e/metrics.bats: the share of each LIKWID group's events that resolve
# for a CPU model libpfm4 is forced to (LIBPFM_FORCE_PMU).
GROUP_RESOLVE := $(BUILD)/tests/likwid_group_resolve
$(GROUP_RESOLVE): tests/tools/likwid_group_resolve.c $(BUILD)/libpfshim-core.a $(BUILD)/libfastread.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(PF_CFLAGS) -o $@ $< $(BUILD)/libpfshim-core.a $(BUILD)/libfastread.a
e2e: $(GROUP_RESOLVE)

# tests/unit/tools/ tests the pfshim command's own files (tools/pfshim/, but
# main.c, run.c, list.c, list_groups.c and handover.c, which use
# libpfshim-core.a), which link libjansson instead of the shim's archives.
TOOL_LIB_SRC := $(filter-out tools/pfshim/main.c tools/pfshim/run/run.c tools/pfshim/list.c \
	tools/pfshim/list_groups.c tools/pfshim/run/handover.c,$(TOOL_SRC))
# (and export/version.c: the summary names the version, as the reports do;
# export/formula.c and buf.c: --metrics computes with the shim's evaluator,
# and the views quote and group as the reports do; names.c: the status names;
# fastread/sysfile.c: the one small-file reader, for the calibration's /proc).
TOOL_EXPORT_SRC := export/version.c export/formula.c export/buf.c export/names.c \
	fastread/sysfile.c
$(BUILD)/tests/tools/%: tests/unit/tools/%.c $(TOOL_LIB_SRC) $(TOOL_EXPORT_SRC) $(TOOL_HDR) \
		export/report.h export/formula.h export/buf.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) -std=gnu11 -Wall -Wextra -Wshadow -D_GNU_SOURCE -I. $(CFLAGS) -o $@ $< \
		-DPFSHIM_VERSION='"$(PFSHIM_VERSION)"' $(TOOL_LIB_SRC) $(TOOL_EXPORT_SRC) \
		-lcmocka $$(pkg-config --cflags --libs jansson) -lm -pthread

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
# with clang too (as make fuzz needs it); build-systems.bats builds against
# the installed copy with CMake and Meson; package.bats builds the .deb
# (dpkg-dev, fakeroot), runs lintian on it and, as root, installs it
# (dpkg -i), uses it (man, cmake, python3-pandas) and purges it;
# prometheus.bats runs node_exporter, promtool and Prometheus (daemons of
# its own, on free ports) and queries them with curl.
e2e: deps $(LIB) $(PROG_BIN) $(EXAMPLE_BIN) $(GROUP_EVAL)
	$(Q)tests/deps.sh chromium man-db clang autoconf cmake meson ninja-build dpkg-dev fakeroot lintian \
		prometheus-node-exporter prometheus curl python3-pandas
	$(Q)$(MAKE) --no-print-directory $(TOOL) $(MPI_EXAMPLE_BIN)
	$(Q)bats --print-output-on-failure tests/e2e

check: unit e2e test-arm64

demo: $(LIB) $(EXAMPLE_BIN) $(if $(HAVE_JANSSON),$(TOOL))
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
# The .pc and CMake files name the installed paths; *.pc.in and cmake/*.in
# are their templates. A path under PREFIX is written relative
# (${prefix}, the config file's own place), so a staged or moved copy works.
empty :=
space := $(empty) $(empty)
PC_SED = -e 's|@PREFIX@|$(PREFIX)|g' \
	-e 's|@LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|g' \
	-e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|g' \
	-e 's|@VERSION@|$(PFSHIM_VERSION)|g' -e 's|@SO_MAJOR@|$(SO_MAJOR)|g'
# From $(LIBDIR)/cmake/pfshim up to PREFIX: ../../.. for lib, one more per part of a multiarch LIBDIR.
CMAKE_LIBDIR_UP := $(if $(filter $(PREFIX)/%,$(LIBDIR)),$(subst $(space),/,$(foreach d,$(subst /, ,$(patsubst $(PREFIX)/%,%,$(LIBDIR))),..)))
CMAKE_SED = $(PC_SED) \
	-e 's|@CMAKE_PREFIX@|$(if $(CMAKE_LIBDIR_UP),$${CMAKE_CURRENT_LIST_DIR}/../../$(CMAKE_LIBDIR_UP),$(PREFIX))|g' \
	-e 's|@CMAKE_LIBDIR@|$(if $(CMAKE_LIBDIR_UP),$${CMAKE_CURRENT_LIST_DIR}/../..,$(LIBDIR))|g' \
	-e 's|@CMAKE_INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${PFSHIM_PREFIX}/%,$(INCLUDEDIR))|g'
DOC_FILES := README.md LICENSE $(wildcard docs/*.md)
MAN_PAGES := tools/pfshim/pfshim.1 preload/libpfshim.7
install: all
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(LIBDIR)/cmake/pfshim \
		$(DESTDIR)$(INCLUDEDIR)/fastread/arch $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7 \
		$(DESTDIR)$(DOCDIR)
	install -m 0644 $(LIB) $(DESTDIR)$(LIBDIR)/libpfshim.so.$(SO_MAJOR)
	ln -sf libpfshim.so.$(SO_MAJOR) $(DESTDIR)$(LIBDIR)/libpfshim.so
	install -m 0644 $(BUILD)/libfastread.a $(DESTDIR)$(LIBDIR)/libfastread.a
	install -m 0644 include/pfshim.h $(DESTDIR)$(INCLUDEDIR)/pfshim.h
	install -m 0644 fastread/fastread.h $(DESTDIR)$(INCLUDEDIR)/fastread/fastread.h
	install -m 0644 $(FASTREAD_INLINE_H) $(DESTDIR)$(INCLUDEDIR)/fastread/
	install -m 0644 $(FASTREAD_ARCH_H) $(DESTDIR)$(INCLUDEDIR)/fastread/arch/
	$(if $(wildcard $(TOOL)),install -d $(DESTDIR)$(BINDIR) && \
		install -m 0755 $(TOOL) $(DESTDIR)$(BINDIR)/pfshim)
	install -m 0644 tools/pfshim/pfshim.1 $(DESTDIR)$(MANDIR)/man1/pfshim.1
	install -m 0644 preload/libpfshim.7 $(DESTDIR)$(MANDIR)/man7/libpfshim.7
	install -m 0644 $(DOC_FILES) $(DESTDIR)$(DOCDIR)/
	sed $(PC_SED) pfshim.pc.in >$(DESTDIR)$(LIBDIR)/pkgconfig/pfshim.pc
	sed $(PC_SED) fastread/fastread.pc.in >$(DESTDIR)$(LIBDIR)/pkgconfig/fastread.pc
	sed $(CMAKE_SED) cmake/pfshimConfig.cmake.in >$(DESTDIR)$(LIBDIR)/cmake/pfshim/pfshimConfig.cmake
	sed $(CMAKE_SED) cmake/pfshimConfigVersion.cmake.in \
		>$(DESTDIR)$(LIBDIR)/cmake/pfshim/pfshimConfigVersion.cmake
	install -d $(DESTDIR)$(PYTHONDIR)/pfshim
	install -m 0644 $(wildcard python/pfshim/*.py) $(DESTDIR)$(PYTHONDIR)/pfshim/

uninstall:
	rm -f $(DESTDIR)$(LIBDIR)/libpfshim.so $(DESTDIR)$(LIBDIR)/libpfshim.so.$(SO_MAJOR) \
		$(DESTDIR)$(LIBDIR)/libfastread.a \
		$(DESTDIR)$(INCLUDEDIR)/pfshim.h $(DESTDIR)$(LIBDIR)/pkgconfig/pfshim.pc \
		$(DESTDIR)$(INCLUDEDIR)/fastread/fastread.h \
		$(addprefix $(DESTDIR)$(INCLUDEDIR)/,$(FASTREAD_INLINE_H) $(FASTREAD_ARCH_H)) \
		$(DESTDIR)$(LIBDIR)/pkgconfig/fastread.pc $(DESTDIR)$(BINDIR)/pfshim \
		$(DESTDIR)$(MANDIR)/man1/pfshim.1 $(DESTDIR)$(MANDIR)/man7/libpfshim.7 \
		$(DESTDIR)$(LIBDIR)/cmake/pfshim/pfshimConfig.cmake \
		$(DESTDIR)$(LIBDIR)/cmake/pfshim/pfshimConfigVersion.cmake
	rm -rf $(DESTDIR)$(DOCDIR) $(DESTDIR)$(PYTHONDIR)/pfshim
	rmdir $(DESTDIR)$(INCLUDEDIR)/fastread/arch $(DESTDIR)$(INCLUDEDIR)/fastread \
		$(DESTDIR)$(LIBDIR)/cmake/pfshim 2>/dev/null || true

clean:
	rm -rf $(BUILD)

# Each fragment owns its targets: test-arm64 (QEMU harness), bench,
# check-sanitize (ASan+UBSan, TSan), fuzz (libFuzzer), deb (packaging/) and
# mutate (tests/mutate/: mutation testing).
include tests/arm64/arm64.mk
include tests/bench/bench.mk
include compat/compat.mk
include tests/sanitize.mk
include tests/fuzz/fuzz.mk
include packaging/deb.mk
include tests/mutate/mutate.mk

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
