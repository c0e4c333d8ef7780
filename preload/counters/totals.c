/* SPDX-License-Identifier: MIT */
/*
 * totals.c: open the configured events as inherited groups of the whole
 * process and read their totals with one read(2) per group.
 *
 * The kernel refuses to mmap inherited events, so these totals are only ever
 * read with read(2); the user-space path is fastread/'s, per thread.
 * counters_read() runs in signal handlers and before exec: async-signal-safe.
 */
#include "preload/counters/totals.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fastread/fastread.h"
#include "preload/fd.h"
#include "preload/sandbox.h"

#define READ_FORMAT (PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | \
		     PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID)

/* Groups of events that were not put in {...} by the user. */
enum bucket { BUCKET_SOFTWARE, BUCKET_CORE, BUCKET_OTHER };

static bool is_software_zero_in_user_mode(const struct perf_event_attr *attr)
{
	/* Measured: with exclude_kernel these two always read 0 (docs/kernel-notes.md). */
	return attr->type == PERF_TYPE_SOFTWARE &&
	       (attr->config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
		attr->config == PERF_COUNT_SW_CPU_MIGRATIONS);
}

/*
 * Open one event, as a leader (disabled, the group is enabled as a whole
 * later) or a member of @group_fd. At perf_event_paranoid 2 an unprivileged
 * process may count only user space: EACCES/EPERM is retried with
 * exclude_kernel + exclude_hv, as perf stat does, unless the user chose
 * the privilege levels with a modifier.
 */
static int counter_open(struct counter *c, const struct event_spec *spec, int group_fd)
{
	struct perf_event_attr attr = spec->attr;
	int fd;

	attr.size = sizeof(attr);
	attr.disabled = group_fd < 0;
	/* Makes arm_pmu validate the disabled leader too: see group_open(). */
	attr.enable_on_exec = group_fd < 0;
	attr.inherit = 1;
	attr.inherit_thread = 1;
	attr.read_format = READ_FORMAT;
	/* :D pins the group; the kernel refuses a pinned member (EINVAL, measured). */
	attr.pinned = spec->attr.pinned && group_fd < 0;
	fd = fastread_perf_event_open(&attr, group_fd);
	if ((fd == -EACCES || fd == -EPERM) && !spec->modifiers && !attr.exclude_kernel) {
		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
		fd = fastread_perf_event_open(&attr, group_fd);
		c->user_only = fd >= 0;
	}
	if (fd < 0) {
		c->fd = -1;
		c->error = -fd;
		return fd;
	}
	c->kernel_excluded = attr.exclude_kernel;
	c->fd = fd_move_away(fd);
	if (c->fd < 0) {
		/* No room up there: the low number goes back to the program. */
		c->error = EMFILE;
		return -EMFILE;
	}
	c->error = 0;
	if (ioctl(c->fd, PERF_EVENT_IOC_ID, &c->id) < 0) {
		c->error = errno;
		close(c->fd);
		c->fd = -1;
		return -c->error;
	}
	return 0;
}

static bool open_error_is_final(int error)
{
	/* No such event, or the feature is missing: another group won't help. */
	return error == ENOENT || error == EOPNOTSUPP || error == ENODEV ||
	       error == EACCES || error == EPERM || error == EMFILE || error == ENFILE;
}

/*
 * Open the events @members[0..n-1] as one group. A member the group cannot
 * take (the PMU has too few counters for all of them: EINVAL) starts a new
 * group, so a group that does not fit is split rather than lost. Return:
 * whether that happened.
 *
 * That EINVAL comes only because leaders carry enable_on_exec: arm_pmu's
 * validate_group() does not count a leader in state OFF without it
 * (docs/kernel-notes.md "A disabled leader escapes arm_pmu's group check").
 * Checking after the enable instead (time_running still 0) is no test: a
 * group enabled while another held the counters also reads running 0 right
 * after its enable, and runs once multiplexed (same section).
 */
