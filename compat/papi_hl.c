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

/* This thread's part; @began first, so that a begin's store to it needs no offset. */
static COMPAT_THREAD struct {
	const char *began;	/* a region this thread began since its last stop; NULL: none */
	unsigned empty_open;	/* "" regions begun and not ended */
	int refused;		/* pfshim refused a begin of this thread (table full) */
} hl_thread;

static int state(void)
{
	return __atomic_load_n(&hl_state, __ATOMIC_ACQUIRE);
}

/*
 * pfshim's begin and end by name while the layer is active, the closed
 * ones below otherwise: a begin or end calls through one of them without
 * testing the layer's state itself, nor pfshim's weak reference, nor
 * going through the PLT. Hidden, not static: GCC reaches a static one
 * through its section's anchor, an add more a call (arm64).
 */
static int hl_begin_closed(const char *region);
static int hl_end_closed(const char *region);
__attribute__((visibility("hidden"))) int (*hl_begin_fn)(const char *) = hl_begin_closed;
__attribute__((visibility("hidden"))) int (*hl_end_fn)(const char *) = hl_end_closed;

/*
 * A begin or end of a name pfshim may take while the layer is not active:
 * the layer's first begin (it starts), or any call once it is off. What
 * they answer passes through the begin's and end's test for pfshim's
 * codes: pfshim's own, or PAPI_EMISC, which is none of them.
 */
_Static_assert(PAPI_EMISC != PFSHIM_INACTIVE && PAPI_EMISC != PFSHIM_MISUSE &&
	       PAPI_EMISC != PFSHIM_FAILED, "the closed layer's answer is not pfshim's");

static void hl_activate(void);

static int hl_begin_closed(const char *region)
{
	if (state() == HL_OFF)
		return PAPI_EMISC;
	hl_activate();
	return pfshim_region_begin(region);
}

static int hl_end_closed(const char *region)
{
	if (state() != HL_ACTIVE)
		return PAPI_EMISC;
	return pfshim_region_end(region);
}

/* The layer's first begin: active, and pfshim's calls (a stub without libpfshim.so) in place. */
static int region_inactive(const char *name)
{
	(void)name;
	return PFSHIM_INACTIVE;
}

static void hl_activate(void)
{
	if (!__atomic_compare_exchange_n(&hl_state, &(int){ HL_NONE }, HL_ACTIVE, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	__atomic_store_n(&hl_end_fn, pfshim_v1_region_end ? pfshim_v1_region_end : region_inactive,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&hl_begin_fn,
			 pfshim_v1_region_begin ? pfshim_v1_region_begin : region_inactive,
			 __ATOMIC_RELAXED);
}

/* A begin of the empty name, which PAPI takes as a region and pfshim does not. */
static __attribute__((noinline)) int hl_begin_empty(const char *region)
{
	if (state() == HL_OFF)
		return PAPI_EMISC;
	hl_activate();
	hl_thread.began = region;
	hl_thread.empty_open++;
	return PAPI_OK;
}

/*
 * pfshim's begin said something other than 0: its refusal (table full) is
 * remembered, and is PAPI_OK (PAPI has no such limit); so are
 * PFSHIM_INACTIVE and PFSHIM_FAILED. PAPI_EMISC is the closed layer's.
 * Out of line, so that the common begin keeps no register over its call
 * and tests its result for zero only.
 */
static __attribute__((noinline)) int hl_begin_not_0(int ret)
{
	if (ret == PAPI_EMISC)
		return PAPI_EMISC;
	if (ret == PFSHIM_MISUSE)
		hl_thread.refused = 1;
	return PAPI_OK;
}

/*
 * PAPI crashes on a null name; pfshim says PAPI_EINVAL instead. The rest
 * (the layer's state, a refused begin, a long name, which pfshim shortens)
 * is found after the call: the region pair through this layer is a goal of
 * issue 22, at most 1.2x pfshim's pair by handle.
 */
API int PAPI_hl_region_begin(const char *region)
{
	int ret;

	if (!region)
		return PAPI_EINVAL;
	if (__builtin_expect(!*region, 0))
		return hl_begin_empty(region);
	hl_thread.began = region;
	ret = compat_fn_load(&hl_begin_fn)(region);
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
	if (ended || hl_thread.refused)
		return PAPI_OK;
	/* as PAPI: "Cannot find matching region", and the high-level layer is off */
	__atomic_store_n(&hl_state, HL_OFF, __ATOMIC_RELEASE);
	__atomic_store_n(&hl_begin_fn, hl_begin_closed, __ATOMIC_RELAXED);
	__atomic_store_n(&hl_end_fn, hl_end_closed, __ATOMIC_RELAXED);
	return PAPI_EINVAL;
}

/* An end of the empty name: matched against this thread's begins of it. */
static __attribute__((noinline)) int hl_end_empty(void)
{
	if (state() != HL_ACTIVE)
		return PAPI_EMISC;
	return hl_end_unmatched(hl_thread.empty_open > 0 ? (hl_thread.empty_open--, 1) : 0);
}

/* pfshim's end said something other than 0: only its misuse is not PAPI_OK (as hl_begin_not_0). */
static __attribute__((noinline)) int hl_end_not_0(int ret)
{
	if (ret == PAPI_EMISC)
		return PAPI_EMISC;
	return ret == PFSHIM_MISUSE ? hl_end_unmatched(0) : PAPI_OK;
}

API int PAPI_hl_region_end(const char *region)
{
	int ret;

	if (!region)
		return PAPI_EINVAL;
	if (__builtin_expect(!*region, 0))
		return hl_end_empty();
	ret = compat_fn_load(&hl_end_fn)(region);
	return __builtin_expect(ret != 0, 0) ? hl_end_not_0(ret) : PAPI_OK;
}

API int PAPI_hl_stop(void)
{
	if (state() != HL_ACTIVE || !hl_thread.began)
		return PAPI_ENOEVNT;
	hl_thread.began = NULL;
	return PAPI_OK;
}
