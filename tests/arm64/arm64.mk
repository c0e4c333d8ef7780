# SPDX-License-Identifier: MIT
# test-arm64, bench-arm64: owned by the QEMU arm64 harness (tests/arm64/).
# The build machines have no PMU; QEMU's emulated arm64 PMUv3 is the only real
# counter hardware we have, so this cross-builds fastread, the shim and the
# guest tests for aarch64 and boots them under a Debian arm64 kernel.
# See docs/testing-arm64.md.

ARM64_CC      ?= aarch64-linux-gnu-gcc
ARM64_AR      ?= aarch64-linux-gnu-ar
ARM64_SYSROOT ?= /usr/aarch64-linux-gnu
ARM64_B       := $(BUILD)/arm64
# Outside the source tree and outside build/, so `make clean` keeps the
# 30 MB kernel and a second run downloads nothing.
ARM64_CACHE   ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/pfshim/arm64
ARM64_PKGS    := qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross cpio
ARM64_CPUS    ?= max cortex-a57
# Extra kernel command line words, e.g. ARM64_APPEND=pfshim_only=probe,fastread
ARM64_APPEND  ?=
ARM64_DIR     := tests/arm64
ARM64_TFLAGS  := -std=gnu11 -O2 -g -Wall -Wextra -Wshadow -D_GNU_SOURCE -I. -Iinclude -I$(ARM64_DIR)
ARM64_CMOCKA  := $(ARM64_CACHE)/cmocka
ARM64_KERNEL  := $(ARM64_CACHE)/vmlinuz
ARM64_INITRD  := $(ARM64_B)/init.cpio.gz

arm64_obj = $(patsubst %.c,$(ARM64_B)/obj/%.o,$(1))

# fastread's unit tests run in the guest too: there the read path takes real counters.
# tests/unit/fastread/test_read.c becomes the guest's /bin/test_fastread_read.
ARM64_UNIT_SRC      := $(wildcard tests/unit/fastread/test_*.c)
ARM64_UNIT_BIN      := $(patsubst tests/unit/fastread/test_%.c,$(ARM64_B)/unit/test_fastread_%,\
	$(ARM64_UNIT_SRC))

ARM64_BIN := $(ARM64_B)/bin/init $(ARM64_B)/bin/test_probe_arm64 \
	$(ARM64_B)/bin/test_fastread_arm64 $(ARM64_B)/bin/bench_read_arm64 \
	$(ARM64_B)/bin/test_shim_arm64 $(ARM64_B)/bin/shim_target_arm64 \
	$(ARM64_B)/bin/markers_target_arm64 $(ARM64_B)/bin/markers_loop \
	$(ARM64_B)/bin/markers_compensate \
	$(ARM64_B)/bin/test_pfm_arm64 $(ARM64_B)/bin/likwid_group_resolve \
	$(ARM64_B)/libpfshim.so $(ARM64_UNIT_BIN)
# Debian's arm64 libpfm4, for vendor event names (the x86_64 one has no Arm tables).
ARM64_LIBPFM  := $(ARM64_CACHE)/libpfm/usr/lib/aarch64-linux-gnu/libpfm.so.4
# Debian's arm64 PAPI 7 (libpapi7.0 + libpapi-dev), for bench-arm64's comparison
# only: test-arm64 and `make check` never fetch it. Its initramfs is the tests'
# plus bench_papi_arm64 and libpapi.so.7.0, with a test list of its own.
ARM64_PAPI    := $(ARM64_CACHE)/papi
ARM64_PAPI_LIB := $(ARM64_PAPI)/usr/lib/aarch64-linux-gnu
ARM64_BENCH_INITRD := $(ARM64_B)/bench.cpio.gz
# The CPUs bench-arm64 boots: max (64-bit event counters) and cortex-a57 (32-bit
# ones, as Cortex-A72 or Neoverse N1 servers; libpfm4 knows it, so PAPI's presets work).
ARM64_BENCH_CPUS ?= max cortex-a57

.PHONY: test-arm64 bench-arm64 arm64-deps arm64-initramfs arm64-bench-initramfs
.PHONY: $(addprefix test-arm64-,$(ARM64_CPUS))

