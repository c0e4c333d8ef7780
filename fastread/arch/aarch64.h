/* SPDX-License-Identifier: MIT */
/*
 * fastread/arch/aarch64.h: read an arm64 PMU counter and the generic timer
 * from EL0, and the config1 bits that make an event readable there; the
 * seqlock loop lives once in fastread/read.c.
 */
#ifndef PFSHIM_FASTREAD_ARCH_AARCH64_H
#define PFSHIM_FASTREAD_ARCH_AARCH64_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/perf_event.h>

#define FASTREAD_ARCH_USER_READ 1

/* Where user reads are switched (fastread/access.c): one sysctl, Linux >= 5.17. */
#define FASTREAD_ARCH_ACCESS_SYSCTL "/proc/sys/kernel/perf_user_access"

/*
 * Up to three events' slots, offsets and pages in registers ahead of a
 * read (fastread/arch.h): four take callee-saved registers, and with them a
 * frame (GCC 12: 9 stack accesses in pfshim_begin()'s 4-event paths).
 */
#define FASTREAD_ARCH_HOIST_EVENTS 3

/*
 * The register number is part of the mrs instruction, so reading counter n
 * needs one instruction per register. They sit in a table of equal stubs,
 * "mrs; b out", in one asm block: a read is adr, add, br to the stub of its
 * slot, which a cached read (fastread/read.c) computed once from the page's
 * index, then the mrs and the branch out. 5 instructions where a switch took
 * 9 (its bounds check and byte table: docs/performance.md). Each stub is
 * generated from ONE token: the stub's position and the register named in it
 * cannot disagree (two widely used libraries have entries 12 and 13 swapped
 * in hand-written tables: docs/kernel-notes.md "arm64"), and
 * tests/unit/fastread/test_aarch64.c reads the table's text back to check
 * every index against its register.
 *
 * Index n + 1 is PMEVCNTR<n>_EL0 (n = 0..30) and index 32 the cycle counter,
 * read directly: PMSELR_EL0 + PMXEVCNTR_EL0 returned 0 for it under QEMU.
 * FASTREAD_ARM64_COUNTERS(X) lists them in slot order, X(register name).
 */
