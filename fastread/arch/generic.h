/* SPDX-License-Identifier: MIT */
/*
 * fastread/arch/generic.h: architectures without a user-space counter read
 * here. Every read goes through read(2); these hooks are never called.
 */
#ifndef PFSHIM_FASTREAD_ARCH_GENERIC_H
#define PFSHIM_FASTREAD_ARCH_GENERIC_H

#include <stdint.h>

#define FASTREAD_ARCH_USER_READ 0

#define FASTREAD_SLOT_NONE UINT32_MAX

static inline __attribute__((always_inline)) uint32_t arch_counter_slot(uint32_t index)
{
	return index ? index - 1 : FASTREAD_SLOT_NONE;	/* as x86: tests' hooks read by index */
}

static inline __attribute__((always_inline)) uint64_t arch_read_slot(uint32_t slot)
{
	(void)slot;
	return 0;
}

static inline __attribute__((always_inline)) uint64_t arch_read_timestamp(void)
{
	return 0;
}

#endif
