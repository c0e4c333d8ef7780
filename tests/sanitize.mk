# SPDX-License-Identifier: MIT
# check-sanitize: owned by tests/sanitize.mk. The unit and end-to-end suites
# again, with the shim and the unit tests built under AddressSanitizer +
# UndefinedBehaviorSanitizer, and the threaded tests under ThreadSanitizer.
# Each build has its own directory, so the plain build is never mixed in.
# The test programs (tests/progs, examples) stay uninstrumented: they are the
# host, the shim is what is checked. See docs/testing.md.

SAN_CC      ?= gcc
ASAN_B      := $(BUILD)/asan
TSAN_B      := $(BUILD)/tsan
# Where the runtimes write what they find in the end-to-end runs: the
# programs there are not ours, and their stderr is often asserted, so a
# finding goes to a file that the run checks afterwards (and the program dies).
SAN_LOGS    := $(abspath $(BUILD))/sanitize-logs
SAN_CFLAGS  := -O1 -g -fno-omit-frame-pointer
ASAN_SAN    := -fsanitize=address,undefined -fno-sanitize-recover=all
TSAN_SAN    := -fsanitize=thread
# gcc's TSan cannot see atomic_thread_fence (-Wtsan says so for fastread's
# seqlock); tests/tsan.supp says what that leaves reported and why.
TSAN_SUPP   := $(abspath tests/tsan.supp)

# The host is a program that never asked for a sanitizer: leaks are its own
# (detect_leaks=0 in the end-to-end runs only), and its signals stay its own
# (ASan takes no SIGSEGV/SIGBUS/SIGFPE and no alternate stack). An installed
# copy of the shim is preloaded without the runtime in front
# (install.bats): verify_asan_link_order=0 lets it run, the runtime then
# loaded as the shim's dependency.
SAN_SIGNALS := handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_abort=0:use_sigaltstack=0
ASAN_E2E_ENV := PFSHIM_SANITIZER=asan \
	PFSHIM_PRELOAD="$$($(SAN_CC) -print-file-name=libasan.so)" \
	ASAN_OPTIONS=detect_leaks=0:$(SAN_SIGNALS):verify_asan_link_order=0:log_path=$(SAN_LOGS)/asan/asan \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:log_path=$(SAN_LOGS)/asan/ubsan
TSAN_E2E_ENV := PFSHIM_SANITIZER=tsan \
	PFSHIM_PRELOAD="$$($(SAN_CC) -print-file-name=libtsan.so)" \
	TSAN_OPTIONS=halt_on_error=1:report_signal_unsafe=0:history_size=7:suppressions=$(TSAN_SUPP):$(SAN_SIGNALS):log_path=$(SAN_LOGS)/tsan/tsan

# The threaded tests: the unit tests that start threads, and the end-to-end
# suites whose programs run threads through the shim, or whose reports run in
# signal handlers while threads run (hardening-process: 32 threads reporting
# at once, fatal signals; signals: PFSHIM_SIGNAL on threads).
TSAN_UNIT   := fastread/test_read markers/test_regions output/test_dir
TSAN_E2E    := tests/e2e/threads.bats tests/e2e/markers.bats \
	tests/e2e/hardening-process.bats tests/e2e/signals.bats

SAN_MAKE_ASAN := $(MAKE) -s --no-print-directory BUILD=$(ASAN_B) CC=$(SAN_CC) \
	CFLAGS="$(SAN_CFLAGS) $(ASAN_SAN)" LDFLAGS="$(ASAN_SAN)"
SAN_MAKE_TSAN := $(MAKE) -s --no-print-directory BUILD=$(TSAN_B) CC=$(SAN_CC) \
	CFLAGS="$(SAN_CFLAGS) $(TSAN_SAN) -Wno-tsan" LDFLAGS="$(TSAN_SAN)"

# san_check WHICH: fail, showing them, if the runtimes wrote any report.
san_check = if grep -l -s -E 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error|WARNING: ThreadSanitizer' \
	$(SAN_LOGS)/$(1)/*; then cat $(SAN_LOGS)/$(1)/*; \
	echo "check-sanitize: $(1) e2e: the runtime found the above"; exit 1; fi

.PHONY: check-sanitize check-asan check-tsan
check-sanitize: check-asan check-tsan

check-asan:
	$(Q)rm -rf $(SAN_LOGS)/asan && mkdir -p -m 1777 $(SAN_LOGS)/asan
	$(Q)$(SAN_MAKE_ASAN) unit
	$(Q)$(ASAN_E2E_ENV) $(SAN_MAKE_ASAN) e2e || { $(call san_check,asan); exit 1; }
	$(Q)$(call san_check,asan)

check-tsan:
	$(Q)rm -rf $(SAN_LOGS)/tsan && mkdir -p -m 1777 $(SAN_LOGS)/tsan
	$(Q)$(SAN_MAKE_TSAN) deps $(addprefix $(TSAN_B)/tests/,$(TSAN_UNIT)) $(TSAN_B)/libpfshim.so
	$(Q)set -e; for t in $(TSAN_UNIT); do echo "== $(TSAN_B)/tests/$$t"; \
		TSAN_OPTIONS=halt_on_error=1:history_size=7:suppressions=$(TSAN_SUPP) $(TSAN_B)/tests/$$t; done
	$(Q)$(TSAN_E2E_ENV) $(SAN_MAKE_TSAN) BATS_FILES="$(TSAN_E2E)" e2e-files || \
		{ $(call san_check,tsan); exit 1; }
	$(Q)$(call san_check,tsan)

# One or more bats files, built as e2e builds them (used by the TSan run).
.PHONY: e2e-files
e2e-files: deps $(LIB) $(PROG_BIN) $(EXAMPLE_BIN)
	$(Q)bats --print-output-on-failure $(BATS_FILES)
