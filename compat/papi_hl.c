/* SPDX-License-Identifier: MIT */
/*
 * papi_hl.c: PAPI's high-level API (PAPI_hl_*) on pfshim's public marker API
 * (pfshim.h): each PAPI region is a pfshim region, begun and ended by name.
 * Built with likwid.c into libpfshim-compat.so (the opt-in preload) and
 * libpfshim-compat.a (for programs built against include/pfshim/papi-hl.h).
 *
 * The return codes are PAPI 7.0's (measured against Debian's libpapi, and
 * compared call by call in tests/e2e/compat.bats): PAPI's high-level layer
 * starts at its first region_begin; until then an end or a read is
 * PAPI_EMISC and a stop PAPI_ENOEVNT. Once started, the end of a region
 * not begun in this thread is PAPI_EINVAL and switches the whole layer off
 * for good: every later call is PAPI_EMISC, a stop PAPI_ENOEVNT, and
 * nothing more reaches pfshim. PAPI_hl_stop stops the thread's counting
 * until its next begin (a second stop before it is PAPI_ENOEVNT) and
 * changes nothing else: regions after it are still counted. The empty
 * name is a region for PAPI but not for pfshim: it is only matched, begin
 * to end. PAPI has no limit on regions and pfshim's table has one, so a
 * begin is PAPI_OK even when pfshim refuses it. Without libpfshim.so pfshim
 * sees no misuse, so no end is PAPI_EINVAL. docs/compat.md has the table.
 */
#include <stddef.h>

#include <pfshim.h>
#include "compat/name.h"
#include "compat/thread.h"
#include "include/pfshim/papi-hl.h"

#define API __attribute__((visibility("default")))

enum hl_state { HL_NONE, HL_ACTIVE, HL_OFF };

static int hl_state;			/* enum hl_state, one for the process as PAPI's */
static COMPAT_THREAD unsigned empty_open;	/* this thread's begun and not ended "" regions */
static COMPAT_THREAD int counting;		/* this thread began a region since its last stop */
static COMPAT_THREAD int refused;		/* pfshim refused a begin of this thread (table full) */

static int state(void)
{
	return __atomic_load_n(&hl_state, __ATOMIC_ACQUIRE);
}

/*
 * pfshim's begin and end by name while the layer is active, null otherwise:
 * one load tells a begin or end both the layer's state and where to go, in
 * a call of its own rather than through the weak reference's test and the
 * PLT. Without libpfshim.so they answer PFSHIM_INACTIVE, as pfshim.h's
 * wrappers do.
 */
static int (*begin_fn)(const char *);
static int (*end_fn)(const char *);

static int region_inactive(const char *name)
{
	(void)name;
	return PFSHIM_INACTIVE;
}

