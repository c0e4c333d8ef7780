/* SPDX-License-Identifier: MIT */
/*
 * kernel_notes_probe.c: re-measure the facts of docs/kernel-notes.md that a
 * build machine can show (software events only, no PMU needed): hardware
 * events refused, inherit + mmap refused, a software event's page, an
 * inherited group read summing threads, user-only context switches reading
 * 0, and the leader opened disabled making page-faults exact. Prints what it
 * saw; asserts nothing (the tests named in kernel-notes.md do).
 *
 *   cc -O1 -o /tmp/probe tests/tools/kernel_notes_probe.c -lpthread && /tmp/probe
 *   setpriv --reuid=65534 --regid=65534 --clear-groups /tmp/probe   # unprivileged
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

static int peo(struct perf_event_attr *a, int group)
{
	return (int)syscall(SYS_perf_event_open, a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}
static struct perf_event_attr sw(int config)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	return a;
}
static volatile int stop;
static void *burn(void *x)
{
	(void)x;
	while (!stop)
		;
	return NULL;
}

int main(void)
{
	struct perf_event_attr a;
	int fd;
	void *p;

	/* 0. permissions: an event of every privilege level (EACCES unprivileged at paranoid 2) */
	a = sw(PERF_COUNT_SW_TASK_CLOCK);
	fd = peo(&a, -1);
	printf("uid %d, task-clock of all levels: %s\n", (int)getuid(),
	       fd < 0 ? strerrorname_np(errno) : "ok");
	if (fd >= 0)
		close(fd);

	/* 1. hardware cycles */
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_CPU_CYCLES;
	fd = peo(&a, -1);
	printf("hw cycles open: %d errno %s\n", fd, fd < 0 ? strerrorname_np(errno) : "-");

	/* 2. inherit + mmap */
	a = sw(PERF_COUNT_SW_TASK_CLOCK);
	a.inherit = 1;
	fd = peo(&a, -1);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	printf("inherit mmap: %s\n", p == MAP_FAILED ? strerrorname_np(errno) : "ok");
	close(fd);

	/* 3. software page: cap_user_rdpmc, index */
	a = sw(PERF_COUNT_SW_TASK_CLOCK);
	fd = peo(&a, -1);
	struct perf_event_mmap_page *pc = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	printf("sw page: cap_user_rdpmc %u index %u cap_user_time %u version %u\n",
	       (unsigned)pc->cap_user_rdpmc, pc->index, (unsigned)pc->cap_user_time, pc->version);
	munmap(pc, 4096);
	close(fd);

	/* 4. inherited group read sums threads */
	a = sw(PERF_COUNT_SW_TASK_CLOCK);
	a.inherit = 1;
	a.inherit_thread = 0;
	a.disabled = 1;
	a.read_format = PERF_FORMAT_GROUP;
	fd = peo(&a, -1);
	pthread_t t[2];
	ioctl(fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, burn, NULL);
	usleep(300000);
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	uint64_t v[2];
	read(fd, v, sizeof(v));
	printf("inherited task-clock after 2 threads x 0.3 s: %.2f s\n", v[1] / 1e9);
	close(fd);

	/* 5. exclude_kernel context-switches */
	a = sw(PERF_COUNT_SW_CONTEXT_SWITCHES);
	a.exclude_kernel = 1;
	fd = peo(&a, -1);
	for (int i = 0; i < 100; i++)
		usleep(100);
	uint64_t cs = 0;
	read(fd, &cs, sizeof(cs));
	printf("cs:u after 100 sleeps: %llu\n", (unsigned long long)cs);
	close(fd);
	a = sw(PERF_COUNT_SW_CONTEXT_SWITCHES);
	fd = peo(&a, -1);
	for (int i = 0; i < 100; i++)
		usleep(100);
	cs = 0;
	read(fd, &cs, sizeof(cs));
	printf("cs after 100 sleeps: %llu\n", (unsigned long long)cs);
	close(fd);

	/* 6. leader disabled, group enabled once: page-faults exact */
	for (int mode = 0; mode < 2; mode++) {
		int bad = 0;
		for (int run = 0; run < 20; run++) {
			struct perf_event_attr l = sw(PERF_COUNT_SW_TASK_CLOCK),
					       m = sw(PERF_COUNT_SW_PAGE_FAULTS);
			l.read_format = m.read_format = PERF_FORMAT_GROUP;
			l.disabled = mode == 1;
			int lf = peo(&l, -1), mf = peo(&m, lf);
			if (mode == 1)
				ioctl(lf, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
			size_t n = 25600;
			char *mem = mmap(NULL, n * 4096, PROT_READ | PROT_WRITE,
					 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			for (size_t i = 0; i < n; i++)
				mem[i * 4096] = 1;
			uint64_t g[3];
			read(lf, g, sizeof(g));
			if (g[2] < n)
				bad++;
			if (run < 3)
				printf("  %llu\n", (unsigned long long)g[2]);
			munmap(mem, n * 4096);
			close(mf);
			close(lf);
		}
		printf("leader %s: %d of 20 runs under 25600 page-faults\n",
		       mode ? "disabled, group enabled" : "enabled", bad);
	}
	return 0;
}
