/* SPDX-License-Identifier: MIT */
/*
 * topdown.c: TopdownL1's sources (see topdown.h), each the vendor's
 * published method: Intel's PERF_METRICS as the kernel decodes it into its
 * topdown-* events; Arm's level 1 from STALL_SLOT_FRONTEND/BACKEND,
 * STALL_SLOT, OP_SPEC and OP_RETIRED, with the formulas of Arm's telemetry
 * specification for the core (MIDR part) where they differ from the
 * architectural ones; AMD's pipeline utilization from the dispatch-slot
 * events of Zen 4 and 5, as perf's amdzen4/amdzen5 metrics publish it.
 * docs/metrics.md cites each source and its licence; the formulas here are
 * their facts, written in our formula syntax.
 */
#include "preload/metrics/topdown.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fastread/sysfile.h"
#include "preload/metrics/likwid_arch.h"

/* A formula's name for a count, and the event that counts it on the PMU (sysfs alias or terms). */
struct td_event {
	const char *counter, *event;
};

/* A metric of level 1: LIKWID's TMA groups' name, its formula ("#slots": the slot count). */
struct td_metric {
	const char *name, *formula;
};

/* Can this process read @dir/@pmu/@file? */
static bool readable(const char *dir, const char *pmu, const char *file)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s/%s", dir, pmu, file);
	return access(path, R_OK) == 0;
}

/* @formula with each "#slots" written as @slots. */
static void put_formula(char *out, size_t size, const char *formula, unsigned slots)
{
	static const char token[] = "#slots";
	size_t at = 0;

	for (const char *p = formula; *p && at + 1 < size;) {
		if (!strncmp(p, token, sizeof(token) - 1)) {
			at += (size_t)snprintf(out + at, size - at, "%u", slots);
			p += sizeof(token) - 1;
		} else {
			out[at++] = *p++;
		}
	}
	out[at < size ? at : size - 1] = '\0';
}

/* @td's group, EVENTSET and METRICS for @n events on @pmu and @nm metrics. */
static void build(struct topdown *td, const char *pmu, const struct td_event *ev, size_t n,
		  const struct td_metric *m, size_t nm, unsigned slots)
{
	size_t g = 0, e = 0, k = 0;

	g += (size_t)snprintf(td->group, sizeof(td->group), "{");
	for (size_t i = 0; i < n; i++) {
		g += (size_t)snprintf(td->group + g, g < sizeof(td->group) ? sizeof(td->group) - g : 0,
				      "%s%s/%s/", i ? "," : "", pmu, ev[i].event);
		e += (size_t)snprintf(td->eventset + e,
				      e < sizeof(td->eventset) ? sizeof(td->eventset) - e : 0,
				      "%s %s/%s/\n", ev[i].counter, pmu, ev[i].event);
	}
	if (g < sizeof(td->group))
		snprintf(td->group + g, sizeof(td->group) - g, "}");
	for (size_t i = 0; i < nm; i++) {
		char formula[384];

		put_formula(formula, sizeof(formula), m[i].formula, slots);
		k += (size_t)snprintf(td->metrics + k, k < sizeof(td->metrics) ? sizeof(td->metrics) - k : 0,
				      "%s [%%] %s\n", m[i].name, formula);
	}
}

/*
 * Intel Ice Lake and later: the kernel's topdown events, each its share of
 * slots from the PERF_METRICS register, so level 1 is each over the four's
 * sum (perf's tma_* level 1 for those models divides by the same sum).
 * They must be one group led by slots (the kernel refuses them otherwise).
 */
#define TD_SUM "(td_fe_bound+td_bad_spec+td_retiring+td_be_bound)"

static int intel(const struct topdown_machine *m, struct topdown *td)
{
	static const char *const pmus[] = { "cpu_core", "cpu" };	/* a hybrid's P-cores, or the one */
	static const struct td_event ev[] = {
		{ "slots", "slots" }, { "td_retiring", "topdown-retiring" },
		{ "td_bad_spec", "topdown-bad-spec" }, { "td_fe_bound", "topdown-fe-bound" },
		{ "td_be_bound", "topdown-be-bound" },
	};
	static const struct td_metric metrics[] = {
		{ "Front End", "td_fe_bound/" TD_SUM "*100" },
		{ "Speculation", "td_bad_spec/" TD_SUM "*100" },
		{ "Retiring", "td_retiring/" TD_SUM "*100" },
		{ "Back End", "td_be_bound/" TD_SUM "*100" },
	};

	for (size_t p = 0; m->sysfs && p < sizeof(pmus) / sizeof(pmus[0]); p++) {
		bool all = true;

		for (size_t e = 0; all && e < sizeof(ev) / sizeof(ev[0]); e++) {
			char file[64];

			snprintf(file, sizeof(file), "events/%s", ev[e].event);
			all = readable(m->sysfs, pmus[p], file);
		}
		if (!all)
			continue;
		build(td, pmus[p], ev, sizeof(ev) / sizeof(ev[0]), metrics,
		      sizeof(metrics) / sizeof(metrics[0]), 0);
		snprintf(td->source, sizeof(td->source), "the kernel's %s/slots/ and topdown-* events "
			 "(Intel's PERF_METRICS register), one group led by slots", pmus[p]);
		return 0;
	}
	return -ENOENT;
}

