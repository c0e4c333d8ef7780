/* SPDX-License-Identifier: MIT */
/*
 * report_signal.c: PFSHIM_SIGNAL. The signal writes a report, and then
 * does exactly what the program's action says (actions.c keeps it):
 *   - a handler of the program's: called, as it asked;
 *   - SIG_IGN: ignored for real, never reaches us: no report (an ignored
 *     signal is inherited across exec, and SIGCHLD's SIG_IGN reaps);
 *   - SIG_DFL as the program started with it, for USR1, USR2 and the
 *     real-time signals: nothing more. They mean nothing to the system,
 *     only what a program makes of them, and the user chose this one to
 *     mean "a report": the program carries on, which is the point of
 *     PFSHIM_SIGNAL. A SIG_DFL the program set itself (a handler that
 *     restores the default and raises again) is its word: as below;
 *   - SIG_DFL, for any other signal (TERM, INT, HUP, PIPE, ALRM, QUIT ...,
 *     whose default terminates or dumps core: config.c refuses the ones
 *     whose default ignores or stops): that default, after the report,
 *     which is then the image's last (as PFSHIM_ON_FATAL's): `timeout`'s
 *     TERM still ends `yes`, and `yes | head -1` still dies of SIGPIPE.
 *
 * ASYNC-SIGNAL-SAFE: report_signal_handler() and what it calls.
 */
#include "preload/report_signal.h"

#include <errno.h>
#include <signal.h>

#include "preload/actions.h"
#include "preload/process.h"

static bool carries_on_by_default(int signo)
{
	return signo == SIGUSR1 || signo == SIGUSR2 || (signo >= SIGRTMIN && signo <= SIGRTMAX);
}

static void report_signal_handler(int signo, siginfo_t *info, void *context)
{
	int saved_errno = errno;
	bool room = actions_stack_has_room(signo, NULL);
	struct sigaction program;

	actions_read(signo, &program);
	if (actions_is_handler(&program)) {
		if (room)
			process_report(REPORT_SIGNAL, signo);
		actions_call(signo, &program, info, context);
	} else if (program.sa_handler == SIG_IGN) {
		/* Set ignored while this one was on its way: as the kernel would, nothing. */
	} else if (carries_on_by_default(signo) && !actions_set_by_program(signo)) {
		if (room)
			process_report(REPORT_SIGNAL, signo);
	} else {
		if (room)
			process_report_fatal(signo);
		actions_die_by(signo);
	}
	errno = saved_errno;
}

int report_signal_install(int signo)
{
	return actions_take(signo, report_signal_handler);
}
