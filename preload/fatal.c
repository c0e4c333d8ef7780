/* SPDX-License-Identifier: MIT */
/*
 * fatal.c: PFSHIM_ON_FATAL=1. On a signal whose default action kills, the
 * report is written from the handler, and the process then dies of the same
 * signal, with the same core dump behaviour, as it would have without us.
 * Every signal that kills by default and can be caught is taken (signal(7):
 * Term and Core), the real-time ones included: `yes | head -1`'s SIGPIPE
 * as much as a SIGSEGV.
 *
 * ASYNC-SIGNAL-SAFE: fatal_handler() and what it calls (actions.c, the
 * report).
 *
 * They are taken as actions.c takes them (but PFSHIM_SIGNAL's,
 * report_signal.c's), and fatal_handler() follows the program's action:
 *   - a handler: called first, with its own SA_SIGINFO convention.
 *     SA_RESETHAND is honoured (called once, then the default). When it
 *     returns with its own action still set, the program handled the
 *     signal and lives on (its exit reports). If it set SIG_DFL and raised
 *     the signal again (the usual "restore the default and re-raise"), the
 *     signal comes back to us, blocked until it returns: report, then death.
 *     A default restored behind our back (a raw system call) shows in the
 *     kernel: the report comes as soon as it returns. So does abort()'s,
 *     which restores the default by an internal call once the handler has
 *     returned, and raises again: fatal_abort_begins() tells us, from
 *     shim.c's abort().
 *   - SIG_DFL: the report, then the default action.
 *   - SIG_IGN: ignored for real, never reaches us; no report, as nothing
 *     dies (but abort(), which dies all the same: reported before it).
 */
#include "preload/fatal.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <unistd.h>

#include "preload/actions.h"
#include "preload/process.h"

/*
 * Does @signo kill by default, and can a handler take it? Not KILL and STOP
 * (never caught), not the ones whose default ignores (CHLD, CONT, URG,
 * WINCH) or stops (TSTP, TTIN, TTOU), and not glibc's own two below
 * SIGRTMIN (thread cancellation and setxid), which are libc's business.
 */
static bool fatal_by_default(int signo)
{
	switch (signo) {
	case SIGKILL: case SIGSTOP:
	case SIGCHLD: case SIGCONT: case SIGURG: case SIGWINCH:
	case SIGTSTP: case SIGTTIN: case SIGTTOU:
		return false;
	}
	return signo < 32 || (signo >= SIGRTMIN && signo <= SIGRTMAX);
}

/* The thread inside abort(), 0 when none: its SIGABRT is death once the handler returns. */
static atomic_int aborting_tid;

static void report(int signo)
{
	if (actions_stack_has_room(signo, NULL))
		process_report_fatal(signo);
}

static bool dies_after_handler(int signo)
{
	return actions_kernel_default(signo) ||
	       (signo == SIGABRT && atomic_load(&aborting_tid) == gettid());
}

static void fatal_handler(int signo, siginfo_t *info, void *context)
{
	int saved_errno = errno;
	struct sigaction program;

	actions_read(signo, &program);
	if (actions_is_handler(&program)) {
		actions_call(signo, &program, info, context);
		if (dies_after_handler(signo))
			report(signo);
		errno = saved_errno;
		return;
	}
	report(signo);
	actions_die_by(signo);
	errno = saved_errno;
}

void fatal_abort_begins(void)
{
	struct sigaction program;

	if (!actions_manages(SIGABRT))
		return;
	actions_read(SIGABRT, &program);
	if (program.sa_handler == SIG_IGN)
		report(SIGABRT);	/* abort() dies through an ignored SIGABRT, past us */
	else
		atomic_store(&aborting_tid, gettid());
}

void fatal_step_back(int report_signo)
{
	for (int signo = 1; signo < NSIG; signo++)
		if (fatal_by_default(signo) && signo != report_signo && actions_manages(signo))
			actions_give_back(signo);
}

void fatal_install(int report_signo)
{
	sigset_t all, was;

	/*
	 * actions_take() sets ours before it knows the old action: a signal
	 * an ignoring parent (nohup) sends in between waits until the loop
	 * is done and finds it ignored again.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &was);
	for (int signo = 1; signo < NSIG; signo++)
		if (fatal_by_default(signo) && signo != report_signo)
			actions_take(signo, fatal_handler);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
}
