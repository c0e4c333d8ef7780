/* SPDX-License-Identifier: MIT */
/*
 * test_names.c: export/names.c, the signal, errno, reason and status names
 * the reports print instead of calling strsignal()/strerror().
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "export/names.h"
#include "export/report.h"

static void test_signal_names(void **state)
{
	(void)state;
	assert_string_equal(signal_name(SIGUSR1), "SIGUSR1");
	assert_string_equal(signal_name(SIGUSR2), "SIGUSR2");
	assert_string_equal(signal_name(SIGINT), "SIGINT");
	assert_string_equal(signal_name(SIGTERM), "SIGTERM");
	assert_string_equal(signal_name(SIGSEGV), "SIGSEGV");
	assert_string_equal(signal_name(SIGPROF), "SIGPROF");
	assert_string_equal(signal_name(SIGSYS), "SIGSYS");
	assert_null(signal_name(0));
	assert_null(signal_name(-1));
	assert_null(signal_name(SIGRTMIN));
	assert_null(signal_name(1000));
}

/* Every classic signal 1..31 has a name (x86_64 and arm64 define them all). */
static void test_signal_table_complete(void **state)
{
	(void)state;
	for (int s = 1; s < 32; s++)
		assert_non_null(signal_name(s));
}

/* Names back to numbers, through the same table: what PFSHIM_SIGNAL takes. */
static void test_signal_numbers(void **state)
{
	(void)state;
	assert_int_equal(signal_number("USR1"), SIGUSR1);
	assert_int_equal(signal_number("SIGUSR2"), SIGUSR2);
	assert_int_equal(signal_number("sigTerm"), SIGTERM);
	assert_int_equal(signal_number("io"), SIGIO);
	assert_int_equal(signal_number("KILL"), SIGKILL);	/* a name; config refuses it */
	assert_int_equal(signal_number(""), 0);
	assert_int_equal(signal_number("SIG"), 0);
	assert_int_equal(signal_number("USR"), 0);
	assert_int_equal(signal_number("USR12"), 0);
	assert_int_equal(signal_number("SIGSIGUSR1"), 0);
	for (int s = 1; s < 32; s++)
		assert_int_equal(signal_number(signal_name(s)), s);
}

static void test_errno_names(void **state)
{
	(void)state;
	assert_string_equal(errno_name(ENOENT), "ENOENT");
	assert_string_equal(errno_name(-EACCES), "EACCES");
	assert_string_equal(errno_name(EOPNOTSUPP), "EOPNOTSUPP");
	assert_string_equal(errno_name(EINVAL), "EINVAL");
	assert_string_equal(errno_name(EMFILE), "EMFILE");
	assert_string_equal(errno_name(E2BIG), "E2BIG");
	assert_null(errno_name(0));
	assert_null(errno_name(100000));
	assert_null(errno_name(-100000));
}

static void test_reason_and_status(void **state)
{
	(void)state;
	assert_string_equal(report_reason_name(REPORT_EXIT), "exit");
	assert_string_equal(report_reason_name(REPORT_EXEC), "exec");
	assert_string_equal(report_reason_name(REPORT_SIGNAL), "signal");
	assert_string_equal(report_reason_name(REPORT_EXPLICIT), "explicit");
	assert_string_equal(report_reason_name((enum report_reason)99), "unknown");
	assert_string_equal(report_status_name(STATUS_COUNTED), "counted");
	assert_string_equal(report_status_name(STATUS_NOT_COUNTED), "not-counted");
	assert_string_equal(report_status_name(STATUS_NOT_SUPPORTED), "not-supported");
	assert_string_equal(report_status_name((enum report_status)99), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_signal_names),
		cmocka_unit_test(test_signal_numbers),
		cmocka_unit_test(test_signal_table_complete),
		cmocka_unit_test(test_errno_names),
		cmocka_unit_test(test_reason_and_status),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
