/*
 * papi_hl.c: PAPI's high-level API (PAPI_hl_*) on pfshim's public marker API
 * (pfshim.h): each PAPI region is a pfshim region, begun and ended by name.
 * Built with likwid.c into libpfshim-compat.so (the opt-in preload) and
 * libpfshim-compat.a (for programs built against include/pfshim/papi-hl.h).
 * Without libpfshim.so the calls succeed as no-ops, so that a program that
 * exits on an error code still runs.
 */
#include <pfshim.h>
#include "include/pfshim/papi-hl.h"

#define API __attribute__((visibility("default")))

static int hl_stopped;

API int PAPI_hl_region_begin(const char *region)
{
	if (!region || !*region)
		return PAPI_EINVAL;
	if (__atomic_load_n(&hl_stopped, __ATOMIC_ACQUIRE))
		return PAPI_EMISC;
	return pfshim_region_begin(region) == PFSHIM_MISUSE ? PAPI_EMISC : PAPI_OK;
}

/* PAPI records an intermediate value; pfshim has no such record: checks only. */
API int PAPI_hl_read(const char *region)
{
	if (!region || !*region)
		return PAPI_EINVAL;
	if (__atomic_load_n(&hl_stopped, __ATOMIC_ACQUIRE))
		return PAPI_EMISC;
	return PAPI_OK;
}

API int PAPI_hl_region_end(const char *region)
{
	if (!region || !*region)
		return PAPI_EINVAL;
	if (__atomic_load_n(&hl_stopped, __ATOMIC_ACQUIRE))
		return PAPI_EMISC;
	return pfshim_region_end(region) == PFSHIM_MISUSE ? PAPI_ENOEVNT : PAPI_OK;
}

/* After PAPI_hl_stop the high-level calls do nothing and return PAPI_EMISC. */
API int PAPI_hl_stop(void)
{
	__atomic_store_n(&hl_stopped, 1, __ATOMIC_RELEASE);
	return PAPI_OK;
}
