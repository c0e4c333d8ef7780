/*
 * fastread/arch.h: pick the counter and timestamp hooks of this architecture
 * (arch/<arch>.h); everything else in fastread/ is architecture-neutral.
 */
#ifndef PFSHIM_FASTREAD_ARCH_H
#define PFSHIM_FASTREAD_ARCH_H

/* -DFASTREAD_FORCE_GENERIC builds the read(2)-only path anywhere (checks, comparisons). */
#if defined(FASTREAD_FORCE_GENERIC)
#include "fastread/arch/generic.h"
#elif defined(__x86_64__)
#include "fastread/arch/x86_64.h"
#elif defined(__aarch64__)
#include "fastread/arch/aarch64.h"
#else
#include "fastread/arch/generic.h"
#endif

#endif
