/*
 * fatal.c: PFSHIM_ON_FATAL=1. On a signal whose default action kills, the
 * report is written from the handler, and the process then dies of the same
 * signal, with the same core dump behaviour, as it would have without us.
 *
 * ASYNC-SIGNAL-SAFE: fatal_handler(), fatal_sigaction() and what they call
 * (the real sigaction, the report, tgkill, pthread_sigmask).
 *
 * The program's action. For each of the nine signals (but PFSHIM_SIGNAL's)
 * we keep the action the program believes is installed: what was there
 * before us, then whatever it sets through sigaction(), signal() and their
 * kin, which shim.c interposes and hands to fatal_sigaction(). The kernel
 * holds our handler, with the program's flags and mask (SA_ONSTACK: a stack
 * overflow handler still runs on its alternate stack; SA_RESTART,
 * SA_NODEFER: as it asked), and fatal_handler() chains to the program's:
 *   - a handler: called first, with its own SA_SIGINFO convention.
 *     SA_RESETHAND is honoured by us (called once, then the default). When
 *     it returns with its own action still set, the program handled the
 *     signal and lives on (its exit reports). If it set SIG_DFL and raised
 *     the signal again (the usual "restore the default and re-raise"), the
 *     signal comes back to us, blocked until it returns: report, then death.
 *     A default restored behind our back (glibc's abort(), a raw system
 *     call) shows in the kernel: the report comes as soon as it returns.
 *   - SIG_DFL: the report, then the default action.
 *   - SIG_IGN: installed for real, so that it is inherited across exec
 *     (nohup, `trap '' HUP`); no report, as nothing dies.
 * The old action a program is given back is exactly the one it would have
 * seen without us: the kernel's copy of what it set (its mask without
 * SIGKILL and SIGSTOP, SA_RESTORER added by glibc), read back after ours is
 * installed with the same flags and mask.
 *
 * A program's handler may set or read actions from inside a handler, and
 * its threads may race: the action is kept under a sequence count, written
 * with every signal blocked in the writing thread (a handler there would
 * spin on its own half-written copy), read until stable.
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

/* libc's sigaction, past our own. */
static fatal_sigaction_fn next_sigaction;

/* The nine signals whose program action we keep (set once installed). */
static atomic_bool managed[NSIG];
/* The program's action, per signal: odd seq while being written. */
static atomic_uint action_seq[NSIG];
static struct sigaction action[NSIG];
/* Its handler was SA_RESETHAND and has run once: from now on, the default. */
static atomic_bool reset_done[NSIG];

static void action_read(int signo, struct sigaction *out)
{
	unsigned seq;

	do {
		while ((seq = atomic_load_explicit(&action_seq[signo], memory_order_acquire)) & 1)
			;
		memcpy(out, &action[signo], sizeof(*out));
		atomic_thread_fence(memory_order_acquire);
	} while (atomic_load_explicit(&action_seq[signo], memory_order_relaxed) != seq);
	if (atomic_load(&reset_done[signo]))
		out->sa_handler = SIG_DFL;
}

static bool action_is_handler(const struct sigaction *a)
{
	return a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN;
}

static void action_call(int signo, const struct sigaction *a, siginfo_t *info, void *context)
{
	if (a->sa_flags & SA_RESETHAND)
		atomic_store(&reset_done[signo], true);
	if (a->sa_flags & SA_SIGINFO)
		a->sa_sigaction(signo, info, context);
	else
		a->sa_handler(signo);
}

