/* SPDX-License-Identifier: MIT */
/*
 * test_events.c: preload/events/events.c, perf's event syntax into perf_event_attr.
 * Every form with the exact type/config/config1/config2/exclude_* bits, and
 * every malformed input with the exact warning, against the fake sysfs trees
 * in tests/fixtures/sysfs/ (Intel-like, AMD-like, arm64).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "preload/events/events.h"
#include "preload/events/suggest.h"

#define NO_MSG 32

struct warnings {
	int nr;
	char msg[NO_MSG][512];
};

static void warn_collect(void *ctx, const char *message)
{
	struct warnings *w = ctx;

	if (w->nr < NO_MSG)
		snprintf(w->msg[w->nr], sizeof(w->msg[0]), "%s", message);
	w->nr++;
}

static const char *fixtures(const char *tree)
{
	static char path[4096];
	const char *base = getenv("PFSHIM_TEST_FIXTURES");

	snprintf(path, sizeof(path), "%s/%s", base ? base : "tests/fixtures/sysfs", tree);
	return path;
}

/* The fake tracefs, beside the sysfs trees (a buffer of its own). */
static const char *tracefs_fixture(void)
{
	static char path[4096];
	const char *base = getenv("PFSHIM_TEST_FIXTURES");

	snprintf(path, sizeof(path), "%s/../tracefs", base ? base : "tests/fixtures/sysfs");
	return path;
}

static struct event_list list;
static struct warnings warns;

static int parse_in(const char *tree, const char *text)
{
	memset(&warns, 0, sizeof(warns));
	return events_parse(text, fixtures(tree), tracefs_fixture(), &list, warn_collect,
			    &warns);
}

static int parse(const char *text)
{
	return parse_in("intel", text);
}

/* Parse one item that must be accepted silently. */
static const struct event_spec *parse_one_in(const char *tree, const char *text)
{
	int n = parse_in(tree, text);

	if (warns.nr)
		fail_msg("'%s': unexpected warning: %s", text, warns.msg[0]);
	if (n != 1)
		fail_msg("'%s': %d events", text, n);
	return &list.ev[0];
}

static const struct event_spec *parse_one(const char *text)
{
	return parse_one_in("intel", text);
}

static void assert_attr(const struct event_spec *e, uint32_t type, uint64_t config,
			uint64_t config1, uint64_t config2)
{
	assert_int_equal(e->attr.type, type);
	assert_int_equal(e->attr.config, config);
	assert_int_equal(e->attr.config1, config1);
	assert_int_equal(e->attr.config2, config2);
	assert_int_equal(e->attr.size, sizeof(e->attr));
}

static void assert_excludes(const struct event_spec *e, int user, int kernel, int hv)
{
	assert_int_equal(e->attr.exclude_user, user);
	assert_int_equal(e->attr.exclude_kernel, kernel);
	assert_int_equal(e->attr.exclude_hv, hv);
}

/* Exactly one warning, containing @phrase. */
static void assert_warned(const char *phrase)
{
	if (warns.nr != 1)
		fail_msg("expected one warning with \"%s\", got %d (first: %s)", phrase, warns.nr,
			 warns.nr ? warns.msg[0] : "-");
	if (!strstr(warns.msg[0], phrase))
		fail_msg("warning \"%s\" lacks \"%s\"", warns.msg[0], phrase);
}

struct named {
	const char *name;
	uint32_t type;
	uint64_t config;
};

static void assert_table(const struct named *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct event_spec *e = parse_one(t[i].name);

		if (e->attr.type != t[i].type || e->attr.config != t[i].config)
			fail_msg("%s: type %u config %#llx", t[i].name, e->attr.type,
				 (unsigned long long)e->attr.config);
		assert_string_equal(e->name, t[i].name);
		assert_int_equal(e->group, -1);
		assert_false(e->modifiers);
		assert_excludes(e, 0, 0, 0);
	}
}

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

static void test_hardware_names(void **state)
{
	static const struct named t[] = {
		{ "cycles", 0, 0 }, { "cpu-cycles", 0, 0 }, { "instructions", 0, 1 },
		{ "cache-references", 0, 2 }, { "cache-misses", 0, 3 }, { "branches", 0, 4 },
		{ "branch-instructions", 0, 4 }, { "branch-misses", 0, 5 },
		{ "bus-cycles", 0, 6 }, { "stalled-cycles-frontend", 0, 7 },
		{ "idle-cycles-frontend", 0, 7 }, { "stalled-cycles-backend", 0, 8 },
		{ "idle-cycles-backend", 0, 8 }, { "ref-cycles", 0, 9 },
	};
	(void)state;
	assert_table(t, LEN(t));
	assert_true(list.ev[0].scale == 1.0);
	assert_string_equal(list.ev[0].unit, "");
}

static void test_software_names(void **state)
{
	static const struct named t[] = {
		{ "cpu-clock", 1, 0 }, { "task-clock", 1, 1 }, { "page-faults", 1, 2 },
		{ "faults", 1, 2 }, { "context-switches", 1, 3 }, { "cs", 1, 3 },
		{ "cpu-migrations", 1, 4 }, { "migrations", 1, 4 }, { "minor-faults", 1, 5 },
		{ "major-faults", 1, 6 }, { "alignment-faults", 1, 7 },
		{ "emulation-faults", 1, 8 },
	};
	const struct event_spec *e;
	(void)state;

	assert_table(t, LEN(t));
	e = parse_one("task-clock");
	assert_true(e->scale == 1e-6);
	assert_string_equal(e->unit, "msec");
	e = parse_one("cpu-clock");
	assert_true(e->scale == 1e-6);
	assert_string_equal(e->unit, "msec");
	e = parse_one("page-faults");
	assert_true(e->scale == 1.0);
	assert_string_equal(e->unit, "");
}

