/* SPDX-License-Identifier: MIT */
/*
 * test_group.c: preload/metrics/group.c and likwid_arch.c: the group file a
 * CPU and a name lead to, LIKWID's event names as pfshim's, and metrics
 * computed from a hand-built report, in a temporary tree of group files.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "preload/events/events.h"
#include "preload/metrics/group.h"
#include "preload/metrics/likwid_arch.h"
#include "file_put.h"

static char root[64], cpuinfo[96], sysfs_cpu[96];

static void make_group(const char *arch, const char *name, const char *text)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", root, arch);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/%s.txt", root, arch, name);
	file_put(NULL, path, text);
}

static const char intel_cpi[] =
	"SHORT Cycles per instruction\n\nEVENTSET\n"
	"FIXC0 INSTR_RETIRED_ANY\nFIXC1 CPU_CLK_UNHALTED_CORE\nPMC0 L1D_REPLACEMENT\n"
	"\nMETRICS\nRuntime (RDTSC) [s] time\nCPI FIXC1/FIXC0\nClock [MHz] 1.E-06*FIXC1/time\n"
	"Branch rate PMC0/FIXC0\nRuntime unhalted [s] FIXC1*inverseClock\n";

static const char arm_branch[] =
	"SHORT Branch\n\nEVENTSET\nPMC0 INST_RETIRED\nPMC1 CPU_CYCLES\nPMC2 BR_PRED\n"
	"\nMETRICS\nCPI PMC1/PMC0\nBranches per instruction PMC2/PMC0\n";

static int setup(void **state)
{
	char path[128];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/pfshim-test-group.XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(cpuinfo, sizeof(cpuinfo), "%s/cpuinfo", root);
	snprintf(sysfs_cpu, sizeof(sysfs_cpu), "%s/cpu", root);
	make_group("skylakeX", "CPI", intel_cpi);
	make_group("CLX", "CPI", intel_cpi);
	make_group("arm8", "BRANCH", arm_branch);
	make_group("arm8_n1", "BRANCH", arm_branch);
	snprintf(path, sizeof(path), "%s/cpu", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/cpu/cpu0", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/cpu/cpu0/cpufreq", root);
	mkdir(path, 0755);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

static const char *arch_of(const char *text)
{
	static char cpu[64];

	return likwid_arch(text, cpu, sizeof(cpu));
}

/* The CPU lines of real /proc/cpuinfo files, abridged. */
static void arch_by_model(void **state)
{
	(void)state;
	assert_string_equal(arch_of("vendor_id\t: GenuineIntel\ncpu family\t: 6\n"
				    "model\t\t: 85\nmodel name\t: Intel(R) Xeon(R)\nstepping\t: 4\n"),
			    "skylakeX");
	assert_string_equal(arch_of("vendor_id\t: GenuineIntel\ncpu family\t: 6\n"
				    "model\t\t: 85\nstepping\t: 7\n"), "CLX");
	assert_string_equal(arch_of("vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 106\n"),
			    "ICX");
	assert_string_equal(arch_of("vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\n"),
			    "zen3");
	assert_string_equal(arch_of("vendor_id\t: AuthenticAMD\ncpu family\t: 23\nmodel\t\t: 49\n"),
			    "zen2");
	assert_string_equal(arch_of("processor\t: 0\nCPU implementer\t: 0x41\nCPU architecture: 8\n"
				    "CPU variant\t: 0x3\nCPU part\t: 0xd0c\n"), "arm8_n1");
	assert_string_equal(arch_of("CPU implementer\t: 0x41\nCPU part\t: 0xd07\n"), "arm8");
	assert_string_equal(arch_of("CPU implementer\t: 0x00\nCPU part\t: 0x051\n"), "arm8");

	char cpu[64];

	assert_null(likwid_arch("vendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n",
				cpu, sizeof(cpu)));
	assert_string_equal(cpu, "AMD family 26 model 2");
}

