# SPDX-License-Identifier: MIT
# fuzz: owned by tests/fuzz/. libFuzzer targets for the parsers of what the
# shim reads from outside: event syntax, sysfs files, the output template,
# the signal name, the environment as a whole and libpfm4's answers handed
# over in it. Each runs FUZZ_TIME seconds from its committed corpus
# (tests/fuzz/corpus/<target>/); what a run finds is left in $(BUILD)/fuzz/
# and fails the run. See docs/testing.md.

FUZZ_CC      ?= clang
FUZZ_TIME    ?= 20
FUZZ_RSS_MB  ?= 2048
FUZZ_B       := $(BUILD)/fuzz
FUZZ_DIR     := tests/fuzz
FUZZ_TARGETS := events sysfs output signal config report writers answers
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_BIN     := $(addprefix $(FUZZ_B)/fuzz_,$(FUZZ_TARGETS))
# clang's libFuzzer and sanitizer runtimes: compiler-rt is only recommended
# by clang, so it is named.
FUZZ_PKGS    := clang libclang-rt-14-dev libjansson-dev

.PHONY: fuzz fuzz-build fuzz-deps $(addprefix fuzz-,$(FUZZ_TARGETS)) FORCE_FUZZ
# The runs one after the other, even under make -j2: two fuzzers side by
# side on a 2-core machine would each get half the time they are given.
fuzz: $(FUZZ_BIN)
	$(Q)set -e; for t in $(FUZZ_TARGETS); do \
		$(MAKE) -s --no-print-directory fuzz-$$t; done

fuzz-build: $(FUZZ_BIN)

fuzz-deps:
	$(Q)tests/deps.sh $(FUZZ_PKGS)

# The shim's code, as the unit tests link it, built by clang with coverage
# for the fuzzer (the top Makefile's rules, in a build directory of its own).
$(FUZZ_B)/libpfshim-core.a $(FUZZ_B)/libfastread.a: FORCE_FUZZ | fuzz-deps
	$(Q)$(MAKE) -s --no-print-directory BUILD=$(FUZZ_B) CC=$(FUZZ_CC) \
		CFLAGS="-O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link $(FUZZ_SAN)" $@
FORCE_FUZZ:

$(FUZZ_B)/fuzz_%: $(FUZZ_DIR)/fuzz_%.c $(FUZZ_DIR)/fuzz.h $(FUZZ_B)/libpfshim-core.a \
		$(FUZZ_B)/libfastread.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)$(FUZZ_CC) -std=gnu11 -O1 -g -Wall -Wextra -D_GNU_SOURCE -I. -Iinclude \
		-DFUZZ_SYSFS_FIXTURES='"$(abspath tests/fixtures/sysfs)"' \
		-fsanitize=fuzzer $(FUZZ_SAN) -o $@ $< $(FUZZ_B)/libpfshim-core.a $(FUZZ_B)/libfastread.a

# The pfshim command's report reader links libjansson, not the shim: the
# Makefile's TOOL_LIB_SRC, without the files that need the shim's code.
$(FUZZ_B)/fuzz_report: $(FUZZ_DIR)/fuzz_report.c $(TOOL_SRC) $(TOOL_HDR) \
		export/report.h | fuzz-deps
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZ    $@")
	$(Q)$(FUZZ_CC) -std=gnu11 -O1 -g -Wall -Wextra -D_GNU_SOURCE -I. \
		-fsanitize=fuzzer $(FUZZ_SAN) -o $@ $< $(TOOL_LIB_SRC) \
		$(TOOL_EXPORT_SRC) -DPFSHIM_VERSION='"$(PFSHIM_VERSION)"' \
		$$(pkg-config --cflags --libs jansson) -lm -pthread

# A run explores from a scratch copy of the corpus, so the committed seeds
# change only by hand; a crash is written as $(FUZZ_B)/<target>/crash-*.
$(addprefix fuzz-,$(FUZZ_TARGETS)): fuzz-%: $(FUZZ_B)/fuzz_%
	$(Q)rm -rf $(FUZZ_B)/$* && mkdir -p $(FUZZ_B)/$*/corpus
	$(Q)echo "== fuzz_$* for $(FUZZ_TIME) s"
	$(Q)cd $(FUZZ_B)/$* && ../fuzz_$* -max_total_time=$(FUZZ_TIME) -rss_limit_mb=$(FUZZ_RSS_MB) \
		-timeout=10 -max_len=4096 -print_final_stats=1 \
		corpus $(abspath $(FUZZ_DIR)/corpus/$*) 2>log || \
		{ tail -n 60 log; echo "fuzz_$*: crash input in $(FUZZ_B)/$*/"; exit 1; }
	$(Q)grep -E '^stat::number_of_executed_units|^Done' $(FUZZ_B)/$*/log | tr '\n' ' '; echo

# fuzz-replay: every committed input of each target, seeds and kept crash-*
# files, fed once to the target by tests/fuzz/replay.c. Built with $(CC) and
# linked as the unit tests are (no clang, no libFuzzer); `make unit` runs it,
# so `make check` and `make check-asan` (under ASan and UBSan) do too.
REPLAY_B     := $(BUILD)/fuzz-replay
REPLAY_BIN   := $(addprefix $(REPLAY_B)/fuzz_,$(FUZZ_TARGETS))
REPLAY_FLAGS := -DFUZZ_SYSFS_FIXTURES='"$(abspath tests/fixtures/sysfs)"'

.PHONY: fuzz-replay
unit: fuzz-replay
fuzz-replay: deps $(REPLAY_BIN)
	$(Q)set -e; for t in $(FUZZ_TARGETS); do \
		$(REPLAY_B)/fuzz_$$t $(FUZZ_DIR)/corpus/$$t 2>$(REPLAY_B)/fuzz_$$t.log || \
		{ tail -n 20 $(REPLAY_B)/fuzz_$$t.log; echo "fuzz-replay: fuzz_$$t failed on" \
		  "$$(sed -n 's/^replay: //p' $(REPLAY_B)/fuzz_$$t.log | tail -n 1)"; exit 1; }; done

$(REPLAY_BIN): | deps

$(REPLAY_B)/fuzz_%: $(FUZZ_DIR)/fuzz_%.c $(FUZZ_DIR)/replay.c $(FUZZ_DIR)/fuzz.h \
		$(BUILD)/libpfshim-core.a $(BUILD)/libfastread.a
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(PF_CFLAGS) $(REPLAY_FLAGS) -o $@ $< $(FUZZ_DIR)/replay.c \
		$(BUILD)/libpfshim-core.a $(BUILD)/libfastread.a -lpthread -lm

$(REPLAY_B)/fuzz_report: $(FUZZ_DIR)/fuzz_report.c $(FUZZ_DIR)/replay.c \
		$(TOOL_SRC) $(TOOL_HDR) export/report.h
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $@")
	$(Q)$(CC) $(PF_CFLAGS) $(REPLAY_FLAGS) -o $@ $< $(FUZZ_DIR)/replay.c \
		$(TOOL_LIB_SRC) \
		$(TOOL_EXPORT_SRC) $$(pkg-config --cflags --libs jansson) -lm -pthread
