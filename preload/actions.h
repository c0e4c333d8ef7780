/* SPDX-License-Identifier: MIT */
/*
 * actions.h: the program's signal actions for the signals the shim takes
 * (PFSHIM_SIGNAL's, and every one PFSHIM_ON_FATAL takes): kept as the program set
 * them, while the kernel holds the shim's handler in front of them.
 */
#ifndef PFSHIM_PRELOAD_ACTIONS_H
#define PFSHIM_PRELOAD_ACTIONS_H

#include <signal.h>
#include <stdbool.h>

typedef int (*actions_sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef void (*actions_handler_fn)(int, siginfo_t *, void *);

/* actions_init - libc's sigaction, past the shim's. Once, from the constructor, first. */
void actions_init(actions_sigaction_fn real_sigaction);

/*
 * actions_take - keep @signo's present action as the program's and put
 * @handler in front of it: with the program's flags and mask when it is a
 * handler, with SA_RESTART alone when it is the default. An ignored signal
 * stays ignored in the kernel (inherited across exec) and never reaches
 * @handler. From now on sigaction() and its kin for @signo go to
 * actions_sigaction(). 0, or -errno (the signal is then left alone).
 */
int actions_take(int signo, actions_handler_fn handler);

/*
 * actions_manages - whether @signo was taken: its action is the program's
 * as kept here. False for every signal before actions_take().
 */
bool actions_manages(int signo);

/*
 * actions_sigaction - sigaction() for a signal actions_manages(): @act
 * becomes the program's action (ours stays in the kernel, with its flags
 * and mask; SIG_IGN is installed as it is), @oldact receives the program's
 * previous one, as the kernel would have returned it. 0, or -1 and errno
 * from the kernel. Async-signal-safe.
 */
int actions_sigaction(int signo, const struct sigaction *act, struct sigaction *oldact);

/*
 * The handlers' side, all async-signal-safe:
 * actions_read - the program's action for @signo now (SA_RESETHAND's once done: SIG_DFL).
 * actions_set_by_program - the program has set @signo's action itself
 *   (sigaction() and kin) since it was taken: even SIG_DFL is then its word.
 * actions_is_handler - @a is a function, neither SIG_DFL nor SIG_IGN.
 * actions_call - call the program's handler @a as it asked (SA_SIGINFO or
 *   not; SA_RESETHAND: once).
 * actions_kernel_default - the kernel holds SIG_DFL for @signo: someone
 *   restored it behind libc's back (glibc's abort(), a raw system call).
 * actions_die_by - the default action, now: SIG_DFL back in the kernel,
 *   @signo sent to this thread and unblocked; the kernel then kills (and
 *   dumps core) exactly as without us. Returns if the default does not kill.
 * actions_stack_has_room - false on an alternate stack too small for a
 *   report (a host's, sized for its own handlers): skip the report there.
 *   Under the program's seccomp filter, where sigaltstack() may kill it:
 *   false whenever @signo's handler may run on an alternate stack.
 *   @on_alt (may be NULL): set to whether this runs on an alternate stack.
 */
void actions_read(int signo, struct sigaction *out);
bool actions_set_by_program(int signo);
bool actions_is_handler(const struct sigaction *a);
void actions_call(int signo, const struct sigaction *a, siginfo_t *info, void *context);
bool actions_kernel_default(int signo);
void actions_die_by(int signo);
bool actions_stack_has_room(int signo, bool *on_alt);

/*
 * actions_give_back - the program's action for @signo back in the kernel,
 * and the signal no longer taken: sigaction() and its kin go to libc again.
 * Before the program's seccomp filter (sandbox.h), for the fatal signals,
 * whose handler must die by the signal with system calls the filter may
 * refuse.
 */
void actions_give_back(int signo);

#endif