/*
 * Arm: each core's formulas from Arm's telemetry specification (PMU
 * events, metrics and methodology, one JSON file per core); a core not
 * listed takes the architectural ones (perf's arm64 sbsa.json). The
 * BR_MIS_PRED terms move the slots a misprediction costs from the stall
 * counts to bad speculation; on the N2 STALL_SLOT and STALL_SLOT_FRONTEND
 * count one slot a cycle more than the 5 PMMIR_EL1.SLOTS gives, which its
 * formulas take away (perf's neoverse-n2-v2 metrics do the same).
 */
struct arm_core {
	unsigned part;		/* MIDR_EL1.PartNum, implementer 0x41 */
	const char *name;
	unsigned slots;		/* the specification's, where the kernel gives none */
	bool mispredicts;	/* its formulas take BR_MIS_PRED */
	struct td_metric metrics[4];	/* Front End, Speculation, Retiring, Back End */
};

static const struct arm_core arm_cores[] = {
	{ 0xd40, "Neoverse V1", 8, true, {
		{ "Front End", "100*(stall_slot_frontend/(cpu_cycles*#slots)-br_mis_pred*4/cpu_cycles)" },
		{ "Speculation", "100*((1-op_retired/op_spec)*(1-stall_slot/(cpu_cycles*#slots))"
				 "+br_mis_pred*4/cpu_cycles)" },
		{ "Retiring", "100*op_retired/op_spec*(1-stall_slot/(cpu_cycles*#slots))" },
		{ "Back End", "100*stall_slot_backend/(cpu_cycles*#slots)" } } },
	{ 0xd49, "Neoverse N2", 5, true, {
		{ "Front End", "100*((stall_slot_frontend-cpu_cycles)/(#slots*cpu_cycles)"
			       "-br_mis_pred/cpu_cycles)" },
		{ "Speculation", "100*((1-op_retired/op_spec)*(1-(stall_slot-cpu_cycles)/(cpu_cycles*#slots))"
				 "+br_mis_pred*4/cpu_cycles)" },
		{ "Retiring", "100*(op_retired/op_spec*(1-(stall_slot-cpu_cycles)/(cpu_cycles*#slots)))" },
		{ "Back End", "100*(stall_slot_backend/(cpu_cycles*#slots)-br_mis_pred*3/cpu_cycles)" } } },
	{ 0xd4f, "Neoverse V2", 8, true, {
		{ "Front End", "100*(stall_slot_frontend/(cpu_cycles*#slots)-br_mis_pred/cpu_cycles)" },
		{ "Speculation", "100*((1-op_retired/op_spec)*(1-stall_slot/(cpu_cycles*#slots))"
				 "+br_mis_pred*4/cpu_cycles)" },
		{ "Retiring", "100*(op_retired/op_spec*(1-stall_slot/(cpu_cycles*#slots)))" },
		{ "Back End", "100*(stall_slot_backend/(cpu_cycles*#slots)-br_mis_pred*3/cpu_cycles)" } } },
};

#define NR_ARM_CORES (sizeof(arm_cores) / sizeof(arm_cores[0]))

static const struct arm_core arm_architectural = { 0, "an Arm core", 0, false, {
	{ "Front End", "100*stall_slot_frontend/(#slots*cpu_cycles)" },
	{ "Speculation", "100*(1-op_retired/op_spec)*(1-stall_slot/(#slots*cpu_cycles))" },
	{ "Retiring", "100*op_retired/op_spec*(1-stall_slot/(#slots*cpu_cycles))" },
	{ "Back End", "100*stall_slot_backend/(#slots*cpu_cycles)" } } };

/* The events Arm's level 1 takes (cpu_cycles first: it leads the group, on the cycle counter). */
static const struct td_event arm_events[] = {
	{ "cpu_cycles", "cpu_cycles" }, { "stall_slot_frontend", "stall_slot_frontend" },
	{ "stall_slot_backend", "stall_slot_backend" }, { "stall_slot", "stall_slot" },
	{ "op_spec", "op_spec" }, { "op_retired", "op_retired" }, { "br_mis_pred", "br_mis_pred" },
};

#define ARM_BR_MIS_PRED 6	/* arm_events' last: only where the formulas take it */

