/* SPDX-License-Identifier: MIT */
/*
 * test_fd.c: preload/fd.c's descriptor budget: the band of numbers the
 * shim may take at each RLIMIT_NOFILE, and that a descriptor which cannot
 * go there is closed rather than left where the program would open its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "preload/fd.h"

static struct rlimit saved;

static int limit_save(void **state)
{
	(void)state;
	return getrlimit(RLIMIT_NOFILE, &saved);
}

static int limit_restore(void **state)
{
	(void)state;
	return setrlimit(RLIMIT_NOFILE, &saved);
}

static void soft_limit(rlim_t n)
{
	struct rlimit rl = saved;

	rl.rlim_cur = n < rl.rlim_max ? n : rl.rlim_max;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
}

static void test_band_is_the_top_quarter(void **state)
{
	int lo = -1, hi = -1;

	(void)state;
	if (saved.rlim_max < 1024)
		skip();
	soft_limit(1024);
	assert_int_equal(fd_band(&lo, &hi), 256);
	assert_int_equal(lo, 768);
	assert_int_equal(hi, 1024);
	soft_limit(300);
	assert_int_equal(fd_band(&lo, &hi), 75);
	assert_int_equal(lo, 225);
	assert_int_equal(hi, 300);
}

static void test_band_stays_under_1024(void **state)
{
	int lo = -1, hi = -1;

	(void)state;
	if (saved.rlim_max < 4096)
		skip();
	soft_limit(4096);
	assert_int_equal(fd_band(&lo, &hi), 256);
	assert_int_equal(lo, 768);
	assert_int_equal(hi, 1024);
}

static void test_no_band_under_256(void **state)
{
	int lo = -1, hi = -1;

	(void)state;
	soft_limit(255);
	assert_int_equal(fd_band(&lo, &hi), 0);
	assert_int_equal(lo, -1);
	soft_limit(16);
	assert_int_equal(fd_band(&lo, &hi), 0);
}

static void test_move_high_lands_in_the_band(void **state)
{
	int lo, hi, fd;

	(void)state;
	if (saved.rlim_max < 1024)
		skip();
	soft_limit(1024);
	assert_int_equal(fd_band(&lo, &hi), 256);
	fd = fd_move_high(open("/dev/null", O_RDONLY));
	assert_true(fd >= lo && fd < hi);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
}

static void test_move_high_without_band_closes(void **state)
{
	int fd = open("/dev/null", O_RDONLY);

	(void)state;
	soft_limit(16);
	assert_true(fd >= 0 && fd < 16);
	assert_int_equal(fd_move_high(fd), -1);
	/* The number is the program's again. */
	assert_int_equal(fcntl(fd, F_GETFD), -1);
	assert_int_equal(errno, EBADF);
}

/* Room under the hard limit: above the soft one, which is left as it was. */
static void test_move_away_goes_above_the_soft_limit(void **state)
{
	struct rlimit after;
	int fd = open("/dev/null", O_RDONLY);

	(void)state;
	if (saved.rlim_max <= 64)
		skip();
	soft_limit(16);
	assert_true(fd_room_away());
	fd = fd_move_away(fd);
	assert_true(fd >= 16);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &after), 0);
	assert_int_equal(after.rlim_cur, 16);
	close(fd);
}

/*
 * Held, the limits are the ones read first: the constructor's moves ask
 * once. Released, each call reads them again; and a move above the soft
 * limit while held still puts the limit back as it was.
 */
static void test_limits_held_are_read_once(void **state)
{
	struct rlimit after;
	int lo = -1, hi = -1, fd;

	(void)state;
	if (saved.rlim_max < 1024)
		skip();
	soft_limit(1024);
	fd_limits_hold();
	assert_int_equal(fd_band(&lo, &hi), 256);
	soft_limit(300);
	assert_int_equal(fd_band(&lo, &hi), 256);	/* still 1024's: read once */
	assert_int_equal(lo, 768);
	fd_limits_release();
	assert_int_equal(fd_band(&lo, &hi), 75);	/* 300's */
	assert_int_equal(lo, 225);

	soft_limit(16);
	fd_limits_hold();
	fd = fd_move_away(open("/dev/null", O_RDONLY));
	assert_true(fd >= 16);
	fd_limits_release();
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &after), 0);
	assert_int_equal(after.rlim_cur, 16);
	close(fd);
}

/* Soft and hard both 16: nowhere to go. In a child: a hard limit is not raised back. */
static void test_move_away_without_room_closes(void **state)
{
	struct rlimit tight = { 16, 16 };
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	if (pid == 0) {
		int fd = open("/dev/null", O_RDONLY);

		if (setrlimit(RLIMIT_NOFILE, &tight) < 0 || fd_room_away())
			_exit(1);
		if (fd_move_away(fd) != -1 || fcntl(fd, F_GETFD) != -1)
			_exit(2);
		_exit(0);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_band_is_the_top_quarter, limit_save, limit_restore),
		cmocka_unit_test_setup_teardown(test_band_stays_under_1024, limit_save, limit_restore),
		cmocka_unit_test_setup_teardown(test_no_band_under_256, limit_save, limit_restore),
		cmocka_unit_test_setup_teardown(test_move_high_lands_in_the_band, limit_save,
						limit_restore),
		cmocka_unit_test_setup_teardown(test_move_high_without_band_closes, limit_save,
						limit_restore),
		cmocka_unit_test_setup_teardown(test_move_away_goes_above_the_soft_limit, limit_save,
						limit_restore),
		cmocka_unit_test_setup_teardown(test_move_away_without_room_closes, limit_save,
						limit_restore),
		cmocka_unit_test_setup_teardown(test_limits_held_are_read_once, limit_save,
						limit_restore),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
