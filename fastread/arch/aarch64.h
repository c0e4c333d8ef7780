/*
 * fastread/arch/aarch64.h: read an arm64 PMU counter and the generic timer
 * from EL0, and nothing else; the seqlock loop lives once in fastread/read.c.
 */
#ifndef PFSHIM_FASTREAD_ARCH_AARCH64_H
#define PFSHIM_FASTREAD_ARCH_AARCH64_H

#include <stdint.h>

#define FASTREAD_ARCH_USER_READ 1

/*
 * The register number is part of the mrs instruction, so reading counter n
 * needs one case per register. Each case is generated from ONE token: the
 * case label and the register name cannot disagree, and a repeated number is
 * a duplicate case label, i.e. a compile error (two widely used libraries
 * have entries 12 and 13 swapped in hand-written tables: kernel-facts "arm64").
 */
#define FASTREAD_PMEVCNTR_CASE(n)                                             \
	case (n) + 1:                                                         \
		__asm__ volatile("mrs %0, pmevcntr" #n "_el0" : "=r"(v));     \
		return v;
#define FASTREAD_PMEVCNTR_TEN(tens)                                           \
	FASTREAD_PMEVCNTR_CASE(tens##0) FASTREAD_PMEVCNTR_CASE(tens##1)       \
	FASTREAD_PMEVCNTR_CASE(tens##2) FASTREAD_PMEVCNTR_CASE(tens##3)       \
	FASTREAD_PMEVCNTR_CASE(tens##4) FASTREAD_PMEVCNTR_CASE(tens##5)       \
	FASTREAD_PMEVCNTR_CASE(tens##6) FASTREAD_PMEVCNTR_CASE(tens##7)       \
	FASTREAD_PMEVCNTR_CASE(tens##8) FASTREAD_PMEVCNTR_CASE(tens##9)

/*
 * Index n + 1 is PMEVCNTR<n>_EL0 (n = 0..30) and index 32 the cycle counter,
 * read directly: PMSELR_EL0 + PMXEVCNTR_EL0 returned 0 for it under QEMU.
 */
static inline __attribute__((always_inline)) uint64_t arch_read_counter(uint32_t index)
{
	uint64_t v;

	switch (index) {
	FASTREAD_PMEVCNTR_TEN()		/* PMEVCNTR0..9 */
	FASTREAD_PMEVCNTR_TEN(1)	/* PMEVCNTR10..19 */
	FASTREAD_PMEVCNTR_TEN(2)	/* PMEVCNTR20..29 */
	FASTREAD_PMEVCNTR_CASE(30)
	case 32:
		__asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v));
		return v;
	default:
		return 0;	/* unreachable: the kernel hands out 1..32 */
	}
}

#undef FASTREAD_PMEVCNTR_TEN
#undef FASTREAD_PMEVCNTR_CASE

/* The isb keeps the timer read from being taken ahead of earlier reads. */
static inline __attribute__((always_inline)) uint64_t arch_read_timestamp(void)
{
	uint64_t v;

	__asm__ volatile("isb; mrs %0, cntvct_el0" : "=r"(v));
	return v;
}

#endif