static void test_hw_cache_names(void **state)
{
	/* id | op << 8 | result << 16: L1D 0, L1I 1, LL 2, DTLB 3, ITLB 4, BPU 5, NODE 6;
	 * read 0, write 1, prefetch 2; access 0, miss 1. */
	static const struct named t[] = {
		{ "L1-dcache-loads", 3, 0x00000 }, { "L1-dcache-load-misses", 3, 0x10000 },
		{ "L1-dcache-stores", 3, 0x00100 }, { "L1-dcache-store-misses", 3, 0x10100 },
		{ "L1-dcache-prefetches", 3, 0x00200 },
		{ "L1-dcache-prefetch-misses", 3, 0x10200 },
		{ "L1-icache-loads", 3, 0x00001 }, { "L1-icache-load-misses", 3, 0x10001 },
		{ "LLC-loads", 3, 0x00002 }, { "LLC-load-misses", 3, 0x10002 },
		{ "LLC-stores", 3, 0x00102 }, { "LLC-prefetch-misses", 3, 0x10202 },
		{ "dTLB-loads", 3, 0x00003 }, { "dTLB-load-misses", 3, 0x10003 },
		{ "dTLB-store-misses", 3, 0x10103 },
		{ "iTLB-loads", 3, 0x00004 }, { "iTLB-load-misses", 3, 0x10004 },
		{ "branch-loads", 3, 0x00005 }, { "branch-load-misses", 3, 0x10005 },
		{ "node-loads", 3, 0x00006 }, { "node-store-misses", 3, 0x10106 },
	};
	(void)state;
	assert_table(t, LEN(t));
}

static void test_hw_cache_refused_ops(void **state)
{
	(void)state;
	assert_int_equal(parse("iTLB-stores"), 0);
	assert_warned("unknown hardware-cache event 'iTLB-stores': that cache supports loads "
		      "only; the event is skipped");
	assert_int_equal(parse("L1-icache-store-misses"), 0);
	assert_warned("that cache supports loads and prefetches");
	assert_int_equal(parse("branch-prefetches"), 0);
	assert_warned("'branch-prefetches'");
}

static void test_raw(void **state)
{
	const struct event_spec *e;
	(void)state;

	e = parse_one("r01c2");
	assert_attr(e, PERF_TYPE_RAW, 0x1c2, 0, 0);
	e = parse_one("rFFFFFFFFFFFFFFFF");
	assert_attr(e, PERF_TYPE_RAW, UINT64_MAX, 0, 0);
	e = parse_one("r1a:u");
	assert_attr(e, PERF_TYPE_RAW, 0x1a, 0, 0);
	assert_excludes(e, 0, 1, 1);
	assert_int_equal(parse("r0x1a"), 0);		/* perf: no 0x after r */
	assert_warned("unknown event 'r0x1a'");
	assert_int_equal(parse("r"), 0);
	assert_warned("unknown event 'r'");
	assert_int_equal(parse("r11112222333344445"), 0);	/* 17 digits */
	assert_warned("unknown event 'r11112222333344445'");
}

static void test_modifiers(void **state)
{
	static const struct {
		const char *text;
		int eu, ek, eh;
	} t[] = {
		{ "cycles:u", 0, 1, 1 }, { "cycles:k", 1, 0, 1 }, { "cycles:h", 1, 1, 0 },
		{ "cycles:uk", 0, 0, 1 }, { "cycles:ku", 0, 0, 1 }, { "cycles:kh", 1, 0, 0 },
		{ "cycles:ukh", 0, 0, 0 }, { "cycles:uu", 0, 1, 1 },
		{ "task-clock:u", 0, 1, 1 }, { "L1-dcache-loads:k", 1, 0, 1 },
		{ "cpu/event=0x3c/u", 0, 1, 1 }, { "cpu/event=0x3c/:k", 1, 0, 1 },
		{ "mem-loads:uk", 0, 0, 1 },
	};
	(void)state;

	for (size_t i = 0; i < LEN(t); i++) {
		const struct event_spec *e = parse_one(t[i].text);

		assert_string_equal(e->name, t[i].text);
		assert_true(e->modifiers);
		if (e->attr.exclude_user != t[i].eu || e->attr.exclude_kernel != t[i].ek ||
		    e->attr.exclude_hv != t[i].eh)
			fail_msg("%s: exclude u%d k%d h%d", t[i].text, e->attr.exclude_user,
				 e->attr.exclude_kernel, e->attr.exclude_hv);
	}
	assert_int_equal(parse("cycles:u")  , 1);
	assert_attr(&list.ev[0], PERF_TYPE_HARDWARE, 0, 0, 0);
}

