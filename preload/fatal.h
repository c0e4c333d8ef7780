/*
 * fatal.h: PFSHIM_ON_FATAL=1: a report from the handler of a signal that
 * kills, then the same death.
 */
#ifndef PFSHIM_PRELOAD_FATAL_H
#define PFSHIM_PRELOAD_FATAL_H

/*
 * fatal_install - take SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM,
 * SIGINT, SIGHUP and SIGQUIT, except one that is ignored or is @report_signo
 * (PFSHIM_SIGNAL), keeping whatever handler was there to call first.
 * Call once, from the constructor.
 */
void fatal_install(int report_signo);

#endif
