/* SPDX-License-Identifier: MIT */
/*
 * test_pfm_answers.c: preload/events/pfm_answers.c, libpfm4's answers kept
 * and handed to the next image in PFSHIM_RESOLVED: each kind of answer
 * round trip, the pid and LIBPFM_* ties, a full table, the size bound, and
 * values that are not what they say (taken whole or not at all).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "preload/events/pfm_answers.h"
#include "preload/events/spec.h"

static struct perf_event_attr encoding(uint32_t type, uint64_t config)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.config1 = 0xffffffffffffffffull;
	a.config2 = 7;
	a.exclude_kernel = 1;
	a.exclude_guest = 1;
	return a;
}

static int setup(void **state)
{
	(void)state;
	unsetenv("LIBPFM_FORCE_PMU");
	unsetenv("LIBPFM_ENCODE_INACTIVE");
	unsetenv("PFSHIM_SYSFS_ROOT");
	unsetenv("PFSHIM_TRACEFS_ROOT");
	pfm_answers_clear();
	return 0;
}

/* The three answers back as they were given, here and in the next image. */
static void test_round_trip(void **state)
{
	struct perf_event_attr in = encoding(4, 0x5300c0), out;
	const char *why;
	char text[4096];
	int len;
	(void)state;

	assert_int_equal(pfm_answer_find("INST_RETIRED:ANY_P", &out, &why), -ESRCH);
	assert_int_equal(pfm_answers_size(), 0);
	assert_int_equal(pfm_answers_format(1, text, sizeof(text)), 0);
	pfm_answer_keep("INST_RETIRED:ANY_P", 0, &in, NULL);
	pfm_answer_mark_parsed("INST_RETIRED:ANY_P");
	pfm_answer_keep("NOT_AN_EVENT", -ENOENT, NULL, NULL);
	pfm_answer_keep("INST_RETIRED:BOGUS", -EINVAL, NULL, "invalid event attribute; and ';'");
	pfm_answer_keep("LOAD_FAILED", -ENOSYS, NULL, NULL);	/* not an answer of libpfm4's */
	len = pfm_answers_format(4242, text, sizeof(text));
	assert_true(len > 0 && (size_t)len < pfm_answers_size());
	assert_int_equal(strlen(text), len);
	assert_non_null(strstr(text, "18:INST_RETIRED:ANY_P+=4,5300c0,ffffffffffffffff,7,a;"));
	assert_non_null(strstr(text, "12:NOT_AN_EVENT?;"));	/* not the parser's */
	assert_null(strstr(text, "LOAD_FAILED"));
	/* and a text cut short is refused rather than half written */
	assert_int_equal(pfm_answers_format(4242, text, (size_t)len), -1);
	assert_int_equal(pfm_answers_format(4242, text, sizeof(text)), len);

	pfm_answers_clear();
	assert_int_equal(pfm_answer_find("INST_RETIRED:ANY_P", &out, &why), -ESRCH);
	assert_int_equal(pfm_answers_take(text, 4242), 0);
	assert_int_equal(pfm_answer_find("INST_RETIRED:ANY_P", &out, &why), 0);
	assert_null(why);
	assert_memory_equal(&out, &in, sizeof(in));
	assert_true(pfm_answer_parsed("INST_RETIRED:ANY_P"));
	assert_false(pfm_answer_parsed("NOT_AN_EVENT"));
	assert_false(pfm_answer_parsed("INST_RETIRED"));
	assert_int_equal(pfm_answer_find("NOT_AN_EVENT", &out, &why), -ENOENT);
	assert_int_equal(pfm_answer_find("INST_RETIRED:BOGUS", &out, &why), -EINVAL);
	assert_string_equal(why, "invalid event attribute; and ';'");
	assert_int_equal(pfm_answer_find("LOAD_FAILED", &out, &why), -ESRCH);
	/* names are exact */
	assert_int_equal(pfm_answer_find("INST_RETIRED", &out, &why), -ESRCH);
}

