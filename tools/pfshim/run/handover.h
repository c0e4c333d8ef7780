/* SPDX-License-Identifier: MIT */
/*
 * handover.h: `pfshim run`'s side of the hand-over (preload/counters/
 * handover.h): in the child, before exec, open the counters the shim would
 * open, for the exec to start them, and name them in PFSHIM_ADOPT.
 */
#ifndef PFSHIM_TOOLS_HANDOVER_H
#define PFSHIM_TOOLS_HANDOVER_H

#include <stdbool.h>

#include "preload/events/spec.h"

struct config;

/*
 * run_events - the job's settings and events as the shim will read them
 * from this environment (PFSHIM_EVENTS...), its warnings left to the shim;
 * no events when PFSHIM_DISABLE is set. The list is static: valid until the
 * next call.
 */
const struct event_list *run_events(struct config *config);

/* run_handover_target_ok - handover_target_ok() with this process's PATH. */
bool run_handover_target_ok(const char *file);

/*
 * run_handover_open - open the counters for the environment as it is now
 * (PFSHIM_EVENTS...) and set PFSHIM_ADOPT, nothing when they cannot be;
 * and PFSHIM_RESOLVED when libpfm4 was asked (pfm_answers.h).
 * Call in the child, just before exec; run_handover_close() if exec fails.
 */
void run_handover_open(void);
void run_handover_close(void);

/*
 * run_answers_hand - set PFSHIM_RESOLVED to what libpfm4 answered the
 * parses of this process (pfm_answers.h), for the image this process
 * execs next or the children it starts: their shim then asks libpfm4
 * nothing it was told. Nothing when libpfm4 was asked nothing.
 * run_answers_withdraw - unset it again. (A process of the calibration
 * run without the shim, bare, drops it: calibrate.c.)
 */
void run_answers_hand(void);
void run_answers_withdraw(void);

/*
 * run_counters_refused - would the shim find perf_event_open refused for
 * the events of this environment (counters_refused)? Opens them as the
 * shim does, and keeps them open until run_probe_release() unless refused:
 * the first open of a software event type in the system, and its last
 * close, flip the kernel's static key for that type (the kernel's text
 * patched, an IPI to every CPU). Held until the job count's events are
 * open, the probe flips each key on and the job count's last close off,
 * not each twice.
 */
bool run_counters_refused(void);

/*
 * run_probe_release - close what run_counters_refused() kept open: in the
 * parent once the job count's events are open, in a forked child at once
 * (its copies of the descriptors; the events themselves, inherit_thread,
 * go to threads only, never to a fork child).
 */
void run_probe_release(void);

#endif
