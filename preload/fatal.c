/*
 * fatal.c: PFSHIM_ON_FATAL=1. On a signal whose default action kills, the
 * report is written from the handler, and the process then dies of the same
 * signal, with the same core dump behaviour, as it would have without us.
 *
 * ASYNC-SIGNAL-SAFE: fatal_handler() and what it calls (sigaction, the
 * report, tgkill, pthread_sigmask).
 *
 * Chaining. A handler the program (or a library initialised before us)
 * installed first is kept and called first, as it expects: with its own
 * SA_SIGINFO convention, its mask and flags (ours are installed with them),
 * and SA_RESETHAND honoured by us (called once, then the default action).
 * When it returns:
 *   - the disposition still ours: the program handled the signal and lives
 *     on (its exit will report);
 *   - the disposition now SIG_DFL: it is about to die by the signal (the
 *     usual "restore the default and re-raise"), so the report comes now.
 * An ignored signal stays ignored: no handler is installed over SIG_IGN.
 * A handler the program installs after us replaces ours: its choice, and
 * no report on that signal (sigaction is not interposed: glibc's own
 * callers would not see it, and a program asking for the old action must
 * get what it set).
 */
#include "preload/fatal.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/process.h"

/* A report needs ~6 KiB of stack: not on an alternate stack smaller than this. */
#define FATAL_STACK_MIN (32 * 1024)

static const int fatal_signals[] = {
	SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGHUP, SIGQUIT,
};

/* What was there before us, per signal. */
static struct sigaction previous[NSIG];
/* Its handler was SA_RESETHAND and has run once: from now on, the default. */
static atomic_bool reset_done[NSIG];

static bool previous_is_handler(int signo)
{
	void (*h)(int) = previous[signo].sa_handler;

	return h != SIG_DFL && h != SIG_IGN && !atomic_load(&reset_done[signo]);
}

static void previous_call(int signo, siginfo_t *info, void *context)
{
	const struct sigaction *p = &previous[signo];

	if (p->sa_flags & SA_RESETHAND)
		atomic_store(&reset_done[signo], true);
	if (p->sa_flags & SA_SIGINFO)
		p->sa_sigaction(signo, info, context);
	else
		p->sa_handler(signo);
}

static bool disposition_is_default(int signo)
{
	struct sigaction now;

	return sigaction(signo, NULL, &now) == 0 && now.sa_handler == SIG_DFL;
}

/* On a small alternate stack (a host's, sized for its own handlers) no report. */
static bool stack_has_room(void)
{
	stack_t ss;

	if (sigaltstack(NULL, &ss) < 0 || !(ss.ss_flags & SS_ONSTACK))
		return true;
	return ss.ss_size >= FATAL_STACK_MIN;
}

static void report(int signo)
{
	if (stack_has_room())
		process_report_fatal(signo);
}

/*
 * The default action, now: the default disposition back, the signal sent
 * to this thread and unblocked, so that it is delivered before the handler
 * returns. The kernel then kills (and dumps core) exactly as without us.
 * A fault re-raised this way is a tgkill'ed one: the core shows our frames
 * above the signal frame, and the faulting frame below it.
 */
static void die_by(int signo)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t set;

	sigemptyset(&dfl.sa_mask);
	sigaction(signo, &dfl, NULL);
	syscall(SYS_tgkill, getpid(), gettid(), signo);
	sigemptyset(&set);
	sigaddset(&set, signo);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

static void fatal_handler(int signo, siginfo_t *info, void *context)
{
	int saved_errno = errno;

	if (previous_is_handler(signo)) {
		previous_call(signo, info, context);
		if (disposition_is_default(signo))
			report(signo);
		errno = saved_errno;
		return;
	}
	report(signo);
	die_by(signo);
	errno = saved_errno;
}

void fatal_install(int report_signo)
{
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		int signo = fatal_signals[i];
		struct sigaction sa;

		if (signo == report_signo || sigaction(signo, NULL, &previous[signo]) < 0 ||
		    previous[signo].sa_handler == SIG_IGN)
			continue;
		sa = (struct sigaction){ .sa_sigaction = fatal_handler };
		if (previous_is_handler(signo)) {
			/* The program's handler runs inside ours: give it its own mask and flags. */
			sa.sa_mask = previous[signo].sa_mask;
			sa.sa_flags = previous[signo].sa_flags & ~SA_RESETHAND;
		} else {
			/* See shim.c: no SA_ONSTACK. */
			sigemptyset(&sa.sa_mask);
		}
		sa.sa_flags |= SA_SIGINFO;
		sigaction(signo, &sa, NULL);
	}
}