/* The answers hold for one process under one set of LIBPFM_* variables. */
static void test_ties(void **state)
{
	struct perf_event_attr in = encoding(4, 0xc0), out;
	const char *why;
	char text[1024];
	(void)state;

	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	pfm_answer_keep("INST_RETIRED:ANY_P", 0, &in, NULL);
	assert_int_equal(pfm_answer_find("INST_RETIRED:ANY_P", &out, &why), 0);
	assert_true(pfm_answers_format(100, text, sizeof(text)) > 0);
	/* another process */
	pfm_answers_clear();
	assert_int_equal(pfm_answers_take(text, 101), -EINVAL);
	assert_int_equal(pfm_answer_find("INST_RETIRED:ANY_P", &out, &why), -ESRCH);
	/* another model for libpfm4: not found here, not taken for the next image */
	assert_int_equal(pfm_answers_take(text, 100), 0);
	setenv("LIBPFM_FORCE_PMU", "amd64_fam17h", 1);
	assert_int_equal(pfm_answer_find("INST_RETIRED:ANY_P", &out, &why), -ESRCH);
	pfm_answers_clear();
	assert_int_equal(pfm_answers_take(text, 100), -EINVAL);
	unsetenv("LIBPFM_FORCE_PMU");
	assert_int_equal(pfm_answers_take(text, 100), -EINVAL);
	/* any LIBPFM_* variable, not only the model */
	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	assert_int_equal(pfm_answers_take(text, 100), -EINVAL);
	unsetenv("LIBPFM_ENCODE_INACTIVE");
	/* and the roots the parser reads sysfs and tracefs under */
	setenv("PFSHIM_SYSFS_ROOT", "/tmp", 1);
	assert_int_equal(pfm_answers_take(text, 100), -EINVAL);
	unsetenv("PFSHIM_SYSFS_ROOT");
	setenv("PFSHIM_TRACEFS_ROOT", "/tmp", 1);
	assert_int_equal(pfm_answers_take(text, 100), -EINVAL);
	unsetenv("PFSHIM_TRACEFS_ROOT");
	assert_int_equal(pfm_answers_take(text, 100), 0);
	/* their order does not count (bash exports its variables in an order of its own) */
	setenv("LIBPFM_ENCODE_INACTIVE", "1", 1);
	pfm_answers_clear();
	pfm_answer_keep("INST_RETIRED:ANY_P", 0, &in, NULL);
	assert_true(pfm_answers_format(100, text, sizeof(text)) > 0);
	unsetenv("LIBPFM_FORCE_PMU");
	setenv("LIBPFM_FORCE_PMU", "skl", 1);	/* now after LIBPFM_ENCODE_INACTIVE */
	pfm_answers_clear();
	assert_int_equal(pfm_answers_take(text, 100), 0);
	unsetenv("LIBPFM_ENCODE_INACTIVE");
	/* kept under new variables, the old answers go */
	setenv("LIBPFM_FORCE_PMU", "amd64_fam17h", 1);
	pfm_answer_keep("RETIRED_INSTRUCTIONS", 0, &in, NULL);
	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	assert_int_equal(pfm_answer_find("INST_RETIRED:ANY_P", &out, &why), -ESRCH);
	unsetenv("LIBPFM_FORCE_PMU");
}

/* Name @i of test_full(): EVENTS_NAME_MAX - 1 bytes. */
static void long_name(char *name, int i)
{
	memset(name, 'A' + i % 26, EVENTS_NAME_MAX - 1);
	name[EVENTS_NAME_MAX - 1] = '\0';
	snprintf(name, 8, "%07d", i);
	name[7] = 'X';
}

/* PFM_ANSWERS_MAX names at the longest, with the longest reasons: all handed, the rest not. */
static void test_full(void **state)
{
	static char text[64 * 1024];
	struct perf_event_attr in = encoding(0xffffffff, 0xffffffffffffffff), out;
	char name[EVENTS_NAME_MAX + 1], why[PFM_ANSWER_WHY_MAX + 8];
	const char *got;
	int len;
	(void)state;

	memset(why, 'w', sizeof(why) - 1);
	why[sizeof(why) - 1] = '\0';
	for (int i = 0; i <= PFM_ANSWERS_MAX; i++) {
		long_name(name, i);
		pfm_answer_keep(name, i % 2 ? -EINVAL : 0, &in, why);
	}
	len = pfm_answers_format(7, text, sizeof(text));
	assert_true(len > 0 && (size_t)len < pfm_answers_size());
	pfm_answers_clear();
	assert_int_equal(pfm_answers_take(text, 7), 0);
	long_name(name, PFM_ANSWERS_MAX);
	assert_int_equal(pfm_answer_find(name, &out, &got), -ESRCH);	/* the 65th */
	long_name(name, 0);
	assert_int_equal(pfm_answer_find(name, &out, &got), 0);
	assert_memory_equal(&out, &in, sizeof(in));
	long_name(name, PFM_ANSWERS_MAX - 1);
	assert_int_equal(pfm_answer_find(name, &out, &got), -EINVAL);
	/* the reason, cut to its size */
	assert_int_equal(strlen(got), PFM_ANSWER_WHY_MAX - 1);
	/* a name longer than an event's is not kept */
	memset(name, 'Z', EVENTS_NAME_MAX);
	name[EVENTS_NAME_MAX] = '\0';
	pfm_answers_clear();
	pfm_answer_keep(name, 0, &in, NULL);
	assert_int_equal(pfm_answers_size(), 0);
}

