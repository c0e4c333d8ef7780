/* SPDX-License-Identifier: MIT */
/*
 * test_pfm.c: preload/events/pfm.c, vendor event names through libpfm4,
 * on no PMU at all: LIBPFM_FORCE_PMU makes libpfm4 assume a CPU model.
 *
 * The expected encodings were printed by libpfm4 4.13.0-1 (Debian 12, the
 * x86_64 build: it holds no arm64 tables, so no arm64 model can be forced
 * here) through pfm_get_os_event_encoding(name, PFM_PLM0|PFM_PLM3|PFM_PLMH,
 * PFM_OS_PERF_EVENT_EXT, ...) in a 20-line program, the call pfm.c makes;
 * they agree with the vendors' tables (INST_RETIRED.ANY_P is event 0xc0 on
 * Intel, RETIRED_INSTRUCTIONS 0xc0 on AMD, an AMD event above 0xff puts
 * its bits 8-11 at config bits 32-35). Compiled against libpfm4-dev's
 * headers, it also checks every declaration of pfm_abi.h against them.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "preload/events/events.h"
#include "preload/events/pfm.h"
#include "preload/events/pfm_answers.h"
#include "file_put.h"

#include <perfmon/pfmlib_perf_event.h>

/* ---- pfm_abi.h against libpfm4's own headers ---------------------------- */

#define SAME_FIELD(ours, theirs, field) \
	_Static_assert(offsetof(ours, field) == offsetof(theirs, field) && \
		       sizeof(((ours *)0)->field) == sizeof(((theirs *)0)->field), #field)

SAME_FIELD(struct pfm_abi_perf_encode_arg, pfm_perf_encode_arg_t, attr);
SAME_FIELD(struct pfm_abi_perf_encode_arg, pfm_perf_encode_arg_t, fstr);
SAME_FIELD(struct pfm_abi_perf_encode_arg, pfm_perf_encode_arg_t, size);
SAME_FIELD(struct pfm_abi_perf_encode_arg, pfm_perf_encode_arg_t, idx);
SAME_FIELD(struct pfm_abi_perf_encode_arg, pfm_perf_encode_arg_t, cpu);
SAME_FIELD(struct pfm_abi_perf_encode_arg, pfm_perf_encode_arg_t, flags);
_Static_assert(sizeof(struct pfm_abi_perf_encode_arg) == sizeof(pfm_perf_encode_arg_t), "arg");

SAME_FIELD(struct pfm_abi_pmu_info, pfm_pmu_info_t, name);
SAME_FIELD(struct pfm_abi_pmu_info, pfm_pmu_info_t, desc);
SAME_FIELD(struct pfm_abi_pmu_info, pfm_pmu_info_t, size);
SAME_FIELD(struct pfm_abi_pmu_info, pfm_pmu_info_t, pmu);
SAME_FIELD(struct pfm_abi_pmu_info, pfm_pmu_info_t, nevents);
SAME_FIELD(struct pfm_abi_pmu_info, pfm_pmu_info_t, first_event);
_Static_assert(sizeof(struct pfm_abi_pmu_info) == sizeof(pfm_pmu_info_t), "pmu info");

SAME_FIELD(struct pfm_abi_event_info, pfm_event_info_t, name);
SAME_FIELD(struct pfm_abi_event_info, pfm_event_info_t, desc);
SAME_FIELD(struct pfm_abi_event_info, pfm_event_info_t, size);
SAME_FIELD(struct pfm_abi_event_info, pfm_event_info_t, code);
SAME_FIELD(struct pfm_abi_event_info, pfm_event_info_t, pmu);
SAME_FIELD(struct pfm_abi_event_info, pfm_event_info_t, idx);
SAME_FIELD(struct pfm_abi_event_info, pfm_event_info_t, nattrs);
_Static_assert(sizeof(struct pfm_abi_event_info) == sizeof(pfm_event_info_t), "event info");

SAME_FIELD(struct pfm_abi_event_attr_info, pfm_event_attr_info_t, name);
SAME_FIELD(struct pfm_abi_event_attr_info, pfm_event_attr_info_t, desc);
SAME_FIELD(struct pfm_abi_event_attr_info, pfm_event_attr_info_t, size);
SAME_FIELD(struct pfm_abi_event_attr_info, pfm_event_attr_info_t, type);
SAME_FIELD(struct pfm_abi_event_attr_info, pfm_event_attr_info_t, idx);
_Static_assert(sizeof(struct pfm_abi_event_attr_info) == sizeof(pfm_event_attr_info_t), "attr");

_Static_assert(PFM_ABI_PLM0 == PFM_PLM0 && PFM_ABI_PLM3 == PFM_PLM3 && PFM_ABI_PLMH == PFM_PLMH,
	       "plm");
_Static_assert(PFM_ABI_OS_PERF_EVENT_EXT == PFM_OS_PERF_EVENT_EXT && PFM_ABI_OS_NONE == PFM_OS_NONE,
	       "os");
_Static_assert(PFM_ABI_SUCCESS == PFM_SUCCESS && PFM_ABI_ERR_INVAL == PFM_ERR_INVAL &&
	       PFM_ABI_ERR_NOTFOUND == PFM_ERR_NOTFOUND, "errors");
_Static_assert(PFM_ABI_ATTR_UMASK == PFM_ATTR_UMASK, "umask");
_Static_assert(PFM_ABI_PMU_PERF_EVENT == PFM_PMU_PERF_EVENT &&
	       PFM_ABI_PMU_PERF_EVENT_RAW == PFM_PMU_PERF_EVENT_RAW, "pmu ids");
_Static_assert(PFM_ABI_PMU_SCAN_MAX >= PFM_PMU_MAX, "scan every PMU");

/* The struct sizes libpfm4 checks the size fields against (ABI0 of 64-bit). */
static void test_abi_sizes(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct pfm_abi_perf_encode_arg), PFM_PERF_ENCODE_ABI0);
	assert_int_equal(sizeof(struct pfm_abi_pmu_info), PFM_PMU_INFO_ABI0);
	assert_int_equal(sizeof(struct pfm_abi_event_info), PFM_EVENT_INFO_ABI0);
	assert_int_equal(sizeof(struct pfm_abi_event_attr_info), PFM_ATTR_INFO_ABI0);
}

