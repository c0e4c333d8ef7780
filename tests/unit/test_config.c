/* SPDX-License-Identifier: MIT */
/*
 * test_config.c: preload/config.c, PFSHIM_* into struct config: every
 * variable read, each malformed value warned about once and its default
 * kept, and the signal spellings PFSHIM_SIGNAL takes.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "preload/config.h"

/* The environment of one test: NAME=VALUE pairs, NULL-terminated. */
static const char *const *environment;
static int warnings;
static char last_warning[256];

static const char *env_lookup(const char *name)
{
	for (const char *const *e = environment; e && *e; e += 2)
		if (strcmp(e[0], name) == 0)
			return e[1];
	return NULL;
}

static void warn_count(void *ctx, const char *message)
{
	warnings++;
	strncpy(last_warning, ctx ? ctx : "", sizeof(last_warning) - 1);
	(void)message;
}

static void read_with(const char *const *env, struct config *c)
{
	environment = env;
	warnings = 0;
	last_warning[0] = '\0';
	config_read(c, env_lookup, warn_count);
}

/* A relative PFSHIM_OUTPUT against the first process's directory; a '%' there doubled. */
static void test_output_absolute(void **state)
{
	char out[32];

	(void)state;
	assert_int_equal(config_output_absolute(out, sizeof(out), "rep/", "/w/100%"), 1);
	assert_string_equal(out, "/w/100%%/rep/");
	assert_int_equal(config_output_absolute(out, sizeof(out), "r.%p.json", "/"), 1);
	assert_string_equal(out, "/r.%p.json");
	strcpy(out, "untouched");
	assert_int_equal(config_output_absolute(out, sizeof(out), "/abs/", "/w"), 0);
	assert_int_equal(config_output_absolute(out, sizeof(out), "stderr", "/w"), 0);
	assert_int_equal(config_output_absolute(out, sizeof(out), "stdout", "/w"), 0);
	assert_string_equal(out, "untouched");
	assert_int_equal(config_output_absolute(out, sizeof(out), "rep/", "/a/rather/longer/directory/x"),
			 -ENAMETOOLONG);
	assert_int_equal(config_output_absolute(out, sizeof(out), "r", "/%%%%%%%%%%%%%%%%"),
			 -ENAMETOOLONG);
}

/* A directory of reports is JSON unless PFSHIM_FORMAT says otherwise. */
static void test_directory_json(void **state)
{
	struct config c;

	(void)state;
	read_with((const char *const[]){ "PFSHIM_OUTPUT", "/d/", NULL }, &c);
	assert_int_equal(c.format, FORMAT_JSON);
	read_with((const char *const[]){ "PFSHIM_OUTPUT", "/d/", "PFSHIM_FORMAT", "csv", NULL }, &c);
	assert_int_equal(c.format, FORMAT_CSV);
	read_with((const char *const[]){ "PFSHIM_OUTPUT", "/d/f", NULL }, &c);
	assert_int_equal(c.format, FORMAT_TEXT);
}

static void test_defaults(void **state)
{
	struct config c;

	(void)state;
	read_with(NULL, &c);
	assert_int_equal(warnings, 0);
	assert_false(c.disabled);
	assert_string_equal(c.events, EVENTS_DEFAULT);
	assert_int_equal(c.format, FORMAT_TEXT);
	assert_string_equal(c.output, "stderr");
	assert_int_equal(c.signal, 0);
	assert_string_equal(c.sysfs_root, CONFIG_SYSFS_DEFAULT);
}

static void test_every_variable(void **state)
{
	static const char *const env[] = {
		"PFSHIM_EVENTS", "page-faults", "PFSHIM_FORMAT", "json",
		"PFSHIM_OUTPUT", "/tmp/r.%p", "PFSHIM_SIGNAL", "USR2",
		"PFSHIM_SYSFS_ROOT", "/fake", NULL,
	};
	struct config c;

	(void)state;
	read_with(env, &c);
	assert_int_equal(warnings, 0);
	assert_string_equal(c.events, "page-faults");
	assert_int_equal(c.format, FORMAT_JSON);
	assert_string_equal(c.output, "/tmp/r.%p");
	assert_true(c.output_explicit);
	assert_int_equal(c.signal, SIGUSR2);
	assert_string_equal(c.sysfs_root, "/fake");
}

