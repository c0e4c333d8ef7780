/* SPDX-License-Identifier: MIT */
/*
 * test_sandbox.c: preload/sandbox.c: which calls install a seccomp filter,
 * which writes could kill the program under one (SIGPIPE, SIGXFSZ), and
 * fd.c's streams under the filter: the duplicate taken before, unchecked,
 * never the standard number.
 */
#include <fcntl.h>
#include <linux/seccomp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <cmocka.h>

#include "preload/fd.h"
#include "preload/sandbox.h"

static void test_installs(void **state)
{
	bool all;

	(void)state;
	assert_true(sandbox_is_install(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &all));
	assert_false(all);
	assert_true(sandbox_is_install(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
				       SECCOMP_FILTER_FLAG_TSYNC, &all));
	assert_true(all);
	assert_true(sandbox_is_install(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, &all));
	assert_false(all);
	assert_false(sandbox_is_install(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &all));
	assert_true(sandbox_is_install(SYS_prctl, PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &all));
	assert_false(sandbox_is_install(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, &all));
	assert_false(sandbox_is_install(SYS_prctl, PR_GET_SECCOMP, 0, &all));
	assert_false(sandbox_is_install(SYS_read, PR_SET_SECCOMP, 0, &all));
}

static void test_writes_that_may_kill(void **state)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	struct rlimit fsize, saved;

	(void)state;
	getrlimit(RLIMIT_FSIZE, &saved);
	sandbox_forget();
	assert_false(sandbox_filtered());
	sigaction(SIGPIPE, NULL, &old);
	assert_true(old.sa_handler == SIG_DFL);
	sandbox_enter();
	assert_true(sandbox_filtered());
	assert_true(sandbox_write_may_kill(S_IFIFO));
	assert_true(sandbox_write_may_kill(S_IFSOCK));
	assert_false(sandbox_write_may_kill(S_IFCHR));
	assert_int_equal(sandbox_write_may_kill(S_IFREG), saved.rlim_cur != RLIM_INFINITY);

	sandbox_forget();
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &old);
	fsize = saved;
	fsize.rlim_cur = 1 << 20;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &fsize), 0);
	sandbox_enter();
	assert_false(sandbox_write_may_kill(S_IFIFO));
	assert_true(sandbox_write_may_kill(S_IFREG));
	sigaction(SIGPIPE, &old, NULL);
	setrlimit(RLIMIT_FSIZE, &saved);
	sandbox_forget();
}

/* Under the filter: the duplicate, even once fd 2 is another file; never fd 2 itself. */
static void test_stream_under_filter(void **state)
{
	int saved = dup(STDERR_FILENO), dup_fd, devnull;

	(void)state;
	sandbox_forget();
	fd_stream_forget();
	devnull = open("/dev/null", O_WRONLY);
	dup2(devnull, STDERR_FILENO);	/* a character device: no signal on a failed write */
	assert_int_equal(fd_stream_record(STDERR_FILENO, false), -1);
	fd_stream_keep(STDERR_FILENO);
	dup_fd = fd_stream_target(STDERR_FILENO);
	assert_true(dup_fd > STDERR_FILENO);
	sandbox_enter();
	assert_int_equal(fd_stream_target(STDERR_FILENO), dup_fd);
	close(dup_fd);	/* the program closed it: still the number, no fcntl to say otherwise */
	assert_int_equal(fd_stream_target(STDERR_FILENO), dup_fd);

	sandbox_forget();
	fd_stream_forget();
	assert_int_equal(fd_stream_record(STDERR_FILENO, false), -1);	/* no duplicate */
	sandbox_enter();
	assert_int_equal(fd_stream_target(STDERR_FILENO), -1);
	sandbox_forget();
	fd_stream_forget();
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(devnull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_installs),
		cmocka_unit_test(test_writes_that_may_kill),
		cmocka_unit_test(test_stream_under_filter),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
