# pfshim: the front door. `make`, `make check`, `make demo`, `make bench`,
# `make install PREFIX=/usr/local DESTDIR=`; V=1 shows every command.

PREFIX  ?= /usr/local
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

FASTREAD_SRC := $(wildcard fastread/*.c)
# preload/shim.c holds the constructor and the interposed libc functions: it
# goes only into libpfshim.so, never into the archive unit tests link.
SHIM_SRC     := preload/shim.c
CORE_SRC     := $(filter-out $(SHIM_SRC),$(wildcard preload/*.c)) $(wildcard export/*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

# Code that runs once per process (reading the configuration, formatting
# the report) is built for size: fault-around maps all of the small .so's
# text the first time any of it runs, so its size is resident memory in
# every process. The read and marker paths keep $(CFLAGS).
COLD_SRC     := $(wildcard export/*.c) $(addprefix preload/,config.c events.c \
	event_tables.c markers_report.c output.c pmu.c pmu_catalog.c suggest.c warn.c)
$(call obj,$(COLD_SRC)): PF_CFLAGS += -Os

FASTREAD_OBJ := $(call obj,$(FASTREAD_SRC))
CORE_OBJ     := $(call obj,$(CORE_SRC))
SHIM_OBJ     := $(call obj,$(SHIM_SRC))

UNIT_SRC  := $(wildcard tests/unit/test_*.c)
UNIT_BIN  := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRC))
PROG_SRC  := $(wildcard tests/progs/*.c)
PROG_BIN  := $(patsubst tests/progs/%.c,$(BUILD)/progs/%,$(PROG_SRC))
EXAMPLE_SRC := $(wildcard examples/*.c)
EXAMPLE_BIN := $(patsubst examples/%.c,$(BUILD)/examples/%,$(EXAMPLE_SRC))

LIB := $(BUILD)/libpfshim.so

.PHONY: all check unit e2e demo bench install uninstall clean deps
all: $(LIB) $(BUILD)/libfastread.a

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

# Programs the end-to-end tests run under the shim: plain C, no pfshim code
# except through pfshim.h.
$(BUILD)/progs/%: tests/progs/%.c include/pfshim.h $(wildcard tests/progs/*.h)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) -std=gnu11 -D_GNU_SOURCE -O1 -g -Wall -Iinclude -o $@ $< -lpthread -lm

$(BUILD)/examples/%: examples/%.c include/pfshim.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Iinclude -o $@ $< -lpthread -lm

# Test dependencies: installed with apt-get when root, named otherwise.
deps:
	$(Q)tests/deps.sh

# cmocka must be installed before a unit test links, even under make -j.
$(UNIT_BIN): | deps

unit: deps $(UNIT_BIN)
	$(Q)set -e; for t in $(UNIT_BIN); do echo "== $$t"; $$t; done

e2e: deps $(LIB) $(PROG_BIN) $(EXAMPLE_BIN)
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

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include \
		$(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 0755 $(LIB) $(DESTDIR)$(PREFIX)/lib/libpfshim.so
	install -m 0644 $(BUILD)/libfastread.a $(DESTDIR)$(PREFIX)/lib/libfastread.a
	install -m 0644 include/pfshim.h $(DESTDIR)$(PREFIX)/include/pfshim.h
	sed -e 's|@PREFIX@|$(PREFIX)|g' pfshim.pc.in >$(DESTDIR)$(PREFIX)/lib/pkgconfig/pfshim.pc

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/lib/libpfshim.so $(DESTDIR)$(PREFIX)/lib/libfastread.a \
		$(DESTDIR)$(PREFIX)/include/pfshim.h $(DESTDIR)$(PREFIX)/lib/pkgconfig/pfshim.pc

clean:
	rm -rf $(BUILD)

# Each fragment owns its targets: test-arm64 (QEMU harness), bench,
# check-sanitize (ASan+UBSan, TSan) and fuzz (libFuzzer).
include tests/arm64/arm64.mk
include tests/bench/bench.mk
include tests/sanitize.mk
include tests/fuzz/fuzz.mk

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
