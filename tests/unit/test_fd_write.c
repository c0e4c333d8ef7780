/* SPDX-License-Identifier: MIT */
/*
 * test_fd_write.c: preload/fd.c, writes that never signal the host (SIGPIPE,
 * SIGXFSZ), a bounded wait on a full non-blocking pipe, and the standard
 * streams used only while they are still the ones recorded at start.
 */
#include <errno.h>
#include <pthread.h>
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
#include <sys/time.h>
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

/* The reader of a pipe: after @delay_ms, everything until EOF, into drained[]. */
static char drained[3 * 65536];
static size_t nr_drained;

static void *drain(void *arg)
{
	int fd = *(int *)arg;
	ssize_t n;

	usleep(200 * 1000);
	while ((n = read(fd, drained + nr_drained, sizeof(drained) - nr_drained)) > 0)
		nr_drained += (size_t)n;
	return NULL;
}

static void on_alarm(int signo)
{
	(void)signo;
}

/*
 * A report longer than the pipe holds, written in several parts as a
 * reader makes room (a non-blocking pipe: each part as long as the room),
 * arrives whole and in order.
 */
static void test_short_writes_add_up(void **state)
{
	static char report[2 * 65536 + 1000];
	pthread_t reader;
	int p[2], err;

	(void)state;
	for (size_t i = 0; i < sizeof(report); i++)
		report[i] = (char)('a' + i % 23);
	nr_drained = 0;
	assert_int_equal(pipe2(p, O_NONBLOCK), 0);
	assert_int_equal(fcntl(p[0], F_SETFL, 0), 0);	/* the reader blocks; our end does not */
	assert_int_equal(pthread_create(&reader, NULL, drain, &p[0]), 0);
	assert_int_equal(fd_write_bounded(p[1], report, sizeof(report), 10000, &err), sizeof(report));
	assert_int_equal(err, 0);
	close(p[1]);
	pthread_join(reader, NULL);
	close(p[0]);
	assert_int_equal(nr_drained, sizeof(report));
	assert_memory_equal(drained, report, sizeof(report));
}

/*
 * A blocking write into a full pipe interrupted by the host's signal (a
 * handler without SA_RESTART: EINTR before a byte went) is tried again: the
 * report arrives once the reader makes room.
 */
static void test_eintr_tried_again(void **state)
{
	static char chunk[65536];
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct itimerval tick = { { 0, 0 }, { 0, 50 * 1000 } };
	pthread_t reader;
	int p[2], err;

	(void)state;
	nr_drained = 0;
	assert_int_equal(pipe2(p, O_NONBLOCK), 0);
	while (write(p[1], chunk, sizeof(chunk)) > 0)
		;
	assert_int_equal(fcntl(p[1], F_SETFL, 0), 0);
	assert_int_equal(fcntl(p[0], F_SETFL, 0), 0);
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
	assert_int_equal(pthread_create(&reader, NULL, drain, &p[0]), 0);
	/* SIGALRM at 50 ms, the reader at 200 ms: the write blocked in between is interrupted. */
	assert_int_equal(setitimer(ITIMER_REAL, &tick, NULL), 0);
	assert_int_equal(fd_write_bounded(p[1], "report\n", 7, 10000, &err), 7);
	assert_int_equal(err, 0);
	close(p[1]);
	pthread_join(reader, NULL);
	close(p[0]);
	sigaction(SIGALRM, &old, NULL);
	assert_true(nr_drained >= 7);
	assert_memory_equal(drained + nr_drained - 7, "report\n", 7);
}

/* fd 2 recorded, its duplicate reused by a file of the "host", then fd 2 replaced too. */
static void test_stream_target_follows_identity(void **state)
{
	char path[] = "/tmp/pfshim-test-fd.XXXXXX";
	int saved = dup(STDERR_FILENO), p[2], dup_fd, data;
	struct rlimit rl, raised;

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
	/* the duplicate may sit above the soft limit (fd_dup_above_limit): a host reaches it by raising its own */
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	raised = rl;
	if (raised.rlim_cur <= (rlim_t)dup_fd)
		raised.rlim_cur = raised.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &raised), 0);
	assert_int_equal(dup2(data, dup_fd), dup_fd);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
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
		cmocka_unit_test(test_short_writes_add_up),
		cmocka_unit_test(test_eintr_tried_again),
		cmocka_unit_test(test_stream_target_follows_identity),
		cmocka_unit_test(test_stream_closed_at_start),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
