/* SPDX-License-Identifier: MIT */
/*
 * fastread/arch/x86_64.h: the two instructions the x86_64 read path needs,
 * and where user reads are switched on; the seqlock loop around them lives
 * once in fastread/read.c.
 */
#ifndef PFSHIM_FASTREAD_ARCH_X86_64_H
#define PFSHIM_FASTREAD_ARCH_X86_64_H

#include <stdint.h>

#define FASTREAD_ARCH_USER_READ 1

/*
 * Where user reads are switched (fastread/access.c): each core PMU's rdpmc
 * file, 0 off, 1 while the mm has a mapped event, 2 always. Intel hybrid
 * parts name their core PMUs cpu_core and cpu_atom.
 */
#define FASTREAD_ARCH_ACCESS_PMUS(X) X("cpu") X("cpu_core") X("cpu_atom")

/*
 * Two events' slots, offsets, shifts and pages in registers ahead of a
 * read (fastread/arch.h): three or four spill (GCC 12: 18 and 50 stack
 * accesses in pfshim_begin() against 6).
 */
#define FASTREAD_ARCH_HOIST_EVENTS 2

/*
 * rdpmc takes ECX = index - 1: the kernel's index already carries bit 30 for
 * the fixed counters (docs/kernel-notes.md "x86"), so no translation is
 * needed. The slot a cached read keeps (fastread/read.c) is that ECX.
 */
#define FASTREAD_SLOT_NONE UINT32_MAX

static inline __attribute__((always_inline)) uint32_t arch_counter_slot(uint32_t index)
{
	return index ? index - 1 : FASTREAD_SLOT_NONE;
}

static inline __attribute__((always_inline)) uint64_t arch_read_slot(uint32_t slot)
{
	uint32_t lo, hi;

	/* The memory clobber as on arm64: no later load is taken ahead of it. */
	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(slot) : "memory");
	return (uint64_t)hi << 32 | lo;
}

/*
 * Intel's top-down registers (Ice Lake and later; fastread/topdown.c reads
 * them): the slots event counts on fixed counter 3, rdpmc ECX (1 << 30) | 3,
 * and every topdown-* event's page names the PERF_METRICS register, ECX
 * 1 << 29 (the kernel's x86_pmu_event_idx(): INTEL_PMC_FIXED_RDPMC_METRICS).
 * The indices are ECX + 1. The attrs' encodings (event 0x00): slots umask
 * 0x04, the metrics umask 0x80 + their byte in the register.
 */
#define FASTREAD_ARCH_TOPDOWN 1
#define FASTREAD_TOPDOWN_SLOTS_INDEX ((UINT32_C(1) << 30 | 3) + 1)
#define FASTREAD_TOPDOWN_METRICS_INDEX ((UINT32_C(1) << 29) + 1)
#define FASTREAD_TOPDOWN_SLOTS_CONFIG 0x0400
#define FASTREAD_TOPDOWN_METRIC_CONFIG(byte) (0x8000 + ((byte) << 8))

/* The page's time_{offset,mult,shift} convert TSC cycles (cap_user_time). */
static inline __attribute__((always_inline)) uint64_t arch_read_timestamp(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

#endif
