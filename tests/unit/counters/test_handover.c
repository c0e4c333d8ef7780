/* SPDX-License-Identifier: MIT */
/*
 * test_handover.c: preload/counters/handover.c. Real software events are
 * opened for this process as `pfshim run` opens them before exec, and
 * described; adoption takes them only when every descriptor proves to be
 * the one named, for this process, and never closes a descriptor that did
 * not. Nothing is opened for an exec while another thread could copy it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "fds_open.h"
#include "perf_refused.h"
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
	if (perf_refused())	/* each test skips */
		return 0;
	if (counters_open_for_exec(&opened, &list) != 2)
		return -1;
	return handover_open(&opened, &list, EVENTS, text, sizeof(text));
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
	SKIP_IF_PERF_REFUSED();
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
	SKIP_IF_PERF_REFUSED();
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
	SKIP_IF_PERF_REFUSED();
	assert_int_equal(handover_adopt(&adopted, &list, "cycles", true, text), -ESTALE);
	assert_false(fd_open(opened.c[0].fd) || fd_open(opened.c[1].fd));
	assert_int_equal(setup(state), 0);
	assert_int_equal(handover_adopt(&adopted, &list, EVENTS, false, text), -ESTALE);
	assert_false(fd_open(opened.c[0].fd) || fd_open(opened.c[1].fd));
}

/* Open @list's events as the shim does, but for the process @pid. */
static void open_for(pid_t pid, struct counter_set *s)
{
	memset(s, 0, sizeof(*s));
	s->nr = list.nr;
	for (int i = 0; i < list.nr; i++) {
		struct perf_event_attr attr = list.ev[i].attr;

		attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
				   PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
		attr.exclude_hv = 1;
		attr.inherit = 1;
		attr.inherit_thread = 1;
		s->c[i].fd = (int)syscall(SYS_perf_event_open, &attr, pid, -1,
					  i ? s->c[0].fd : -1, PERF_FLAG_FD_CLOEXEC);
		if (s->c[i].fd < 0 && errno == EACCES) {	/* perf_event_paranoid 2: as the shim */
			attr.exclude_kernel = 1;
			s->c[i].fd = (int)syscall(SYS_perf_event_open, &attr, pid, -1,
						  i ? s->c[0].fd : -1, PERF_FLAG_FD_CLOEXEC);
		}
		assert_true(s->c[i].fd >= 0);
		assert_int_equal(ioctl(s->c[i].fd, PERF_EVENT_IOC_ID, &s->c[i].id), 0);
	}
}

static int gate[2];

static void *waiting(void *arg)
{
	char c;

	(void)arg;
	read(gate[0], &c, 1);
	return NULL;
}

/*
 * Another process's events, their IDs and our pid right, as a parent that
 * opened them could name them: they count someone else, so they prove
 * nothing, and stay open (they are the program's). Alone, and beside
 * another thread (the two proofs of handover.c).
 */
static void refuses_another_process_events(void)
{
	struct counter_set other;
	char forged[HANDOVER_MAX], c;
	int alive[2];
	pid_t child;

	assert_int_equal(pipe(alive), 0);
	child = fork();
	if (child == 0) {
		close(alive[1]);
		read(alive[0], &c, 1);	/* until we are gone, whatever fails */
		_exit(0);
	}
	close(alive[0]);
	open_for(child, &other);
	assert_true(handover_format(&other, EVENTS, getpid(), forged, sizeof(forged)) > 0);
	assert_int_equal(handover_adopt(&adopted, &list, EVENTS, true, forged), -EINVAL);
	assert_true(fd_open(other.c[0].fd) && fd_open(other.c[1].fd));
	/* The same events opened for us are ours. */
	counters_close(&other);
	open_for(0, &other);
	assert_true(handover_format(&other, EVENTS, getpid(), forged, sizeof(forged)) > 0);
	assert_int_equal(handover_adopt(&adopted, &list, EVENTS, true, forged), 0);
	counters_close(&adopted);
	close(alive[1]);
	waitpid(child, NULL, 0);
}

static void test_refuses_another_process_events(void **state)
{
	(void)state;
	SKIP_IF_PERF_REFUSED();
	refuses_another_process_events();
}

static void test_refuses_another_process_events_beside_a_thread(void **state)
{
	pthread_t t;

	(void)state;
	SKIP_IF_PERF_REFUSED();
	assert_int_equal(pipe(gate), 0);
	assert_int_equal(pthread_create(&t, NULL, waiting, NULL), 0);
	refuses_another_process_events();
	write(gate[1], "x", 1);
	pthread_join(t, NULL);
	close(gate[0]);
	close(gate[1]);
}

/* Ours, but not of the type the events say (hardware, these are software): closed. */
static void test_closes_handed_of_another_type(void **state)
{
	struct event_list hardware = list;

	(void)state;
	SKIP_IF_PERF_REFUSED();
	hardware.ev[0].attr.type = PERF_TYPE_HARDWARE;
	assert_int_equal(handover_adopt(&adopted, &hardware, EVENTS, true, text), -ESTALE);
	assert_false(fd_open(opened.c[0].fd) || fd_open(opened.c[1].fd));
}

/* With a second thread alive, nothing is opened for an exec; alone again, it is. */
static void test_opens_nothing_beside_another_thread(void **state)
{
	struct counter_set s;
	char buf[HANDOVER_MAX];
	pthread_t t;
	int before;

	(void)state;
	SKIP_IF_PERF_REFUSED();
	assert_int_equal(pipe(gate), 0);
	assert_int_equal(pthread_create(&t, NULL, waiting, NULL), 0);
	before = fds_open();
	assert_int_equal(handover_open(&s, &list, EVENTS, buf, sizeof(buf)), -EBUSY);
	assert_int_equal(fds_open(), before);
	write(gate[1], "x", 1);
	pthread_join(t, NULL);
	close(gate[0]);
	close(gate[1]);
	before = fds_open();
	assert_int_equal(handover_open(&s, &list, EVENTS, buf, sizeof(buf)), 0);
	assert_int_equal(fds_open(), before + 2);
	counters_close(&s);
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
		cmocka_unit_test_setup_teardown(test_refuses_another_process_events, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_another_process_events_beside_a_thread,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_closes_handed_of_another_type, setup, teardown),
		cmocka_unit_test(test_opens_nothing_beside_another_thread),
		cmocka_unit_test(test_target),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
