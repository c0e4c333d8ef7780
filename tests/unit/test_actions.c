/* SPDX-License-Identifier: MIT */
/*
 * test_actions.c: preload/actions.c's keeping of the program's actions for
 * the signals the shim takes, here the fatal ones (fatal_install(), as
 * PFSHIM_ON_FATAL=1 does): a handler set after them runs from ours, the
 * old action given back is what was set as the kernel keeps it, SIG_IGN
 * goes to the kernel, SA_RESETHAND runs once, the default keeps calls
 * restarting. No signal here takes the default path (it would kill the
 * test); the e2e suites hardening-process.bats and signals.bats do that,
 * with and without the shim.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "preload/actions.h"
#include "preload/fatal.h"

static volatile sig_atomic_t calls, last_signo;

static void counting(int signo)
{
	calls++;
	last_signo = signo;
}

static void counting_info(int signo, siginfo_t *info, void *context)
{
	(void)context;
	calls++;
	last_signo = info->si_signo == signo ? signo : -1;
}

/* What the kernel holds for @signo. */
static struct sigaction kernel_action(int signo)
{
	struct sigaction k;

	assert_int_equal(sigaction(signo, NULL, &k), 0);
	return k;
}

static int install(void **state)
{
	(void)state;
	/* The unit test links no shim.c: the global sigaction is libc's. */
	actions_init(sigaction);
	fatal_install(SIGUSR1);
	return 0;
}

/* Every signal that kills by default, but the report signal (USR1 here); none that ignores or stops. */
static void test_manages_the_killing_ones_only(void **state)
{
	static const int killing[] = { SIGSEGV, SIGTERM, SIGQUIT, SIGPIPE, SIGALRM, SIGUSR2, SIGXCPU,
				       SIGSYS, SIGTRAP, SIGIO, SIGPWR };
	static const int not_killing[] = { SIGUSR1, SIGKILL, SIGSTOP, SIGCHLD, SIGCONT, SIGURG,
					   SIGWINCH, SIGTSTP, SIGTTIN, SIGTTOU, 32, 33, 0, NSIG };

	(void)state;
	for (size_t i = 0; i < sizeof(killing) / sizeof(killing[0]); i++)
		assert_true(actions_manages(killing[i]));
	for (int signo = SIGRTMIN; signo <= SIGRTMAX; signo++)
		assert_true(actions_manages(signo));
	for (size_t i = 0; i < sizeof(not_killing) / sizeof(not_killing[0]); i++)
		assert_false(actions_manages(not_killing[i]));
	/* Ours is in the kernel, not the default. */
	assert_true(kernel_action(SIGTERM).sa_handler != SIG_DFL);
}

static void test_handler_set_after_runs_from_ours(void **state)
{
	struct sigaction a = { .sa_handler = counting, .sa_flags = SA_RESTART | SA_ONSTACK }, old, k;

	(void)state;
	sigemptyset(&a.sa_mask);
	sigaddset(&a.sa_mask, SIGUSR2);
	assert_int_equal(actions_sigaction(SIGTERM, &a, &old), 0);
	assert_ptr_equal(old.sa_handler, SIG_DFL);
	/* The kernel: ours, with the program's flags and mask. */
	k = kernel_action(SIGTERM);
	assert_true(k.sa_handler != counting && k.sa_handler != SIG_DFL);
	assert_true(k.sa_flags & SA_SIGINFO);
	assert_true(k.sa_flags & SA_ONSTACK);
	assert_true(k.sa_flags & SA_RESTART);
	assert_true(sigismember(&k.sa_mask, SIGUSR2));
	calls = 0;
	raise(SIGTERM);
	raise(SIGTERM);
	assert_int_equal(calls, 2);
	assert_int_equal(last_signo, SIGTERM);
	/* Given back: what was set, SA_SIGINFO as set (not ours). */
	assert_int_equal(actions_sigaction(SIGTERM, NULL, &old), 0);
	assert_ptr_equal(old.sa_handler, counting);
	assert_false(old.sa_flags & SA_SIGINFO);
	assert_true(old.sa_flags & SA_ONSTACK);
	assert_true(sigismember(&old.sa_mask, SIGUSR2));
}

