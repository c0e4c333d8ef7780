/* SPDX-License-Identifier: MIT */
/*
 * test_totals.c: preload/counters/totals.c, the sums of a hybrid machine.
 * These machines have no hardware PMU, so the parts here are software
 * events given a core PMU's name: what totals.c does with a part (a group of
 * its own PMU, a count not extrapolated, added into its sum) depends on
 * that name only, not on the event's type.
 * And the totals of a multiplexed group (time_enabled above time_running),
 * which no software event gives as the shim opens them: here one opened on
 * one CPU (syscall() below) while the thread runs on two.
 */
#include <dlfcn.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <cmocka.h>

#include "preload/counters/totals.h"

static struct event_list list;

/* The CPU the next perf_event_open() binds its events to; -1: any, as the shim opens them. */
static long bind_cpu = -1;

/*
 * libc's syscall(), for this test program (the executable's definition is
 * the one the archive's fastread_perf_event_open() links to): a
 * perf_event_open with bind_cpu as its CPU, everything else passed on.
 */
long syscall(long nr, ...)
{
	static long (*next)(long, ...);
	long a[6];
	va_list ap;

	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (!next)
		next = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	if (nr == SYS_perf_event_open && bind_cpu >= 0)
		a[2] = bind_cpu;
	return next(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static void spec_set(int i, const char *name, uint64_t config, const char *pmu)
{
	struct event_spec *e = &list.ev[i];

	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->attr.size = sizeof(e->attr);
	e->attr.type = PERF_TYPE_SOFTWARE;
	e->attr.config = config;
	e->group = -1;
	e->scale = 1.0;
	e->kind = REPORT_KIND_SOFTWARE;
	snprintf(e->pmu, sizeof(e->pmu), "%s", pmu);
}

static void test_parts_and_sum(void **state)
{
	static struct counter_set s;
	struct report_event out[EVENTS_MAX];
	long page = sysconf(_SC_PAGESIZE);
	char *pages;

	(void)state;
	memset(&list, 0, sizeof(list));
	spec_set(0, "cpu_core/page-faults/", PERF_COUNT_SW_PAGE_FAULTS, "cpu_core");
	spec_set(1, "cpu_atom/page-faults/", PERF_COUNT_SW_PAGE_FAULTS, "cpu_atom");
	spec_set(2, "page-faults", PERF_COUNT_SW_PAGE_FAULTS, "");
	list.ev[2].nr_parts = 2;
	list.ev[2].parts[0] = 0;
	list.ev[2].parts[1] = 1;
	spec_set(3, "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES, "");
	list.nr = 4;

	if (counters_open(&s, &list) != 3)
		skip();	/* perf_event_open refused here (paranoid 3, seccomp) */
	/* One group per core PMU, none for the sum, the rest with the others of no PMU. */
	assert_int_equal(s.c[0].leader, 0);
	assert_int_equal(s.c[1].leader, 1);
	assert_int_equal(s.c[2].fd, -1);
	assert_int_equal(s.c[2].error, 0);
	assert_int_equal(s.c[3].leader, 3);
	/* 64 pages touched, without huge pages: at least 64 faults in each part. */
	pages = mmap(NULL, 64 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(pages != MAP_FAILED);
	madvise(pages, 64 * page, MADV_NOHUGEPAGE);
	for (long off = 0; off < 64 * page; off += page)
		pages[off] = 1;
	counters_read(&s, &list, out);
	counters_close(&s);

	assert_string_equal(out[0].pmu, "cpu_core");
	assert_string_equal(out[1].pmu, "cpu_atom");
	assert_null(out[2].pmu);
	assert_null(out[3].pmu);
	assert_int_equal(out[2].nr_parts, 2);
	assert_ptr_equal(out[2].parts, list.ev[2].parts);
	assert_int_equal(out[0].status, STATUS_COUNTED);
	assert_int_equal(out[1].status, STATUS_COUNTED);
	assert_int_equal(out[2].status, STATUS_COUNTED);
	/* Both parts saw every fault, as software events do: the sum is twice one. */
	munmap(pages, 64 * page);
	assert_true(out[0].raw >= 64);
	assert_true(out[1].raw >= 64);
	assert_int_equal(out[0].value, out[0].raw);
	assert_int_equal(out[2].value, out[0].value + out[1].value);
	assert_int_equal(out[2].raw, out[0].raw + out[1].raw);
	assert_int_equal(out[2].running, out[0].running + out[1].running);
	assert_int_equal(out[2].enabled, out[0].enabled > out[1].enabled ? out[0].enabled :
			 out[1].enabled);
	assert_false(out[2].scaled);
}

/* No part counted: the sum says so, with its first part's error. */
static void test_sum_of_nothing(void **state)
{
	static struct counter_set s;
	struct report_event out[EVENTS_MAX];

	(void)state;
	memset(&list, 0, sizeof(list));
	spec_set(0, "cpu_core/cycles/", 0, "cpu_core");
	spec_set(1, "cpu_atom/cycles/", 0, "cpu_atom");
	spec_set(2, "cycles", 0, "");
	list.ev[2].nr_parts = 2;
	list.ev[2].parts[0] = 0;
	list.ev[2].parts[1] = 1;
	list.nr = 3;
	counters_none(&s, &list, ENOENT);
	counters_read(&s, &list, out);
	assert_int_equal(out[2].status, STATUS_NOT_SUPPORTED);
	assert_int_equal(out[2].error, ENOENT);
	assert_int_equal(out[2].value, 0);
}

/* This thread on @cpu alone, busy for @ns of its own CPU time. */
static void busy_on(int cpu, long ns)
{
	struct timespec t0, t;
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	assert_int_equal(sched_setaffinity(0, sizeof(one), &one), 0);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	do
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < ns);
}

/*
 * A multiplexed group: task-clock and page-faults opened on one CPU, the
 * thread busy on that CPU and on another in turn, so the group is enabled
 * all along and running half of it (measured: enabled 400 ms, running 200
 * ms). The report's times are the kernel's, enabled first, and each count
 * is scaled up by enabled / running, as read(2) gives them here once the
 * group is stopped (issue 24: the two times swapped scaled every count by
 * running / enabled, a quarter of the true count at 50 %).
 */
static void test_multiplexed_scaled(void **state)
{
	static struct counter_set s;
	struct report_event out[EVENTS_MAX];
	uint64_t buf[3 + 2 * 2];
	cpu_set_t allowed;
	int cpu[2] = { -1, -1 }, n = 0;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(allowed), &allowed), 0);
	for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
		if (CPU_ISSET(c, &allowed))
			cpu[n++] = c;
	if (n < 2)
		skip();	/* one CPU: nowhere for the thread to go where the events do not count */
	memset(&list, 0, sizeof(list));
	spec_set(0, "task-clock", PERF_COUNT_SW_TASK_CLOCK, "");
	spec_set(1, "page-faults", PERF_COUNT_SW_PAGE_FAULTS, "");
	list.nr = 2;
	bind_cpu = cpu[0];
	n = counters_open(&s, &list);
	bind_cpu = -1;
	if (n != 2)
		skip();	/* perf_event_open refused here (paranoid 3, seccomp) */
	assert_int_equal(s.c[1].leader, 0);
	for (int round = 0; round < 2; round++) {
		busy_on(cpu[0], 20000000);
		busy_on(cpu[1], 20000000);
	}
	assert_int_equal(sched_setaffinity(0, sizeof(allowed), &allowed), 0);
	/* Stopped: the report's read and ours see the same numbers. */
	assert_int_equal(ioctl(s.c[0].fd, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP), 0);
	counters_read(&s, &list, out);
	assert_int_equal(read(s.c[0].fd, buf, sizeof(buf)), sizeof(buf));
	counters_close(&s);

	/* nr, enabled, running, then { value, id } per member; our leader first. */
	assert_int_equal(buf[0], 2);
	assert_int_equal(buf[4], s.c[0].id);
	assert_true(buf[2] > 0);
	assert_true(buf[1] > buf[2]);	/* multiplexed: the point of the test */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(out[i].status, STATUS_COUNTED);
		assert_int_equal(out[i].raw, buf[3 + 2 * i]);
		assert_int_equal(out[i].enabled, buf[1]);
		assert_int_equal(out[i].running, buf[2]);
		assert_int_equal(out[i].value,
				 (uint64_t)((unsigned __int128)buf[3 + 2 * i] * buf[1] / buf[2]));
		assert_true(out[i].scaled);
	}
	/* task-clock counted on its CPU only (about running), scaled to about enabled. */
	assert_true(out[0].value > buf[2]);
}

/*
 * A group that never ran (opened for an exec that did not come: enabled
 * and running both 0) is "not counted", not a count of 0.
 */
static void test_never_ran(void **state)
{
	static struct counter_set s;
	struct report_event out[EVENTS_MAX];

	(void)state;
	memset(&list, 0, sizeof(list));
	spec_set(0, "task-clock", PERF_COUNT_SW_TASK_CLOCK, "");
	spec_set(1, "page-faults", PERF_COUNT_SW_PAGE_FAULTS, "");
	list.nr = 2;
	if (counters_open_for_exec(&s, &list) != 2)
		skip();	/* perf_event_open refused here (paranoid 3, seccomp) */
	counters_read(&s, &list, out);
	counters_close(&s);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(out[i].status, STATUS_NOT_COUNTED);
		assert_int_equal(out[i].enabled, 0);
		assert_int_equal(out[i].running, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parts_and_sum),
		cmocka_unit_test(test_sum_of_nothing),
		cmocka_unit_test(test_multiplexed_scaled),
		cmocka_unit_test(test_never_ran),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
