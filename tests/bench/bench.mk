# SPDX-License-Identifier: MIT
# bench: owned by tests/bench/. Speed and memory of pfshim measured side by
# side with perf stat and PAPI in one run; prints ratios, never asserts them
# (timing belongs to no test: `make check` must not depend on the machine).
# See docs/performance.md.

BENCH_B    := $(BUILD)/bench
BENCH_DIR  := tests/bench
BENCH_PKGS := libpapi-dev papi-tools linux-perf
BENCH_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Wshadow -D_GNU_SOURCE -I. -Iinclude -I$(BENCH_DIR)

BENCH_BIN := $(BENCH_B)/startup $(BENCH_B)/rss $(BENCH_B)/reads $(BENCH_B)/markers \
	     $(BENCH_B)/interval $(BENCH_B)/libempty.so $(BENCH_B)/noop $(BENCH_B)/report_cost \
	     $(BENCH_B)/libfloor.so

.PHONY: bench bench-deps bench-report

# ARM64_KERNEL comes from tests/arm64/arm64.mk: when that harness's kernel is
# already cached, bench-arm64 is a few seconds and bench.sh runs it.
bench: $(LIB) $(BENCH_BIN)
	$(Q)BUILD=$(BUILD) MAKE="$(MAKE)" ARM64_KERNEL="$(ARM64_KERNEL)" $(BENCH_DIR)/bench.sh

bench-deps:
	$(Q)tests/deps.sh $(BENCH_PKGS)

# pfshim report over 10,000 and 100,000 generated report files (BENCH_SIZES):
# time and max RSS beside cat and the obvious Python script, and the
# exponent in N (also section 6 of make bench, when build/pfshim is built).
bench-report:
	$(Q)$(MAKE) --no-print-directory tool
	$(Q)BUILD=$(BUILD) $(BENCH_DIR)/report.sh

$(BENCH_B)/startup: $(BENCH_DIR)/startup.c $(BENCH_DIR)/bench.h | bench-deps
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(BENCH_CFLAGS) -o $@ $<

$(BENCH_B)/rss: $(BENCH_DIR)/rss.c $(BENCH_DIR)/bench.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(BENCH_CFLAGS) -o $@ $<

$(BENCH_B)/reads: $(BENCH_DIR)/reads.c $(BENCH_DIR)/bench.h fastread/fastread.h \
		include/pfshim.h $(BUILD)/libfastread.a | bench-deps
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(BENCH_CFLAGS) -o $@ $< $(BUILD)/libfastread.a -lpapi

# Uses pfshim.h only: the implementation comes from the preloaded shim.
$(BENCH_B)/markers: $(BENCH_DIR)/markers.c $(BENCH_DIR)/bench.h include/pfshim.h | bench-deps
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(BENCH_CFLAGS) -o $@ $< -lpapi

$(BENCH_B)/interval: $(BENCH_DIR)/interval.c $(BENCH_DIR)/bench.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(BENCH_CFLAGS) -o $@ $<

# Uses pfshim.h only, as markers does (section 7).
$(BENCH_B)/report_cost: $(BENCH_DIR)/report_cost.c $(BENCH_DIR)/bench.h include/pfshim.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(BENCH_CFLAGS) -o $@ $<

$(BENCH_B)/libempty.so: $(BENCH_DIR)/empty.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(BENCH_CFLAGS) -fPIC -shared -o $@ $<

# The floor of a counting preload: 4 software events, 1 read, 1 write (section 2d).
$(BENCH_B)/libfloor.so: $(BENCH_DIR)/floor.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(BENCH_CFLAGS) -fPIC -shared -o $@ $<

# The floor of any tool that runs a command: an exec of a dynamically linked
# program that does nothing (section 2b).
$(BENCH_B)/noop: $(BENCH_DIR)/noop.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(BENCH_CFLAGS) -o $@ $<
