/* SPDX-License-Identifier: MIT */
/*
 * pfshim/likwid-marker.h: LIKWID's marker API on pfshim's regions, so that a
 * program instrumented for LIKWID builds without LIKWID installed.
 * Link with -lpfshim-compat (instead of -llikwid) and run under
 * LD_PRELOAD=libpfshim.so. As with LIKWID, the LIKWID_MARKER_* macros do
 * something only when LIKWID_PERFMON is defined. See docs/compat.md.
 */
#ifndef PFSHIM_LIKWID_MARKER_H
#define PFSHIM_LIKWID_MARKER_H

#ifdef __cplusplus
extern "C" {
#endif

void likwid_markerInit(void);
void likwid_markerThreadInit(void);
void likwid_markerNextGroup(void);
void likwid_markerClose(void);
int likwid_markerRegisterRegion(const char *regionTag);
int likwid_markerStartRegion(const char *regionTag);
int likwid_markerStopRegion(const char *regionTag);
int likwid_markerResetRegion(const char *regionTag);
void likwid_markerGetRegion(const char *regionTag, int *nr_events, double *events,
			    double *time, int *count);

#ifdef __cplusplus
}
#endif

#ifdef LIKWID_PERFMON
#define LIKWID_MARKER_INIT likwid_markerInit()
#define LIKWID_MARKER_THREADINIT likwid_markerThreadInit()
#define LIKWID_MARKER_SWITCH likwid_markerNextGroup()
#define LIKWID_MARKER_REGISTER(regionTag) likwid_markerRegisterRegion(regionTag)
#define LIKWID_MARKER_START(regionTag) likwid_markerStartRegion(regionTag)
#define LIKWID_MARKER_STOP(regionTag) likwid_markerStopRegion(regionTag)
#define LIKWID_MARKER_CLOSE likwid_markerClose()
#define LIKWID_MARKER_RESET(regionTag) likwid_markerResetRegion(regionTag)
#define LIKWID_MARKER_GET(regionTag, nevents, events, time, count) \
	likwid_markerGetRegion(regionTag, nevents, events, time, count)
#else
#define LIKWID_MARKER_INIT
#define LIKWID_MARKER_THREADINIT
#define LIKWID_MARKER_SWITCH
#define LIKWID_MARKER_REGISTER(regionTag)
#define LIKWID_MARKER_START(regionTag)
#define LIKWID_MARKER_STOP(regionTag)
#define LIKWID_MARKER_CLOSE
#define LIKWID_MARKER_GET(regionTag, nevents, events, time, count)
#define LIKWID_MARKER_RESET(regionTag)
#endif

#endif