static void test_bad_modifiers(void **state)
{
	(void)state;
	assert_int_equal(parse("cycles:x,instructions"), 1);
	/* "x" is no modifier, so perf's syntax reads a tracepoint: but 'cycles' is an event. */
	assert_warned("bad modifier 'x' in 'cycles:x': pfshim accepts u, k, h, G, H, I, D, S, "
		      "W, e, p and P (e.g. 'cycles:u'); the event is skipped");
	assert_string_equal(list.ev[0].name, "instructions");
	assert_int_equal(parse("cycles:"), 0);
	assert_warned("bad modifier '' in 'cycles:'");
	assert_int_equal(parse("r01c2:uq"), 0);
	assert_warned("bad modifier 'uq' in 'r01c2:uq'");
	assert_int_equal(parse("L1-dcache-loads:x:u"), 0);
	assert_warned("bad modifier 'x:u' in 'L1-dcache-loads:x:u'");
	assert_int_equal(parse("cpu/event=1/x"), 0);
	assert_warned("bad modifier 'x' in 'cpu/event=1/x'");
	assert_int_equal(parse(":u"), 0);
	assert_warned("missing event name before ':' in ':u'");
	assert_int_equal(parse("{cycles,instructions}:q,branches"), 1);
	assert_warned("bad modifier 'q' after the group '{cycles,instructions}'");
	assert_int_equal(list.nr_groups, 0);
}

/* Each of perf's counting modifiers and the attr bit it sets, alone. */
static void test_counting_modifiers(void **state)
{
	static const struct {
		const char *text;
		int pinned, excl_idle, excl_host, excl_guest, exclusive, weak, priv;
	} t[] = {
		{ "cycles:D", 1, 0, 0, 0, 0, 0, 0 },
		{ "cycles:I", 0, 1, 0, 0, 0, 0, 0 },
		{ "cycles:G", 0, 0, 1, 0, 0, 0, 0 },
		{ "cycles:H", 0, 0, 0, 1, 0, 0, 0 },
		{ "cycles:GH", 0, 0, 0, 0, 0, 0, 0 },	/* both: neither excluded, as perf */
		{ "cycles:HG", 0, 0, 0, 0, 0, 0, 0 },
		{ "cycles:e", 0, 0, 0, 0, 1, 0, 0 },
		{ "cycles:W", 0, 0, 0, 0, 0, 1, 0 },
		{ "cycles:S", 0, 0, 0, 0, 0, 0, 0 },	/* groups are read whole already */
		{ "cycles:uDIe", 1, 1, 0, 0, 1, 0, 1 },
		{ "task-clock:IG", 0, 1, 1, 0, 0, 0, 0 },
		{ "cpu/event=0x3c/D", 1, 0, 0, 0, 0, 0, 0 },
		{ "mem-loads:He", 0, 0, 0, 1, 1, 0, 0 },
	};
	(void)state;

	for (size_t i = 0; i < LEN(t); i++) {
		const struct event_spec *e = parse_one(t[i].text);

		assert_string_equal(e->name, t[i].text);
		if (e->attr.pinned != t[i].pinned || e->attr.exclude_idle != t[i].excl_idle ||
		    e->attr.exclude_host != t[i].excl_host ||
		    e->attr.exclude_guest != t[i].excl_guest ||
		    e->attr.exclusive != t[i].exclusive || e->weak != t[i].weak ||
		    e->modifiers != t[i].priv)
			fail_msg("%s: pinned %d idle %d host %d guest %d exclusive %d weak %d "
				 "modifiers %d", t[i].text, e->attr.pinned, e->attr.exclude_idle,
				 e->attr.exclude_host, e->attr.exclude_guest, e->attr.exclusive,
				 e->weak, e->modifiers);
		/* Without u, k or h the privilege levels are left to the shim. */
		if (!t[i].priv)
			assert_excludes(e, 0, 0, 0);
		assert_int_equal(e->attr.precise_ip, 0);
		assert_int_equal(e->attr.sample_type, 0);
	}
	assert_excludes(parse_one("cycles:uDIe"), 0, 1, 1);
}

static void test_precise_is_for_sampling(void **state)
{
	(void)state;
	assert_int_equal(parse("cycles:ppp"), 1);
	assert_warned("modifier 'ppp' of 'cycles:ppp' is for sampling only (precise_ip): "
		      "counted without it");
	assert_int_equal(list.ev[0].attr.precise_ip, 0);
	assert_string_equal(list.ev[0].name, "cycles:ppp");
	assert_int_equal(parse("cycles:uP"), 1);
	assert_warned("modifier 'uP' of 'cycles:uP'");
	assert_excludes(&list.ev[0], 0, 1, 1);
	assert_int_equal(parse("{cycles,instructions}:p"), 2);
	assert_warned("modifier 'p' of a group is for sampling only");
	assert_int_equal(list.ev[1].attr.precise_ip, 0);
	assert_int_equal(parse("cycles:pppp"), 0);	/* precise_ip stops at 3: a tracepoint */
	assert_warned("bad modifier 'pppp' in 'cycles:pppp'");
}

/* A group's modifiers on every member; W and D as a group asks them. */
static void test_group_counting_modifiers(void **state)
{
	(void)state;
	assert_int_equal(parse("{cycles,instructions:k}:WDe,branches"), 3);
	assert_int_equal(warns.nr, 0);
	for (int i = 0; i < 2; i++) {
		assert_true(list.ev[i].weak);
		assert_int_equal(list.ev[i].attr.pinned, 1);
		assert_int_equal(list.ev[i].attr.exclusive, 1);
	}
	assert_string_equal(list.ev[0].name, "cycles:WDe");
	assert_string_equal(list.ev[1].name, "instructions:kWDe");
	assert_excludes(&list.ev[1], 1, 0, 1);
	assert_false(list.ev[0].modifiers);	/* no u, k or h in the group's letters */
	assert_false(list.ev[2].weak);
	assert_int_equal(list.ev[2].attr.pinned, 0);
	/* A member's G with its group's H is G and H: neither excluded. */
	assert_int_equal(parse("{cycles:G,instructions}:H"), 2);
	assert_string_equal(list.ev[0].name, "cycles:GH");
	assert_int_equal(list.ev[0].attr.exclude_host, 0);
	assert_int_equal(list.ev[0].attr.exclude_guest, 0);
	assert_int_equal(list.ev[1].attr.exclude_guest, 1);
}