static bool group_open_split(struct counter_set *s, const struct event_list *events,
			     const int *members, int n)
{
	bool split = false;
	int leader = -1;

	for (int k = 0; k < n; k++) {
		int i = members[k];
		struct counter *c = &s->c[i];

		if (leader >= 0 && counter_open(c, &events->ev[i], s->c[leader].fd) == 0) {
			c->leader = leader;
			continue;
		}
		if (leader >= 0 && open_error_is_final(c->error))
			continue;
		split |= leader >= 0;
		if (counter_open(c, &events->ev[i], -1) == 0) {
			c->leader = i;
			leader = i;
		}
	}
	return split;
}

/*
 * A group. Without @weak one the PMU cannot hold is split into groups it
 * can (the first keeps as many members as fit); with @weak (the user's :W),
 * as perf does for a weak group, every member is opened on its own instead:
 * each then counts whenever it gets a counter, and no ratio between them is
 * promised.
 */
static void group_open(struct counter_set *s, const struct event_list *events,
		       const int *members, int n, bool weak)
{
	if (!group_open_split(s, events, members, n) || !weak)
		return;
	/* Members before leaders: a leader's close would orphan them open. */
	for (int k = n - 1; k >= 0; k--) {
		struct counter *c = &s->c[members[k]];

		if (c->fd >= 0)
			close(c->fd);
		*c = (struct counter){ .fd = -1, .leader = members[k] };
	}
	for (int k = 0; k < n; k++)
		counter_open(&s->c[members[k]], &events->ev[members[k]], -1);
}

static enum bucket bucket_of(const struct perf_event_attr *attr)
{
	switch (attr->type) {
	case PERF_TYPE_SOFTWARE:
	case PERF_TYPE_TRACEPOINT:	/* no counter either: counted as it happens */
		return BUCKET_SOFTWARE;
	case PERF_TYPE_HARDWARE:
	case PERF_TYPE_HW_CACHE:
	case PERF_TYPE_RAW:
		return BUCKET_CORE;
	default:
		return BUCKET_OTHER;
	}
}

/*
 * The core bucket @members[0..n-1], one group per core PMU: on a hybrid
 * machine cpu_core's and cpu_atom's parts cannot share a group (the kernel
 * schedules a group on one PMU). Elsewhere every pmu is "": one group.
 */
static void core_groups_open(struct counter_set *s, const struct event_list *events,
			     int *members, int n)
{
	while (n > 0) {
		const char *pmu = events->ev[members[0]].pmu;
		int same[EVENTS_MAX], nr_same = 0, rest = 0;

		for (int k = 0; k < n; k++) {
			if (!strcmp(events->ev[members[k]].pmu, pmu))
				same[nr_same++] = members[k];
			else
				members[rest++] = members[k];
		}
		group_open(s, events, same, nr_same, false);
		n = rest;
	}
}

void counters_remember_inode(struct counter_set *s)
{
	struct stat st;

	for (int i = 0; i < s->nr; i++) {
		if (s->c[i].fd >= 0 && fd_stat(s->c[i].fd, &st) == 0) {
			s->dev = st.st_dev;
			s->ino = st.st_ino;
			return;
		}
	}
}

/* Every group opened, leaders disabled with enable_on_exec; none enabled yet. */
static void groups_open(struct counter_set *s, const struct event_list *events)
{
	int members[EVENTS_MAX];

	memset(s, 0, sizeof(*s));
	s->nr = events->nr;
	for (int i = 0; i < s->nr; i++) {
		s->c[i].fd = -1;
		s->c[i].leader = i;
	}
	/* {...} groups as the user wrote them; :W on the group makes it weak. */
	for (int g = 0; g < events->nr_groups; g++) {
		bool weak = false;
		int n = 0;

		for (int i = 0; i < events->nr; i++) {
			if (events->ev[i].group == g) {
				members[n++] = i;
				weak |= events->ev[i].weak;
			}
		}
		group_open(s, events, members, n, weak);
	}
	/*
	 * The rest, one group per kind: software events share no counters and are
	 * always on, so a multiplexed hardware group must not drag them into its
	 * scaling (page-faults stay exact); anything of another PMU stands alone,
	 * and so does an event the user pinned (:D) or made exclusive (:e): those
	 * ask for a group of their own, and the kernel honours them on leaders.
	 */
	for (enum bucket b = BUCKET_SOFTWARE; b <= BUCKET_OTHER; b++) {
		int n = 0;

		for (int i = 0; i < events->nr; i++) {
			const struct event_spec *e = &events->ev[i];

			if (e->group >= 0 || e->nr_parts || bucket_of(&e->attr) != b)
				continue;
			if (b == BUCKET_OTHER || e->attr.pinned || e->attr.exclusive)
				group_open(s, events, &i, 1, false);
			else
				members[n++] = i;
		}
		if (n)
			core_groups_open(s, events, members, n);
	}
	counters_remember_inode(s);
}

