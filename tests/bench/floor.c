/* SPDX-License-Identifier: MIT */
/*
 * floor.c: the floor of a counting preload (issue 22 point 1): a group of
 * the 4 software events opened in the constructor, one read(2) of it and
 * one write(2) of a line on stderr at exit, nothing else. What pfshim adds
 * to a process beyond this is its own features (job, report, checks);
 * perchild.py runs it beside the shim and perf stat.
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/ioctl.h>
#include <unistd.h>

static const uint64_t configs[] = {
	PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_PAGE_FAULTS, PERF_COUNT_SW_CONTEXT_SWITCHES,
	PERF_COUNT_SW_CPU_MIGRATIONS,
};
static int leader = -1;

__attribute__((constructor)) static void floor_start(void)
{
	for (unsigned i = 0; i < sizeof(configs) / sizeof(configs[0]); i++) {
		struct perf_event_attr attr;
		int fd;

		memset(&attr, 0, sizeof(attr));
		attr.type = PERF_TYPE_SOFTWARE;
		attr.size = sizeof(attr);
		attr.config = configs[i];
		attr.read_format = PERF_FORMAT_GROUP;
		attr.disabled = leader < 0;
		fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, leader, PERF_FLAG_FD_CLOEXEC);
		if (leader < 0)
			leader = fd;
		if (leader < 0)
			return;
	}
	ioctl(leader, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
}

__attribute__((destructor)) static void floor_end(void)
{
	uint64_t values[1 + 4];
	char line[16 * 5 + 2], *p = line + sizeof(line) - 1;

	if (leader < 0 || read(leader, values, sizeof(values)) <= 0)
		return;
	*p = '\n';
	for (int i = (int)values[0]; i >= 1; i--) {
		uint64_t v = values[i];

		do
			*--p = (char)('0' + v % 10);
		while (v /= 10);
		*--p = ' ';
	}
	(void)!write(STDERR_FILENO, p, (size_t)(line + sizeof(line) - p));
}