static void test_siginfo_handler_gets_its_arguments(void **state)
{
	struct sigaction a = { .sa_sigaction = counting_info, .sa_flags = SA_SIGINFO };

	(void)state;
	sigemptyset(&a.sa_mask);
	assert_int_equal(actions_sigaction(SIGHUP, &a, NULL), 0);
	calls = 0;
	raise(SIGHUP);
	assert_int_equal(calls, 1);
	assert_int_equal(last_signo, SIGHUP);
}

static void test_ignored_is_the_kernels(void **state)
{
	struct sigaction a = { .sa_handler = SIG_IGN }, old;

	(void)state;
	sigemptyset(&a.sa_mask);
	assert_int_equal(actions_sigaction(SIGINT, &a, NULL), 0);
	assert_ptr_equal(kernel_action(SIGINT).sa_handler, SIG_IGN);
	raise(SIGINT);		/* ignored: the test lives */
	/* A handler again: ours back in the kernel, SIG_IGN given back. */
	a.sa_handler = counting;
	assert_int_equal(actions_sigaction(SIGINT, &a, &old), 0);
	assert_ptr_equal(old.sa_handler, SIG_IGN);
	assert_true(kernel_action(SIGINT).sa_handler != SIG_IGN);
}

static void test_resethand_runs_once(void **state)
{
	struct sigaction a = { .sa_handler = counting, .sa_flags = SA_RESETHAND }, old;

	(void)state;
	sigemptyset(&a.sa_mask);
	assert_int_equal(actions_sigaction(SIGQUIT, &a, NULL), 0);
	assert_false(kernel_action(SIGQUIT).sa_flags & SA_RESETHAND);
	calls = 0;
	raise(SIGQUIT);
	assert_int_equal(calls, 1);
	/* Now the default, as the kernel would have reset it (the next one would kill). */
	assert_int_equal(actions_sigaction(SIGQUIT, NULL, &old), 0);
	assert_ptr_equal(old.sa_handler, SIG_DFL);
	/* Set again: runs again. */
	assert_int_equal(actions_sigaction(SIGQUIT, &a, &old), 0);
	assert_ptr_equal(old.sa_handler, SIG_DFL);
	raise(SIGQUIT);
	assert_int_equal(calls, 2);
}

static void test_same_struct_for_act_and_oldact(void **state)
{
	struct sigaction a = { .sa_handler = counting }, b = { .sa_handler = SIG_IGN };

	(void)state;
	sigemptyset(&a.sa_mask);
	sigemptyset(&b.sa_mask);
	assert_int_equal(actions_sigaction(SIGBUS, &a, NULL), 0);
	assert_int_equal(actions_sigaction(SIGBUS, &b, &b), 0);
	assert_ptr_equal(b.sa_handler, counting);
	assert_ptr_equal(kernel_action(SIGBUS).sa_handler, SIG_IGN);
}

/*
 * SIG_DFL set with no flags: ours in the kernel with SA_RESTART (a report
 * must not make a blocked read(2) return EINTR) and off the alternate
 * stack; the flags given back are the ones set.
 */
static void test_default_restarts_calls(void **state)
{
	struct sigaction a = { .sa_handler = SIG_DFL, .sa_flags = SA_ONSTACK }, old, k;

	(void)state;
	sigemptyset(&a.sa_mask);
	assert_int_equal(actions_sigaction(SIGHUP, &a, NULL), 0);
	k = kernel_action(SIGHUP);
	assert_true(k.sa_handler != SIG_DFL);
	assert_true(k.sa_flags & SA_RESTART);
	assert_false(k.sa_flags & SA_ONSTACK);
	assert_int_equal(actions_sigaction(SIGHUP, NULL, &old), 0);
	assert_ptr_equal(old.sa_handler, SIG_DFL);
	assert_false(old.sa_flags & SA_RESTART);
	assert_true(old.sa_flags & SA_ONSTACK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_manages_the_killing_ones_only),
		cmocka_unit_test(test_handler_set_after_runs_from_ours),
		cmocka_unit_test(test_siginfo_handler_gets_its_arguments),
		cmocka_unit_test(test_ignored_is_the_kernels),
		cmocka_unit_test(test_resethand_runs_once),
		cmocka_unit_test(test_same_struct_for_act_and_oldact),
		cmocka_unit_test(test_default_restarts_calls),
	};

	return cmocka_run_group_tests(tests, install, NULL);
}
