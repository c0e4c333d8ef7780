/* SPDX-License-Identifier: MIT */
/*
 * test_pfm_arm64.c: vendor event names (preload/events/pfm.c) with Debian's
 * arm64 libpfm4 in the guest, which holds the Arm cores' tables the x86_64
 * build lacks (tests/unit/events/test_pfm.c covers Intel and AMD). Dynamic,
 * as the shim is: libpfm.so.4 is dlopen()ed from /lib/aarch64-linux-gnu.
 * Encodings on three forced models; the numbers are the Arm Architecture
 * Reference Manual's common event numbers (L1D_CACHE_REFILL 0x03,
 * INST_RETIRED 0x08, BR_MIS_PRED 0x10, CPU_CYCLES 0x11), not libpfm4's output. Counting for real is
 * test_shim_arm64's "vendor" part.
 */
#include "pmu_arm64.h"
#include "preload/events/events.h"

static struct event_list list;
static int warnings;
static char first_warning[512];

static void warn_keep(void *ctx, const char *message)
{
	(void)ctx;
	if (!warnings++)
		snprintf(first_warning, sizeof(first_warning), "%s", message);
}

static int parse(const char *model, const char *text)
{
	if (model)
		setenv("LIBPFM_FORCE_PMU", model, 1);
	else
		unsetenv("LIBPFM_FORCE_PMU");
	warnings = 0;
	first_warning[0] = '\0';
	return events_parse(text, "/sys/bus/event_source/devices", "/nonexistent", &list, warn_keep,
			    NULL);
}

static void check_encoding(const char *model, const char *name, uint64_t config)
{
	int n = parse(model, name);

	if (!CHECK(n == 1 && warnings == 0, "%s on %s: parsed (%s)", name, model,
		   warnings ? first_warning : "no warning"))
		return;
	CHECK(list.ev[0].attr.type == PERF_TYPE_RAW && list.ev[0].attr.config == config &&
	      list.ev[0].attr.config1 == 0 && list.ev[0].attr.config2 == 0,
	      "%s on %s: type %u config %#llx config1 %#llx (want raw %#llx)", name, model,
	      list.ev[0].attr.type, (unsigned long long)list.ev[0].attr.config,
	      (unsigned long long)list.ev[0].attr.config1, (unsigned long long)config);
}

int main(void)
{
	static const char *const models[] = { "arm_ac57", "arm_ac53", "arm_n1" };

	if (access("/lib/aarch64-linux-gnu/libpfm.so.4", R_OK) != 0) {
		printf("  libpfm.so.4 is not in the initramfs\n");
		return 1;
	}
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		check_encoding(models[i], "CPU_CYCLES", 0x11);
		check_encoding(models[i], "INST_RETIRED", 0x08);
		check_encoding(models[i], "L1D_CACHE_REFILL", 0x03);
		check_encoding(models[i], "Inst_Retired", 0x08);	/* libpfm4 ignores case */
	}
	check_encoding("arm_n1", "BR_MIS_PRED", 0x10);	/* the A57's and A53's tables lack it */
	check_encoding("arm_n1", "arm_n1::INST_RETIRED", 0x08);

	/* sysfs before libpfm4: the kernel's own alias armv8_pmuv3/inst_retired wins */
	if (access("/sys/bus/event_source/devices/armv8_pmuv3/events/inst_retired", R_OK) == 0 &&
	    CHECK(parse("arm_n1", "inst_retired") == 1, "inst_retired parsed"))
		CHECK(list.ev[0].attr.type != PERF_TYPE_RAW && list.ev[0].attr.config == 0x08,
		      "inst_retired is the sysfs alias: type %u (armv8_pmuv3's), config %#llx",
		      list.ev[0].attr.type, (unsigned long long)list.ev[0].attr.config);

	/* pfshim's modifiers after a vendor name */
	if (CHECK(parse("arm_ac57", "INST_RETIRED:u") == 1, "INST_RETIRED:u parsed"))
		CHECK(!list.ev[0].attr.exclude_user && list.ev[0].attr.exclude_kernel &&
		      list.ev[0].attr.exclude_hv && list.ev[0].modifiers,
		      "INST_RETIRED:u counts user space only");

	/* A name the model lacks: the usual message */
	parse("arm_ac57", "NOT_AN_EVENT");
	CHECK(warnings == 1 && strcmp(first_warning, "unknown event 'NOT_AN_EVENT'; the event is "
				      "skipped") == 0, "unknown name: \"%s\"", first_warning);

	/* Not forced: on -cpu cortex-a57 libpfm4 finds the core in /proc/cpuinfo */
	if (strcmp(pmu_cpu_model(), "cortex-a57") == 0)
		check_encoding(NULL, "INST_RETIRED", 0x08);
	return pmu_exit_status();
}
