/* SPDX-License-Identifier: MIT */
/*
 * pfshim_fortran.c: the C side of the Fortran module pfshim (pfshim.f90).
 *
 * Fortran cannot declare a weak reference, so the module's interfaces call
 * these small functions instead, built into libpfshim_fortran.a and linked
 * into the user's program. They hold the weak references of pfshim.h: the
 * program links and runs without libpfshim.so, and every call is a no-op
 * returning PFSHIM_INACTIVE. Names arrive null-terminated (the module adds
 * the C_NULL_CHAR).
 */
#include <pfshim.h>

uint32_t pfshim_f_region(const char *name);
int pfshim_f_begin(uint32_t region);
int pfshim_f_end(uint32_t region);
int pfshim_f_region_begin(const char *name);
int pfshim_f_region_end(const char *name);
int pfshim_f_read(struct pfshim_counts *counts);
int pfshim_f_report(void);
int pfshim_f_active(void);

uint32_t pfshim_f_region(const char *name) { return pfshim_region(name); }
int pfshim_f_begin(uint32_t region) { return pfshim_begin(region); }
int pfshim_f_end(uint32_t region) { return pfshim_end(region); }
int pfshim_f_region_begin(const char *name) { return pfshim_region_begin(name); }
int pfshim_f_region_end(const char *name) { return pfshim_region_end(name); }
int pfshim_f_read(struct pfshim_counts *counts) { return pfshim_read(counts); }
int pfshim_f_report(void) { return pfshim_report(); }
int pfshim_f_active(void) { return pfshim_active(); }