/* ---- parsing vendor names ------------------------------------------------ */

#define NO_MSG 16

static struct event_list list;
static int nr_warn;
static char warn_text[NO_MSG][512];

static void warn_collect(void *ctx, const char *message)
{
	(void)ctx;
	if (nr_warn < NO_MSG)
		snprintf(warn_text[nr_warn], sizeof(warn_text[0]), "%s", message);
	nr_warn++;
}

static const char *fixtures(void)
{
	static char path[4096];
	const char *base = getenv("PFSHIM_TEST_FIXTURES");

	snprintf(path, sizeof(path), "%s/intel", base ? base : "tests/fixtures/sysfs");
	return path;
}

/* The fake tracefs of test_events.c: sched, syscalls and block subsystems. */
static const char *tracefs_fixture(void)
{
	static char path[4096];
	const char *base = getenv("PFSHIM_TEST_FIXTURES");

	snprintf(path, sizeof(path), "%s/../tracefs", base ? base : "tests/fixtures/sysfs");
	return path;
}

static const char *tracefs_root = "";	/* "": the fixture; else this root */

/* Parse @text with libpfm4 assuming CPU @model (NULL: this machine's). */
static int parse_on(const char *model, const char *text)
{
	if (model)
		setenv("LIBPFM_FORCE_PMU", model, 1);
	else
		unsetenv("LIBPFM_FORCE_PMU");
	nr_warn = 0;
	memset(warn_text, 0, sizeof(warn_text));
	return events_parse(text, fixtures(), *tracefs_root ? tracefs_root : tracefs_fixture(),
			    &list, warn_collect, NULL);
}

static void assert_warned(const char *message)
{
	if (nr_warn != 1 || strcmp(warn_text[0], message))
		fail_msg("%d warnings, first \"%s\"; wanted \"%s\"", nr_warn, warn_text[0],
			 message);
}

