/* SPDX-License-Identifier: MIT */
/*
 * fatal.h: PFSHIM_ON_FATAL=1: a report from the handler of a signal that
 * kills, then the same death, whoever set the signal's action and when.
 */
#ifndef PFSHIM_PRELOAD_FATAL_H
#define PFSHIM_PRELOAD_FATAL_H

/*
 * fatal_install - take every signal that kills by default and can be
 * caught (SIGSEGV ... SIGPIPE, SIGALRM, SIGUSR1, the real-time signals),
 * except @report_signo (PFSHIM_SIGNAL's, which report_signal.c takes),
 * keeping whatever action was there as the program's (actions.h). Call
 * once, from the constructor, after actions_init().
 */
void fatal_install(int report_signo);

/*
 * fatal_abort_begins - the calling thread is in abort(), which kills it
 * whatever SIGABRT's action: a handler that returns is followed by death,
 * so the report comes then; an ignored SIGABRT's, now. Nothing without
 * PFSHIM_ON_FATAL=1. Async-signal-safe.
 */
void fatal_abort_begins(void);

#endif
