/* SPDX-License-Identifier: MIT */
/*
 * actions.c: the program's action for each signal the shim takes
 * (actions.h). The kernel holds our handler; the program's action, what
 * it believes is installed, is kept here: what was there before us, then
 * whatever it sets through sigaction(), signal() and their kin, which
 * shim.c interposes and hands to actions_sigaction(). Our handler runs with
 * the program's flags and mask (SA_ONSTACK: a stack overflow handler still
 * runs on its alternate stack; SA_RESTART, SA_NODEFER: as it asked); for
 * the default action, with SA_RESTART (a report must not make a blocked
 * read(2) return EINTR) and on the thread's own stack. SIG_IGN is installed
 * for real, so that it is inherited across exec (nohup, `trap '' HUP`), and
 * SIGCHLD's SIG_IGN keeps reaping children.
 *
 * The old action a program is given back is exactly the one it would have
 * seen without us: the kernel's copy of what it set (its mask without
 * SIGKILL and SIGSTOP, SA_RESTORER added by glibc), read back after ours is
 * installed with the same flags and mask.
 *
 * A program's handler may set or read actions from inside a handler, and
 * its threads may race: the action is kept under a sequence count, written
 * with every signal blocked in the writing thread (a handler there would
 * spin on its own half-written copy), read until stable.
 *
 * ASYNC-SIGNAL-SAFE: everything but actions_init() and actions_take() (the
 * real sigaction, tgkill, pthread_sigmask, sigaltstack, atomics).
 */
#include "preload/actions.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "preload/prefault.h"
#include "preload/sandbox.h"

/* A report needs ~6 KiB of stack: not on an alternate stack smaller than this. */
#define ACTIONS_REPORT_STACK_MIN (32 * 1024)

/* libc's sigaction, past our own: written at start, where it took a .bss page of its own. */
static actions_sigaction_fn next_sigaction PREFAULT_DATA;

/* The signals taken (set once installed), and our handler for each. */
static atomic_bool managed[NSIG];
static actions_handler_fn ours[NSIG];
/* The program's action, per signal: odd seq while being written. */
static atomic_uint action_seq[NSIG];
static struct sigaction action[NSIG];
/* Its handler was SA_RESETHAND and has run once: from now on, the default. */
static atomic_bool reset_done[NSIG];
/* The program has set an action of its own since the signal was taken. */
static atomic_bool set_by_program[NSIG];

/* Flags our handler takes from the program's action only when that is a handler. */
#define ACTIONS_FLAGS_OWN (SA_SIGINFO | SA_RESETHAND | SA_RESTART | SA_ONSTACK)

void actions_init(actions_sigaction_fn real_sigaction)
{
	next_sigaction = real_sigaction;
}

void actions_read(int signo, struct sigaction *out)
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

bool actions_set_by_program(int signo)
{
	return atomic_load(&set_by_program[signo]);
}

bool actions_is_handler(const struct sigaction *a)
{
	return a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN;
}

void actions_call(int signo, const struct sigaction *a, siginfo_t *info, void *context)
{
	if (a->sa_flags & SA_RESETHAND)
		atomic_store(&reset_done[signo], true);
	if (a->sa_flags & SA_SIGINFO)
		a->sa_sigaction(signo, info, context);
	else
		a->sa_handler(signo);
}

bool actions_kernel_default(int signo)
{
	struct sigaction now;

	return next_sigaction(signo, NULL, &now) == 0 && now.sa_handler == SIG_DFL;
}

bool actions_stack_has_room(int signo, bool *on_alt)
{
	struct sigaction program;
	bool alt_unused;
	stack_t ss;

	if (!on_alt)
		on_alt = &alt_unused;
	if (sandbox_filtered()) {
		actions_read(signo, &program);
		*on_alt = actions_is_handler(&program) && (program.sa_flags & SA_ONSTACK);
		return !*on_alt;
	}
	*on_alt = sigaltstack(NULL, &ss) == 0 && (ss.ss_flags & SS_ONSTACK);
	return !*on_alt || ss.ss_size >= ACTIONS_REPORT_STACK_MIN;
}

/*
 * The signal is delivered as soon as it is unblocked, before this returns.
 * A fault re-raised this way is a tgkill'ed one: the core shows our frames
 * above the signal frame, and the faulting frame below it.
 */
void actions_die_by(int signo)
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

/*
 * Ours, as the kernel should hold it for the program's @a: its flags and
 * mask. The default has no handler of its own: ours alone, whatever flags
 * came with SIG_DFL, with SA_RESTART and without SA_ONSTACK: a report needs
 * ~6 KiB of stack (a PATH_MAX path, a warning line), and a host's
 * alternate signal stack is sized for its own handlers (Rust gives every
 * thread 8 KiB, a guard page below): the thread's own stack has the room.
 */