#define FASTREAD_ARM64_PMEVCNTR(X, n, v, out) X("pmevcntr" #n "_el0", v, out)
#define FASTREAD_ARM64_TEN(X, tens, v, out)                                                 \
	FASTREAD_ARM64_PMEVCNTR(X, tens##0, v, out) FASTREAD_ARM64_PMEVCNTR(X, tens##1, v, out) \
	FASTREAD_ARM64_PMEVCNTR(X, tens##2, v, out) FASTREAD_ARM64_PMEVCNTR(X, tens##3, v, out) \
	FASTREAD_ARM64_PMEVCNTR(X, tens##4, v, out) FASTREAD_ARM64_PMEVCNTR(X, tens##5, v, out) \
	FASTREAD_ARM64_PMEVCNTR(X, tens##6, v, out) FASTREAD_ARM64_PMEVCNTR(X, tens##7, v, out) \
	FASTREAD_ARM64_PMEVCNTR(X, tens##8, v, out) FASTREAD_ARM64_PMEVCNTR(X, tens##9, v, out)
#define FASTREAD_ARM64_COUNTERS(X, v, out)                                                  \
	FASTREAD_ARM64_TEN(X, , v, out) FASTREAD_ARM64_TEN(X, 1, v, out)                    \
	FASTREAD_ARM64_TEN(X, 2, v, out) FASTREAD_ARM64_PMEVCNTR(X, 30, v, out)             \
	X("pmccntr_el0", v, out)
#define FASTREAD_ARM64_NR_COUNTERS 32

/*
 * One stub: the counter into the asm operand named @v, then @out, the
 * branch that leaves it. Where the build asks for branch protection, every
 * target of a br starts with a landing pad (hint #36 is bti j: one
 * instruction more per read).
 */
#if defined(__ARM_FEATURE_BTI_DEFAULT) && __ARM_FEATURE_BTI_DEFAULT
#define FASTREAD_ARM64_STUB(reg, v, out) "hint #36\n\tmrs %[" v "], " reg "\n\t" out "\n\t"
#define FASTREAD_ARM64_STUB_SIZE 12
#else
#define FASTREAD_ARM64_STUB(reg, v, out) "mrs %[" v "], " reg "\n\t" out "\n\t"
#define FASTREAD_ARM64_STUB_SIZE 8
#endif
/* The table of a read into @v that leaves by @out (the one read's: "v", "b 9f"). */
#define FASTREAD_ARM64_TABLE(v, out) FASTREAD_ARM64_COUNTERS(FASTREAD_ARM64_STUB, v, out)
#define FASTREAD_ARM64_STUBS FASTREAD_ARM64_TABLE("v", "b 9f")

/* What arch_counter_slot() returns for an index no register answers to. */
#define FASTREAD_SLOT_NONE UINT32_MAX

/* arch_counter_slot - the slot of the page's @index (1-based): the stub's byte offset. */
static inline __attribute__((always_inline)) uint32_t arch_counter_slot(uint32_t index)
{
	if (index - 1 >= FASTREAD_ARM64_NR_COUNTERS)
		return FASTREAD_SLOT_NONE;	/* 0: not on a counter; > 32: a register we lack */
	return (index - 1) * FASTREAD_ARM64_STUB_SIZE;
}

/*
 * arch_read_slot - the counter of a @slot that arch_counter_slot() gave
 * (never NONE). It clobbers memory so that no load written after it in the
 * source is taken before it: a caller measuring an interval decides what
 * lands inside it (fastread/cached.h).
 */
static inline __attribute__((always_inline)) uint64_t arch_read_slot(uint32_t slot)
{
	uint64_t v, at;

	__asm__ volatile("adr %[at], 1f\n\t"
			 "add %[at], %[at], %w[slot], uxtw\n\t"
			 "br %[at]\n"
			 "1:\n\t" FASTREAD_ARM64_STUBS
			 "9:"
			 : [v] "=r"(v), [at] "=&r"(at)
			 : [slot] "r"(slot)
			 : "memory");
	return v;
}

/*
 * arch_read_slots - the counters of @nr slots (2 to 4, a constant where this
 * is inlined) into @v, back to back: every stub address is computed first,
 * each into the register its counter will go to, and each table's stubs
 * branch straight into the next counter's stub. Between one counter and the
 * next there is one br, where arch_read_slot() a counter at a time has the
 * branch out, then adr, add and br: for a read that opens an interval
 * (fastread/cached.h), whose every instruction after its first counter
 * lands inside it, 3 fewer a counter.
 */
#define FASTREAD_ARCH_READ_SLOTS 1
#define FASTREAD_ARCH_READ_SLOTS_MAX 4	/* any @nr but 2 and 3 reads 4 */
#define FASTREAD_ARM64_AT(k, table)                                                        \
	"adr %[v" #k "], " #table "f\n\tadd %[v" #k "], %[v" #k "], %w[s" #k "], uxtw\n\t"

static inline __attribute__((always_inline)) void
arch_read_slots(const int nr, const uint32_t *slot, uint64_t *v)
{
	if (nr == 2)
		__asm__ volatile(FASTREAD_ARM64_AT(0, 1) FASTREAD_ARM64_AT(1, 2)
				 "br %[v0]\n"
				 "1:\n\t" FASTREAD_ARM64_TABLE("v0", "br %[v1]")
				 "2:\n\t" FASTREAD_ARM64_TABLE("v1", "b 9f")
				 "9:"
				 : [v0] "=&r"(v[0]), [v1] "=&r"(v[1])
				 : [s0] "r"(slot[0]), [s1] "r"(slot[1])
				 : "memory");
	else if (nr == 3)
		__asm__ volatile(FASTREAD_ARM64_AT(0, 1) FASTREAD_ARM64_AT(1, 2)
				 FASTREAD_ARM64_AT(2, 3)
				 "br %[v0]\n"
				 "1:\n\t" FASTREAD_ARM64_TABLE("v0", "br %[v1]")
				 "2:\n\t" FASTREAD_ARM64_TABLE("v1", "br %[v2]")
				 "3:\n\t" FASTREAD_ARM64_TABLE("v2", "b 9f")
				 "9:"
				 : [v0] "=&r"(v[0]), [v1] "=&r"(v[1]), [v2] "=&r"(v[2])
				 : [s0] "r"(slot[0]), [s1] "r"(slot[1]), [s2] "r"(slot[2])
				 : "memory");
	else
		__asm__ volatile(FASTREAD_ARM64_AT(0, 1) FASTREAD_ARM64_AT(1, 2)
				 FASTREAD_ARM64_AT(2, 3) FASTREAD_ARM64_AT(3, 4)
				 "br %[v0]\n"
				 "1:\n\t" FASTREAD_ARM64_TABLE("v0", "br %[v1]")
				 "2:\n\t" FASTREAD_ARM64_TABLE("v1", "br %[v2]")
				 "3:\n\t" FASTREAD_ARM64_TABLE("v2", "br %[v3]")
				 "4:\n\t" FASTREAD_ARM64_TABLE("v3", "b 9f")
				 "9:"
				 : [v0] "=&r"(v[0]), [v1] "=&r"(v[1]), [v2] "=&r"(v[2]), [v3] "=&r"(v[3])
				 : [s0] "r"(slot[0]), [s1] "r"(slot[1]), [s2] "r"(slot[2]),
				   [s3] "r"(slot[3])
				 : "memory");
}

/* The isb keeps the timer read from being taken ahead of earlier reads. */
static inline __attribute__((always_inline)) uint64_t arch_read_timestamp(void)
{
	uint64_t v;

	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v));
	return v;
}

/* PMUv3 config1 bits (format/long, format/rdpmc). */
#define ARM64_CONFIG1_LONG	(1ULL << 0)
#define ARM64_CONFIG1_RDPMC	(1ULL << 1)

/* Events of a PMU whose format/ lists "rdpmc" ask for user reads in their attr. */
#define FASTREAD_ARCH_USER_BIT 1

/*
 * arch_attr_user_read - set @attr->config1 for try @n (0, 1, ...) at opening
 * an event readable from user space; @config1 is the event's own.
 * Return: false when no try is left (fastread/group.c then opens the event
 * as it came, counting through read(2)).
 * A core-PMU event is readable from EL0 only with config1 bit 1; bit 0 asks
 * for a 64-bit counter and fails with EOPNOTSUPP where the PMU has only
 * 32-bit ones, so 32-bit is the second try (docs/kernel-notes.md "arm64").
 * It is also the second try after EINVAL: in a group on cortex-a57 a second
 * 64-bit cycles cannot have the one 64-bit counter (the cycle counter), but
 * a 32-bit one fits on an event counter.
 */
static inline bool arch_attr_user_read(struct perf_event_attr *attr, uint64_t config1, int n)
{
	if (n == 0)
		attr->config1 = config1 | ARM64_CONFIG1_RDPMC | ARM64_CONFIG1_LONG;
	else if (n == 1)
		attr->config1 = (config1 | ARM64_CONFIG1_RDPMC) & ~ARM64_CONFIG1_LONG;
	return n <= 1;
}

/* PMUv3 event numbers (the "event" field of config): the two fastread names. */
#define ARM64_EVENT_INST_RETIRED	0x08
#define ARM64_EVENT_CPU_CYCLES		0x11

/*
 * arch_attr_wide_probe - is @attr the cycles event, whose 64-bit user-readable
 * form may sit only on the cycle counter where the PMU has no 64-bit event
 * counters (before PMUv3p5: Cortex-A57/A72, Neoverse N1)? If so, fill
 * @probe with inst_retired of the same PMU asking for a 64-bit user counter:
 * the kernel refuses that one with EOPNOTSUPP exactly on such a PMU
 * (arm_pmu's __armv8_pmuv3_map_event(), which exempts cycles and says "this
 * may still fail later on if the CPU cycle counter is in use": it does, the
 * event then never runs while another holds that counter).
 */
static inline bool arch_attr_wide_probe(const struct perf_event_attr *attr,
					struct perf_event_attr *probe)
{
	bool cycles;

	*probe = *attr;
	if (attr->type == PERF_TYPE_HARDWARE) {
		/* The upper 32 bits of config name a PMU (PERF_PMU_TYPE_SHIFT): kept. */
		cycles = (uint32_t)attr->config == PERF_COUNT_HW_CPU_CYCLES;
		probe->config = (attr->config & ~0xffffffffULL) | PERF_COUNT_HW_INSTRUCTIONS;
	} else {
		/* A raw event or the core PMU's own type: event number in config bits 0-15. */
		cycles = (attr->config & 0xffff) == ARM64_EVENT_CPU_CYCLES;
		probe->config = (attr->config & ~0xffffULL) | ARM64_EVENT_INST_RETIRED;
	}
	probe->config1 = attr->config1 | ARM64_CONFIG1_RDPMC | ARM64_CONFIG1_LONG;
	return cycles;
}

#endif