static void test_groups(void **state)
{
	(void)state;
	assert_int_equal(parse("task-clock,{cycles,instructions},page-faults,{branches:k,"
			       "branch-misses}:u"), 6);
	assert_int_equal(warns.nr, 0);
	assert_int_equal(list.nr_groups, 2);
	assert_int_equal(list.ev[0].group, -1);
	assert_int_equal(list.ev[1].group, 0);
	assert_int_equal(list.ev[2].group, 0);
	assert_int_equal(list.ev[3].group, -1);
	assert_int_equal(list.ev[4].group, 1);
	assert_int_equal(list.ev[5].group, 1);
	assert_false(list.ev[1].modifiers);
	/* The group's :u applies to all; a member's own :k is kept beside it. */
	assert_string_equal(list.ev[4].name, "branches:ku");
	assert_excludes(&list.ev[4], 0, 0, 1);
	assert_string_equal(list.ev[5].name, "branch-misses:u");
	assert_excludes(&list.ev[5], 0, 1, 1);
	assert_true(list.ev[5].modifiers);
	assert_attr(&list.ev[5], PERF_TYPE_HARDWARE, 5, 0, 0);
}

static void test_group_keeps_good_members(void **state)
{
	(void)state;
	assert_int_equal(parse("{cycles,cylces,instructions},{nope}"), 2);
	assert_int_equal(list.nr_groups, 1);
	assert_int_equal(list.ev[1].group, 0);
	/* {nope} had no good member: it is no group, and said so once. */
	assert_int_equal(warns.nr, 2);
	assert_non_null(strstr(warns.msg[0], "unknown event 'cylces' (did you mean 'cycles'?)"));
	assert_non_null(strstr(warns.msg[1], "unknown event 'nope'"));
}

static void test_whitespace(void **state)
{
	(void)state;
	assert_int_equal(parse("  cycles ,\tinstructions\n, { branches , cs } : u ,"
			       "cpu/event=0x3c/ \n"), 5);
	assert_int_equal(warns.nr, 0);
	assert_string_equal(list.ev[3].name, "cs:u");
	assert_int_equal(parse(" cycles ,\tinstructions\n, { branches , cs }:u ,"
			       " cpu/ event = 0x3c , umask=1 / \n"), 5);
	assert_int_equal(warns.nr, 0);
	assert_string_equal(list.ev[0].name, "cycles");
	assert_string_equal(list.ev[1].name, "instructions");
	assert_string_equal(list.ev[2].name, "branches:u");
	assert_attr(&list.ev[4], 4, 0x13c, 0, 0);
}

static void test_intel_terms(void **state)
{
	const struct event_spec *e;
	(void)state;

	e = parse_one("cpu/event=0x3c,umask=0x1,config1=2/");
	assert_attr(e, 4, 0x13c, 2, 0);
	assert_false(e->modifiers);
	e = parse_one("cpu/event=0xc0,umask=0x00,edge,inv,cmask=3/");
	assert_attr(e, 4, 0x038400c0, 0, 0);
	e = parse_one("cpu/event=0xcd,umask=1,ldlat=0xffff/");
	assert_attr(e, 4, 0x1cd, 0xffff, 0);
	e = parse_one("cpu/event=0xc6,frontend=0x400406/");
	assert_attr(e, 4, 0xc6, 0x400406, 0);
	e = parse_one("cpu/config=0x1234,config1=5,config2=0xffffffffffffffff/");
	assert_attr(e, 4, 0x1234, 5, UINT64_MAX);
	e = parse_one("cpu/config=0x5300c0,event=0x3c/");	/* a term after config= edits it */
	assert_attr(e, 4, 0x53003c, 0, 0);
	e = parse_one("cpu/event=10,umask=255/");		/* decimal */
	assert_attr(e, 4, 0xff0a, 0, 0);
	e = parse_one("fixture_pmu/lo=3,hi=0xf,bit/");
	assert_attr(e, 42, 0, 0x20, 0xf000000000000003ULL);
	e = parse_one("msr/event=0xffffffffffffffff/");
	assert_attr(e, 9, UINT64_MAX, 0, 0);
	e = parse_one("software/config=3/");
	assert_attr(e, 1, 3, 0, 0);
}

static void test_named_pmu_events(void **state)
{
	const struct event_spec *e;
	(void)state;

	e = parse_one("cpu/mem-loads/");
	assert_attr(e, 4, 0x1cd, 3, 0);
	e = parse_one("cpu/mem-loads,ldlat=5/");		/* later term overrides the alias */
	assert_attr(e, 4, 0x1cd, 5, 0);
	e = parse_one("cpu/fixture-inv/");			/* "inv" without value is 1 */
	assert_attr(e, 4, 0x800002, 3, 0);
	e = parse_one("cpu/topdown-fe-bound/");
	assert_attr(e, 4, 0x8200, 0, 0);
	e = parse_one("mem-loads");				/* bare alias, as perf */
	assert_attr(e, 4, 0x1cd, 3, 0);
	assert_string_equal(e->name, "mem-loads");
	e = parse_one("cpu/cpu-cycles/");
	assert_attr(e, 4, 0x3c, 0, 0);
	e = parse_one("cycles");				/* built-in wins over sysfs */
	assert_attr(e, 0, 0, 0, 0);
}