static struct sigaction handler_for(int signo, const struct sigaction *a)
{
	struct sigaction sa = *a;

	sa.sa_sigaction = ours[signo];
	sa.sa_flags = (a->sa_flags | SA_SIGINFO) & ~SA_RESETHAND;
	if (!actions_is_handler(a))
		sa.sa_flags = (sa.sa_flags | SA_RESTART) & ~SA_ONSTACK;
	return sa;
}

/* Not instrumented: a sanitizer's runtime reaches it through sigaction() as it starts (shim.c). */
__attribute__((no_sanitize_address, no_sanitize_thread, no_sanitize_undefined))
bool actions_manages(int signo)
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
	struct sigaction sa, kept = *want;

	if (want->sa_handler == SIG_IGN)
		sa = *want;
	else
		sa = handler_for(signo, want);
	if (next_sigaction(signo, &sa, NULL) < 0)
		return -1;
	if (next_sigaction(signo, NULL, &kept) == 0 && want->sa_handler != SIG_IGN) {
		kept.sa_sigaction = want->sa_sigaction;
		kept.sa_flags = (kept.sa_flags & ~ACTIONS_FLAGS_OWN) |
				(want->sa_flags & ACTIONS_FLAGS_OWN);
	}
	action[signo] = kept;
	atomic_store(&reset_done[signo], false);
	return 0;
}

/*
 * The program's action of @signo as the writer holding it: every signal
 * blocked in this thread (its old mask in *@saved), the seq taken from
 * even to odd against writers in other threads. Return: the seq to end with.
 */
static unsigned action_write_begin(int signo, sigset_t *saved)
{
	sigset_t all;
	unsigned seq;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, saved);
	do {
		seq = atomic_load_explicit(&action_seq[signo], memory_order_relaxed) & ~1u;
	} while (!atomic_compare_exchange_weak_explicit(&action_seq[signo], &seq, seq + 1,
							memory_order_acquire, memory_order_relaxed));
	atomic_thread_fence(memory_order_release);
	return seq;
}

static void action_write_end(int signo, unsigned seq, const sigset_t *saved)
{
	atomic_store_explicit(&action_seq[signo], seq + 2, memory_order_release);
	pthread_sigmask(SIG_SETMASK, saved, NULL);
}

/* The program's action now, as the kernel would give it (SA_RESETHAND's once done: SIG_DFL). */
static struct sigaction action_now(int signo)
{
	struct sigaction a = action[signo];

	if (atomic_load(&reset_done[signo]))
		a.sa_handler = SIG_DFL;
	return a;
}

int actions_sigaction(int signo, const struct sigaction *act, struct sigaction *oldact)
{
	int saved_errno = errno, ret = 0;
	struct sigaction want, old;
	sigset_t saved;
	unsigned seq;

	if (!act) {
		if (oldact)
			actions_read(signo, oldact);
		return 0;
	}
	want = *act;			/* act and oldact may be one struct */
	seq = action_write_begin(signo, &saved);
	old = action_now(signo);
	if (action_install(signo, &want) < 0) {
		ret = -1;
		saved_errno = errno;
	}
	if (ret == 0)
		atomic_store(&set_by_program[signo], true);
	action_write_end(signo, seq, &saved);
	if (ret == 0 && oldact)
		*oldact = old;
	errno = saved_errno;
	return ret;
}

void actions_give_back(int signo)
{
	struct sigaction program;
	sigset_t saved;
	unsigned seq;

	if (!actions_manages(signo))
		return;
	seq = action_write_begin(signo, &saved);
	program = action_now(signo);
	if (next_sigaction(signo, &program, NULL) == 0)
		atomic_store_explicit(&managed[signo], false, memory_order_release);
	action_write_end(signo, seq, &saved);
}

int actions_take(int signo, actions_handler_fn handler)
{
	const struct sigaction dfl = { .sa_handler = SIG_DFL };
	struct sigaction sa;

	/*
	 * Through the global sigaction (ours, forwarding: not managed yet):
	 * under a sanitizer, its runtime's, which wraps our handler as it
	 * wraps every handler it is asked to install. One call where the
	 * action is the default, as nearly every one is at start: ours set
	 * and the old one read at once (PFSHIM_ON_FATAL takes some 50).
	 */
	ours[signo] = handler;
	sa = handler_for(signo, &dfl);
	if (sigaction(signo, &sa, &action[signo]) < 0)
		return -errno;
	if (action[signo].sa_handler != SIG_DFL) {
		/* Ignored: ignored for real again. A handler: ours, with its flags and mask. */
		sa = action[signo].sa_handler == SIG_IGN ? action[signo] :
							    handler_for(signo, &action[signo]);
		if (sigaction(signo, &sa, NULL) < 0)
			return -errno;
	}
	atomic_store_explicit(&managed[signo], true, memory_order_release);
	return 0;
}