/* The layer's first begin: active, and the fast path open. */
static void hl_activate(void)
{
	if (!__atomic_compare_exchange_n(&hl_state, &(int){ HL_NONE }, HL_ACTIVE, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&end_fn, pfshim_v1_region_end ? pfshim_v1_region_end : region_inactive,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&begin_fn,
			 pfshim_v1_region_begin ? pfshim_v1_region_begin : region_inactive,
			 __ATOMIC_RELAXED);
}

/*
 * A begin other than the common one (the layer active, a name pfshim takes
 * as it is): the layer's first begin or its end, the empty name, a long one.
 */
static __attribute__((noinline)) int hl_begin_other(const char *region)
{
	char buf[COMPAT_NAME_LEN];

	if (state() == HL_OFF)
		return PAPI_EMISC;
	if (state() == HL_NONE)
		hl_activate();
	counting = 1;
	if (!*region) {
		empty_open++;
		return PAPI_OK;
	}
	/*
	 * pfshim refuses a region only when its table is full (regions.capacity;
	 * a table_full misuse in the report). PAPI has no such limit: PAPI_OK.
	 */
	if (pfshim_region_begin(compat_region_name(region, buf)) == PFSHIM_MISUSE)
		refused = 1;
	return PAPI_OK;
}

/*
 * pfshim's begin said something other than 0: its refusal (table full) is
 * remembered; anything else is PAPI_OK too. Out of line, so that the common
 * begin keeps no register over its call and tests its result for zero only.
 */
static __attribute__((noinline)) int hl_begin_not_0(int ret)
{
	if (ret == PFSHIM_MISUSE)
		refused = 1;
	return PAPI_OK;
}

/*
 * PAPI crashes on a null name; pfshim says PAPI_EINVAL instead. The common
 * case in line, with no name buffer (the region pair through this layer is
 * a goal of issue 22: at most 1.2x pfshim's pair by handle).
 */
API int PAPI_hl_region_begin(const char *region)
{
	int (*begin)(const char *) = compat_fn_load(&begin_fn);
	int ret;

	if (!region)
		return PAPI_EINVAL;
	if (__builtin_expect(!begin || !*region, 0))
		return hl_begin_other(region);
	counting = 1;
	ret = begin(region);
	return __builtin_expect(ret != 0, 0) ? hl_begin_not_0(ret) : PAPI_OK;
}

/* PAPI records an intermediate value; pfshim has no such record: checks only. */
API int PAPI_hl_read(const char *region)
{
	if (!region)
		return PAPI_EINVAL;
	return state() == HL_ACTIVE ? PAPI_OK : PAPI_EMISC;
}

/*
 * An end that pfshim did not take (or no pfshim end at all: @ended as it
 * was found). The end of a refused region is a "misuse" for pfshim too;
 * once this thread had one, pfshim's answer cannot tell it from a wrong
 * end: PAPI_OK.
 */
static __attribute__((noinline)) int hl_end_unmatched(int ended)
{
	if (ended || refused)
		return PAPI_OK;
	/* as PAPI: "Cannot find matching region", and the high-level layer is off */
	__atomic_store_n(&begin_fn, NULL, __ATOMIC_RELAXED);
	__atomic_store_n(&end_fn, NULL, __ATOMIC_RELAXED);
	__atomic_store_n(&hl_state, HL_OFF, __ATOMIC_RELEASE);
	return PAPI_EINVAL;
}

/* An end other than the common one: the empty name, a long one. */
static __attribute__((noinline)) int hl_end_other(const char *region)
{
	char buf[COMPAT_NAME_LEN];

	if (!*region)
		return hl_end_unmatched(empty_open > 0 ? (empty_open--, 1) : 0);
	if (pfshim_region_end(compat_region_name(region, buf)) != PFSHIM_MISUSE)
		return PAPI_OK;
	return hl_end_unmatched(0);
}

/* pfshim's end said something other than 0: only its misuse is not PAPI_OK. */
static __attribute__((noinline)) int hl_end_not_0(int ret)
{
	return ret == PFSHIM_MISUSE ? hl_end_unmatched(0) : PAPI_OK;
}

/* An end while the fast path is closed: the layer not active, or not yet open. */
static __attribute__((noinline)) int hl_end_closed(const char *region)
{
	if (state() != HL_ACTIVE)
		return PAPI_EMISC;
	return hl_end_other(region);
}

API int PAPI_hl_region_end(const char *region)
{
	int (*end)(const char *) = compat_fn_load(&end_fn);
	int ret;

	if (!region)
		return PAPI_EINVAL;
	if (__builtin_expect(!end, 0))
		return hl_end_closed(region);
	if (__builtin_expect(!*region, 0))
		return hl_end_other(region);
	ret = end(region);
	return __builtin_expect(ret != 0, 0) ? hl_end_not_0(ret) : PAPI_OK;
}

API int PAPI_hl_stop(void)
{
	if (state() != HL_ACTIVE || !counting)
		return PAPI_ENOEVNT;
	counting = 0;
	return PAPI_OK;
}