static void test_scale_unit(void **state)
{
	const struct event_spec *e;
	(void)state;

	e = parse_one("power/energy-pkg/");
	assert_attr(e, 21, 2, 0, 0);
	assert_true(e->scale == 2.3283064365386962890625e-10);
	assert_string_equal(e->unit, "Joules");
	e = parse_one("energy-cores");
	assert_attr(e, 21, 1, 0, 0);
	assert_string_equal(e->unit, "Joules");
	e = parse_one("power/event=0x02/");		/* no alias named: no scale */
	assert_true(e->scale == 1.0);
	assert_string_equal(e->unit, "");
	e = parse_one("cpu/topdown-retiring/");
	assert_true(e->scale == 5.0);
}

static void test_amd_split_event(void **state)
{
	const struct event_spec *e;
	(void)state;

	e = parse_one_in("amd", "cpu/event=0x1ab,umask=2/");
	assert_attr(e, 4, 0x1000002abULL, 0, 0);
	e = parse_one_in("amd", "cpu/event=0xfff/");
	assert_attr(e, 4, 0xf000000ffULL, 0, 0);
	assert_int_equal(parse_in("amd", "cpu/event=0x1000/"), 0);
	assert_warned("value 0x1000 of term 'event' is too wide for PMU 'cpu' (format "
		      "config:0-7,32-35 holds 12 bits) in 'cpu/event=0x1000/'; the event is skipped");
}

static void test_arm64(void **state)
{
	const struct event_spec *e;
	(void)state;

	e = parse_one_in("arm64", "armv8_pmuv3/event=0x11,rdpmc=1,long=1/");
	assert_attr(e, 8, 0x11, 3, 0);
	e = parse_one_in("arm64", "armv8_pmuv3/cpu_cycles,rdpmc/");
	assert_attr(e, 8, 0x11, 2, 0);
	e = parse_one_in("arm64", "inst_retired:u");
	assert_attr(e, 8, 0x8, 0, 0);
	assert_excludes(e, 0, 1, 1);
	e = parse_one_in("arm64", "armv8_pmuv3/inst_retired/u");
	assert_attr(e, 8, 0x8, 0, 0);
	assert_excludes(e, 0, 1, 1);
	assert_int_equal(parse_in("arm64", "armv8_pmuv3/rdpmc=2/"), 0);
	assert_warned("format config1:1 holds 1 bits");
	assert_int_equal(parse_in("arm64", "armv8_pmuv3/event=0x10000/"), 0);
	assert_warned("too wide");
}

static void test_did_you_mean(void **state)
{
	(void)state;
	assert_int_equal(parse("cylces"), 0);
	assert_warned("unknown event 'cylces' (did you mean 'cycles'?); the event is skipped");
	assert_int_equal(parse("pgae-faults"), 0);
	assert_warned("unknown event 'pgae-faults' (did you mean 'page-faults'?)");
	assert_int_equal(parse("L1-dcache-lod-misses"), 0);
	assert_warned("(did you mean 'L1-dcache-load-misses'?)");
	assert_int_equal(parse("mem-laods"), 0);		/* a sysfs alias */
	assert_warned("(did you mean 'mem-loads'?)");
	assert_int_equal(parse("instructions:u,zzzzzzzzzzzz"), 1);
	/* nothing close: no guess (and, where libpfm4 knows no PMU of this CPU, that said: test_pfm.c) */
	assert_warned("unknown event 'zzzzzzzzzzzz'");
	assert_null(strstr(warns.msg[0], "did you mean"));
	assert_int_equal(parse("cylces:u"), 0);
	assert_warned("unknown event 'cylces' in 'cylces:u' (did you mean 'cycles'?)");
}

static void test_suggest_distance(void **state)
{
	struct suggest s;
	char buf[160];
	(void)state;

	assert_int_equal(suggest_distance("cylces", 6, "cycles", 6), 1);	/* swap */
	assert_int_equal(suggest_distance("pgae-faults", 11, "page-faults", 11), 1);
	assert_int_equal(suggest_distance("kitten", 6, "sitting", 7), 3);
	assert_int_equal(suggest_distance("", 0, "abc", 3), 3);
	assert_int_equal(suggest_distance("cs", 2, "cs", 2), 0);

	suggest_init(&s, "instrutcions");
	suggest_consider(&s, "instructions");
	suggest_consider(&s, "instructions-x");
	assert_string_equal(suggest_text(&s, buf, sizeof(buf)), " (did you mean 'instructions'?)");
	suggest_init(&s, "zzzz");
	suggest_consider(&s, "cycles");
	assert_string_equal(suggest_text(&s, buf, sizeof(buf)), "");
}

