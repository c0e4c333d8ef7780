/* SPDX-License-Identifier: MIT */
/*
 * topdown.h: where TopdownL1 comes from on this machine: the kernel's
 * topdown-* events (Intel), Arm's STALL_SLOT events (Neoverse) or AMD's
 * dispatch-slot events (Zen 4 and 5), as one perf group and the formulas
 * of level 1. Runs once, in the constructor, or in `pfshim list`.
 */
#ifndef PFSHIM_PRELOAD_METRICS_TOPDOWN_H
#define PFSHIM_PRELOAD_METRICS_TOPDOWN_H

#include <stddef.h>

/* Where to look: each NULL is not looked at. */
struct topdown_machine {
	const char *sysfs;	/* the PMUs (PMU_SYSFS_ROOT) */
	const char *cpuinfo;	/* the text of /proc/cpuinfo (x86 vendor, family, model) */
	const char *sysfs_cpu;	/* /sys/devices/system/cpu: arm64's MIDR_EL1 */
};

struct topdown {
	char source[256];	/* what the split is made of, for a person (pfshim list --metrics) */
	char why[384];		/* -ENOENT: why this machine has none, or "" (then LIKWID's TMA group may) */
	char group[512];	/* the events, one perf group as written: "{pmu/a/,pmu/b/}" */
	char eventset[768];	/* LIKWID's EVENTSET lines: "counter event\n" per event */
	char metrics[1536];	/* METRICS lines: Front End, Speculation, Retiring, Back End [%] */
};

/*
 * topdown_find - TopdownL1 on the machine @m describes, into @td: its
 * events as one group (a group's events count over the same cycles, so the
 * shares add up) and its metrics in LIKWID's group-file syntax, named as
 * LIKWID's TMA groups name them (the HTML page's bar reads those names).
 *
 * Return: 0, or -ENOENT: no source here; td->why says why when the CPU is
 * known to have none (Zen 3, Neoverse N1, a core PMU missing), else "".
 */
int topdown_find(const struct topdown_machine *m, struct topdown *td);

#endif
