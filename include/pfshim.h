/* SPDX-License-Identifier: MIT */
/*
 * pfshim.h: the marker API. Time regions of your program with the events
 * chosen in PFSHIM_EVENTS, read from user space where the PMU allows.
 *
 * A program built with this header needs no library to link or run: the
 * implementation is found at run time when libpfshim.so is preloaded
 * (LD_PRELOAD); without it every call is a cheap no-op returning
 * PFSHIM_INACTIVE. Define PFSHIM_DISABLE_MARKERS to compile every call (the
 * functions and the PFSHIM_* macros) to nothing: no reference to the library.
 *
 *	#include <pfshim.h>
 *
 *	pfshim_region_t solve = pfshim_region("solve");
 *	pfshim_begin(solve);
 *	...
 *	pfshim_end(solve);
 */
#ifndef PFSHIM_H
#define PFSHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PFSHIM_VERSION_MAJOR 0
#define PFSHIM_VERSION_MINOR 1

/* Return values besides 0. */
#define PFSHIM_INACTIVE (-1)	/* libpfshim.so is not loaded, or is disabled */
#define PFSHIM_MISUSE (-2)	/* end without begin, bad handle; counted in the report */
#define PFSHIM_FAILED (-3)	/* the thread's counters could not be opened or read */
#define PFSHIM_OPEN 1		/* pfshim_v1_region_start(): the region was open already */

#define PFSHIM_MAX_EVENTS 64

/* A region, named once; 0 is "no region" (what pfshim_region returns when inactive). */
typedef uint32_t pfshim_region_t;

/* The calling thread's counts of the configured events (PFSHIM_EVENTS order). */
struct pfshim_counts {
	int nr;					/* events configured */
	uint64_t value[PFSHIM_MAX_EVENTS];	/* scaled by enabled/running */
	uint64_t enabled[PFSHIM_MAX_EVENTS];	/* ns */
	uint64_t running[PFSHIM_MAX_EVENTS];	/* ns; 0: not counted (or not supported) */
};

/*
 * A region's completed calls in the calling thread, summed over every place
 * it was begun from (pfshim_region_values). An open call is not in them yet.
 */
struct pfshim_region_values {
	int nr;					/* events configured: the entries of value */
	int open;				/* 1: the region is open in this thread now */
	uint64_t calls;				/* calls completed in this thread */
	uint64_t wall_ns;			/* their wall time */
	uint64_t value[PFSHIM_MAX_EVENTS];	/* their counts, PFSHIM_EVENTS order, scaled */
};

/*
 * The implementation, resolved at run time; null when libpfshim.so is absent.
 * libpfshim.so itself defines PFSHIM_IMPLEMENTATION to define them strongly.
 */
#ifdef PFSHIM_IMPLEMENTATION
#define PFSHIM_WEAK
#else
#define PFSHIM_WEAK __attribute__((weak))
#endif
extern pfshim_region_t pfshim_v1_region(const char *name) PFSHIM_WEAK;
extern int pfshim_v1_begin(pfshim_region_t region) PFSHIM_WEAK;
extern int pfshim_v1_end(pfshim_region_t region) PFSHIM_WEAK;
extern int pfshim_v1_region_begin(const char *name) PFSHIM_WEAK;
extern int pfshim_v1_region_end(const char *name) PFSHIM_WEAK;
/*
 * For layers that keep LIKWID's rule (compat/likwid.c): as
 * pfshim_v1_region_begin(), but a region open in the calling thread is not
 * entered again: PFSHIM_OPEN, and one end closes it.
 */
extern int pfshim_v1_region_start(const char *name) PFSHIM_WEAK;
extern int pfshim_v1_read(struct pfshim_counts *counts) PFSHIM_WEAK;
extern int pfshim_v1_region_values(const char *name, struct pfshim_region_values *values)
	PFSHIM_WEAK;
extern int pfshim_v1_report(void) PFSHIM_WEAK;

#ifndef PFSHIM_IMPLEMENTATION	/* the wrappers are for programs, not for the shim */

/*
 * The implementation's function @fn, null when libpfshim.so is absent; with
 * PFSHIM_DISABLE_MARKERS a constant null, so that every call below compiles
 * to its PFSHIM_INACTIVE result and the program holds no pfshim_v1_*
 * reference at all.
 */
#ifdef PFSHIM_DISABLE_MARKERS
#define PFSHIM_IMPL(fn) ((__typeof__(&fn))0)
#else
#define PFSHIM_IMPL(fn) (&fn)
#endif