static void test_pmu_errors(void **state)
{
	(void)state;
	assert_int_equal(parse("cpux/event=1/"), 0);
	assert_warned("unknown PMU 'cpux' in 'cpux/event=1/' (did you mean 'cpu'?)");
	assert_int_equal(parse("cpu/evnt=1/"), 0);
	assert_warned("unknown format term 'evnt' for PMU 'cpu' in 'cpu/evnt=1/' (did you mean "
		      "'event'?); the event is skipped");
	assert_int_equal(parse("cpu/mem-laods/"), 0);
	assert_warned("PMU 'cpu' has no event or term 'mem-laods' in 'cpu/mem-laods/' (did you "
		      "mean 'mem-loads'?)");
	assert_int_equal(parse("cpu/event=0x100/"), 0);
	assert_warned("value 0x100 of term 'event' is too wide for PMU 'cpu' (format config:0-7 "
		      "holds 8 bits)");
	assert_int_equal(parse("cpu/event=zz/"), 0);
	assert_warned("bad value 'zz' for term 'event' in 'cpu/event=zz/'");
	assert_int_equal(parse("cpu/event=0x1ffffffffffffffff/"), 0);
	assert_warned("bad value");
	assert_int_equal(parse("cpu/event=1,,umask=1/"), 0);
	assert_warned("empty term in 'cpu/event=1,,umask=1/'");
	assert_int_equal(parse("cpu//"), 0);
	assert_warned("empty term in 'cpu//'");
	assert_int_equal(parse("cpu/event=/"), 0);
	assert_warned("empty term");
	assert_int_equal(parse("cpu/event=1"), 0);
	assert_warned("missing closing '/' in 'cpu/event=1'");
	assert_int_equal(parse("/event=1/"), 0);
	assert_warned("missing PMU name before '/'");
	assert_int_equal(parse("cpu/event=1/u/"), 0);
	assert_warned("too many '/'");
	assert_int_equal(parse("fixture_pmu/broken=1/"), 0);
	assert_warned("PMU 'fixture_pmu' has a malformed format file for term 'broken'");
	assert_int_equal(parse("software/event=1/"), 0);
	assert_warned("unknown format term 'event' for PMU 'software'");
	assert_int_equal(parse_in("arm64", "cpu/event=1/"), 0);
	assert_warned("unknown PMU 'cpu' in 'cpu/event=1/': no such directory in ");
	assert_int_equal(parse("cpu/event=1/:"), 0);
	assert_warned("bad modifier '' in 'cpu/event=1/:'");
}

static void test_list_errors(void **state)
{
	(void)state;
	assert_int_equal(parse("cycles,,instructions"), 2);
	assert_warned("empty item in the event list");
	assert_int_equal(parse(",cycles"), 1);
	assert_warned("empty item in the event list");
	assert_int_equal(parse("cycles,"), 1);
	assert_warned("empty item at the end of the event list (a trailing ',')");
	assert_int_equal(parse("{,cycles}"), 1);
	assert_warned("empty item in the event list");
	assert_int_equal(parse("{cycles,}"), 1);
	assert_warned("empty item before '}'");
	assert_int_equal(parse("{},cycles"), 1);
	assert_warned("empty group '{}'");
	assert_int_equal(parse("{cycles,instructions,branches"), 0);
	assert_warned("unbalanced '{': the group '{cycles,instructions,branches' is never "
		      "closed; its events are skipped");
	assert_int_equal(parse("cycles},instructions"), 2);
	assert_warned("unbalanced '}' at offset 6 of the event list");
	assert_int_equal(parse("{cycles,{instructions,branches}},cs"), 1);
	assert_warned("nested '{' in the group");
	assert_string_equal(list.ev[0].name, "cs");
	assert_int_equal(list.nr_groups, 0);
	assert_int_equal(parse("cycles instructions"), 0);
	assert_warned("unknown event 'cycles instructions'");
	assert_int_equal(parse("{cycles}{instructions}"), 2);
	assert_warned("missing ',' before '{instructions}'");
	assert_int_equal(list.nr_groups, 2);
	assert_int_equal(parse(""), 0);
	assert_int_equal(warns.nr, 0);
	assert_int_equal(events_parse(NULL, fixtures("intel"), NULL, &list, NULL, NULL), 0);
}

static void test_too_many_events(void **state)
{
	char text[EVENTS_MAX * 8 + 64] = "";
	(void)state;

	for (int i = 0; i < EVENTS_MAX + 3; i++)
		strcat(text, i ? ",cs" : "cs");
	assert_int_equal(parse(text), EVENTS_MAX);
	assert_warned("too many events: the first 64 are kept and 3 more are skipped "
		      "(the limit is 64)");
}

/* tests/fixtures/tracefs/: a fake tracefs, events/<subsys>/<name>/id. */
static void test_tracepoints(void **state)
{
	const struct event_spec *e;
	(void)state;

	e = parse_one("syscalls:sys_enter_write");
	assert_attr(e, PERF_TYPE_TRACEPOINT, 840, 0, 0);
	assert_int_equal(e->kind, REPORT_KIND_TRACEPOINT);
	assert_false(e->modifiers);
	e = parse_one("sched:sched_switch:u");
	assert_attr(e, PERF_TYPE_TRACEPOINT, 316, 0, 0);
	assert_string_equal(e->name, "sched:sched_switch:u");
	assert_excludes(e, 0, 1, 1);
	assert_true(e->modifiers);
	/* In a group, beside a built-in event, with the group's modifiers. */
	assert_int_equal(parse("{task-clock,sched:sched_process_fork}:D"), 2);
	assert_int_equal(warns.nr, 0);
	assert_int_equal(list.nr_groups, 1);
	assert_int_equal(list.ev[1].group, 0);
	assert_string_equal(list.ev[1].name, "sched:sched_process_fork:D");
	assert_attr(&list.ev[1], PERF_TYPE_TRACEPOINT, 312, 0, 0);
	assert_int_equal(list.ev[1].attr.pinned, 1);
}