static const struct {
	const char *model, *name;
	uint32_t type;
	uint64_t config, config1;
} encodings[] = {
	/* Intel Skylake */
	{ "skl", "INST_RETIRED:ANY_P", PERF_TYPE_RAW, 0xc0, 0 },
	{ "skl", "skl::L1D:REPLACEMENT", PERF_TYPE_RAW, 0x151, 0 },
	{ "skl", "MEM_LOAD_RETIRED:L1_MISS", PERF_TYPE_RAW, 0x8d1, 0 },
	{ "skl", "INST_RETIRED:ANY_P:c=1:i=1", PERF_TYPE_RAW, 0x18000c0, 0 },
	/* the offcore response matrix is config1 */
	{ "skl", "OFFCORE_RESPONSE_0:DMND_DATA_RD:L3_MISS", PERF_TYPE_RAW, 0x1b7, 0x3f84000001 },
	/* perf's spellings: libpfm4 reads '.' as ':' */
	{ "skl", "inst_retired.any_p", PERF_TYPE_RAW, 0xc0, 0 },
	{ "skl", "l1d.replacement", PERF_TYPE_RAW, 0x151, 0 },
	/* Intel Ice Lake */
	{ "icl", "INST_RETIRED:ANY_P", PERF_TYPE_RAW, 0xc0, 0 },
	{ "icl", "TOPDOWN:SLOTS", PERF_TYPE_RAW, 0x400, 0 },
	{ "icl", "mem_load_retired.l1_miss", PERF_TYPE_RAW, 0x8d1, 0 },
	/* AMD Zen 3 */
	{ "amd64_fam19h_zen3", "RETIRED_INSTRUCTIONS", PERF_TYPE_RAW, 0xc0, 0 },
	{ "amd64_fam19h_zen3", "CYCLES_NOT_IN_HALT", PERF_TYPE_RAW, 0x76, 0 },
	{ "amd64_fam19h_zen3", "RETIRED_SSE_AVX_FLOPS:ANY", PERF_TYPE_RAW, 0xf03, 0 },
	{ "amd64_fam19h_zen3", "RETIRED_FUSED_INSTRUCTIONS", PERF_TYPE_RAW, 0x1000000d0, 0 },
	/* AMD Zen 2 */
	{ "amd64_fam17h_zen2", "L1_DTLB_MISS:TLB_RELOAD_1G_L2_MISS", PERF_TYPE_RAW, 0x8045, 0 },
	{ "amd64_fam17h_zen2", "RETIRED_BRANCH_INSTRUCTIONS", PERF_TYPE_RAW, 0xc2, 0 },
};

static void test_encodings(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(encodings) / sizeof(encodings[0]); i++) {
		const struct event_spec *e = &list.ev[0];

		if (parse_on(encodings[i].model, encodings[i].name) != 1 || nr_warn)
			fail_msg("%s on %s: %d events, warning \"%s\"", encodings[i].name,
				 encodings[i].model, list.nr, warn_text[0]);
		if (e->attr.type != encodings[i].type || e->attr.config != encodings[i].config ||
		    e->attr.config1 != encodings[i].config1 || e->attr.config2 != 0)
			fail_msg("%s on %s: type %u config %#llx config1 %#llx config2 %#llx",
				 encodings[i].name, encodings[i].model, e->attr.type,
				 (unsigned long long)e->attr.config,
				 (unsigned long long)e->attr.config1,
				 (unsigned long long)e->attr.config2);
		assert_string_equal(e->name, encodings[i].name);	/* as written */
		assert_int_equal(e->kind, REPORT_KIND_PMU);
		assert_false(e->modifiers);
		/* Every privilege level, as a built-in name without modifiers */
		assert_false(e->attr.exclude_user || e->attr.exclude_kernel || e->attr.exclude_hv);
	}
}

