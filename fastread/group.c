/* SPDX-License-Identifier: MIT */
/*
 * fastread/group.c: open a perf event group of the calling thread in the shape
 * the read path needs (not inherited, one metadata page per event, group read
 * format with IDs, enabled as a whole) and take it down again.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fastread/arch.h"
#include "fastread/internal.h"

int fastread_perf_event_open(struct perf_event_attr *attr, int group_fd)
{
	/* pid 0, cpu -1: the calling thread wherever it runs. */
	int fd = (int)syscall(SYS_perf_event_open, attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* Has the PMU 64-bit user-readable event counters? -1 not asked yet, 0 no, 1 yes or unknown. */
static int wide_counters = -1;

/*
 * Should the cycles event @attr skip the 64-bit try? On a PMU without 64-bit
 * event counters a 64-bit cycles opens, but can only ever be scheduled on the
 * cycle counter: while another event holds that one (the shim's inherited
 * totals, a perf stat of the machine), it never runs and every read falls
 * back to read(2) with nothing counted (measured under QEMU -cpu cortex-a57:
 * running 0 for the whole program). At 32 bits it fits on any counter, and
 * the read path already sign-extends from pmc_width and the kernel moves the
 * offset on each overflow. Asked once per process with one disabled open,
 * and only for cycles; any answer but EOPNOTSUPP keeps the 64-bit try.
 */
static bool cycles_narrow(const struct perf_event_attr *attr)
{
	struct perf_event_attr probe;
	int known = __atomic_load_n(&wide_counters, __ATOMIC_RELAXED), fd;

	if (!arch_attr_wide_probe(attr, &probe))
		return false;
	if (known < 0) {
		probe.disabled = 1;
		probe.enable_on_exec = 0;
		probe.inherit = 0;
		probe.read_format = 0;
		probe.exclude_kernel = 1;	/* allowed at any perf_event_paranoid below 3 */
		probe.exclude_hv = 1;
		fd = fastread_perf_event_open(&probe, -1);
		if (fd >= 0)
			close(fd);
		known = fd != -EOPNOTSUPP;
		__atomic_store_n(&wide_counters, known, __ATOMIC_RELAXED);
	}
	return known == 0;
}

/*
 * Where the attr must ask for user reads (arm64: config1 bits), try each way
 * the architecture offers (arch_attr_user_read) while the kernel answers
 * EOPNOTSUPP or EINVAL, starting at 32 bits for a cycles event that 64 bits
 * would tie to one counter (cycles_narrow); a last try without user access
 * keeps the event counting through read(2). Elsewhere one plain open.
 */
static int event_open(struct perf_event_attr *attr, int group_fd)
{
	uint64_t config1 = attr->config1;
	int fd;

	if (FASTREAD_ARCH_USER_BIT && fastread_pmu_takes_user_bit(attr->type, FASTREAD_SYSFS_PMUS)) {
		for (int n = cycles_narrow(attr); arch_attr_user_read(attr, config1, n); n++) {
			fd = fastread_perf_event_open(attr, group_fd);
			if (fd != -EOPNOTSUPP && fd != -EINVAL)
				return fd;
		}
		attr->config1 = config1;
	}
	return fastread_perf_event_open(attr, group_fd);
}

/*
 * A member refused with EINVAL (on every counter width event_open() tried):
 * either its attr is bad, or the PMU cannot hold the group with it. Opening it
 * alone, disabled, tells the two apart. Only reached on that error.
 */
static bool member_fits_alone(const struct perf_event_attr *member)
{
	struct perf_event_attr attr = *member;
	int fd;

	attr.disabled = 1;
	attr.enable_on_exec = 0;
	attr.read_format = 0;
	fd = event_open(&attr, -1);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

static void group_reset(struct fastread_group *g)
{
	int i;

	memset(g, 0, sizeof(*g));
	for (i = 0; i < FASTREAD_MAX_EVENTS; i++)
		g->fd[i] = -1;
}

/*
 * The leader opens disabled and the group is enabled as a whole at the end: a
 * leader counting while members were still being added gave page-fault counts
 * anywhere from 0 to 25,600 for 25,600 pages (docs/kernel-notes.md "Open the
 * leader disabled"). inherit stays off: inherited per-task events cannot be mapped.
 *
 * The leader also carries enable_on_exec. arm_pmu's validate_group() leaves a
 * leader in state OFF out of the count unless enable_on_exec is set, so a
 * plain disabled leader let a group one event larger than the PMU open and
 * then never run (docs/kernel-notes.md "A disabled leader escapes arm_pmu's
 * group check"); with the flag the member that does not fit gets EINVAL, as
 * it does on x86 whatever the leader's state. The flag changes nothing else
 * here: the group is enabled by ioctl below, and enable_on_exec leaves an
 * enabled event alone (our fds are close-on-exec anyway).
 */
static int member_open(struct fastread_group *g, const struct perf_event_attr *in, int i)
{
	struct perf_event_attr attr = *in;
	long page_size = sysconf(_SC_PAGESIZE);
	void *page;
	int fd;

	attr.size = sizeof(attr);
	attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID;
	attr.disabled = i == 0;
	attr.enable_on_exec = i == 0;
	attr.inherit = 0;
	fd = event_open(&attr, i == 0 ? -1 : g->fd[0]);
	if (fd == -EINVAL && i > 0)
		return member_fits_alone(&attr) ? -ENOSPC : fd;
	if (fd < 0)
		return fd;
	g->fd[i] = fd;
	g->nr = i + 1;
	if (ioctl(fd, PERF_EVENT_IOC_ID, &g->id[i]) < 0)
		return -errno;

	/*
	 * One page: the metadata page alone, no ring buffer. Without it this event
	 * is read through read(2) only, so a failed map is no reason to fail.
	 */
	page = mmap(NULL, (size_t)page_size, PROT_READ, MAP_SHARED, fd, 0);
	g->page[i] = page == MAP_FAILED ? NULL : page;
	/*
	 * Fault the page in now. Otherwise the first read faults on page i after
	 * it has taken the counters before it, and an event that counts the
	 * kernel carries the fault into the first interval (docs/performance.md
	 * "Figures behind the code").
	 */
	if (g->page[i])
		(void)*(volatile uint32_t *)&g->page[i]->lock;
	return 0;
}

/*
 * Leave @g with its cache filled (fastread/read.c, "the cached read"), so that
 * its first read costs what the others cost and no one-time work lands inside
 * a caller's first interval. The pages written at the enable say enabled =
 * running = 0 (measured under QEMU), times that every read must bring
 * forward, so they cannot be cached; a disable and re-enable rewrites them
 * with the few ns since, equal and nonzero. Only for a group whose leader is
 * on a counter now: a kernel_only group (software events) costs nothing here.
 * Return: 0, or -errno of the re-enable.
 */
int fastread_group_settle(struct fastread_group *g)
{
	fastread_group_cache_fill(g);
	/* A top-down group has no cache to fill (fastread/topdown.c). */
	if (g->cache.valid || g->topdown || g->kernel_only || !g->page[0] || g->page[0]->index == 0)
		return 0;
	if (ioctl(g->fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP) < 0 ||
	    ioctl(g->fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0)
		return -errno;
	fastread_group_cache_fill(g);
	return 0;
}

/*
 * Is @g, opened from @attrs, read by read(2) only: every event of a kind
 * that no architecture lets user space read (its page's index is always 0),
 * and no page saying otherwise? The kind decides, never the page alone: a
 * hardware event's page may not say cap_user_rdpmc before its first
 * schedule. A page that does say it (the tests' synthetic PMU over
 * software events) keeps the group on the pages.
 */
static bool group_kernel_only(const struct fastread_group *g, const struct perf_event_attr *attrs)
{
	for (int i = 0; i < g->nr; i++) {
		if (attrs[i].type != PERF_TYPE_SOFTWARE && attrs[i].type != PERF_TYPE_TRACEPOINT &&
		    attrs[i].type != PERF_TYPE_BREAKPOINT)
			return false;
		if (g->page[i] && g->page[i]->cap_user_rdpmc)
			return false;
	}
	return true;
}

int fastread_group_open(struct fastread_group *g, const struct perf_event_attr *attrs, int nr)
{
	int i, err;

	if (!g || !attrs || nr < 1 || nr > FASTREAD_MAX_EVENTS)
		return -EINVAL;
	group_reset(g);
	for (i = 0; i < nr; i++) {
		err = member_open(g, &attrs[i], i);
		if (err < 0)
			goto fail;
	}
	fastread_topdown_setup(g, attrs, nr);
	g->kernel_only = group_kernel_only(g, attrs);
	if (ioctl(g->fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) < 0) {
		err = -errno;
		goto fail;
	}
	err = fastread_group_settle(g);
	if (err < 0)
		goto fail;
	return 0;
fail:
	fastread_group_close(g);
	return err;
}

/*
 * A member lives on after its descriptor is closed while its page is mapped
 * (the mapping holds the file: docs/kernel-notes.md), in the group, counting,
 * its page updated; a read(2) of the group goes through the leader, which
 * keeps its descriptor, as do the ioctls. A member without a page keeps its
 * descriptor: closing it would end the event.
 */
int fastread_group_shed(struct fastread_group *g)
{
	int closed = 0;

	for (int i = 1; i < g->nr && i < FASTREAD_MAX_EVENTS; i++) {
		if (!g->page[i] || g->fd[i] < 0)
			continue;
		close(g->fd[i]);
		g->fd[i] = -1;
		closed++;
	}
	return closed;
}

/* Unmap as well as close: a mapped page keeps the event alive after close(). */
void fastread_group_close(struct fastread_group *g)
{
	long page_size = sysconf(_SC_PAGESIZE);
	int i;

	for (i = 0; i < g->nr && i < FASTREAD_MAX_EVENTS; i++) {
		if (g->page[i])
			munmap(g->page[i], (size_t)page_size);
		if (g->fd[i] >= 0)
			close(g->fd[i]);
	}
	group_reset(g);
}