/* MIDR_EL1's implementer and part: sysfs, else /proc/cpuinfo's lines; false when neither says. */
static bool arm_midr(const struct topdown_machine *m, unsigned *implementer, unsigned *part)
{
	char path[4096], text[32];
	long imp, num;

	if (m->sysfs_cpu) {
		snprintf(path, sizeof(path), "%s/cpu0/regs/identification/midr_el1", m->sysfs_cpu);
		if (sysfile_read(path, text, sizeof(text)) > 0) {
			unsigned long long midr = strtoull(text, NULL, 0);

			*implementer = (unsigned)(midr >> 24) & 0xff;
			*part = (unsigned)(midr >> 4) & 0xfff;
			return true;
		}
	}
	imp = m->cpuinfo ? cpuinfo_field(m->cpuinfo, "CPU implementer") : -1;
	num = m->cpuinfo ? cpuinfo_field(m->cpuinfo, "CPU part") : -1;
	if (imp < 0 || num < 0)
		return false;
	*implementer = (unsigned)imp;
	*part = (unsigned)num;
	return true;
}

/*
 * A PMU name as the kernel's are ("armv8_pmuv3_0", "armv9_neoverse_n2"):
 * it goes into event names and messages, so a directory named otherwise
 * (control bytes, a '/' or ',' of perf's syntax) is no PMU of ours.
 */
static bool pmu_name_plain(const char *name)
{
	size_t len = strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_");

	return len > 0 && len < 64 && name[len] == '\0';
}

/* The first PMU under @sysfs, by name, whose events include the first @n of arm_events. */
static bool arm_pmu(const char *sysfs, size_t n, char *pmu, size_t size)
{
	struct dirent **names;
	int nr = sysfs ? scandir(sysfs, &names, NULL, alphasort) : -1;
	bool found = false;

	for (int i = 0; i < nr; i++) {
		bool all = pmu_name_plain(names[i]->d_name);

		for (size_t e = 0; all && e < n; e++) {
			char file[64];

			snprintf(file, sizeof(file), "events/%s", arm_events[e].event);
			all = readable(sysfs, names[i]->d_name, file);
		}
		if (all && !found) {
			snprintf(pmu, size, "%.63s", names[i]->d_name);
			found = true;
		}
		free(names[i]);
	}
	if (nr >= 0)
		free(names);
	return found;
}

static int arm(const struct topdown_machine *m, struct topdown *td)
{
	const struct arm_core *core = &arm_architectural;
	unsigned implementer = 0, part = 0, slots = 0;
	char pmu[64], path[4096], text[32];
	bool midr = arm_midr(m, &implementer, &part);

	for (size_t i = 0; midr && implementer == 0x41 && i < NR_ARM_CORES; i++)
		if (arm_cores[i].part == part)
			core = &arm_cores[i];

	size_t n = core->mispredicts ? ARM_BR_MIS_PRED + 1 : ARM_BR_MIS_PRED;

	if (!arm_pmu(m->sysfs, n, pmu, sizeof(pmu))) {
		if (midr && implementer == 0x41 && part == 0xd0c)
			snprintf(td->why, sizeof(td->why), "the Neoverse N1 has no STALL_SLOT events "
				 "(an Armv8.2 PMU) and Arm publishes no level 1 for it: its telemetry "
				 "specification's cycle accounting is STALL_FRONTEND and STALL_BACKEND "
				 "over CPU_CYCLES, which PFSHIM_EVENTS can count");
		else if (midr)
			snprintf(td->why, sizeof(td->why), "this arm64 core's PMU lists no "
				 "stall_slot_* events in sysfs (Arm's level 1 takes STALL_SLOT_FRONTEND, "
				 "STALL_SLOT_BACKEND, STALL_SLOT, OP_SPEC and OP_RETIRED: Armv8.4 "
				 "and later, as on the Neoverse V1, N2 and V2)");
		return -ENOENT;
	}
	/* PMMIR_EL1.SLOTS, which the kernel shows from Linux 5.15 on; else the specification's. */
	snprintf(path, sizeof(path), "%s/%s/caps/slots", m->sysfs, pmu);
	if (sysfile_read(path, text, sizeof(text)) > 0)
		slots = (unsigned)strtoul(text, NULL, 0);
	if (slots > 0xff)	/* PMMIR_EL1.SLOTS is 8 bits: not a value the kernel gives */
		slots = 0;
	if (!slots)
		slots = core->slots;
	if (!slots) {
		snprintf(td->why, sizeof(td->why), "%s/caps/slots gives no slot count "
			 "(PMMIR_EL1.SLOTS: Linux 5.15 and later), and Arm's formulas need it", pmu);
		return -ENOENT;
	}
	build(td, pmu, arm_events, n, core->metrics, 4, slots);
	if (core != &arm_architectural)
		snprintf(td->source, sizeof(td->source), "Arm %s (MIDR part %#x): the %s events, "
			 "%u slots, Arm's telemetry specification's formulas, one group", core->name,
			 part, pmu, slots);
	else
		snprintf(td->source, sizeof(td->source), "an Arm core with STALL_SLOT events: the %s "
			 "events, %u slots, Arm's architectural formulas, one group", pmu, slots);
	return 0;
}

