/* SPDX-License-Identifier: MIT */
/*
 * test_fd_write.c: preload/fd.c, writes that never signal the host (SIGPIPE,
 * SIGXFSZ), a bounded wait on a full non-blocking pipe, and the standard
 * streams used only while they are still the ones recorded at start.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <cmocka.h>

#include "preload/fd.h"

static bool pending(int signo)
{
	sigset_t set;

	assert_int_equal(sigpending(&set), 0);
	return sigismember(&set, signo);
}

/* Default dispositions: a raised SIGPIPE or SIGXFSZ would end this test program. */
static void test_no_signal_for_epipe_or_efbig(void **state)
{
	char path[] = "/tmp/pfshim-test-fd.XXXXXX";
	struct rlimit old, rl;
	int p[2], fd, err;
	char big[4096];

	(void)state;
	signal(SIGPIPE, SIG_DFL);
	signal(SIGXFSZ, SIG_DFL);
	assert_int_equal(pipe(p), 0);
	close(p[0]);
	errno = 77;
	assert_int_equal(fd_write_bounded(p[1], "x", 1, 0, &err), 0);
	assert_int_equal(err, EPIPE);
	assert_int_equal(errno, 77);
	assert_false(pending(SIGPIPE));
	close(p[1]);

	memset(big, 'b', sizeof(big));
	fd = mkstemp(path);
	assert_true(fd >= 0);
	getrlimit(RLIMIT_FSIZE, &old);
	rl = old;
	rl.rlim_cur = 1000;
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &rl), 0);
	assert_int_equal(fd_write_bounded(fd, big, sizeof(big), 0, &err), 1000);
	assert_int_equal(err, EFBIG);
	assert_false(pending(SIGXFSZ));
	setrlimit(RLIMIT_FSIZE, &old);
	close(fd);
	unlink(path);
}

/* A full non-blocking pipe nobody reads: EAGAIN after the wait, not a hang. */
static void test_full_nonblocking_pipe_gives_up(void **state)
{
	static char chunk[65536];
	int p[2], err;
	size_t done;

	(void)state;
	assert_int_equal(pipe2(p, O_NONBLOCK), 0);
	while (write(p[1], chunk, sizeof(chunk)) > 0)
		;
	done = fd_write_bounded(p[1], chunk, sizeof(chunk), 50, &err);
	assert_int_equal(err, EAGAIN);
	assert_true(done < sizeof(chunk));
	close(p[0]);
	close(p[1]);
}

/* fd 2 recorded, its duplicate reused by a file of the "host", then fd 2 replaced too. */
static void test_stream_target_follows_identity(void **state)
{
	char path[] = "/tmp/pfshim-test-fd.XXXXXX";
	int saved = dup(STDERR_FILENO), p[2], dup_fd, data;

	(void)state;
	assert_int_equal(pipe(p), 0);
	dup2(p[1], STDERR_FILENO);
	fd_stream_forget();
	assert_int_equal(fd_stream_target(STDERR_FILENO), STDERR_FILENO);	/* before recording */
	dup_fd = fd_stream_record(STDERR_FILENO, true);
	assert_true(dup_fd > STDERR_FILENO);
	assert_int_equal(fd_stream_target(STDERR_FILENO), dup_fd);

	/* the host closes our duplicate and opens its own data file at that number */
	data = mkstemp(path);
	assert_true(data >= 0);
	assert_int_equal(dup2(data, dup_fd), dup_fd);
	assert_int_equal(fd_stream_target(STDERR_FILENO), STDERR_FILENO);

	/* ... and its data file over fd 2 as well: nothing is ours any more */
	assert_int_equal(dup2(data, STDERR_FILENO), STDERR_FILENO);
	assert_int_equal(fd_stream_target(STDERR_FILENO), -1);

	/* the same pipe, opened for reading, at fd 2: the access mode tells them apart */
	assert_int_equal(dup2(p[0], STDERR_FILENO), STDERR_FILENO);
	assert_int_equal(fd_stream_target(STDERR_FILENO), -1);

	dup2(saved, STDERR_FILENO);
	close(saved);
	close(dup_fd);
	close(data);
	close(p[0]);
	close(p[1]);
	unlink(path);
	fd_stream_forget();
}

static void test_stream_closed_at_start(void **state)
{
	int saved = dup(STDOUT_FILENO);

	(void)state;
	close(STDOUT_FILENO);
	assert_int_equal(fd_stream_record(STDOUT_FILENO, true), FD_STREAM_WAS_CLOSED);
	assert_int_equal(open("/dev/null", O_WRONLY), STDOUT_FILENO);	/* the host's own */
	assert_int_equal(fd_stream_target(STDOUT_FILENO), -1);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	fd_stream_forget();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_signal_for_epipe_or_efbig),
		cmocka_unit_test(test_full_nonblocking_pipe_gives_up),
		cmocka_unit_test(test_stream_target_follows_identity),
		cmocka_unit_test(test_stream_closed_at_start),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