static void open_by_name(void **state)
{
	struct metric_group mg;
	char why[512];

	(void)state;
	file_put(NULL, cpuinfo, "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\nstepping\t: 7\n");
	assert_int_equal(metric_group_open("CPI", root, cpuinfo, "task-clock,{instructions,page-faults}",
					   &mg, why, sizeof(why)), 0);
	assert_string_equal(mg.name, "CPI");
	/* LIKWID's names for perf's generic events; the rest as written, for libpfm4. */
	assert_string_equal(mg.event_names[0], "instructions");
	assert_string_equal(mg.event_names[1], "cycles");
	assert_string_equal(mg.event_names[2], "L1D_REPLACEMENT");
	/* instructions is counted already: not twice */
	assert_string_equal(mg.events_text, "cycles,L1D_REPLACEMENT");
	metric_group_free(&mg);

	file_put(NULL, cpuinfo, "CPU implementer\t: 0x41\nCPU part\t: 0xd0c\n");
	assert_int_equal(metric_group_open("BRANCH", root, cpuinfo, "", &mg, why, sizeof(why)), 0);
	assert_string_equal(mg.events_text, "instructions,cycles,br_pred");
	metric_group_free(&mg);

	assert_int_equal(metric_group_open("NOPE", root, cpuinfo, "", &mg, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "no group 'NOPE' in "));

	file_put(NULL, cpuinfo, "vendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n");
	assert_int_equal(metric_group_open("CPI", root, cpuinfo, "", &mg, why, sizeof(why)), -ENOENT);
	assert_string_equal(why, "LIKWID's groups have none for this CPU (AMD family 26 model 2); "
			    "give a group file's path instead");
}

static void open_by_path(void **state)
{
	struct metric_group mg;
	char path[256], why[512];

	(void)state;
	snprintf(path, sizeof(path), "%s/mine.txt", root);
	file_put(NULL, path, "SHORT mine\nEVENTSET\nPMC0 page-faults\nMETRICS\nper second PMC0/time\n");
	assert_int_equal(metric_group_open(path, root, "/nonexistent", "", &mg, why, sizeof(why)), 0);
	assert_string_equal(mg.name, "mine");
	assert_string_equal(mg.events_text, "page-faults");
	metric_group_free(&mg);

	/* LIKWID's arm64 file by its path: the kernel's names, as by its name */
	snprintf(path, sizeof(path), "%s/arm8/BRANCH.txt", root);
	assert_int_equal(metric_group_open(path, root, "/nonexistent", "", &mg, why, sizeof(why)), 0);
	assert_string_equal(mg.events_text, "instructions,cycles,br_pred");
	metric_group_free(&mg);

	snprintf(path, sizeof(path), "%s/mine.txt", root);
	file_put(NULL, path, "SHORT mine\nEVENTSET\nPMC0 page-faults\nMETRICS\nbroken PMC0/(time\n");
	assert_int_equal(metric_group_open(path, root, "/nonexistent", "", &mg, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "mine.txt, line 5: not a group file's line"));
}

static struct event_list events;

static void add_event(const char *name)
{
	snprintf(events.ev[events.nr++].name, sizeof(events.ev[0].name), "%s", name);
}

