/* SPDX-License-Identifier: MIT */
/*
 * report_signal.h: PFSHIM_SIGNAL: a report on a signal, and then the
 * signal does what it does without the shim.
 */
#ifndef PFSHIM_PRELOAD_REPORT_SIGNAL_H
#define PFSHIM_PRELOAD_REPORT_SIGNAL_H

/*
 * report_signal_install - take @signo (config_signal_parse()'s) as
 * actions.c takes a signal, keeping the program's action. Call once, from
 * the constructor, after actions_init(). 0, or -errno.
 */
int report_signal_install(int signo);

#endif