# Every CPU model is a separate boot; `make -j2` boots them side by side.
test-arm64: $(addprefix test-arm64-,$(ARM64_CPUS))

$(addprefix test-arm64-,$(ARM64_CPUS)): test-arm64-%: $(ARM64_KERNEL) arm64-initramfs
	$(Q)V=$(V) $(ARM64_DIR)/run.sh $(ARM64_KERNEL) $(ARM64_INITRD) $* $(ARM64_B)/console-$*.log \
		$(ARM64_APPEND)

# The instruction cost of a read (bench_read_arm64, -cpu max only) and of a
# marker pair, and pfshim against PAPI 7 in the same boot (bench_papi_arm64),
# on each of ARM64_BENCH_CPUS, one boot after the other (see docs/testing-arm64.md).
# The goals its lines call NOT met are said again at the end, where they are seen.
bench-arm64: $(ARM64_KERNEL) arm64-bench-initramfs
	$(Q): >$(ARM64_B)/bench-not-met.txt; \
	for cpu in $(ARM64_BENCH_CPUS); do \
		log=$(ARM64_B)/console-bench$$([ $$cpu = max ] || echo -$$cpu).log; \
		V=$(V) $(ARM64_DIR)/run.sh $(ARM64_KERNEL) $(ARM64_BENCH_INITRD) $$cpu $$log \
			pfshim_only=bench,markers,papi pfshim_timeout=300 || exit 1; \
		grep -h 'ARM64-BENCH.*NOT met' $$log | tr -d '\r' >>$(ARM64_B)/bench-not-met.txt || :; \
	done; \
	echo "arm64 bench: the goals not met in this run ($$(grep -c . $(ARM64_B)/bench-not-met.txt)):"; \
	sed 's/^.*ARM64-BENCH /  /' $(ARM64_B)/bench-not-met.txt; rm -f $(ARM64_B)/bench-not-met.txt

arm64-deps:
	$(Q)tests/deps.sh $(ARM64_PKGS)

$(ARM64_KERNEL): | arm64-deps
	$(Q)$(ARM64_DIR)/fetch.sh $(ARM64_CACHE) kernel >/dev/null

$(ARM64_CACHE)/busybox: | arm64-deps
	$(Q)$(ARM64_DIR)/fetch.sh $(ARM64_CACHE) busybox >/dev/null

$(ARM64_LIBPFM): | arm64-deps
	$(Q)$(ARM64_DIR)/fetch.sh $(ARM64_CACHE) libpfm >/dev/null

$(ARM64_CMOCKA)/usr/include/cmocka.h: | arm64-deps
	$(Q)$(ARM64_DIR)/fetch.sh $(ARM64_CACHE) cmocka >/dev/null

$(ARM64_PAPI)/usr/include/papi.h: | arm64-deps
	$(Q)$(ARM64_DIR)/fetch.sh $(ARM64_CACHE) papi >/dev/null