/*
 * AMD Zen 4 and 5: pipeline utilization, perf's amdzen4/amdzen5
 * PipelineL1 metrics: each count over the dispatch slots, 6 (Zen 4) or 8
 * (Zen 5) a cycle not halted. Raw encodings on the core PMU (its event
 * field is config:0-7,32-35), as perf's event tables give them.
 */
#define AMD_CONFIG(event, umask) \
	(((uint64_t)(event) & 0xf00) << 24 | (uint64_t)(umask) << 8 | ((event) & 0xff))

static const struct {
	const char *counter;
	unsigned event, umask;
} amd_events[] = {
	{ "ls_not_halted_cyc", 0x076, 0x00 },		/* cycles not halted: leads */
	{ "no_ops_from_frontend", 0x1a0, 0x01 },	/* de_no_dispatch_per_slot.* */
	{ "backend_stalls", 0x1a0, 0x1e },
	{ "smt_contention", 0x1a0, 0x60 },
	{ "de_src_op_disp_all", 0x0aa, 0x07 },		/* ops dispatched, any source */
	{ "ex_ret_ops", 0x0c1, 0x00 },			/* ops retired */
};

#define NR_AMD_EVENTS (sizeof(amd_events) / sizeof(amd_events[0]))

static const struct td_metric amd_metrics[] = {
	{ "Front End", "no_ops_from_frontend/(#slots*ls_not_halted_cyc)*100" },
	{ "Speculation", "(de_src_op_disp_all-ex_ret_ops)/(#slots*ls_not_halted_cyc)*100" },
	{ "Retiring", "ex_ret_ops/(#slots*ls_not_halted_cyc)*100" },
	{ "Back End", "backend_stalls/(#slots*ls_not_halted_cyc)*100" },
	{ "SMT contention", "smt_contention/(#slots*ls_not_halted_cyc)*100" },
};

static int amd(const struct topdown_machine *m, struct topdown *td)
{
	long family, model;
	const char *zen;
	unsigned slots;

	if (!m->cpuinfo || !strstr(m->cpuinfo, "AuthenticAMD"))
		return -ENOENT;
	family = cpuinfo_field(m->cpuinfo, "cpu family");
	model = cpuinfo_field(m->cpuinfo, "model");
	/* Zen 3's models, as perf's x86 mapfile.csv tells them from Zen 4's. */
	if (family < 0x19 || (family == 0x19 && (model <= 0x0f || (model >= 0x20 && model <= 0x5f)))) {
		snprintf(td->why, sizeof(td->why), "AMD family %#lx model %#lx (Zen 3 or older) has no "
			 "dispatch-slot events (PMCx1A0 came with Zen 4), so no level-1 split: "
			 "PFSHIM_EVENTS can count its dispatch stall cycles "
			 "(PMCx0AE, PMCx0AF) instead", family, model);
		return -ENOENT;
	}
	zen = family == 0x19 ? "Zen 4" : family == 0x1a ? "Zen 5" : NULL;
	slots = family == 0x19 ? 6 : 8;
	if (!zen)
		return -ENOENT;	/* a later family: its slots and events are not published yet */
	if (!m->sysfs || !readable(m->sysfs, "cpu", "type")) {
		snprintf(td->why, sizeof(td->why), "AMD %s (family %#lx model %#lx), but no core PMU "
			 "(cpu/) in sysfs: a virtual machine without a virtual PMU", zen, family, model);
		return -ENOENT;
	}

	struct td_event ev[NR_AMD_EVENTS];
	char terms[NR_AMD_EVENTS][40];

	for (size_t i = 0; i < NR_AMD_EVENTS; i++) {
		snprintf(terms[i], sizeof(terms[i]), "config=%#llx",
			 (unsigned long long)AMD_CONFIG(amd_events[i].event, amd_events[i].umask));
		ev[i] = (struct td_event){ amd_events[i].counter, terms[i] };
	}
	build(td, "cpu", ev, NR_AMD_EVENTS, amd_metrics, sizeof(amd_metrics) / sizeof(amd_metrics[0]),
	      slots);
	snprintf(td->source, sizeof(td->source), "AMD %s pipeline utilization: dispatch-slot "
		 "events on cpu/, %u slots a cycle, perf's PipelineL1 formulas, one group", zen, slots);
	return 0;
}

int topdown_find(const struct topdown_machine *m, struct topdown *td)
{
	memset(td, 0, sizeof(*td));
	if (intel(m, td) == 0 || arm(m, td) == 0)
		return 0;
	if (td->why[0])
		return -ENOENT;
	return amd(m, td);
}
