/* SPDX-License-Identifier: MIT */
/*
 * test_pipe_turn.c: preload/output/pipe_turn.c, writers of one pipe taking
 * turns: another process's turn excludes ours (an inherited pipe, where
 * flock would not), a turn held with the pipe still is given up after the
 * wait and the report written all the same, and short reports and regular
 * files take no turn at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "preload/output/pipe_turn.h"

#define REPORT (PIPE_BUF + 904)	/* 5000 bytes: above PIPE_BUF, room in an empty pipe */

static char report[REPORT];

/* A child that takes the turn of @fd (inherited: the same open file description) and holds it. */
static pid_t holder(int fd)
{
	int ready[2];
	pid_t pid;
	char c;

	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		c = pipe_turn_take(fd, 0) == 0 ? 'y' : 'n';
		(void)!write(ready[1], &c, 1);
		pause();
		_exit(0);
	}
	assert_int_equal(read(ready[0], &c, 1), 1);
	assert_int_equal(c, 'y');
	close(ready[0]);
	close(ready[1]);
	return pid;
}

static void holder_end(pid_t pid)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* Another process's turn excludes ours on an inherited pipe; its death gives it back. */
static void test_turns_exclude_across_processes(void **state)
{
	int p[2];
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(p), 0);
	pid = holder(p[1]);
	assert_int_equal(pipe_turn_take(p[1], 0), -EAGAIN);
	holder_end(pid);
	assert_int_equal(pipe_turn_take(p[1], 0), 0);
	pipe_turn_give(p[1]);
	close(p[0]);
	close(p[1]);
}

/* A turn held with nothing moving: after the wait, the report is written whole all the same. */
static void test_turn_missed_writes_anyway(void **state)
{
	static char got[REPORT];
	bool missed = false;
	int p[2], err = -1;
	pid_t pid;

	(void)state;
	memset(report, 'r', sizeof(report));
	assert_int_equal(pipe(p), 0);
	pid = holder(p[1]);
	assert_int_equal(pipe_turn_write(p[1], report, REPORT, 50, &err, &missed), REPORT);
	assert_int_equal(err, 0);
	assert_true(missed);
	assert_int_equal(read(p[0], got, sizeof(got)), REPORT);
	assert_memory_equal(got, report, REPORT);
	/* Its own turn free again: taken and given back, not missed. */
	holder_end(pid);
	assert_int_equal(pipe_turn_write(p[1], report, REPORT, 50, &err, &missed), REPORT);
	assert_false(missed);
	assert_int_equal(pipe_turn_take(p[1], 0), 0);
	pipe_turn_give(p[1]);
	close(p[0]);
	close(p[1]);
}

/* PIPE_BUF bytes or less are whole by the kernel's rule: no turn, even one held. */
static void test_short_report_takes_no_turn(void **state)
{
	bool missed = true;
	int p[2], err = -1;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(p), 0);
	pid = holder(p[1]);
	assert_int_equal(pipe_turn_write(p[1], report, PIPE_BUF, 60000, &err, &missed), PIPE_BUF);
	assert_false(missed);
	holder_end(pid);
	close(p[0]);
	close(p[1]);
}

/* A regular file: one write(2) of O_APPEND is whole, so no turn, even one held there. */
static void test_regular_file_takes_no_turn(void **state)
{
	char path[] = "/tmp/pfshim-test-pipe-turn.XXXXXX";
	int fd = mkstemp(path), err = -1;
	bool missed = true;
	pid_t pid;

	(void)state;
	assert_true(fd >= 0);
	unlink(path);
	pid = holder(fd);
	assert_int_equal(pipe_turn_write(fd, report, REPORT, 60000, &err, &missed), REPORT);
	assert_int_equal(err, 0);
	assert_false(missed);
	holder_end(pid);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_turns_exclude_across_processes),
		cmocka_unit_test(test_turn_missed_writes_anyway),
		cmocka_unit_test(test_short_report_takes_no_turn),
		cmocka_unit_test(test_regular_file_takes_no_turn),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