/* Each format by its name, and nothing else: "OpenMetrics" is openmetrics, "xml" a typo. */
static void test_formats(void **state)
{
	static const char *const names[] = { "text", "csv", "json", "openmetrics", "prometheus",
					     "papi" };
	static const enum config_format formats[] = {
		FORMAT_TEXT, FORMAT_CSV, FORMAT_JSON, FORMAT_OPENMETRICS, FORMAT_PROMETHEUS, FORMAT_PAPI,
	};
	const char *env[] = { "PFSHIM_FORMAT", NULL, NULL };
	struct config c;

	(void)state;
	for (int i = 0; i < 5; i++) {
		env[1] = names[i];
		read_with(env, &c);
		assert_int_equal(warnings, 0);
		assert_int_equal(c.format, formats[i]);
	}
	/* Any case is the same format (PFSHIM_FORMAT=JSON was refused once). */
	env[1] = "OpenMetrics";
	read_with(env, &c);
	assert_int_equal(warnings, 0);
	assert_int_equal(c.format, FORMAT_OPENMETRICS);
	env[1] = "JSON";
	read_with(env, &c);
	assert_int_equal(c.format, FORMAT_JSON);
	env[1] = "xml";
	read_with(env, &c);
	assert_int_equal(warnings, 1);
	assert_int_equal(c.format, FORMAT_TEXT);
}

/* The first rank variable holding digits wins; a malformed one is passed over. */
static void test_rank(void **state)
{
	static const char *const none[] = { NULL };
	static const char *const ompi[] = { "SLURM_PROCID", "7", "OMPI_COMM_WORLD_RANK", "3", NULL };
	static const char *const bad[] = { "OMPI_COMM_WORLD_RANK", "../x", "PMIX_RANK", "",
					   "PMI_RANK", "12", NULL };
	static const char *const huge[] = { "SLURM_PROCID", "1234567890", NULL };
	struct config c;

	(void)state;
	read_with(none, &c);
	assert_string_equal(c.rank, "");
	assert_false(c.output_explicit);
	read_with(ompi, &c);
	assert_string_equal(c.rank, "3");
	read_with(bad, &c);
	assert_string_equal(c.rank, "12");
	read_with(huge, &c);
	assert_string_equal(c.rank, "");
	assert_int_equal(warnings, 0);
}

static void test_disable(void **state)
{
	static const char *const on[] = { "PFSHIM_DISABLE", "1", "PFSHIM_FORMAT", "xml", NULL };
	static const char *const zero[] = { "PFSHIM_DISABLE", "0", NULL };
	static const char *const empty[] = { "PFSHIM_DISABLE", "", NULL };
	struct config c;

	(void)state;
	read_with(on, &c);
	assert_true(c.disabled);
	assert_int_equal(warnings, 0);	/* disabled: nothing else is read */
	read_with(zero, &c);
	assert_false(c.disabled);
	read_with(empty, &c);
	assert_false(c.disabled);
}

/* Secure-execution mode (AT_SECURE): inert, whatever the environment says, and silent. */
static const char *env_refused(const char *name)
{
	(void)name;
	fail_msg("the environment was read in secure-execution mode");
	return NULL;
}

static void test_secure_execution_is_inert(void **state)
{
	static const char *const env[] = {
		"PFSHIM_OUTPUT", "/etc/ld.so.preload", "PFSHIM_DISABLE", "0", NULL,
	};
	struct config c;

	(void)state;
	warnings = 0;
	config_read_secure(&c, env_refused, warn_count, true);
	assert_true(c.disabled);
	assert_true(c.secure);
	assert_string_equal(c.output, "stderr");
	assert_int_equal(warnings, 0);
	environment = env;
	config_read_secure(&c, env_lookup, warn_count, false);
	assert_false(c.disabled);
	assert_false(c.secure);
	assert_string_equal(c.output, "/etc/ld.so.preload");
	/* This test runs without AT_SECURE: config_read() must read the environment. */
	read_with(env, &c);
	assert_false(c.secure);
}