static void compute(void **state)
{
	struct metric_group mg;
	struct report_event ev[4] = { 0 };
	struct report_metric out[8];
	char why[512], path[256];

	(void)state;
	file_put(NULL, cpuinfo, "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\nstepping\t: 4\n");
	snprintf(path, sizeof(path), "%s/cpu0/cpufreq/base_frequency", sysfs_cpu);
	file_put(NULL, path, "2500000\n");	/* kHz */
	assert_int_equal(metric_group_open("CPI", root, cpuinfo, "instructions", &mg, why,
					   sizeof(why)), 0);
	events.nr = 0;
	add_event("instructions");
	add_event("cycles");
	add_event("L1D_REPLACEMENT");
	metric_group_bind(&mg, &events, sysfs_cpu);

	ev[0] = (struct report_event){ .value = 4000, .status = STATUS_COUNTED };
	ev[1] = (struct report_event){ .value = 5000, .status = STATUS_COUNTED, .scaled = 1 };
	ev[2] = (struct report_event){ .status = STATUS_NOT_SUPPORTED };
	struct report r = { .nr_events = 3, .events = ev };

	metric_group_compute(&mg, &r, 0.5, out);
	assert_int_equal(out[0].status, METRIC_COMPUTED);
	assert_true(out[0].value == 0.5);			/* time */
	assert_true(out[1].value == 1.25);			/* CPI: 5000 / 4000 */
	assert_int_equal(out[1].scaled, 1);			/* cycles were multiplexed */
	assert_true(out[2].value == 1.E-06 * 5000 / 0.5);	/* Clock [MHz] */
	assert_int_equal(out[3].status, METRIC_NOT_COUNTED);	/* Branch rate */
	assert_string_equal(out[3].missing, "L1D_REPLACEMENT");
	assert_string_equal(out[3].why, "not supported here");
	assert_true(out[4].value == 5000 * (1 / 2.5e9));	/* Runtime unhalted */

	ev[0].value = 0;
	metric_group_compute(&mg, &r, 0.5, out);
	assert_int_equal(out[1].status, METRIC_UNDEFINED);	/* 5000 / 0 */

	/* Without cpufreq (most VMs) inverseClock has no value, said so. */
	unlink(path);
	metric_group_bind(&mg, &events, sysfs_cpu);
	metric_group_compute(&mg, &r, 0.5, out);
	assert_int_equal(out[4].status, METRIC_NOT_COUNTED);
	assert_string_equal(out[4].missing, "inverseClock");

	/* An event the parser did not know: not in the list. */
	events.nr = 1;
	metric_group_bind(&mg, &events, sysfs_cpu);
	metric_group_compute(&mg, &r, 0.5, out);
	assert_int_equal(out[1].status, METRIC_NOT_COUNTED);
	assert_string_equal(out[1].missing, "cycles");
	assert_string_equal(out[1].why, "its event is unknown here");
	metric_group_free(&mg);
}

/* metric_group_open_named() over the test's trees, its sysfs @sysfs. */
static int named(const char *names, const char *group, const char *sysfs, const char *counted,
		 struct metric_group *mg, char *why, char *note)
{
	const struct metric_request q = { names, group, root, cpuinfo, sysfs, counted, sysfs_cpu };

	return metric_group_open_named(&q, mg, why, 512, note, 768);
}

/*
 * PFSHIM_METRICS: metrics by name as one group, LIKWID's TMA group merged
 * for TopdownL1, each event once, and what cannot be had said in the note.
 */