int counters_open(struct counter_set *s, const struct event_list *events)
{
	int counting = 0;

	groups_open(s, events);
	/* Enable each group only now that all its members are in: docs/kernel-notes.md. */
	for (int i = 0; i < s->nr; i++) {
		if (s->c[i].fd >= 0 && s->c[i].leader == i)
			ioctl(s->c[i].fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
		counting += s->c[i].fd >= 0;
	}
	return counting;
}

int counters_open_for_exec(struct counter_set *s, const struct event_list *events)
{
	int counting = 0;

	groups_open(s, events);
	for (int i = 0; i < s->nr; i++) {
		if (s->c[i].fd >= 0 && fcntl(s->c[i].fd, F_SETFD, 0) == 0)
			counting++;
	}
	return counting;
}

void counters_none(struct counter_set *s, const struct event_list *events, int error)
{
	memset(s, 0, sizeof(*s));
	s->nr = events->nr;
	for (int i = 0; i < s->nr; i++)
		s->c[i] = (struct counter){ .fd = -1, .leader = i, .error = error };
}

static char buf_none[1];

/*
 * Is @fd still a perf event, or has the host closed it and reused the number
 * (a read(2) of a pipe or socket could block, in a signal handler)? Every
 * perf fd shares the one "[perf_event]" anonymous inode, so this cannot tell
 * our event from another: group_read() matching our IDs does, as a foreign
 * event's values match none of them.
 */
static bool fd_is_ours(const struct counter_set *s, int fd)
{
	struct stat st;

	/*
	 * Under the program's seccomp filter, read(2) alone: a perf event
	 * refuses a read of 0 bytes (ENOSPC: shorter than its read_size),
	 * which a pipe or socket takes as 0 bytes read, at once.
	 */
	if (sandbox_filtered())
		return read(fd, buf_none, 0) < 0 && errno == ENOSPC;
	return fd_stat(fd, &st) == 0 && st.st_dev == s->dev && st.st_ino == s->ino;
}

static void event_fill(struct report_event *out, const struct event_spec *spec,
		       const struct counter *c)
{
	memset(out, 0, sizeof(*out));
	out->name = spec->name;
	out->kind = spec->kind;
	out->unit = spec->unit;
	out->scale = spec->scale;
	out->user_only = c->user_only;
	out->zero_when_user_only = c->kernel_excluded &&
				   is_software_zero_in_user_mode(&spec->attr);
	out->error = c->error;
	out->status = c->fd < 0 ? STATUS_NOT_SUPPORTED : STATUS_NOT_COUNTED;
	out->pmu = spec->pmu[0] ? spec->pmu : NULL;
	out->nr_parts = spec->nr_parts;
	out->parts = spec->nr_parts ? spec->parts : NULL;
}

static void value_fill(struct report_event *out, uint64_t value, uint64_t enabled,
		       uint64_t running)
{
	/*
	 * A part of a hybrid machine's event runs only while the program is on
	 * its PMU's cores, and is enabled all along (the kernel's
	 * event_filter_match() keeps it inactive elsewhere): scaling would
	 * extrapolate cpu_atom's count over the time spent on cpu_core. Its
	 * count is taken as read; docs/events.md "Hybrid machines".
	 */
	struct fastread_count count = { value, out->pmu ? running : enabled, running };

	out->raw = value;
	out->enabled = enabled;
	out->running = running;
	/* read(2) has exact times: running 0 means the group never ran, even when enabled is 0 too. */
	if (running > 0 && fastread_scale(&count, &out->value) == 0) {
		out->status = STATUS_COUNTED;
		out->scaled = count.running != count.enabled;
	}
}

/*
 * A sum on a hybrid machine: its counted parts added up. Enabled is the
 * longest part's (each is enabled as long as the program runs), running
 * the parts' total: the time the program ran on any of the core PMUs.
 * Not counted when no part was, and then with the first part's error.
 */
static void sum_fill(struct report_event *out, const struct report_event *all)
{
	bool counted = false;

	for (int k = 0; k < out->nr_parts; k++) {
		const struct report_event *p = &all[out->parts[k]];

		if (p->status != STATUS_COUNTED)
			continue;
		counted = true;
		out->value += p->value;
		out->raw += p->raw;
		out->user_only |= p->user_only;
		out->running += p->running;
		if (p->enabled > out->enabled)
			out->enabled = p->enabled;
	}
	if (counted) {
		out->status = STATUS_COUNTED;
		out->error = 0;
	} else if (out->nr_parts) {
		out->status = all[out->parts[0]].status;
		out->error = all[out->parts[0]].error;
	}
}

/* The program closed the group's descriptor: its events say so, not "never ran". */
static void group_mark_closed(const struct counter_set *s, int leader, struct report_event *out)
{
	for (int i = 0; i < s->nr; i++)
		if (s->c[i].fd >= 0 && s->c[i].leader == leader)
			out[i].status = STATUS_CLOSED;
}

static void group_read(const struct counter_set *s, int leader, struct report_event *out)
{
	/* nr, time_enabled, time_running, then { value, id } per member. */
	uint64_t buf[3 + 2 * EVENTS_MAX];
	bool matched = false;
	ssize_t len;

	if (!fd_is_ours(s, s->c[leader].fd)) {
		group_mark_closed(s, leader, out);
		return;
	}
	do
		len = read(s->c[leader].fd, buf, sizeof(buf));
	while (len < 0 && errno == EINTR);
	if (len < (ssize_t)(3 * sizeof(uint64_t)))
		return;
	for (uint64_t k = 0; k < buf[0] && 3 + 2 * k + 1 < (uint64_t)len / 8; k++) {
		for (int i = 0; i < s->nr; i++) {
			if (s->c[i].fd >= 0 && s->c[i].leader == leader && s->c[i].id == buf[4 + 2 * k]) {
				value_fill(&out[i], buf[3 + 2 * k], buf[1], buf[2]);
				matched = true;
			}
		}
	}
	/* A perf event of the program's own at our number: none of our IDs. */
	if (!matched)
		group_mark_closed(s, leader, out);
}

void counters_read(const struct counter_set *s, const struct event_list *events,
		   struct report_event *out)
{
	int saved_errno = errno;

	for (int i = 0; i < s->nr; i++)
		event_fill(&out[i], &events->ev[i], &s->c[i]);
	for (int i = 0; i < s->nr; i++)
		if (s->c[i].fd >= 0 && s->c[i].leader == i)
			group_read(s, i, out);
	for (int i = 0; i < s->nr; i++)
		if (out[i].nr_parts)
			sum_fill(&out[i], out);
	errno = saved_errno;
}

bool counters_refused(const struct counter_set *s)
{
	for (int i = 0; i < s->nr; i++)
		if (s->c[i].fd >= 0 || s->c[i].error != EPERM)
			return false;
	return s->nr > 0;
}

void counters_close(struct counter_set *s)
{
	for (int i = 0; i < s->nr; i++) {
		if (s->c[i].fd >= 0)
			close(s->c[i].fd);
		s->c[i].fd = -1;
	}
}
