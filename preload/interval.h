/* SPDX-License-Identifier: MIT */
/*
 * interval.h: the clock of PFSHIM_INTERVAL, a thread of the shim's own that
 * calls back every interval, and is never counted in the program's totals.
 */
#ifndef PFSHIM_PRELOAD_INTERVAL_H
#define PFSHIM_PRELOAD_INTERVAL_H

#include <stdbool.h>
#include <stdint.h>

/* The thread's name in /proc/PID/task/TID/comm (at most 15 bytes). */
#define INTERVAL_THREAD_NAME "pfshim-intv"

typedef void (*interval_tick_fn)(void);

/*
 * interval_start - start the thread that calls @tick every @ns, measured
 * from now on CLOCK_MONOTONIC (ticks missed while a report was slow are
 * skipped, not caught up). Call it BEFORE the counters are opened: a thread
 * created after them inherits them (inherit, inherit_thread) and its work
 * would be counted as the program's. Return: 0, or a negative errno
 * (the thread could not be created). Not async-signal-safe.
 */
int interval_start(uint64_t ns, interval_tick_fn tick);

/*
 * interval_restart_in_child - after fork(): threads do not survive it, so
 * the child starts its own, with the same interval and callback. Call it
 * before the child's counters are opened, as interval_start().
 */
int interval_restart_in_child(void);

/*
 * interval_stop_for_good - end the thread and wait until the kernel has let
 * it go, so that the process is single-threaded again if the program was
 * (unshare(CLONE_NEWUSER) and setns() into a user namespace refuse a
 * process of more than one thread). It is never started again in this
 * image: a new thread would inherit the counters. Return: true if a
 * thread was running. Not async-signal-safe; errno is preserved.
 */
bool interval_stop_for_good(void);

/* interval_running - the thread is there (it has not been stopped). */
bool interval_running(void);

#endif