static void open_named(void **state)
{
	static const char tma[] = "SHORT Top down\nEVENTSET\nFIXC0 INSTR_RETIRED_ANY\n"
		"FIXC1 CPU_CLK_UNHALTED_CORE\nPMC1 UOPS_RETIRED_RETIRE_SLOTS\nMETRICS\n"
		"IPC FIXC0/FIXC1\nRetiring [%] PMC1/(4*FIXC1)*100\nLONG\nFormulas: ...\n";
	struct metric_group mg;
	struct report_event ev[3] = { 0 };
	struct report_metric out[8];
	char why[512], note[768];

	(void)state;
	make_group("skylakeX", "TMA", tma);
	file_put(NULL, cpuinfo, "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\nstepping\t: 4\n");

	assert_int_equal(named("CPUs-utilized,page-faults-per-second,CPUs-utilized", NULL,
			       "/nonexistent", "page-faults", &mg, why, note), 0);
	assert_string_equal(note, "");
	assert_string_equal(mg.name, "PFSHIM_METRICS");
	assert_int_equal(mg.group.nr_metrics, 2);	/* named twice, once */
	assert_string_equal(mg.events_text, "task-clock");	/* page-faults is counted already */
	events.nr = 0;
	add_event("page-faults");
	add_event("task-clock");
	metric_group_bind(&mg, &events, sysfs_cpu);
	ev[0] = (struct report_event){ .value = 3000, .status = STATUS_COUNTED };
	ev[1] = (struct report_event){ .value = 250000000, .status = STATUS_COUNTED };	/* ns */
	struct report r = { .nr_events = 2, .events = ev };

	metric_group_compute(&mg, &r, 0.5, out);
	assert_true(out[0].value == 250000000 / (0.5 * 1000000000));	/* CPUs-utilized: 0.5 */
	assert_true(out[1].value == 3000.0 / 250000000 * 1000000000);	/* per CPU second: 12,000 */
	assert_string_equal(out[1].unit, "1/s");
	metric_group_free(&mg);

	/* TopdownL1: LIKWID's TMA merged after IPC; instructions and cycles once each. */
	assert_int_equal(named("IPC,TopdownL1,bogus", NULL, "/nonexistent", "", &mg, why, note), 0);
	assert_string_equal(mg.name, "PFSHIM_METRICS+TMA");
	assert_int_equal(mg.group.nr_metrics, 3);
	assert_string_equal(mg.group.metrics[0].name, "IPC");
	assert_string_equal(mg.group.metrics[0].text, "instructions/cycles");
	assert_string_equal(mg.group.metrics[2].name, "Retiring");
	assert_string_equal(mg.events_text, "instructions,cycles,UOPS_RETIRED_RETIRE_SLOTS");
	assert_non_null(strstr(note, "no metric named 'bogus' (pfshim's are IPC, CPI, "));
	metric_group_free(&mg);

	/* Beside PFSHIM_GROUP, TopdownL1 is not merged: one group file at a time. */
	assert_int_equal(named("TopdownL1,IPC", "CPI", "/nonexistent", "", &mg, why, note), 0);
	assert_string_equal(mg.name, "PFSHIM_METRICS+CPI");
	assert_string_equal(note, "TopdownL1 is LIKWID's TMA group, not added beside "
			    "PFSHIM_GROUP=CPI: one group file at a time");
	metric_group_free(&mg);

	/* A CPU LIKWID has no groups for: TopdownL1 said, nothing else left. */
	file_put(NULL, cpuinfo, "vendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n");
	assert_int_equal(named("TopdownL1", NULL, "/nonexistent", "", &mg, why, note), -ENOENT);
	assert_string_equal(why, "no metric to compute");
	assert_string_equal(note, "TopdownL1: AMD Zen 5 (family 0x1a model 0x2), but no core PMU "
			    "(cpu/) in sysfs: a virtual machine without a virtual PMU");
}

/*
 * TopdownL1 where the core PMU has the kernel's topdown events (the fixture
 * Intel tree: slots and topdown-*, Ice Lake's): one group led by slots,
 * counted as written, and level 1 as each event's share of their sum. The
 * counts are what the kernel gives for a PERF_METRICS value (icl_get_
 * metrics_event_value(): slots * byte / 0xff, byte 0 retiring, 1 bad
 * speculation, 2 frontend bound, 3 backend bound).
 */
