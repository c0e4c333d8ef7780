/* SPDX-License-Identifier: MIT */
/*
 * pfshim/papi-hl.h: PAPI's high-level API on pfshim's regions, so that a
 * program instrumented with PAPI_hl_* builds without PAPI installed.
 * Link with -lpfshim-compat (instead of -lpapi) and run under
 * LD_PRELOAD=libpfshim.so. Only the high-level calls and the return codes
 * they use are here. See docs/compat.md.
 */
#ifndef PFSHIM_PAPI_HL_H
#define PFSHIM_PAPI_HL_H

#ifdef __cplusplus
extern "C" {
#endif

#ifndef PAPI_OK			/* PAPI's values (papi.h, PAPI 7) */
#define PAPI_OK 0
#define PAPI_EINVAL (-1)
#define PAPI_ENOEVNT (-7)
#define PAPI_EMISC (-14)
#endif

int PAPI_hl_region_begin(const char *region);
int PAPI_hl_read(const char *region);
int PAPI_hl_region_end(const char *region);
int PAPI_hl_stop(void);

#ifdef __cplusplus
}
#endif

#endif