static void test_modifiers_and_groups(void **state)
{
	const struct event_spec *e = &list.ev[0];
	(void)state;

	/* pfshim's :u after a vendor name, as after any: perf's meaning */
	assert_int_equal(parse_on("skl", "INST_RETIRED:ANY_P:u"), 1);
	assert_int_equal(nr_warn, 0);
	assert_string_equal(e->name, "INST_RETIRED:ANY_P:u");
	assert_int_equal(e->attr.config, 0xc0);
	assert_true(e->modifiers);
	assert_true(!e->attr.exclude_user && e->attr.exclude_kernel && e->attr.exclude_hv);
	assert_int_equal(parse_on("skl", "inst_retired.any_p:k"), 1);
	assert_true(e->attr.exclude_user && !e->attr.exclude_kernel && e->attr.exclude_hv);

	/* libpfm4's own u=1 chooses the levels too: no unprivileged retry may widen them */
	assert_int_equal(parse_on("skl", "L1D:REPLACEMENT:u=1"), 1);
	assert_int_equal(e->attr.config, 0x151);
	assert_true(e->modifiers);
	assert_true(!e->attr.exclude_user && e->attr.exclude_kernel);

	/* a group of a vendor name and a built-in one, the group's :u on both */
	assert_int_equal(parse_on("skl", "{INST_RETIRED:ANY_P,cycles}:u,task-clock"), 3);
	assert_int_equal(nr_warn, 0);
	assert_int_equal(list.nr_groups, 1);
	assert_string_equal(list.ev[0].name, "INST_RETIRED:ANY_P:u");
	assert_int_equal(list.ev[0].attr.type, PERF_TYPE_RAW);
	assert_int_equal(list.ev[0].attr.config, 0xc0);
	assert_int_equal(list.ev[0].group, 0);
	assert_true(list.ev[0].attr.exclude_kernel);
	assert_string_equal(list.ev[1].name, "cycles:u");
	assert_int_equal(list.ev[1].group, 0);
	assert_int_equal(list.ev[2].group, -1);
}

static void test_unknown_names(void **state)
{
	(void)state;
	/* A name libpfm4 lacks: the message of every unknown name */
	assert_int_equal(parse_on("skl", "NOT_AN_EVENT,task-clock"), 1);
	assert_warned("unknown event 'NOT_AN_EVENT'; the event is skipped");
	assert_int_equal(parse_on("skl", "INST_RETIRD:ANY_P:u"), 0);
	assert_warned("unknown event 'INST_RETIRD:ANY_P' in 'INST_RETIRD:ANY_P:u'; the event is "
		      "skipped");
	/* did-you-mean still offers the built-in and sysfs names */
	assert_int_equal(parse_on("skl", "cylces"), 0);
	assert_warned("unknown event 'cylces' (did you mean 'cycles'?); the event is skipped");
	/* an event libpfm4 knows, with a unit mask it does not */
	assert_int_equal(parse_on("skl", "INST_RETIRED:BOGUS"), 0);
	assert_warned("libpfm4 cannot encode 'INST_RETIRED:BOGUS': invalid event attribute; "
		      "the event is skipped");
	/* a known name with a bad modifier stays one, vendor names or not */
	assert_int_equal(parse_on("skl", "cycles:x"), 0);
	assert_warned("bad modifier 'x' in 'cycles:x': pfshim accepts u, k, h, G, H, I, D, "
		      "S, W, e, p and P (e.g. 'cycles:u'); the event is skipped");
	assert_int_equal(parse_on("skl", "mem-loads:ANY"), 0);	/* a sysfs alias */
	assert_warned("bad modifier 'ANY' in 'mem-loads:ANY': pfshim accepts u, k, h, G, H, "
		      "I, D, S, W, e, p and P (e.g. 'cycles:u'); the event is skipped");
	/* raw events are perf's spelling, not libpfm4's perf_raw one */
	assert_int_equal(parse_on("skl", "r0x1a"), 0);
	assert_warned("unknown event 'r0x1a'; the event is skipped");
}

/* libpfm4's own perf:: PMU: generic events, counted here for real elsewhere
 * (tests/e2e/vendor-events.bats); the kind is the built-in one's. */