static void test_tracepoint_globs(void **state)
{
	static const char *const block[] = {
		"block:block_bio_queue:k", "block:block_rq_complete:k", "block:block_rq_issue:k",
	};
	(void)state;

	/* Every match, its own event, sorted as perf sorts them; files like enable skipped. */
	assert_int_equal(parse("block:*:k"), 3);
	assert_int_equal(warns.nr, 0);
	for (int i = 0; i < 3; i++) {
		assert_string_equal(list.ev[i].name, block[i]);
		assert_int_equal(list.ev[i].attr.type, PERF_TYPE_TRACEPOINT);
		assert_excludes(&list.ev[i], 1, 0, 1);
	}
	assert_int_equal(list.ev[0].attr.config, 1190);
	assert_int_equal(list.ev[2].attr.config, 1201);
	assert_int_equal(parse("sched:sched_s*"), 1);
	assert_string_equal(list.ev[0].name, "sched:sched_switch");
	assert_int_equal(parse("*:sys_*_write"), 2);
	assert_string_equal(list.ev[0].name, "syscalls:sys_enter_write");
	assert_string_equal(list.ev[1].name, "syscalls:sys_exit_write");
	assert_int_equal(parse("s*:sched_[ps]*"), 2);
	assert_string_equal(list.ev[0].name, "sched:sched_process_fork");
	assert_string_equal(list.ev[1].name, "sched:sched_switch");
	/* A glob in a group: all its matches are members. */
	assert_int_equal(parse("{block:block_rq_*,task-clock}:W"), 3);
	assert_int_equal(list.nr_groups, 1);
	assert_int_equal(list.ev[2].group, 0);
	assert_true(list.ev[0].weak);
	assert_string_equal(list.ev[1].name, "block:block_rq_issue:W");
	assert_int_equal(parse("block:nothing*,task-clock"), 1);
	assert_warned("no tracepoint matches 'block:nothing*' in 'block:nothing*'");
}

static void test_tracepoint_messages(void **state)
{
	char text[256];
	(void)state;

	assert_int_equal(parse("sched:sched_swich"), 0);
	assert_warned("unknown tracepoint 'sched_swich' in subsystem 'sched' of "
		      "'sched:sched_swich' (did you mean 'sched_switch'?); the event is skipped");
	assert_int_equal(parse("shed:sched_switch"), 0);
	assert_warned("unknown tracepoint subsystem 'shed' in 'shed:sched_switch' (did you "
		      "mean 'sched'?); the event is skipped");
	/* No name leaves events/: ".." is refused before any file is opened. */
	assert_int_equal(parse("..:events"), 0);
	assert_warned("bad tracepoint name '..:events' (write subsystem:name, e.g. "
		      "'sched:sched_switch'); the event is skipped");
	assert_int_equal(parse("sched:..:u"), 0);
	assert_warned("bad tracepoint name 'sched:..:u'");
	/* More than a tracepoint after a subsystem tracefs has (no longer the
	 * syntax's to say: "A:B:C" may be a vendor name, test_pfm.c). */
	assert_int_equal(parse("sched:sched_switch:x"), 0);
	assert_warned("bad modifier 'x' in 'sched:sched_switch:x': pfshim accepts u, k, h, G, H, "
		      "I, D, S, W, e, p and P (e.g. 'cycles:u'); the event is skipped");
	assert_int_equal(parse("sched::u"), 0);
	assert_warned("missing tracepoint name after ':' in 'sched::u'; the event is skipped");
	assert_int_equal(parse("sched:"), 0);
	assert_warned("missing tracepoint name after ':' in 'sched:'");
	/* "enable" is a file of events/sched/, with no id: no tracepoint. */
	assert_int_equal(parse("sched:enable"), 0);
	assert_warned("unknown tracepoint 'enable' in subsystem 'sched'");
	/* Where there is no tracefs: what to do, and nothing counted. */
	memset(&warns, 0, sizeof(warns));
	assert_int_equal(events_parse("task-clock,sched:sched_switch", fixtures("intel"),
				      "/nonexistent", &list, warn_collect, &warns), 1);
	assert_warned("'sched:sched_switch': no tracefs events directory in /nonexistent; the "
		      "event is skipped");
	/* A tracefs the user may not read (as root, any mode is readable: skip that check). */
	if (geteuid() != 0) {
		snprintf(text, sizeof(text), "/tmp/pfshim-tracefs-%d", (int)getpid());
		assert_int_equal(mkdir(text, 0700), 0);
		strcat(text, "/events");
		assert_int_equal(mkdir(text, 0000), 0);
		*strrchr(text, '/') = '\0';
		memset(&warns, 0, sizeof(warns));
		assert_int_equal(events_parse("sched:sched_switch", fixtures("intel"), text, &list,
					      warn_collect, &warns), 0);
		assert_warned("is not readable by this user (its files are root's only by default");
		strcat(text, "/events");
		rmdir(text);
		*strrchr(text, '/') = '\0';
		rmdir(text);
	}
}

static void test_terms_name_and_period(void **state)
{
	const struct event_spec *e;
	(void)state;

	e = parse_one("cpu/event=0x3c,name=my-cycles/");
	assert_string_equal(e->name, "my-cycles");
	assert_attr(e, PERF_TYPE_RAW + 0, 0x3c, 0, 0);
	assert_true(e->named);
	/* The name stays as given: a group's modifiers are not appended to it. */
	assert_int_equal(parse("{cpu/event=0x3c,name=c/,instructions}:u"), 2);
	assert_string_equal(list.ev[0].name, "c");
	assert_excludes(&list.ev[0], 0, 1, 1);
	assert_string_equal(list.ev[1].name, "instructions:u");
	assert_int_equal(parse("cpu/event=0x3c,period=100000/"), 1);
	assert_warned("term 'period' in 'cpu/event=0x3c,period=100000/' is for sampling only: "
		      "ignored for counting");
	assert_int_equal(list.ev[0].attr.sample_period, 0);
	assert_int_equal(parse("cpu/event=0x3c,freq=1000/"), 1);
	assert_warned("term 'freq'");
	assert_int_equal(parse("cpu/event=0x3c,name/"), 0);
	assert_warned("term 'name' needs a value in 'cpu/event=0x3c,name/'");
}