/* A value that is not wholly what it says is not taken at all. */
static void test_bad_values(void **state)
{
	static const char *const bad[] = {
		"", "1", "1;4242", "1;4242;", "2;4242;0;", "x;4242;0;", "1;-4242;0;",
		"1;4242;0;4:ABCD", "1;4242;0;4:ABCD;", "1;4242;0;4:ABCD=4,c0,0,0;",
		"1;4242;0;4:ABCD=4,c0,0,0,0", "1;4242;0;4:ABCD=4,c0,0,0,20;",
		"1;4242;0;4:ABCD=100000000,c0,0,0,0;", "1;4242;0;4:ABCD=4,10000000000000000,0,0,0;",
		"1;4242;0;4:ABCD=4,C0,0,0,0;", "1;4242;0;4:ABCD=4,,0,0,0;", "1;4242;0;4:ABCD?",
		"1;4242;0;4:ABCD!3:ab;", "1;4242;0;4:ABCD!0:;", "1;4242;0;5:ABCD?;",
		"1;4242;0;0:?;", "1;4242;0;4:ABCD*;", "1;4242;0;4:ABCD?;junk",
		"1;4242;0;200:ABCD?;", "1;4242;0;99999999999999999999999:A?;",
		"1;4242;0;4:ABCD?;4:EFGH=4,c0,0,0,0;x", "1;4242;0;4:ABCD++?;", "1;4242;0;4:ABCD+;",
		/* a control byte, in a name or in a reason (which a warning prints) */
		"1;4242;0;4:AB\nD?;", "1;4242;0;4:ABCD!4:a\x1b[m;", "1;4242;0;4:ABCD!2:a\x7f;",
	};
	struct perf_event_attr in = encoding(4, 0xc0), out;
	const char *why;
	char text[64], good[128];
	(void)state;

	pfm_answer_keep("KEPT", 0, &in, NULL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char value[128];
		unsigned long long hash;

		/* the hash of no LIBPFM_* variable, as this process has none */
		assert_true(pfm_answers_format(1, text, sizeof(text)) > 0);
		assert_int_equal(sscanf(text, "1;1;%llx;", &hash), 1);
		snprintf(value, sizeof(value), "%s", bad[i]);
		if (!strncmp(bad[i], "1;4242;0;", 9))
			snprintf(value, sizeof(value), "1;4242;%llx;%s", hash, bad[i] + 9);
		assert_int_equal(pfm_answers_take(value, 4242), -EINVAL);
		assert_int_equal(pfm_answer_find("KEPT", &out, &why), 0);
		assert_int_equal(pfm_answer_find("ABCD", &out, &why), -ESRCH);
	}
	assert_int_equal(pfm_answers_take(NULL, 4242), -EINVAL);
	/* and the good one they were cut from is */
	assert_true(pfm_answers_format(1, text, sizeof(text)) > 0);
	snprintf(good, sizeof(good), "1;4242;%s", strchr(text + 2, ';') + 1);
	pfm_answers_clear();
	assert_int_equal(pfm_answers_take(good, 4242), 0);
	assert_int_equal(pfm_answer_find("KEPT", &out, &why), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_round_trip, setup),
		cmocka_unit_test_setup(test_ties, setup),
		cmocka_unit_test_setup(test_full, setup),
		cmocka_unit_test_setup(test_bad_values, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