static void test_bad_values_warn_once_and_default(void **state)
{
	static const char *const format[] = { "PFSHIM_FORMAT", "xml", NULL };
	static const char *const output[] = { "PFSHIM_OUTPUT", "", NULL };
	static const char *const signal[] = { "PFSHIM_SIGNAL", "KILL", NULL };
	static char long_path[PATH_MAX + 1];
	const char *const too_long[] = { "PFSHIM_OUTPUT", long_path, NULL };
	struct config c;

	(void)state;
	read_with(format, &c);
	assert_int_equal(warnings, 1);
	assert_string_equal(last_warning, "PFSHIM_FORMAT");
	assert_int_equal(c.format, FORMAT_TEXT);
	read_with(output, &c);
	assert_int_equal(warnings, 1);
	assert_string_equal(c.output, "stderr");
	memset(long_path, 'a', PATH_MAX);
	read_with(too_long, &c);
	assert_int_equal(warnings, 1);
	assert_string_equal(c.output, "stderr");
	read_with(signal, &c);
	assert_int_equal(warnings, 1);
	assert_string_equal(last_warning, "PFSHIM_SIGNAL");
	assert_int_equal(c.signal, 0);
}

static void test_on_fatal(void **state)
{
	struct config c;

	(void)state;
	read_with((const char *const[]){ NULL }, &c);
	assert_false(c.on_fatal);
	read_with((const char *const[]){ "PFSHIM_ON_FATAL", "1", NULL }, &c);
	assert_true(c.on_fatal);
	assert_int_equal(warnings, 0);
	read_with((const char *const[]){ "PFSHIM_ON_FATAL", "0", NULL }, &c);
	assert_false(c.on_fatal);
	assert_int_equal(warnings, 0);
	read_with((const char *const[]){ "PFSHIM_ON_FATAL", "yes", NULL }, &c);
	assert_false(c.on_fatal);
	assert_int_equal(warnings, 1);
	assert_string_equal(last_warning, "PFSHIM_ON_FATAL");
}

/* PFSHIM_COMPENSATE: 0 or 1; anything else is one warning, and off. */
static void test_compensate(void **state)
{
	struct config c;

	(void)state;
	read_with((const char *const[]){ NULL }, &c);
	assert_false(c.compensate);
	read_with((const char *const[]){ "PFSHIM_COMPENSATE", "1", NULL }, &c);
	assert_true(c.compensate);
	assert_int_equal(warnings, 0);
	read_with((const char *const[]){ "PFSHIM_COMPENSATE", "0", NULL }, &c);
	assert_false(c.compensate);
	assert_int_equal(warnings, 0);
	read_with((const char *const[]){ "PFSHIM_COMPENSATE", "", NULL }, &c);
	assert_false(c.compensate);
	assert_int_equal(warnings, 0);
	read_with((const char *const[]){ "PFSHIM_COMPENSATE", "yes", NULL }, &c);
	assert_false(c.compensate);
	assert_int_equal(warnings, 1);
	assert_string_equal(last_warning, "PFSHIM_COMPENSATE");
}

/* PFSHIM_INTERVAL: a unit of ms, s or m, or none (milliseconds, as perf stat -I). */
static void test_interval_spellings(void **state)
{
	(void)state;
	assert_int_equal(config_interval_parse("500ms"), 500000000);
	assert_int_equal(config_interval_parse("2s"), 2000000000);
	assert_int_equal(config_interval_parse("1m"), 60000000000);
	assert_int_equal(config_interval_parse("250"), 250000000);
	assert_int_equal(config_interval_parse("10ms"), CONFIG_INTERVAL_MIN_NS);
	assert_int_equal(config_interval_parse("1440m"), CONFIG_INTERVAL_MAX_NS);
	assert_int_equal(config_interval_parse("86400s"), CONFIG_INTERVAL_MAX_NS);
}

static void test_interval_refused(void **state)
{
	static const char *const invalid[] = {
		"", "ms", "-5ms", "+5ms", " 5ms", "5 ms", "5MS", "1.5s", "0x10", "5h", "5us",
		"5ms ", "s5",
	};
	static const char *const out_of_range[] = {
		"9ms", "9", "0ms", "1441m", "86401s", "99999999999999999999999ms",
		"18446744073709551616", "307445734561825861m",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++) {
		print_message("%s\n", invalid[i]);
		assert_int_equal(config_interval_parse(invalid[i]), -EINVAL);
	}
	for (size_t i = 0; i < sizeof(out_of_range) / sizeof(out_of_range[0]); i++) {
		print_message("%s\n", out_of_range[i]);
		assert_int_equal(config_interval_parse(out_of_range[i]), -ERANGE);
	}
}