# Rebuilt on every run (about a second): what it holds depends on which
# sources exist now, not on timestamps make could compare.
# GUEST=HOST pairs of both initramfs images (initramfs.sh), but the test list.
ARM64_INITRD_FILES = /init=$(ARM64_B)/bin/init /bin/busybox=$(ARM64_CACHE)/busybox \
	$(foreach b,$(filter $(ARM64_B)/bin/%,$(ARM64_BIN)),$(if $(filter %/init,$(b)),,/bin/$(notdir $(b))=$(b))) \
	$(foreach b,$(ARM64_UNIT_BIN),/bin/$(notdir $(b))=$(b)) \
	/lib/libpfshim.so=$(ARM64_B)/libpfshim.so \
	/lib/aarch64-linux-gnu/libpfm.so.4=$(ARM64_LIBPFM) \
	$(if $(wildcard tests/fixtures/*),/src/tests/fixtures=tests/fixtures/) \
	$(if $(wildcard $(LIKWID_ARM8)/BRANCH.txt),$(LIKWID_ARM8)=$(LIKWID_ARM8)/) \
	$(if $(wildcard $(LIKWID_ARM8_N1)/BRANCH.txt),$(LIKWID_ARM8_N1)=$(LIKWID_ARM8_N1)/)
# LIKWID's arm64 groups (Debian's likwid, installed by make check), for PFSHIM_GROUP=BRANCH,
# and the Neoverse N1's, resolved with libpfm4 forced to arm_n1 (test groups-n1).
LIKWID_ARM8 := /usr/share/likwid/perfgroups/arm8
LIKWID_ARM8_N1 := /usr/share/likwid/perfgroups/arm8_n1
ARM64_LIBDIRS = $(ARM64_SYSROOT)/lib:$(ARM64_CMOCKA)/usr/lib/aarch64-linux-gnu

arm64-initramfs: $(ARM64_BIN) $(ARM64_B)/pfshim-tests $(ARM64_CACHE)/busybox $(ARM64_LIBPFM)
	@$(if $(Q),echo "  CPIO    $(ARM64_INITRD)")
	$(Q)ARM64_LIBDIRS=$(ARM64_LIBDIRS) $(ARM64_DIR)/initramfs.sh $(ARM64_INITRD) \
		/etc/pfshim-tests=$(ARM64_B)/pfshim-tests $(ARM64_INITRD_FILES)

# (Defined before the rule that needs it: make reads a rule's prerequisites as it meets them.)
ARM64_COMPAT_SO := $(ARM64_B)/libpfshim-compat.so
ARM64_COMPAT_OBJ := $(patsubst %,$(ARM64_B)/compat/%.o,likwid papi_hl env event_names) \
	$(call arm64_obj,preload/markers/long_name.c)

# libpapi.so.7.0 comes in as bench_papi_arm64's NEEDED, found in ARM64_PAPI_LIB;
# libpfshim-compat.so, which it dlopen()s for the LIKWID and PAPI_hl pairs, at /lib.
arm64-bench-initramfs: $(ARM64_BIN) $(ARM64_B)/bin/bench_papi_arm64 $(ARM64_B)/pfshim-bench-tests \
		$(ARM64_CACHE)/busybox $(ARM64_LIBPFM) $(ARM64_COMPAT_SO)
	@$(if $(Q),echo "  CPIO    $(ARM64_BENCH_INITRD)")
	$(Q)ARM64_LIBDIRS=$(ARM64_LIBDIRS):$(ARM64_PAPI_LIB):$(dir $(ARM64_LIBPFM)) \
		$(ARM64_DIR)/initramfs.sh $(ARM64_BENCH_INITRD) \
		/etc/pfshim-tests=$(ARM64_B)/pfshim-bench-tests $(ARM64_INITRD_FILES) \
		/bin/bench_papi_arm64=$(ARM64_B)/bin/bench_papi_arm64 \
		/lib/libpfshim-compat.so=$(ARM64_COMPAT_SO)

# The list /init runs: NAME CPUS [VAR=value...] PROGRAM [ARG...] (see init.c).
$(ARM64_B)/pfshim-tests: FORCE_ARM64
	@mkdir -p $(dir $@)
	$(Q){ echo "probe * /bin/test_probe_arm64"; \
	echo "fastread * /bin/test_fastread_arm64"; \
	echo "bench max /bin/bench_read_arm64"; \
	$(foreach u,$(ARM64_UNIT_BIN),echo "unit-$(notdir $(u)) max /bin/$(notdir $(u))";) \
	echo "shim * /bin/test_shim_arm64 report"; \
	echo "markers * /bin/test_shim_arm64 markers"; \
	echo "regions * /bin/test_shim_arm64 regions"; \
	echo "metrics * /bin/test_shim_arm64 metrics"; \
	echo "pfm * /bin/test_pfm_arm64"; \
	$(if $(wildcard $(LIKWID_ARM8_N1)/BRANCH.txt),echo "groups-n1 max LIBPFM_FORCE_PMU=arm_n1 /bin/likwid_group_resolve -c $(LIKWID_ARM8_N1) $(ARM64_N1_GROUPS)";) \
	echo "vendor cortex-a57 /bin/test_shim_arm64 vendor"; \
	} > $@

# libpfm4 4.13 knows no PMU for -cpu max (implementer 0, "no default PMU found",
# and PAPI then disables its perf_event component): there it is told to use
# the Cortex-A57 table, whose instructions and cycles are PMUv3's common
# events 0x08 and 0x11, the same on every Armv8 core.
$(ARM64_B)/pfshim-bench-tests: $(ARM64_B)/pfshim-tests
	$(Q){ cat $<; echo "papi cortex-a57 /bin/bench_papi_arm64"; \
	echo "papi max LIBPFM_FORCE_PMU=arm_ac57 /bin/bench_papi_arm64"; } > $@
.PHONY: FORCE_ARM64
FORCE_ARM64:

# ---- cross builds

$(ARM64_B)/obj/%.o: %.c | arm64-deps
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC64    $<")
	$(Q)$(ARM64_CC) $(PF_CFLAGS) -MMD -MP -c -o $@ $<

$(ARM64_B)/libfastread.a: $(call arm64_obj,$(FASTREAD_SRC))
	$(Q)rm -f $@ && $(ARM64_AR) rcs $@ $^

$(ARM64_B)/libpfshim-core.a: $(call arm64_obj,$(CORE_SRC))
	$(Q)rm -f $@ && $(ARM64_AR) rcs $@ $^

# The same sources, compile and link flags as the top Makefile's libpfshim.so
# (its -Os and hot files included), so the guest runs the library that ships; not its
# packed relocations, which Debian 12's aarch64 linker ignores (RELR_LDFLAGS).
$(call arm64_obj,$(COLD_SRC)): PF_CFLAGS += -Os
$(call arm64_obj,$(HOT_SRC)): PF_CFLAGS += -falign-loops=4

$(ARM64_B)/libpfshim.so: $(call arm64_obj,$(SHIM_SRC) $(CORE_SRC) $(FASTREAD_SRC)) preload/libpfshim.map \
		preload/layout.ld
	@$(if $(Q),echo "  LD64    $@")
	$(Q)$(ARM64_CC) -shared -Wl,--version-script=preload/libpfshim.map -Wl,-z,defs \
		-Wl,-z,now -Wl,--gc-sections -Wl,-T,preload/layout.ld -o $@ $(filter %.o,$^)

# The LIKWID and PAPI_hl layer (compat/compat.mk's libpfshim-compat.so, with
# its flags), for bench-arm64's compat pairs only.

$(ARM64_B)/compat/%.o: compat/%.c compat/name.h compat/thread.h preload/markers/long_name.h compat/event_names.h preload/config.h \
		include/pfshim.h include/pfshim/likwid-marker.h include/pfshim/papi-hl.h | arm64-deps
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC64    $<")
	$(Q)$(ARM64_CC) -std=gnu11 -O2 -g -Wall -Wextra -Wshadow -fPIC -fvisibility=hidden \
		-fomit-frame-pointer -D_GNU_SOURCE -I. -Iinclude -c -o $@ $<

$(ARM64_COMPAT_SO): $(ARM64_COMPAT_OBJ) $(call arm64_obj,preload/events/likwid_names.c) \
		compat/libpfshim-compat.map
	@$(if $(Q),echo "  LD64    $@")
	$(Q)$(ARM64_CC) -shared -Wl,--version-script=compat/libpfshim-compat.map -Wl,-z,now \
		-Wl,-soname,libpfshim-compat.so.$(SO_MAJOR) -o $@ $(filter %.o,$^)

# Guest programs are static (no loader needed), except the program the shim
# is preloaded into, which must be dynamic for LD_PRELOAD to mean anything.
$(ARM64_B)/bin/init $(ARM64_B)/bin/test_probe_arm64: $(ARM64_B)/bin/%: $(ARM64_DIR)/%.c \
		$(ARM64_DIR)/pmu_arm64.h | arm64-deps
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC64    $@")
	$(Q)$(ARM64_CC) $(ARM64_TFLAGS) -static -o $@ $<

$(ARM64_B)/bin/test_fastread_arm64 $(ARM64_B)/bin/bench_read_arm64: $(ARM64_B)/bin/%: \
		$(ARM64_DIR)/%.c $(ARM64_DIR)/pmu_arm64.h fastread/fastread.h $(ARM64_B)/libfastread.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC64    $@")
	$(Q)$(ARM64_CC) $(ARM64_TFLAGS) -static -o $@ $< $(ARM64_B)/libfastread.a

$(ARM64_B)/bin/test_shim_arm64: $(ARM64_DIR)/test_shim_arm64.c $(ARM64_DIR)/pmu_arm64.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC64    $@")
	$(Q)$(ARM64_CC) $(ARM64_TFLAGS) -static -o $@ $<

$(ARM64_B)/bin/shim_target_arm64 $(ARM64_B)/bin/markers_target_arm64: $(ARM64_B)/bin/%: \
		$(ARM64_DIR)/%.c $(ARM64_DIR)/pmu_arm64.h include/pfshim.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC64    $@")
	$(Q)$(ARM64_CC) $(ARM64_TFLAGS) -o $@ $<

# Each LIKWID arm8_n1 group's share of events that resolve with libpfm4 forced to
# the Neoverse N1 (the x86_64 libpfm4 has no Arm tables): at least these, which
# docs/metrics.md's table gives (metrics.bats checks the x86 models on the host).
ARM64_N1_GROUPS := BRANCH=5 CLOCK=2 DATA=4 ICACHE=3 L2=5 L3=4 MEM=4 TLB=6
$(ARM64_B)/bin/likwid_group_resolve: tests/tools/likwid_group_resolve.c \
		$(ARM64_B)/libpfshim-core.a $(ARM64_B)/libfastread.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC64    $@")
	$(Q)$(ARM64_CC) $(ARM64_TFLAGS) -o $@ $< $(ARM64_B)/libpfshim-core.a $(ARM64_B)/libfastread.a

# Vendor names through the guest's libpfm4: dynamic, since the parser dlopen()s it.
# libfastread.a: pmu.c reads sysfs with its sysfile_read().
$(ARM64_B)/bin/test_pfm_arm64: $(ARM64_DIR)/test_pfm_arm64.c $(ARM64_DIR)/pmu_arm64.h \
		$(ARM64_B)/libpfshim-core.a $(ARM64_B)/libfastread.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC64    $@")
	$(Q)$(ARM64_CC) $(ARM64_TFLAGS) -o $@ $< $(ARM64_B)/libpfshim-core.a $(ARM64_B)/libfastread.a

# pfshim against PAPI 7: linked against Debian's arm64 libpapi.so (which needs
# libpfm.so.4: -rpath-link finds it); the shim is preloaded by the program itself.
$(ARM64_B)/bin/bench_papi_arm64: $(ARM64_DIR)/bench_papi_arm64.c $(ARM64_DIR)/pmu_arm64.h \
		include/pfshim.h $(ARM64_PAPI)/usr/include/papi.h $(ARM64_LIBPFM)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC64    $@")
	$(Q)$(ARM64_CC) $(ARM64_TFLAGS) -I$(ARM64_PAPI)/usr/include -o $@ $< \
		-L$(ARM64_PAPI_LIB) -lpapi -Wl,-rpath-link=$(dir $(ARM64_LIBPFM))

# The end-to-end suite's program, as it is: regions around a known loop.
$(ARM64_B)/bin/markers_loop $(ARM64_B)/bin/markers_compensate: $(ARM64_B)/bin/%: \
		tests/progs/%.c include/pfshim.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC64    $@")
	$(Q)$(ARM64_CC) $(ARM64_TFLAGS) -o $@ $<

# fastread's own unit tests, linked as the top Makefile links them, against
# Debian's arm64 cmocka (shared only; the initramfs carries libcmocka.so.0).
$(ARM64_B)/unit/test_fastread_%: tests/unit/fastread/test_%.c $(ARM64_B)/libpfshim-core.a \
		$(ARM64_B)/libfastread.a $(ARM64_CMOCKA)/usr/include/cmocka.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC64    $@")
	$(Q)$(ARM64_CC) $(PF_CFLAGS) -Itests/unit -I$(ARM64_CMOCKA)/usr/include -o $@ $< \
		$(ARM64_B)/libpfshim-core.a $(ARM64_B)/libfastread.a \
		-L$(ARM64_CMOCKA)/usr/lib/aarch64-linux-gnu -lcmocka -lpthread -lm

-include $(shell find $(ARM64_B)/obj -name '*.d' 2>/dev/null)
