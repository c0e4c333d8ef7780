/* SPDX-License-Identifier: MIT */
/*
 * forge_adopt HOW PROGRAM [ARGS...]: what a hostile parent can hand the
 * shim. Open a perf event, as the shim reads its groups, leave it open at
 * descriptor 50 without close-on-exec, and exec PROGRAM with a PFSHIM_ADOPT
 * that names it as PFSHIM_EVENTS=page-faults's counter of this process,
 * its pid, its ID and the events' hash all right. HOW other: page-faults of
 * a child of ours, after it faulted 5000 pages; breakpoint: a write
 * breakpoint on ourselves (another type of event). Exit 77 when the kernel
 * will not open the event.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pages.h"

#define FORGED_FD 50

static volatile int watched;

/* The shim's hash of the event text (preload/counters/handover.c): FNV-1a. */
static unsigned long long text_hash(const char *text)
{
	unsigned long long h = 0xcbf29ce484222325ull;

	for (; *text; text++)
		h = (h ^ (unsigned char)*text) * 0x100000001b3ull;
	return h;
}

int main(int argc, char **argv)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID,
		.exclude_hv = 1,
		.inherit = 1,
		.inherit_thread = 1,
	};
	int go[2], done[2], fd;
	pid_t target = 0;
	uint64_t id;
	char value[256];

	if (argc < 3)
		return 2;
	if (!strcmp(argv[1], "other")) {
		if (pipe(go) < 0 || pipe(done) < 0)
			return 1;
		target = fork();
		if (target == 0) {
			char c;

			close(go[1]);
			close(done[0]);
			read(go[0], &c, 1);
			pages_touch(5000);
			write(done[1], "x", 1);
			read(go[0], &c, 1);	/* until our exec closes it */
			_exit(0);
		}
		attr.type = PERF_TYPE_SOFTWARE;
		attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	} else {
		attr.type = PERF_TYPE_BREAKPOINT;
		attr.bp_type = HW_BREAKPOINT_W;
		attr.bp_addr = (uintptr_t)&watched;
		attr.bp_len = HW_BREAKPOINT_LEN_4;
	}
	fd = (int)syscall(SYS_perf_event_open, &attr, target, -1, -1, 0);
	if (fd < 0 && errno == EACCES) {	/* perf_event_paranoid 2: user space only, as the shim */
		attr.exclude_kernel = 1;
		fd = (int)syscall(SYS_perf_event_open, &attr, target, -1, -1, 0);
	}
	if (fd < 0) {
		perror("perf_event_open");
		return 77;
	}
	if (dup2(fd, FORGED_FD) < 0 || close(fd) < 0 ||
	    ioctl(FORGED_FD, PERF_EVENT_IOC_ID, &id) < 0)
		return 1;
	if (target) {
		char c;

		write(go[1], "x", 1);
		read(done[0], &c, 1);
		close(go[0]);
		close(done[1]);
		fcntl(go[1], F_SETFD, FD_CLOEXEC);
	}
	snprintf(value, sizeof(value), "1;%d;%llx;1;%d:%llu:0:0:0", (int)getpid(),
		 text_hash("page-faults"), FORGED_FD, (unsigned long long)id);
	setenv("PFSHIM_ADOPT", value, 1);
	execvp(argv[2], argv + 2);
	perror("exec");
	return 1;
}
