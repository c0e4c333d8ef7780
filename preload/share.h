/* SPDX-License-Identifier: MIT */
/*
 * share.h: pfshim's own share of a process image's counts, measured from
 * inside: the page faults, context switches and CPU time of the shim's
 * set-up (the constructor, or the restart in a fork child) and of its
 * reports, as the kernel counts them for the thread doing the work
 * (getrusage(RUSAGE_THREAD), CLOCK_THREAD_CPUTIME_ID). The loader's work for
 * libpfshim.so, before the constructor, cannot be seen from inside: pfshim
 * run measures it (tools/pfshim/run/calibrate.c). Async-signal-safe: two
 * system calls per reading, never made under the program's seccomp filter.
 */
#ifndef PFSHIM_PRELOAD_SHARE_H
#define PFSHIM_PRELOAD_SHARE_H

#include <stdbool.h>
#include <stdint.h>

#include "export/report.h"

/* The calling thread's counts at one moment. */
struct share_point {
	uint64_t faults, switches, cpu_ns;
};

/* share_read - the calling thread's counts now; false under the program's filter (not read). */
bool share_read(struct share_point *p);

/* share_setup_begin/end - around the constructor's (or a fork child's) set-up: the image's share starts there. */
void share_setup_begin(void);
void share_setup_end(bool forked);

/*
 * share_fork_done - the image forked a child (fork(), forkpty()): each costs
 * the parent more with the shim than without, in the kernel, where no
 * reading of the shim's can see it; the report says how many (forks) and
 * pfshim run's calibration says what each costs. Async-signal-safe.
 */
void share_fork_done(void);

/*
 * share_report_begin - at a report's start (@p, false: not measured).
 * share_report_upto - into @out: the image's share so far, this report's
 * cost up to now included (call just before its last read of the counters).
 * share_report_end - the report is written: its whole cost joins the share.
 */
bool share_report_begin(struct share_point *p);
void share_report_upto(const struct share_point *begin, bool measured, struct report_share *out);
void share_report_end(const struct share_point *begin, bool measured);

#endif
