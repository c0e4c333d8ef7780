/* SPDX-License-Identifier: MIT */
/*
 * likwid_arch.c: the CPU models of LIKWID 5.2's group directories (see
 * likwid_arch.h). Intel by family 6 model, AMD by family and model range,
 * arm64 by implementer and part; any other arm64 core takes the
 * architectural events of "arm8".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/metrics/likwid_arch.h"

struct model {
	unsigned family, first, last;	/* family; model range (x86) or part (arm64) */
	const char *arch;
};

static const struct model intel[] = {
	{ 6, 0x1a, 0x1a, "nehalem" }, { 6, 0x1e, 0x1f, "nehalem" }, { 6, 0x2e, 0x2e, "nehalemEX" },
	{ 6, 0x25, 0x25, "westmere" }, { 6, 0x2c, 0x2c, "westmere" }, { 6, 0x2f, 0x2f, "westmereEX" },
	{ 6, 0x2a, 0x2a, "sandybridge" }, { 6, 0x2d, 0x2d, "sandybridgeEP" },
	{ 6, 0x3a, 0x3a, "ivybridge" }, { 6, 0x3e, 0x3e, "ivybridgeEP" },
	{ 6, 0x3c, 0x3c, "haswell" }, { 6, 0x45, 0x46, "haswell" }, { 6, 0x3f, 0x3f, "haswellEP" },
	{ 6, 0x3d, 0x3d, "broadwell" }, { 6, 0x47, 0x47, "broadwell" },
	{ 6, 0x56, 0x56, "broadwellD" }, { 6, 0x4f, 0x4f, "broadwellEP" },
	{ 6, 0x4e, 0x4e, "skylake" }, { 6, 0x5e, 0x5e, "skylake" },
	{ 6, 0x8e, 0x8e, "skylake" }, { 6, 0x9e, 0x9e, "skylake" },	/* Kaby/Coffee Lake */
	{ 6, 0x55, 0x55, "skylakeX" },	/* Cascade Lake (stepping 5-7): see below */
	{ 6, 0x7d, 0x7e, "ICL" }, { 6, 0x6a, 0x6a, "ICX" }, { 6, 0x6c, 0x6c, "ICX" },
	{ 6, 0x8c, 0x8d, "TGL" }, { 6, 0xa7, 0xa7, "RKL" },
	{ 6, 0x57, 0x57, "knl" }, { 6, 0x85, 0x85, "knl" },
	{ 6, 0x37, 0x37, "silvermont" }, { 6, 0x4d, 0x4d, "silvermont" },
	{ 6, 0x5c, 0x5c, "goldmont" }, { 6, 0x5f, 0x5f, "goldmont" },
};

static const struct model amd[] = {
	{ 0x17, 0x00, 0x2f, "zen" }, { 0x17, 0x30, 0xff, "zen2" },
	{ 0x19, 0x00, 0x0f, "zen3" }, { 0x19, 0x20, 0x5f, "zen3" },
};

/* implementer, part: Neoverse N1, ThunderX2, A64FX */
static const struct model arm[] = {
	{ 0x41, 0xd0c, 0xd0c, "arm8_n1" }, { 0x43, 0x0af, 0x0af, "arm8_tx2" },
	{ 0x46, 0x001, 0x001, "arm64fx" },
};

long cpuinfo_field(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, n))
			continue;
		const char *q = p + n;

		while (*q == ' ' || *q == '\t')
			q++;
		if (*q == ':')
			return strtol(q + 1, NULL, 0);
	}
	return -1;
}

static const char *find(const struct model *m, size_t nr, long family, long model)
{
	for (size_t i = 0; i < nr; i++)
		if (m[i].family == family && model >= m[i].first && model <= m[i].last)
			return m[i].arch;
	return NULL;
}

#define FIND(table, family, model) find(table, sizeof(table) / sizeof(table[0]), family, model)

const char *likwid_arch(const char *cpuinfo, char *cpu, size_t size)
{
	long family = cpuinfo_field(cpuinfo, "cpu family"), model = cpuinfo_field(cpuinfo, "model");
	long implementer = cpuinfo_field(cpuinfo, "CPU implementer");
	long part = cpuinfo_field(cpuinfo, "CPU part");

	if (implementer >= 0) {
		const char *arch = FIND(arm, implementer, part);

		snprintf(cpu, size, "arm64 implementer %#lx part %#lx", implementer, part);
		return arch ? arch : "arm8";
	}
	if (strstr(cpuinfo, "GenuineIntel")) {
		snprintf(cpu, size, "Intel family %ld model %ld", family, model);
		if (family == 6 && model == 0x55 && cpuinfo_field(cpuinfo, "stepping") >= 5)
			return "CLX";
		return FIND(intel, family, model);
	}
	if (strstr(cpuinfo, "AuthenticAMD")) {
		snprintf(cpu, size, "AMD family %ld model %ld", family, model);
		return FIND(amd, family, model);
	}
	snprintf(cpu, size, "an unknown CPU");
	return NULL;
}
