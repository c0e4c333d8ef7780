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
 * fatal_step_back - give the nine back (all but @report_signo): the
 * program's actions in the kernel, as without the shim. Before the
 * program's seccomp filter: dying by the signal after a report takes
 * rt_sigaction(2) and tgkill(2), which the filter may refuse (a swallowed
 * SIGTERM, a fault that repeats forever) or kill for (SIGSYS instead of
 * the signal). Those deaths then go unreported.
 */
void fatal_step_back(int report_signo);

/*
 * fatal_abort_begins - the calling thread is in abort(), which kills it
 * whatever SIGABRT's action: a handler that returns is followed by death,
 * so the report comes then; an ignored SIGABRT's, now. Nothing without
 * PFSHIM_ON_FATAL=1. Async-signal-safe.
 */
void fatal_abort_begins(void);

#endif