/* Read into struct config: off by default and with "0"; a bad value warns once and is off. */
static void test_interval_variable(void **state)
{
	struct config c;

	(void)state;
	read_with((const char *const[]){ NULL }, &c);
	assert_int_equal(c.interval_ns, 0);
	read_with((const char *const[]){ "PFSHIM_INTERVAL", "100ms", NULL }, &c);
	assert_int_equal(c.interval_ns, 100000000);
	assert_int_equal(warnings, 0);
	read_with((const char *const[]){ "PFSHIM_INTERVAL", "0", NULL }, &c);
	assert_int_equal(c.interval_ns, 0);
	assert_int_equal(warnings, 0);
	read_with((const char *const[]){ "PFSHIM_INTERVAL", "", NULL }, &c);
	assert_int_equal(c.interval_ns, 0);
	assert_int_equal(warnings, 0);
	read_with((const char *const[]){ "PFSHIM_INTERVAL", "fast", NULL }, &c);
	assert_int_equal(c.interval_ns, 0);
	assert_int_equal(warnings, 1);
	assert_string_equal(last_warning, "PFSHIM_INTERVAL");
	read_with((const char *const[]){ "PFSHIM_INTERVAL", "1ms", NULL }, &c);
	assert_int_equal(c.interval_ns, 0);
	assert_int_equal(warnings, 1);
}

static void test_signal_spellings(void **state)
{
	(void)state;
	assert_int_equal(config_signal_parse("USR1"), SIGUSR1);
	assert_int_equal(config_signal_parse("SIGUSR1"), SIGUSR1);
	assert_int_equal(config_signal_parse("sigusr2"), SIGUSR2);
	assert_int_equal(config_signal_parse("12"), 12);
	assert_int_equal(config_signal_parse("RTMIN"), SIGRTMIN);
	assert_int_equal(config_signal_parse("RTMIN+2"), SIGRTMIN + 2);
	assert_int_equal(config_signal_parse("SIGRTMAX-1"), SIGRTMAX - 1);
	assert_int_equal(config_signal_parse("RTMAX"), SIGRTMAX);
	/* Defaults that kill: the report, then that default (report_signal.c). */
	assert_int_equal(config_signal_parse("TERM"), SIGTERM);
	assert_int_equal(config_signal_parse("PIPE"), SIGPIPE);
	assert_int_equal(config_signal_parse("ALRM"), SIGALRM);
	assert_int_equal(config_signal_parse("XCPU"), SIGXCPU);
}

/*
 * Uncatchable, synchronous faults, defaults that ignore or stop, out of
 * range or not a signal at all.
 */
static void test_signal_refused(void **state)
{
	static const char *const refused[] = {
		"KILL", "STOP", "9", "SEGV", "BUS", "FPE", "ILL", "TRAP", "ABRT", "CHLD", "CONT",
		"URG", "WINCH", "TSTP", "TTIN", "TTOU", "17", "0", "65",
		"-1", "1x", "", "SIG", "USR", "RTMIN+", "RTMIN+99", "RTMIN-1", "RTMAX+1",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		int signo = config_signal_parse(refused[i]);

		if (signo != -EINVAL)
			fail_msg("'%s' gave %d", refused[i], signo);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_every_variable),
		cmocka_unit_test(test_formats),
		cmocka_unit_test(test_rank),
		cmocka_unit_test(test_disable),
		cmocka_unit_test(test_secure_execution_is_inert),
		cmocka_unit_test(test_bad_values_warn_once_and_default),
		cmocka_unit_test(test_on_fatal),
		cmocka_unit_test(test_compensate),
		cmocka_unit_test(test_output_absolute),
		cmocka_unit_test(test_directory_json),
		cmocka_unit_test(test_interval_spellings),
		cmocka_unit_test(test_interval_refused),
		cmocka_unit_test(test_interval_variable),
		cmocka_unit_test(test_signal_spellings),
		cmocka_unit_test(test_signal_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
