/* SPDX-License-Identifier: MIT */
/*
 * perf_refused.h: does this host refuse perf_event_open itself? EPERM even
 * for a user-space-only software event is a seccomp filter (Docker's default
 * profile; perf_event_paranoid answers EACCES, and leaves user space open).
 * A unit test that needs real events skips there, saying so.
 */
#ifndef PFSHIM_TESTS_UNIT_PERF_REFUSED_H
#define PFSHIM_TESTS_UNIT_PERF_REFUSED_H

#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline bool perf_refused(void)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};
	long fd = syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);

	if (fd >= 0)
		close((int)fd);
	return fd < 0 && errno == EPERM;
}

/* In a cmocka test: skip it where perf_event_open is refused. */
#define SKIP_IF_PERF_REFUSED()                                                              \
	do {                                                                                \
		if (perf_refused()) {                                                       \
			print_message("perf_event_open refused here (EPERM: a seccomp filter): " \
				      "skipped\n");                                         \
			skip();                                                             \
		}                                                                           \
	} while (0)

#endif
