/*
 * fatal.h: PFSHIM_ON_FATAL=1: a report from the handler of a signal that
 * kills, then the same death, whoever set the signal's action and when.
 */
#ifndef PFSHIM_PRELOAD_FATAL_H
#define PFSHIM_PRELOAD_FATAL_H

#include <signal.h>
#include <stdbool.h>

typedef int (*fatal_sigaction_fn)(int, const struct sigaction *, struct sigaction *);

/*
 * fatal_install - take SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM,
 * SIGINT, SIGHUP and SIGQUIT, except @report_signo (PFSHIM_SIGNAL), keeping
 * whatever action was there as the program's (a handler to call first; an
 * ignored signal stays ignored). @real_sigaction is libc's, past the shim's.
 * Call once, from the constructor.
 */
void fatal_install(int report_signo, fatal_sigaction_fn real_sigaction);

/*
 * fatal_manages - whether @signo's action is the program's as fatal.c keeps
 * it: then sigaction() and its kin go to fatal_sigaction(), and nothing
 * else of the shim's. False before fatal_install() and without
 * PFSHIM_ON_FATAL=1.
 */
bool fatal_manages(int signo);

/*
 * fatal_sigaction - sigaction() for a signal fatal_manages(): @act becomes
 * the program's action (our handler stays in the kernel, with its flags and
 * mask; SIG_IGN is installed as it is), @oldact receives the program's
 * previous one, as the kernel would have returned it. 0, or -1 and errno
 * from the kernel. Async-signal-safe.
 */
int fatal_sigaction(int signo, const struct sigaction *act, struct sigaction *oldact);

#endif
