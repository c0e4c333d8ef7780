/* SPDX-License-Identifier: MIT */
/*
 * test_handover.c: preload/counters/handover.c. Real software events are
 * opened for this process as `pfshim run` opens them before exec, and
 * described; adoption takes them only when every descriptor proves to be
 * the one named, and never closes a descriptor that did not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "preload/counters/handover.h"

#define EVENTS "page-faults,task-clock"

static struct event_list list;
static struct counter_set opened, adopted;
static char text[HANDOVER_MAX];

static void spec_set(int i, const char *name, uint64_t config)
{
	struct event_spec *e = &list.ev[i];

	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->attr.size = sizeof(e->attr);
	e->attr.type = PERF_TYPE_SOFTWARE;
	e->attr.config = config;
	e->group = -1;
}

static int setup(void **state)
{
	(void)state;
	memset(&list, 0, sizeof(list));
	list.nr = 2;
	spec_set(0, "page-faults", PERF_COUNT_SW_PAGE_FAULTS);
	spec_set(1, "task-clock", PERF_COUNT_SW_TASK_CLOCK);
	if (counters_open_for_exec(&opened, &list) != 2)
		return -1;
	return handover_format(&opened, EVENTS, getpid(), text, sizeof(text)) < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	counters_close(&opened);
	return 0;
}

static bool fd_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

/* Not close-on-exec before; adopted, close-on-exec, same numbers, same group. */
static void test_adopts_what_it_opened(void **state)
{
	(void)state;
	assert_int_equal(fcntl(opened.c[0].fd, F_GETFD) & FD_CLOEXEC, 0);
	assert_int_equal(handover_adopt(&adopted, &list, EVENTS, true, text), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(adopted.c[i].fd, opened.c[i].fd);
		assert_true(adopted.c[i].id == opened.c[i].id);
		assert_int_equal(adopted.c[i].leader, opened.c[i].leader);
		assert_int_equal(fcntl(adopted.c[i].fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	}
}

/* Anything that proves nothing: refused, and every descriptor left open. */
static void test_refuses_what_proves_nothing(void **state)
{
	char bogus[HANDOVER_MAX];
	int file = open("/dev/null", O_RDONLY);
	int pid = getpid();
	const char *cases[] = { "", "garbage", "1;", "2;%d;0;2;", "1;%d;0;1;%d:1:0:0:0",
				"1;%d;0;1;-1:0:0:0:0", "1;%d;0;2;3:1:0:0:0" };

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		snprintf(bogus, sizeof(bogus), cases[k], pid, file);
		assert_int_equal(handover_adopt(&adopted, &list, EVENTS, true, bogus), -EINVAL);
	}
	/* Our own descriptors, one ID wrong: not the ones handed over. */
	snprintf(bogus, sizeof(bogus), "1;%d;0;2;%d:%llu:0:0:0,%d:%llu:0:0:0", pid,
		 opened.c[0].fd, (unsigned long long)opened.c[0].id + 1000,
		 opened.c[1].fd, (unsigned long long)opened.c[1].id);
	assert_int_equal(handover_adopt(&adopted, &list, EVENTS, true, bogus), -EINVAL);
	/* Another pid's: the text is right but this process is not the one it was made for. */
	handover_format(&opened, EVENTS, pid + 1, bogus, sizeof(bogus));
	assert_int_equal(handover_adopt(&adopted, &list, EVENTS, true, bogus), -EINVAL);
	/* One member of the group left out: the group read has an ID it does not name. */
	snprintf(bogus, sizeof(bogus), "1;%d;0;1;%d:%llu:0:0:0", pid, opened.c[0].fd,
		 (unsigned long long)opened.c[0].id);
	assert_int_equal(handover_adopt(&adopted, &list, EVENTS, true, bogus), -EINVAL);
	assert_true(fd_open(file) && fd_open(opened.c[0].fd) && fd_open(opened.c[1].fd));
	close(file);
}

/* Provably handed to us, but for other events (or unusable): closed. */
static void test_closes_handed_but_unusable(void **state)
{
	(void)state;
	assert_int_equal(handover_adopt(&adopted, &list, "cycles", true, text), -ESTALE);
	assert_false(fd_open(opened.c[0].fd) || fd_open(opened.c[1].fd));
	assert_int_equal(setup(state), 0);
	assert_int_equal(handover_adopt(&adopted, &list, EVENTS, false, text), -ESTALE);
	assert_false(fd_open(opened.c[0].fd) || fd_open(opened.c[1].fd));
}

/* /bin/sh and what it runs are dynamic here; /proc/self/fd is no executable. */
static void test_target(void **state)
{
	(void)state;
	assert_true(handover_target_ok("sh", "/nonexistent:/bin:/usr/bin"));
	assert_false(handover_target_ok("sh", "/nonexistent"));
	assert_false(handover_target_ok("/nonexistent/sh", NULL));
	assert_false(handover_target_ok("/etc/passwd", NULL));
	assert_false(handover_target_ok("/proc/self", NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_adopts_what_it_opened, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_what_proves_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_closes_handed_but_unusable, setup, teardown),
		cmocka_unit_test(test_target),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