static void test_name_too_long(void **state)
{
	char text[300];
	(void)state;

	memset(text, 'a', 200);
	strcpy(text + 200, ",cycles");
	assert_int_equal(parse(text), 1);
	assert_warned("is too long (200 bytes, the limit is 127); the item is skipped");
	memset(text, 'a', 127);			/* 127 fits the name buffer */
	text[127] = '\0';
	assert_int_equal(parse(text), 0);
	assert_warned("unknown event 'aaaa");
}

static void test_non_printable(void **state)
{
	(void)state;
	assert_int_equal(parse("cycles,cy\x01" "cles,instructions"), 2);
	assert_warned("non-printable byte 0x01 at offset 9 of the event list (in 'cy?cles'); "
		      "the item is skipped");
	assert_int_equal(parse("cycles,\xc3\xa9v\xc3\xa9nement"), 1);
	assert_warned("non-printable byte 0xc3 at offset 7");
	assert_int_equal(parse("cpu/event=1\x7f/"), 0);
	assert_warned("non-printable byte 0x7f");
}

static void test_warning_cap(void **state)
{
	char text[512] = "";
	(void)state;

	for (int i = 0; i < 20; i++)
		strcat(text, "nope,");
	strcat(text, "cycles");
	assert_int_equal(parse(text), 1);
	assert_int_equal(warns.nr, 9);
	assert_string_equal(warns.msg[8], "... and 12 more problems in the event list");
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* 1 MB of hostile input: bounded time, bounded output, no crash (ASan finds reads). */
static void test_megabyte_garbage(void **state)
{
	size_t n = 1 << 20;
	char *text = malloc(n + 1);
	double t;
	unsigned seed = 12345;
	(void)state;

	assert_non_null(text);
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245 + 12345;
		text[i] = (char)(1 + (seed >> 16) % 255);
	}
	text[n] = '\0';
	t = seconds();
	parse(text);
	t = seconds() - t;
	assert_int_equal(warns.nr, 9);
	assert_true(t < 0.5);
	print_message("1 MB random bytes: %.1f ms, %d warnings\n", t * 1e3, warns.nr);

	memset(text, ',', n);
	t = seconds();
	assert_int_equal(parse(text), 0);
	t = seconds() - t;
	assert_int_equal(warns.nr, 9);
	assert_string_equal(warns.msg[8], "... and 1048569 more problems in the event list");
	assert_true(t < 0.5);
	print_message("1 MB commas: %.1f ms\n", t * 1e3);

	/* Plausible items that all fail in sysfs: no file access per item. */
	for (size_t i = 0; i + 12 <= n; i += 12)
		memcpy(text + i, "cpu/evnt=1/,", 12);
	text[n - n % 12] = '\0';
	t = seconds();
	assert_int_equal(parse(text), 0);
	t = seconds() - t;
	assert_true(t < 0.5);
	print_message("1 MB of 'cpu/evnt=1/': %.1f ms\n", t * 1e3);
	free(text);
}

static void test_default_list(void **state)
{
	(void)state;
	assert_int_equal(parse(EVENTS_DEFAULT), 8);
	assert_int_equal(warns.nr, 0);
	assert_int_equal(list.nr_groups, 0);
	assert_attr(&list.ev[0], PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, 0);
	assert_attr(&list.ev[7], PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 0, 0);
	/* Built-in names need no sysfs at all. */
	memset(&warns, 0, sizeof(warns));
	assert_int_equal(events_parse(EVENTS_DEFAULT, "/nonexistent", "/nonexistent", &list,
				      warn_collect, &warns), 8);
	assert_int_equal(warns.nr, 0);
	assert_string_equal(list.ev[4].name, "cycles");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hardware_names),
		cmocka_unit_test(test_software_names),
		cmocka_unit_test(test_hw_cache_names),
		cmocka_unit_test(test_hw_cache_refused_ops),
		cmocka_unit_test(test_raw),
		cmocka_unit_test(test_modifiers),
		cmocka_unit_test(test_bad_modifiers),
		cmocka_unit_test(test_counting_modifiers),
		cmocka_unit_test(test_precise_is_for_sampling),
		cmocka_unit_test(test_group_counting_modifiers),
		cmocka_unit_test(test_tracepoints),
		cmocka_unit_test(test_tracepoint_globs),
		cmocka_unit_test(test_tracepoint_messages),
		cmocka_unit_test(test_terms_name_and_period),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_group_keeps_good_members),
		cmocka_unit_test(test_whitespace),
		cmocka_unit_test(test_intel_terms),
		cmocka_unit_test(test_named_pmu_events),
		cmocka_unit_test(test_scale_unit),
		cmocka_unit_test(test_amd_split_event),
		cmocka_unit_test(test_arm64),
		cmocka_unit_test(test_did_you_mean),
		cmocka_unit_test(test_suggest_distance),
		cmocka_unit_test(test_pmu_errors),
		cmocka_unit_test(test_list_errors),
		cmocka_unit_test(test_too_many_events),
		cmocka_unit_test(test_name_too_long),
		cmocka_unit_test(test_non_printable),
		cmocka_unit_test(test_warning_cap),
		cmocka_unit_test(test_megabyte_garbage),
		cmocka_unit_test(test_default_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
