/* SPDX-License-Identifier: MIT */
/*
 * likwid_arch.h: which of LIKWID's group directories (perfgroups/<arch>/)
 * is written for this CPU, from /proc/cpuinfo's identification lines, as
 * LIKWID's own topology code chooses it.
 */
#ifndef PFSHIM_PRELOAD_METRICS_LIKWID_ARCH_H
#define PFSHIM_PRELOAD_METRICS_LIKWID_ARCH_H

#include <stddef.h>

/*
 * likwid_arch - the directory name for the CPU @cpuinfo describes
 * ("skylakeX", "zen3", "arm8_n1", ...), or NULL when LIKWID has none for it.
 * @cpu is filled with a short description ("AMD family 26 model 2") for
 * the message that says so.
 */
const char *likwid_arch(const char *cpuinfo, char *cpu, size_t size);

/*
 * cpuinfo_field - the number after "@key<spaces>:" on a line of the
 * /proc/cpuinfo text @text (decimal, or 0x hexadecimal), or -1.
 */
long cpuinfo_field(const char *text, const char *key);

#endif
