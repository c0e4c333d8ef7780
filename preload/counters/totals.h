/* SPDX-License-Identifier: MIT */
/*
 * totals.h: the process-wide counters: the configured events opened as
 * inherited groups of the calling process, read as totals.
 */
#ifndef PFSHIM_PRELOAD_COUNTERS_TOTALS_H
#define PFSHIM_PRELOAD_COUNTERS_TOTALS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "export/report.h"
#include "preload/events/events.h"

struct counter {
	int fd;			/* -1 when the event could not be opened */
	int leader;		/* index of this counter's group leader (itself if leader) */
	uint64_t id;		/* PERF_EVENT_IOC_ID: finds the value in a group read */
	int error;		/* errno of the failed open */
	bool user_only;		/* reopened with exclude_kernel/hv after EACCES/EPERM */
	bool kernel_excluded;	/* exclude_kernel in the end, asked for or forced */
};

struct counter_set {
	int nr;
	struct counter c[EVENTS_MAX];
	dev_t dev;		/* the perf anon inode, to tell our fds from */
	ino_t ino;		/* whatever the host may have dup2()ed over them */
};

/*
 * counters_open - open every event of @events for the calling process and
 * its threads (pid 0, cpu -1, inherit + inherit_thread), grouped as asked,
 * leaders disabled, then enable each group as a whole.
 *
 * Never fails as a whole: each event that cannot be opened keeps its errno
 * and is reported as not supported. Return: how many events are counting.
 */
int counters_open(struct counter_set *s, const struct event_list *events);

/*
 * counters_open_for_exec - as counters_open(), but nothing is enabled and
 * no descriptor is close-on-exec: the leaders' enable_on_exec starts every
 * group at the next execve() of the calling process, which keeps them open
 * (handover.h). Return: how many events are open.
 */
int counters_open_for_exec(struct counter_set *s, const struct event_list *events);

/* counters_remember_inode - note the perf anon inode of @s's descriptors (fd_is_ours). */
void counters_remember_inode(struct counter_set *s);

/* counters_none - @s with every event of @events unopened, for @error (errno). */
void counters_none(struct counter_set *s, const struct event_list *events, int error);

/*
 * counters_read - one read(2) per group; fill @out[0..nr-1] (name, unit and
 * scale from @events). Async-signal-safe.
 */
void counters_read(const struct counter_set *s, const struct event_list *events,
		   struct report_event *out);

/*
 * counters_refused - was every event of @s refused EPERM, user space only
 * too? A seccomp filter answers perf_event_open so (Docker's default profile
 * does); the perf_event_paranoid checks answer EACCES, and leave user space
 * open. Nothing can count in this process then.
 */
bool counters_refused(const struct counter_set *s);

/* What the shim and `pfshim run` say of it: why, and what to do. */
#define COUNTERS_REFUSED_WHY "perf_event_open is refused here (EPERM for every event, user " \
	"space only too: a seccomp filter, as a container's default profile)"
#define COUNTERS_REFUSED_FIX "To count, allow it (docker run --security-opt seccomp=PROFILE)"

/* counters_close - close every fd of @s; the set reads as not counted after. */
void counters_close(struct counter_set *s);

#endif