/* pfshim_active - 1 when libpfshim.so is loaded and counting, else 0. */
static inline int pfshim_active(void)
{
	__typeof__(&pfshim_v1_read) impl = PFSHIM_IMPL(pfshim_v1_read);

	return impl ? impl(0) == 0 : 0;
}

/*
 * pfshim_region - the handle of the region called @name (interned: the same
 * name gives the same handle in every thread). Call it once, outside the hot
 * loop; begin/end with a handle cost no hashing.
 */
static inline pfshim_region_t pfshim_region(const char *name)
{
	__typeof__(&pfshim_v1_region) impl = PFSHIM_IMPL(pfshim_v1_region);

	return impl ? impl(name) : 0;
}

/*
 * pfshim_begin/pfshim_end - enter/leave @region in the calling thread.
 * Regions nest and overlap (counts are inclusive); re-entering a region that
 * is open in this thread counts once, for the outermost entry.
 * Return: 0, PFSHIM_INACTIVE, PFSHIM_MISUSE or PFSHIM_FAILED.
 */
static inline int pfshim_begin(pfshim_region_t region)
{
	__typeof__(&pfshim_v1_begin) impl = PFSHIM_IMPL(pfshim_v1_begin);

	return impl ? impl(region) : PFSHIM_INACTIVE;
}

static inline int pfshim_end(pfshim_region_t region)
{
	__typeof__(&pfshim_v1_end) impl = PFSHIM_IMPL(pfshim_v1_end);

	return impl ? impl(region) : PFSHIM_INACTIVE;
}

/* By name: one hash lookup per call. */
static inline int pfshim_region_begin(const char *name)
{
	__typeof__(&pfshim_v1_region_begin) impl = PFSHIM_IMPL(pfshim_v1_region_begin);

	return impl ? impl(name) : PFSHIM_INACTIVE;
}

static inline int pfshim_region_end(const char *name)
{
	__typeof__(&pfshim_v1_region_end) impl = PFSHIM_IMPL(pfshim_v1_region_end);

	return impl ? impl(name) : PFSHIM_INACTIVE;
}

/*
 * pfshim_read - the calling thread's counts now, since its first marker call
 * (this one, if it is the first: its counters open then): counts->nr entries
 * of each array, in PFSHIM_EVENTS order; the entries past nr are left as they
 * were. What the thread did before is in the process's report, not here.
 */
static inline int pfshim_read(struct pfshim_counts *counts)
{
	__typeof__(&pfshim_v1_read) impl = PFSHIM_IMPL(pfshim_v1_read);

	return impl ? impl(counts) : PFSHIM_INACTIVE;
}

/*
 * pfshim_region_values - what the region called @name counted in the calling
 * thread so far: its completed calls, their wall time and their counts (the
 * numbers its report will show for this thread, as they stand now). Reads
 * the thread's own table: no counter read, no system call. Not from a
 * signal handler that interrupted this thread's marker call.
 * Return: 0; PFSHIM_MISUSE when this thread never began the region (or its
 * table was full when it tried, or the name is one pfshim refuses): every
 * value 0; PFSHIM_INACTIVE.
 */
static inline int pfshim_region_values(const char *name, struct pfshim_region_values *values)
{
	__typeof__(&pfshim_v1_region_values) impl = PFSHIM_IMPL(pfshim_v1_region_values);

	return impl ? impl(name, values) : PFSHIM_INACTIVE;
}

/* pfshim_report - write a report now (reason "explicit"), as at exit. */
static inline int pfshim_report(void)
{
	__typeof__(&pfshim_v1_report) impl = PFSHIM_IMPL(pfshim_v1_report);

	return impl ? impl() : PFSHIM_INACTIVE;
}

#endif /* PFSHIM_IMPLEMENTATION */

#ifdef PFSHIM_DISABLE_MARKERS
#define PFSHIM_REGION_BEGIN(name) ((void)0)
#define PFSHIM_REGION_END(name) ((void)0)
#define PFSHIM_BEGIN(region) ((void)0)
#define PFSHIM_END(region) ((void)0)
#define PFSHIM_REPORT() ((void)0)
#else
#define PFSHIM_REGION_BEGIN(name) ((void)pfshim_region_begin(name))
#define PFSHIM_REGION_END(name) ((void)pfshim_region_end(name))
#define PFSHIM_BEGIN(region) ((void)pfshim_begin(region))
#define PFSHIM_END(region) ((void)pfshim_end(region))
#define PFSHIM_REPORT() ((void)pfshim_report())
#endif

#ifdef __cplusplus
}
#endif

#endif