static void test_perf_pmu(void **state)
{
	(void)state;
	assert_int_equal(parse_on(NULL, "perf::PERF_COUNT_HW_CPU_CYCLES,PERF_COUNT_SW_PAGE_FAULTS"),
			 2);
	assert_int_equal(list.ev[0].attr.type, PERF_TYPE_HARDWARE);
	assert_int_equal(list.ev[0].attr.config, PERF_COUNT_HW_CPU_CYCLES);
	assert_int_equal(list.ev[0].kind, REPORT_KIND_CYCLES);
	assert_int_equal(list.ev[1].attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(list.ev[1].attr.config, PERF_COUNT_SW_PAGE_FAULTS);
	assert_int_equal(list.ev[1].kind, REPORT_KIND_PMU);
}

/* A process without libpfm4, and without answers kept or handed (pfm_answers.h). */
static void library_missing(void)
{
	pfm_library = "libpfm-missing-for-test.so.4";
	pfm_answers_clear();
}

/* Without libpfm4: one clear message, and nothing else changes. */
static void test_without_libpfm(void **state)
{
	(void)state;
	library_missing();
	assert_int_equal(parse_on("skl", "inst_retired.any_p,task-clock"), 1);
	assert_warned("unknown event 'inst_retired.any_p' (vendor names need libpfm4: apt-get "
		      "install libpfm4); the event is skipped");
	assert_int_equal(parse_on("skl", "INST_RETIRED:ANY_P:u"), 0);
	assert_warned("unknown event 'INST_RETIRED:ANY_P' in 'INST_RETIRED:ANY_P:u' (vendor "
		      "names need libpfm4: apt-get install libpfm4); the event is skipped");
	/* a likelier typo keeps its did-you-mean; the rest is as it was */
	assert_int_equal(parse_on("skl", "cylces"), 0);
	assert_warned("unknown event 'cylces' (did you mean 'cycles'?); the event is skipped");
	assert_int_equal(parse_on("skl", "cycles:x"), 0);
	assert_warned("bad modifier 'x' in 'cycles:x': pfshim accepts u, k, h, G, H, I, D, "
		      "S, W, e, p and P (e.g. 'cycles:u'); the event is skipped");
	assert_int_equal(parse_on("skl", EVENTS_DEFAULT ",mem-loads,cpu/event=0x3c/"), 10);
	assert_int_equal(nr_warn, 0);
	pfm_library = PFM_ABI_SONAME;
}

/*
 * libpfm4 loaded but with tables for no core PMU here (a CPU newer than the
 * library; LIBPFM_FORCE_PMU=perf: its generic PMU alone): an unknown name
 * says so, where a known CPU's says nothing more; a likelier typo keeps its
 * did-you-mean.
 */
static void test_cpu_unknown_to_libpfm(void **state)
{
	(void)state;
	assert_int_equal(parse_on("perf", "INST_RETIRED:ANY_P"), 0);
	assert_warned("unknown event 'INST_RETIRED:ANY_P' (" PFM_CPU_UNKNOWN_WHY "); the event is "
		      "skipped");
	assert_int_equal(parse_on("perf", "cylces"), 0);
	assert_warned("unknown event 'cylces' (did you mean 'cycles'?); the event is skipped");
	assert_int_equal(parse_on("skl", "INST_RETIRED:NO_SUCH_UMASK"), 0);
	assert_int_equal(nr_warn, 1);
	assert_null(strstr(warn_text[0], "no tables"));
}

/*
 * "a:b" is perf's tracepoint and libpfm4's vendor name (events.c,
 * qualified_resolve()): tracefs first when it has subsystem a, else
 * libpfm4; when neither knows it, a lower-case one is a tracepoint tracefs
 * explains, any other an unknown event.
 */
static void test_tracepoint_or_vendor(void **state)
{
	(void)state;
	/* tracefs has 'sched': its tracepoint; libpfm4 has INST_RETIRED */
	assert_int_equal(parse_on("skl", "sched:sched_switch:u,INST_RETIRED:ANY_P:k"), 2);
	assert_int_equal(nr_warn, 0);
	assert_int_equal(list.ev[0].attr.type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(list.ev[0].attr.config, 316);
	assert_true(list.ev[0].attr.exclude_kernel && !list.ev[0].attr.exclude_user);
	assert_int_equal(list.ev[1].attr.type, PERF_TYPE_RAW);
	assert_int_equal(list.ev[1].attr.config, 0xc0);
	assert_true(list.ev[1].attr.exclude_user && !list.ev[1].attr.exclude_kernel);
	/* a glob is tracefs's: libpfm4 has none */
	assert_int_equal(parse_on("skl", "block:*"), 3);
	assert_int_equal(nr_warn, 0);
	/* neither knows it: what the name looks like */
	assert_int_equal(parse_on("skl", "shed:sched_switch"), 0);
	assert_warned("unknown tracepoint subsystem 'shed' in 'shed:sched_switch' (did you mean "
		      "'sched'?); the event is skipped");
	assert_int_equal(parse_on("skl", "NOT_AN_EVENT:ANY"), 0);
	assert_warned("unknown event 'NOT_AN_EVENT:ANY'; the event is skipped");
	/* a subsystem tracefs has, and more than a tracepoint after it */
	assert_int_equal(parse_on("skl", "sched:sched_switch:x"), 0);
	assert_warned("bad modifier 'x' in 'sched:sched_switch:x': pfshim accepts u, k, h, G, H, "
		      "I, D, S, W, e, p and P (e.g. 'cycles:u'); the event is skipped");
	assert_int_equal(parse_on("skl", "sched::u"), 0);
	assert_warned("missing tracepoint name after ':' in 'sched::u'; the event is skipped");
	/* No tracefs: vendor names still count; a tracepoint says why not */
	tracefs_root = "/nonexistent";
	assert_int_equal(parse_on("skl", "sched:sched_switch,INST_RETIRED:ANY_P"), 1);
	assert_warned("'sched:sched_switch': no tracefs events directory in /nonexistent; the "
		      "event is skipped");
	assert_int_equal(list.ev[0].attr.config, 0xc0);
	/* Nor libpfm4: each name's own message */
	library_missing();
	assert_int_equal(parse_on("skl", "sched:sched_switch"), 0);
	assert_warned("'sched:sched_switch': no tracefs events directory in /nonexistent; the "
		      "event is skipped");
	assert_int_equal(parse_on("skl", "INST_RETIRED:ANY_P"), 0);
	assert_warned("unknown event 'INST_RETIRED:ANY_P' (vendor names need libpfm4: apt-get "
		      "install libpfm4); the event is skipped");
	pfm_library = PFM_ABI_SONAME;
	tracefs_root = "";
}

/*
 * libpfm4's answers, kept and handed on (pfm_answers.h): a process handed
 * them resolves as libpfm4 did, without it; a name they lack, or another
 * LIBPFM_FORCE_PMU, goes to libpfm4 again.
 */
static void test_answers_handed(void **state)
{
	const char *text = "INST_RETIRED:ANY_P:k,skl::L1D:REPLACEMENT,NOT_AN_EVENT:ANY,"
			   "INST_RETIRED:BOGUS,task-clock";
	struct event_list direct;
	char handed[4096];
	(void)state;

	pfm_answers_clear();
	assert_int_equal(parse_on("skl", text), 3);
	assert_int_equal(nr_warn, 2);
	direct = list;
	assert_true(pfm_answers_format(4242, handed, sizeof(handed)) > 0);
	/* The next image: no libpfm4, only what it was handed */
	library_missing();
	assert_int_equal(pfm_answers_take(handed, 4243), -EINVAL);	/* for another process */
	assert_int_equal(pfm_answers_take(handed, 4242), 0);
	assert_int_equal(parse_on("skl", text), 3);
	assert_string_equal(warn_text[0], "unknown event 'NOT_AN_EVENT:ANY'; the event is skipped");
	assert_string_equal(warn_text[1], "libpfm4 cannot encode 'INST_RETIRED:BOGUS': invalid "
			    "event attribute; the event is skipped");
	assert_int_equal(nr_warn, 2);
	for (int i = 0; i < 3; i++) {
		assert_string_equal(list.ev[i].name, direct.ev[i].name);
		assert_memory_equal(&list.ev[i].attr, &direct.ev[i].attr, sizeof(list.ev[i].attr));
		assert_int_equal(list.ev[i].kind, direct.ev[i].kind);
		assert_int_equal(list.ev[i].modifiers, direct.ev[i].modifiers);
	}
	/* a name it was not handed: libpfm4's, missing here */
	assert_int_equal(parse_on("skl", "INST_RETIRED:ANY_P,BR_INST_RETIRED:ALL_BRANCHES"), 1);
	assert_warned("unknown event 'BR_INST_RETIRED:ALL_BRANCHES' (vendor names need libpfm4: "
		      "apt-get install libpfm4); the event is skipped");
	/* another CPU model for libpfm4: none of them holds */
	assert_int_equal(parse_on("amd64_fam17h", "INST_RETIRED:ANY_P"), 0);
	assert_warned("unknown event 'INST_RETIRED:ANY_P' (vendor names need libpfm4: apt-get "
		      "install libpfm4); the event is skipped");
	pfm_library = PFM_ABI_SONAME;
	pfm_answers_clear();
}

/*
 * A name the parser asked libpfm4 for, in the image before ours (all of
 * built-in, sysfs and tracefs knew none such there: pfm_answers.h), goes
 * straight to the answer: sysfs is not read for it again. Shown with a
 * sysfs tree that would make "INST_RETIRED:ANY_P" a bad modifier of an
 * alias INST_RETIRED, and that a fresh process does read.
 */
static void test_answers_skip_sysfs(void **state)
{
	char root[] = "/tmp/pfshim-test-sysfs.XXXXXX", path[4096];
	const char *text = "INST_RETIRED:ANY_P", *why;
	struct perf_event_attr attr;
	struct pfm_names r;
	(void)state;

	assert_non_null(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/cpu", root);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/cpu/events", root);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/cpu/format", root);
	assert_int_equal(mkdir(path, 0700), 0);
	file_put(root, "cpu/type", "4\n");
	file_put(root, "cpu/format/event", "config:0-7\n");
	file_put(root, "cpu/events/INST_RETIRED", "event=0x3c\n");

	pfm_answers_clear();
	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	nr_warn = 0;
	assert_int_equal(events_parse(text, root, tracefs_fixture(), &list, warn_collect, NULL), 0);
	assert_warned("bad modifier 'ANY_P' in 'INST_RETIRED:ANY_P': pfshim accepts u, k, h, G, H, "
		      "I, D, S, W, e, p and P (e.g. 'cycles:u'); the event is skipped");
	/* asked of libpfm4 by the parser under the fixture tree, where no alias is */
	assert_int_equal(parse_on("skl", text), 1);
	assert_false(pfm_answer_parsed("INST_RETIRED"));
	assert_true(pfm_answer_parsed(text));
	nr_warn = 0;
	assert_int_equal(events_parse(text, root, tracefs_fixture(), &list, warn_collect, NULL), 1);
	assert_int_equal(nr_warn, 0);
	assert_int_equal(list.ev[0].attr.config, 0xc0);
	/* an answer asked by another caller (pfm_encode(): the metric groups') is not one */
	pfm_answers_clear();
	pfm_names_start(&r, NULL);
	assert_int_equal(pfm_encode(&r, text, &attr, &why), 0);
	pfm_names_end(&r);
	assert_false(pfm_answer_parsed(text));
	snprintf(path, sizeof(path), "rm -r %s", root);
	assert_int_equal(system(path), 0);
	pfm_answers_clear();
	unsetenv("LIBPFM_FORCE_PMU");
}

/* The list pfshim list prints: every event and unit mask of the forced model. */
static void list_count(void *ctx, const struct pfm_listed *e)
{
	int *n = ctx;

	if (!strcmp(e->pmu, "skl") && !strcmp(e->event, "INST_RETIRED") && e->umask &&
	    !strcmp(e->umask, "ANY_P") && e->desc[0])
		n[0]++;
	if (strcmp(e->pmu, "skl"))
		n[1]++;
	n[2]++;
}

static void test_list(void **state)
{
	struct pfm_names r;
	int n[3] = { 0, 0, 0 };
	(void)state;

	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	pfm_names_start(&r, NULL);
	assert_int_equal(pfm_names_list(&r, list_count, n), 0);
	pfm_names_end(&r);
	assert_int_equal(n[0], 1);	/* INST_RETIRED:ANY_P, described */
	assert_int_equal(n[1], 0);	/* only the forced model: not perf::, not perf_raw:: */
	assert_true(n[2] > 100);
	library_missing();
	pfm_names_start(&r, NULL);
	assert_int_equal(pfm_names_list(&r, list_count, n), -ENOSYS);
	assert_string_equal(pfm_names_why(&r), "vendor names need libpfm4: apt-get install libpfm4");
	pfm_names_end(&r);
	pfm_library = PFM_ABI_SONAME;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_abi_sizes),
		cmocka_unit_test(test_encodings),
		cmocka_unit_test(test_modifiers_and_groups),
		cmocka_unit_test(test_unknown_names),
		cmocka_unit_test(test_perf_pmu),
		cmocka_unit_test(test_without_libpfm),
		cmocka_unit_test(test_cpu_unknown_to_libpfm),
		cmocka_unit_test(test_tracepoint_or_vendor),
		cmocka_unit_test(test_answers_handed),
		cmocka_unit_test(test_answers_skip_sysfs),
		cmocka_unit_test(test_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