static void topdown_from_the_kernel(void **state)
{
	static struct event_list parsed;
	const char *base = getenv("PFSHIM_TEST_FIXTURES");
	char sysfs[512], why[512], note[768];
	const uint64_t slots = 1000000, metrics = 0x40 | 0x10 << 8 | 0x30 << 16 | 0x7fULL << 24;
	uint64_t v[4];	/* retiring, bad spec, fe bound, be bound */
	struct report_event ev[5] = { 0 };
	struct report_metric out[8];
	struct metric_group mg;

	(void)state;
	snprintf(sysfs, sizeof(sysfs), "%s/intel", base ? base : "tests/fixtures/sysfs");
	assert_int_equal(named("TopdownL1,IPC", NULL, sysfs, "", &mg, why, note), 0);
	assert_string_equal(note, "");
	assert_string_equal(mg.name, "PFSHIM_METRICS");	/* no LIKWID file read */
	assert_string_equal(mg.events_text, "{cpu/slots/,cpu/topdown-retiring/,cpu/topdown-bad-spec/,"
			    "cpu/topdown-fe-bound/,cpu/topdown-be-bound/},instructions,cycles");
	assert_int_equal(mg.group.nr_metrics, 5);
	assert_string_equal(mg.group.metrics[2].name, "Retiring");
	assert_string_equal(mg.group.metrics[2].unit, "%");
	assert_string_equal(mg.group.metrics[4].name, "IPC");

	/* The parser opens them as the kernel wants: one group, slots its leader. */
	assert_int_equal(events_parse(mg.events_text, sysfs, NULL, &parsed, NULL, NULL), 7);
	assert_int_equal(parsed.nr_groups, 1);
	assert_string_equal(parsed.ev[0].name, "cpu/slots/");
	assert_int_equal(parsed.ev[0].attr.type, 4);
	assert_int_equal(parsed.ev[0].attr.config, 0x400);
	assert_int_equal(parsed.ev[1].attr.config, 0x8000);	/* topdown-retiring */
	assert_int_equal(parsed.ev[3].attr.config, 0x8200);	/* topdown-fe-bound */
	for (int i = 0; i < 5; i++)
		assert_int_equal(parsed.ev[i].group, 0);
	assert_int_equal(parsed.ev[5].group, -1);

	metric_group_bind(&mg, &parsed, sysfs_cpu);
	for (int k = 0; k < 4; k++)
		v[k] = slots * ((metrics >> (8 * k)) & 0xff) / 0xff;
	ev[0] = (struct report_event){ .value = slots, .status = STATUS_COUNTED };
	ev[1] = (struct report_event){ .value = v[0], .status = STATUS_COUNTED };
	ev[2] = (struct report_event){ .value = v[1], .status = STATUS_COUNTED };
	ev[3] = (struct report_event){ .value = v[2], .status = STATUS_COUNTED };
	ev[4] = (struct report_event){ .value = v[3], .status = STATUS_COUNTED };
	struct report r = { .nr_events = 5, .events = ev };
	double sum = (double)v[2] + (double)v[1] + (double)v[0] + (double)v[3];

	metric_group_compute(&mg, &r, 1.0, out);
	assert_true(out[0].value == (double)v[2] / sum * 100);	/* Front End */
	assert_true(out[1].value == (double)v[1] / sum * 100);	/* Speculation */
	assert_true(out[2].value == (double)v[0] / sum * 100);	/* Retiring */
	assert_true(out[3].value == (double)v[3] / sum * 100);	/* Back End */
	/* ... the register's bytes' shares, to the kernel's rounding */
	assert_true(fabs(out[2].value - 100.0 * 0x40 / 0xff) < 0.001);
	assert_true(fabs(out[3].value - 100.0 * 0x7f / 0xff) < 0.001);
	assert_int_equal(out[4].status, METRIC_NOT_COUNTED);	/* IPC: no instructions here */
	metric_group_free(&mg);

	/* A core PMU without them (the AMD tree): LIKWID's TMA group, as before. */
	snprintf(sysfs, sizeof(sysfs), "%s/amd", base ? base : "tests/fixtures/sysfs");
	file_put(NULL, cpuinfo, "vendor_id\t: GenuineIntel\ncpu family\t: 6\nmodel\t\t: 85\n");
	assert_int_equal(named("TopdownL1", NULL, sysfs, "", &mg, why, note), 0);
	assert_string_equal(mg.name, "PFSHIM_METRICS+TMA");
	metric_group_free(&mg);
}

/* A fixture tree of tests/fixtures/sysfs. */
static void fixture(char *path, size_t size, const char *tree)
{
	const char *base = getenv("PFSHIM_TEST_FIXTURES");

	snprintf(path, size, "%s/%s", base ? base : "tests/fixtures/sysfs", tree);
}

/* The test's /sys/devices/system/cpu says MIDR_EL1 @midr (NULL: no such file, an x86 machine). */
static void midr_write(const char *midr)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/cpu0/regs", sysfs_cpu);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/cpu0/regs/identification", sysfs_cpu);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/cpu0/regs/identification/midr_el1", sysfs_cpu);
	if (midr)
		file_put(NULL, path, midr);
	else
		unlink(path);
}

