/* SPDX-License-Identifier: MIT */
/*
 * test_tracefs.c: preload/events/tracefs.c, the tracepoint resolver alone,
 * against the fake tracefs of tests/fixtures/tracefs/: ids, globs in their
 * order, no name leaving events/, and each message.
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

#include "preload/events/tracefs.h"

static char log_text[2048];
static char found[1024];	/* "subsys:name=id " per tracepoint */
static struct diag diag;
static struct tracefs_names names;

static void log_message(void *ctx, const char *message)
{
	size_t n = strlen(log_text);

	(void)ctx;
	snprintf(log_text + n, sizeof(log_text) - n, "%s\n", message);
}

static void record(void *ctx, const char *subsys, const char *name, uint64_t id)
{
	size_t n = strlen(found);

	(void)ctx;
	snprintf(found + n, sizeof(found) - n, "%s:%s=%llu ", subsys, name,
		 (unsigned long long)id);
}

static const char *root(void)
{
	static char path[4096];
	const char *base = getenv("PFSHIM_TEST_FIXTURES");

	snprintf(path, sizeof(path), "%s/../tracefs", base ? base : "tests/fixtures/sysfs");
	return path;
}

/* Resolve @subsys:@name in @tree; the return value, with found and log_text filled. */
static int resolve_in(const char *tree, const char *subsys, const char *name)
{
	char item[256];
	int err;

	log_text[0] = found[0] = '\0';
	diag = (struct diag){ .warn = log_message };
	snprintf(item, sizeof(item), "%s:%s", subsys, name);
	tracefs_names_start(&names, tree, &diag);
	err = tracefs_resolve(&names, item, subsys, name, record, NULL);
	tracefs_names_end(&names);
	return err;
}

static int resolve(const char *subsys, const char *name)
{
	return resolve_in(root(), subsys, name);
}

static void test_ids(void **state)
{
	(void)state;
	assert_int_equal(resolve("syscalls", "sys_enter_write"), 0);
	assert_string_equal(found, "syscalls:sys_enter_write=840 ");
	assert_string_equal(log_text, "");
	assert_int_equal(resolve("sched", "sched_switch"), 0);
	assert_string_equal(found, "sched:sched_switch=316 ");
}

static void test_globs(void **state)
{
	(void)state;
	assert_int_equal(resolve("block", "*"), 0);
	assert_string_equal(found, "block:block_bio_queue=1190 block:block_rq_complete=1198 "
			    "block:block_rq_issue=1201 ");
	assert_int_equal(resolve("*", "sched_???????_fork"), 0);
	assert_string_equal(found, "sched:sched_process_fork=312 ");
	assert_int_equal(resolve("[bs]*", "*_[iw]*"), 0);
	assert_string_equal(found, "block:block_rq_issue=1201 sched:sched_wakeup=318 "
			    "syscalls:sys_enter_write=840 syscalls:sys_exit_write=839 ");
	assert_int_equal(resolve("*", "enable"), -ENOENT);	/* files, no tracepoints */
	assert_string_equal(found, "");
}

static void test_names_stay_in_events(void **state)
{
	static const char *const bad[][2] = {
		{ "..", "tracefs" }, { "sched", ".." }, { ".", "events" }, { "sched", "a/../b" },
		{ "sched/..", "sched_switch" }, { "", "x" }, { "x", "" },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(resolve(bad[i][0], bad[i][1]), -EINVAL);
		assert_non_null(strstr(log_text, "bad tracepoint name"));
		assert_string_equal(found, "");
	}
}

static void test_messages(void **state)
{
	(void)state;
	assert_int_equal(resolve("sched", "sched_wakup"), -ENOENT);
	assert_string_equal(log_text, "unknown tracepoint 'sched_wakup' in subsystem 'sched' of "
			    "'sched:sched_wakup' (did you mean 'sched_wakeup'?); the event is "
			    "skipped\n");
	assert_int_equal(resolve("blokc", "block_rq_issue"), -ENOENT);
	assert_string_equal(log_text, "unknown tracepoint subsystem 'blokc' in "
			    "'blokc:block_rq_issue' (did you mean 'block'?); the event is "
			    "skipped\n");
	assert_int_equal(resolve("block", "zzz*"), -ENOENT);
	assert_non_null(strstr(log_text, "no tracepoint matches 'block:zzz*' in 'block:zzz*' ("));
	assert_int_equal(resolve_in("/nonexistent", "sched", "sched_switch"), -ENOENT);
	assert_string_equal(log_text, "'sched:sched_switch': no tracefs events directory in "
			    "/nonexistent; the event is skipped\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_globs),
		cmocka_unit_test(test_names_stay_in_events),
		cmocka_unit_test(test_messages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