static bool disposition_is_default(int signo)
{
	struct sigaction now;

	return next_sigaction(signo, NULL, &now) == 0 && now.sa_handler == SIG_DFL;
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
	next_sigaction(signo, &dfl, NULL);
	syscall(SYS_tgkill, getpid(), gettid(), signo);
	sigemptyset(&set);
	sigaddset(&set, signo);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

static void fatal_handler(int signo, siginfo_t *info, void *context)
{
	int saved_errno = errno;
	struct sigaction program;

	action_read(signo, &program);
	if (action_is_handler(&program)) {
		action_call(signo, &program, info, context);
		if (disposition_is_default(signo))
			report(signo);
		errno = saved_errno;
		return;
	}
	report(signo);
	die_by(signo);
	errno = saved_errno;
}

/* Ours, as the kernel should hold it for the program's @a: its flags and mask. */
static struct sigaction handler_for(const struct sigaction *a)
{
	struct sigaction ours = *a;

	ours.sa_sigaction = fatal_handler;
	ours.sa_flags = (a->sa_flags | SA_SIGINFO) & ~SA_RESETHAND;
	return ours;
}

/* Not instrumented: a sanitizer's runtime reaches it through sigaction() as it starts (shim.c). */
__attribute__((no_sanitize_address, no_sanitize_thread, no_sanitize_undefined))
bool fatal_manages(int signo)
{
	return signo > 0 && signo < NSIG && atomic_load_explicit(&managed[signo], memory_order_acquire);
}

/*
 * Install @want, as the program's: SIG_IGN for real, anything else as our
 * handler with its flags and mask. What the kernel keeps of the flags and
 * mask is read back, so that the old action the program is given later is
 * the kernel's, as without us. Called with the action's seq odd.
 */
static int action_install(int signo, const struct sigaction *want)
{
	struct sigaction ours, kept = *want;

	if (want->sa_handler == SIG_IGN)
		ours = *want;
	else
		ours = handler_for(want);
	if (next_sigaction(signo, &ours, NULL) < 0)
		return -1;
	if (next_sigaction(signo, NULL, &kept) == 0 && want->sa_handler != SIG_IGN) {
		kept.sa_sigaction = want->sa_sigaction;
		kept.sa_flags = (kept.sa_flags & ~(SA_SIGINFO | SA_RESETHAND)) |
				(want->sa_flags & (SA_SIGINFO | SA_RESETHAND));
	}
	action[signo] = kept;
	atomic_store(&reset_done[signo], false);
	return 0;
}

int fatal_sigaction(int signo, const struct sigaction *act, struct sigaction *oldact)
{
	int saved_errno = errno, ret = 0;
	struct sigaction want, old;
	sigset_t all, saved;
	unsigned seq;

	if (!act) {
		if (oldact)
			action_read(signo, oldact);
		return 0;
	}
	want = *act;			/* act and oldact may be one struct */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &saved);
	/* Writers in other threads: take the seq from even to odd. */
	do {
		seq = atomic_load_explicit(&action_seq[signo], memory_order_relaxed) & ~1u;
	} while (!atomic_compare_exchange_weak_explicit(&action_seq[signo], &seq, seq + 1,
							memory_order_acquire, memory_order_relaxed));
	atomic_thread_fence(memory_order_release);
	old = action[signo];
	if (atomic_load(&reset_done[signo]))
		old.sa_handler = SIG_DFL;
	if (action_install(signo, &want) < 0) {
		ret = -1;
		saved_errno = errno;
	}
	atomic_store_explicit(&action_seq[signo], seq + 2, memory_order_release);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
	if (ret == 0 && oldact)
		*oldact = old;
	errno = saved_errno;
	return ret;
}

void fatal_install(int report_signo, fatal_sigaction_fn real_sigaction)
{
	next_sigaction = real_sigaction;
	for (size_t i = 0; i < sizeof(fatal_signals) / sizeof(fatal_signals[0]); i++) {
		int signo = fatal_signals[i];
		struct sigaction sa;

		/*
		 * Through the global sigaction (ours, forwarding: not managed yet):
		 * under a sanitizer, its runtime's, which wraps our handler as it
		 * wraps every handler it is asked to install.
		 */
		if (signo == report_signo || sigaction(signo, NULL, &action[signo]) < 0)
			continue;
		if (action[signo].sa_handler != SIG_IGN) {
			/* The program's handler runs inside ours: give it its own mask and flags. */
			sa = handler_for(&action[signo]);
			if (!action_is_handler(&action[signo])) {
				/* Nobody's: see shim.c, no SA_ONSTACK. */
				sa.sa_flags = SA_SIGINFO;
				sigemptyset(&sa.sa_mask);
			}
			if (sigaction(signo, &sa, NULL) < 0)
				continue;
		}
		atomic_store_explicit(&managed[signo], true, memory_order_release);
	}
}