/* @n counts, in the order of the group's events, as a report of one process carries them. */
static struct report counted_report(struct report_event *ev, const uint64_t *v, int n)
{
	for (int i = 0; i < n; i++)
		ev[i] = (struct report_event){ .value = v[i], .status = STATUS_COUNTED };
	return (struct report){ .nr_events = n, .events = ev };
}

/*
 * TopdownL1 on a Neoverse N2 (the fixture tree's armv8_pmuv3_0 lists the
 * STALL_SLOT events, caps/slots says 5; MIDR part 0xd49): one group led by
 * CPU_CYCLES, and level 1 from Arm's telemetry specification for the N2,
 * whose formulas are written out again here from the specification's text
 * (neoverse-n2.json, "metrics") and must agree to the last bit.
 */
static void topdown_neoverse_n2(void **state)
{
	static struct event_list parsed;
	static const unsigned configs[] = { 0x11, 0x3e, 0x3d, 0x3f, 0x3b, 0x3a, 0x10 };
	char sysfs[512], why[512], note[768];
	struct report_event ev[7];
	struct report_metric out[8];
	struct metric_group mg;
	/* cycles, stall_slot_frontend, stall_slot_backend, stall_slot, op_spec, op_retired,
	 * br_mis_pred: the N2 counts one slot a cycle more in STALL_SLOT(_FRONTEND). */
	const uint64_t v[7] = { 1000000, 2000000, 1500000, 3500000, 2000000, 1800000, 10000 };
	const double CPU_CYCLES = 1000000, STALL_SLOT_FRONTEND = 2000000,
		     STALL_SLOT_BACKEND = 1500000, STALL_SLOT = 3500000, OP_SPEC = 2000000,
		     OP_RETIRED = 1800000, BR_MIS_PRED = 10000;

	(void)state;
	fixture(sysfs, sizeof(sysfs), "arm64-neoverse-n2");
	file_put(NULL, cpuinfo, "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd49\n");
	midr_write("0x00000000410fd490\n");
	assert_int_equal(named("TopdownL1", NULL, sysfs, "", &mg, why, note), 0);
	assert_string_equal(note, "");
	assert_string_equal(mg.name, "PFSHIM_METRICS");
	assert_string_equal(mg.events_text,
			    "{armv8_pmuv3_0/cpu_cycles/,armv8_pmuv3_0/stall_slot_frontend/,"
			    "armv8_pmuv3_0/stall_slot_backend/,armv8_pmuv3_0/stall_slot/,"
			    "armv8_pmuv3_0/op_spec/,armv8_pmuv3_0/op_retired/,armv8_pmuv3_0/br_mis_pred/}");
	assert_int_equal(mg.group.nr_metrics, 4);
	assert_string_equal(mg.group.metrics[0].name, "Front End");
	assert_string_equal(mg.group.metrics[0].unit, "%");
	assert_string_equal(mg.group.metrics[0].text, "100*((stall_slot_frontend-cpu_cycles)/"
			    "(5*cpu_cycles)-br_mis_pred/cpu_cycles)");

	/* The parser opens them on the PMU's type, as its sysfs aliases encode them, one group. */
	assert_int_equal(events_parse(mg.events_text, sysfs, NULL, &parsed, NULL, NULL), 7);
	assert_int_equal(parsed.nr_groups, 1);
	for (int i = 0; i < 7; i++) {
		assert_int_equal(parsed.ev[i].attr.type, 8);
		assert_int_equal(parsed.ev[i].attr.config, configs[i]);
		assert_int_equal(parsed.ev[i].group, 0);
	}
	assert_string_equal(parsed.ev[0].name, "armv8_pmuv3_0/cpu_cycles/");	/* the leader */

	metric_group_bind(&mg, &parsed, sysfs_cpu);
	struct report r = counted_report(ev, v, 7);

	metric_group_compute(&mg, &r, 1.0, out);
	for (int i = 0; i < 4; i++)
		assert_int_equal(out[i].status, METRIC_COMPUTED);
	assert_true(out[0].value == (100 * (((STALL_SLOT_FRONTEND - CPU_CYCLES) / (5 * CPU_CYCLES)) -
					    (BR_MIS_PRED / CPU_CYCLES))));
	assert_true(out[1].value == (100 * (((1 - (OP_RETIRED / OP_SPEC)) *
					     (1 - ((STALL_SLOT - CPU_CYCLES) / (CPU_CYCLES * 5)))) +
					    ((BR_MIS_PRED * 4) / CPU_CYCLES))));
	assert_true(out[2].value == (100 * ((OP_RETIRED / OP_SPEC) *
					    (1 - ((STALL_SLOT - CPU_CYCLES) / (CPU_CYCLES * 5))))));
	assert_true(out[3].value == (100 * ((STALL_SLOT_BACKEND / (CPU_CYCLES * 5)) -
					    ((BR_MIS_PRED * 3) / CPU_CYCLES))));
	/* ... by hand: 19, 9, 45 and 27 % of the 5,000,000 slots, which add up to 100 */
	assert_true(fabs(out[0].value - 19) < 1e-9 && fabs(out[1].value - 9) < 1e-9);
	assert_true(fabs(out[2].value - 45) < 1e-9 && fabs(out[3].value - 27) < 1e-9);
	metric_group_free(&mg);

	/* A core Arm's specifications do not list (a Neoverse N3's part): the architectural
	 * formulas, without BR_MIS_PRED, so six events. */
	midr_write("0x00000000410fd8e0\n");
	assert_int_equal(named("TopdownL1", NULL, sysfs, "", &mg, why, note), 0);
	assert_null(strstr(mg.events_text, "br_mis_pred"));
	assert_string_equal(mg.group.metrics[0].text, "100*stall_slot_frontend/(5*cpu_cycles)");
	assert_string_equal(mg.group.metrics[1].text,
			    "100*(1-op_retired/op_spec)*(1-stall_slot/(5*cpu_cycles))");
	metric_group_free(&mg);

	/* Hostile trees: a slot count no PMMIR_EL1 holds, or bytes for a terminal, is the
	 * specification's 5; a PMU directory whose name holds control bytes is none of ours. */
	char tree[256], cmd[4096];

	snprintf(tree, sizeof(tree), "%s/hostile", root);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s' && cp -r '%s/armv8_pmuv3_0' "
		 "'%s/\033]0;x\007' && cp -r '%s/armv8_pmuv3_0' '%s/'", tree, tree, sysfs, tree, sysfs, tree);
	assert_int_equal(system(cmd), 0);
	midr_write("0x00000000410fd490\n");
	for (int k = 0; k < 3; k++) {
		static const char *const slots[] = { "0xffffffff\n", "\033[31m5\n", "" };
		char path[512];

		snprintf(path, sizeof(path), "%s/armv8_pmuv3_0/caps/slots", tree);
		file_put(NULL, path, slots[k]);
		assert_int_equal(named("TopdownL1", NULL, tree, "", &mg, why, note), 0);
		assert_string_equal(mg.group.metrics[3].text, "100*(stall_slot_backend/(cpu_cycles*5)-"
				    "br_mis_pred*3/cpu_cycles)");
		assert_null(strchr(mg.events_text, '\033'));
		metric_group_free(&mg);
	}

	/* A Neoverse N1 (the plain arm64 tree: no STALL_SLOT events): said why, nothing else. */
	fixture(sysfs, sizeof(sysfs), "arm64");
	file_put(NULL, cpuinfo, "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n");
	midr_write("0x00000000413fd0c1\n");
	assert_int_equal(named("TopdownL1", NULL, sysfs, "", &mg, why, note), -ENOENT);
	assert_non_null(strstr(note, "TopdownL1: the Neoverse N1 has no STALL_SLOT events"));
	midr_write(NULL);
}

/*
 * TopdownL1 on AMD Zen 4 (family 0x19 model 0x11, the fixture's core PMU
 * with AMD's split event field): perf's PipelineL1 from six raw events in
 * one group led by ls_not_halted_cyc, each count over 6 slots a cycle.
 */
static void topdown_zen4(void **state)
{
	static struct event_list parsed;
	static const uint64_t configs[] = { 0x76, 0x1000001a0, 0x100001ea0, 0x1000060a0, 0x7aa, 0xc1 };
	char sysfs[512], why[512], note[768];
	struct report_event ev[6];
	struct report_metric out[8];
	struct metric_group mg;
	/* cycles, no_ops_from_frontend, backend_stalls, smt_contention, dispatched, retired */
	const uint64_t v[6] = { 1000000, 1200000, 1500000, 600000, 2700000, 2400000 };

	(void)state;
	midr_write(NULL);	/* an x86 machine, whatever an earlier test left */
	fixture(sysfs, sizeof(sysfs), "amd-zen4");
	file_put(NULL, cpuinfo, "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 17\n");
	assert_int_equal(named("TopdownL1", NULL, sysfs, "", &mg, why, note), 0);
	assert_string_equal(note, "");
	assert_string_equal(mg.events_text, "{cpu/config=0x76/,cpu/config=0x1000001a0/,"
			    "cpu/config=0x100001ea0/,cpu/config=0x1000060a0/,cpu/config=0x7aa/,"
			    "cpu/config=0xc1/}");
	assert_int_equal(mg.group.nr_metrics, 5);
	assert_string_equal(mg.group.metrics[4].name, "SMT contention");
	assert_string_equal(mg.group.metrics[1].text,
			    "(de_src_op_disp_all-ex_ret_ops)/(6*ls_not_halted_cyc)*100");

	assert_int_equal(events_parse(mg.events_text, sysfs, NULL, &parsed, NULL, NULL), 6);
	assert_int_equal(parsed.nr_groups, 1);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(parsed.ev[i].attr.type, 4);
		assert_int_equal(parsed.ev[i].attr.config, configs[i]);
		assert_int_equal(parsed.ev[i].group, 0);
	}

	metric_group_bind(&mg, &parsed, sysfs_cpu);
	struct report r = counted_report(ev, v, 6);

	metric_group_compute(&mg, &r, 1.0, out);
	/* perf's d_ratio(x, 6 * ls_not_halted_cyc), scaled by 100 */
	assert_true(out[0].value == 1200000.0 / (6 * 1000000.0) * 100);		/* Front End */
	assert_true(out[1].value == (2700000.0 - 2400000.0) / (6 * 1000000.0) * 100);
	assert_true(out[2].value == 2400000.0 / (6 * 1000000.0) * 100);	/* Retiring */
	assert_true(out[3].value == 1500000.0 / (6 * 1000000.0) * 100);	/* Back End */
	assert_true(out[4].value == 600000.0 / (6 * 1000000.0) * 100);		/* SMT */
	/* ... by hand: 20, 5, 40, 25 and 10 % of the 6,000,000 slots */
	assert_true(fabs(out[0].value + out[1].value + out[2].value + out[3].value + out[4].value -
			 100) < 1e-9);
	metric_group_free(&mg);

	/* Zen 5 (family 0x1a): the same events, 8 slots a cycle. */
	file_put(NULL, cpuinfo, "vendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n");
	assert_int_equal(named("TopdownL1", NULL, sysfs, "", &mg, why, note), 0);
	assert_string_equal(mg.group.metrics[2].text, "ex_ret_ops/(8*ls_not_halted_cyc)*100");
	metric_group_free(&mg);

	/* Zen 3 (family 0x19 model 0x21: Vermeer, between Zen 4's models): none, said why. */
	file_put(NULL, cpuinfo, "vendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 33\n");
	assert_int_equal(named("TopdownL1", NULL, sysfs, "", &mg, why, note), -ENOENT);
	assert_non_null(strstr(note, "TopdownL1: AMD family 0x19 model 0x21 (Zen 3 or older) has "
				     "no dispatch-slot events"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(arch_by_model),
		cmocka_unit_test(open_by_name),
		cmocka_unit_test(open_by_path),
		cmocka_unit_test(compute),
		cmocka_unit_test(open_named),
		cmocka_unit_test(topdown_from_the_kernel),
		cmocka_unit_test(topdown_neoverse_n2),
		cmocka_unit_test(topdown_zen4),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
