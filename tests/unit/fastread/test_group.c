/* SPDX-License-Identifier: MIT */
/*
 * test_group.c: fastread/group.c and the read(2) side of
 * fastread/read.c with real perf events of this thread. Software events only
 * here (docs/kernel-notes.md: no hardware PMU), so the fallback runs for
 * real; a hardware group is read too where a PMU exists (arm64 under QEMU).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "fastread/internal.h"
#include "file_put.h"
#include "perf_refused.h"

#define TOUCHED_PAGES 256

static void attr_software(struct perf_event_attr *a, uint64_t config)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = config;
	/* Allowed unprivileged at perf_event_paranoid 2 (docs/kernel-notes.md "Permissions"). */
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

static int open_clock_and_faults(struct fastread_group *g)
{
	struct perf_event_attr attrs[2];

	attr_software(&attrs[0], PERF_COUNT_SW_TASK_CLOCK);
	attr_software(&attrs[1], PERF_COUNT_SW_PAGE_FAULTS);
	return fastread_group_open(g, attrs, 2);
}

/* A plain PERF_FORMAT_GROUP read(2) of the leader, for comparison. */
static void plain_read(const struct fastread_group *g, uint64_t *values, int nr)
{
	uint64_t buf[3 + 2 * FASTREAD_MAX_EVENTS];
	int i;

	assert_true(read(g->fd[0], buf, sizeof(buf)) >= (ssize_t)((3 + 2 * nr) * 8));
	assert_int_equal(buf[0], nr);
	for (i = 0; i < nr; i++) {
		assert_int_equal(buf[3 + 2 * i + 1], g->id[i]);
		values[i] = buf[3 + 2 * i];
	}
}

static long page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/* Fault in @n fresh pages, one write each. */
static void touch_pages(char *mem, int n)
{
	int i;

	for (i = 0; i < n; i++)
		((volatile char *)mem)[(long)i * page_size()] = 1;
}

static char *fresh_pages(int n)
{
	char *mem = mmap(NULL, (size_t)(n * page_size()), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(mem != MAP_FAILED);
	/* A huge page would serve many touches with one fault. */
	madvise(mem, (size_t)(n * page_size()), MADV_NOHUGEPAGE);
	return mem;
}

/*
 * The public reads that fill an array of struct fastread_count: every value,
 * and every event's times (fastread_group_read) or the leader's
 * (fastread_group_read_leader_times; read(2) fills the members' too).
 */
struct group_reader {
	int (*read)(struct fastread_group *g, struct fastread_count *out);
};
static struct group_reader by_counts = { fastread_group_read };
static struct group_reader by_leader_times = { fastread_group_read_leader_times };

static void test_software_group_reads_through_read2(void **state)
{
	const struct group_reader *reader = *state ? *state : &by_counts;
	struct fastread_group g;
	struct fastread_count before[2], after[2];
	uint64_t plain[2];
	char *mem = fresh_pages(TOUCHED_PAGES);

	SKIP_IF_PERF_REFUSED();
	assert_int_equal(open_clock_and_faults(&g), 0);
	assert_int_equal(g.nr, 2);
	/* Software events are never on a PMU counter: mapped, but index 0. */
	assert_non_null(g.page[0]);
	assert_non_null(g.page[1]);
	assert_int_equal(g.page[1]->index, 0);

	assert_int_equal(reader->read(&g, before), 0);
	touch_pages(mem, TOUCHED_PAGES);
	assert_int_equal(reader->read(&g, after), 0);
	plain_read(&g, plain, 2);

	assert_true(after[1].value - before[1].value >= TOUCHED_PAGES);
	assert_true(after[1].value - before[1].value < TOUCHED_PAGES + 64);
	/* One read(2) per group read, none from user space. */
	assert_int_equal(g.nr_syscall_reads, 2);
	assert_int_equal(g.nr_user_reads, 0);
	/* Nothing faulted between the last two reads; the clock only went on. */
	assert_int_equal(plain[1], after[1].value);
	assert_true(plain[0] >= after[0].value);
	assert_true(after[0].value > before[0].value);
	/* The whole group was enabled: both events counted all the time. */
	assert_true(after[0].running > 0);
	assert_int_equal(after[0].enabled, after[0].running);
	assert_int_equal(after[1].enabled, after[0].enabled);
	fastread_group_close(&g);
	munmap(mem, (size_t)(TOUCHED_PAGES * page_size()));
}

/*
 * Values are matched to events by ID, not by their place in the buffer:
 * the counts' form and the sample's (the markers'), each event out of
 * place, or only the second.
 */
static void test_fallback_matches_by_id(void **state)
{
	struct fastread_group g;
	struct fastread_count c[2];
	uint64_t plain[2], id, value[2], enabled, running;
	char *mem = fresh_pages(TOUCHED_PAGES);

	(void)state;
	SKIP_IF_PERF_REFUSED();
	assert_int_equal(open_clock_and_faults(&g), 0);
	touch_pages(mem, TOUCHED_PAGES);
	plain_read(&g, plain, 2);
	id = g.id[0];
	g.id[0] = g.id[1];
	g.id[1] = id;
	assert_int_equal(fastread_group_read_syscall(&g, c), 0);
	assert_int_equal(c[0].value, plain[1]);	/* page-faults, asked for first */
	assert_true(c[1].value >= plain[0]);	/* task-clock */
	assert_int_equal(fastread_group_read_sample_syscall(&g, value, &enabled, &running), 0);
	assert_int_equal(value[0], plain[1]);
	assert_true(value[1] >= c[1].value);
	assert_true(running > 0 && enabled == running);
	g.id[1] = 12345;	/* an ID the kernel does not know */
	assert_int_equal(fastread_group_read_syscall(&g, c), -EIO);
	assert_int_equal(fastread_group_read_sample_syscall(&g, value, &enabled, &running), -EIO);
	g.id[0] = id;	/* the leader at its place, the second unknown */
	assert_int_equal(fastread_group_read_sample_syscall(&g, value, &enabled, &running), -EIO);
	fastread_group_close(&g);
	munmap(mem, (size_t)(TOUCHED_PAGES * page_size()));
}

/* The seam on a real group: synthetic pages decide, the real fds answer. */
static uint64_t fake_read_counter(uint32_t index)
{
	return 1000 * index;
}

static uint64_t fake_read_timestamp(void)
{
	return 0;
}

static const struct fastread_hooks fake_hooks = {
	.read_counter = fake_read_counter, .read_timestamp = fake_read_timestamp,
};

/* @g's two pages swapped for @fake ones that say counters 1 and 2, offset 7; @real keeps them. */
static void fake_pages_put(struct fastread_group *g, struct perf_event_mmap_page fake[2],
			   struct perf_event_mmap_page *real[2])
{
	for (int i = 0; i < 2; i++) {
		real[i] = g->page[i];
		g->page[i] = &fake[i];
		fake[i].cap_user_rdpmc = 1;
		fake[i].index = (uint32_t)i + 1;
		fake[i].pmc_width = 48;
		fake[i].offset = 7;
	}
}

/* The real pages back, then closed: fastread_group_close() unmaps what it holds. */
static void fake_pages_close(struct fastread_group *g, struct perf_event_mmap_page *real[2])
{
	for (int i = 0; i < 2; i++)
		g->page[i] = real[i];
	fastread_group_close(g);
}

static void test_one_unreadable_page_costs_one_read2(void **state)
{
	static struct perf_event_mmap_page fake[2];
	struct perf_event_mmap_page *real[2];
	struct fastread_group g;
	struct fastread_count c[2];
	uint64_t plain[2];

	(void)state;
	SKIP_IF_PERF_REFUSED();
	assert_int_equal(open_clock_and_faults(&g), 0);
	/* Software events: no page could serve them, so fastread does not try; these can. */
	assert_int_equal(g.kernel_only, 1);
	g.kernel_only = 0;
	fake_pages_put(&g, fake, real);
	assert_int_equal(fastread_group_read_hooked(&g, &fake_hooks, c), 0);
	assert_int_equal(c[0].value, 1007);
	assert_int_equal(c[1].value, 2007);
	assert_int_equal(g.nr_user_reads, 1);
	assert_int_equal(g.nr_syscall_reads, 0);

	fake[1].index = 0;	/* multiplexed out: the kernel moves the lock with it */
	fake[1].lock += 2;
	assert_int_equal(fastread_group_read_hooked(&g, &fake_hooks, c), 0);
	plain_read(&g, plain, 2);
	assert_int_equal(g.nr_user_reads, 1);
	assert_int_equal(g.nr_syscall_reads, 1);
	assert_int_equal(c[1].value, plain[1]);
	assert_true(c[0].value <= plain[0] && c[0].value > 0);
	fake_pages_close(&g, real);
}

/*
 * A group of software events is kernel_only: read(2) at once, its pages
 * never asked, even pages that would answer (synthetic ones here), and no
 * cache filled for it. The sample form (the markers') as the counts' form.
 */
static void test_kernel_only_never_tries_pages(void **state)
{
	static struct perf_event_mmap_page fake[2];
	struct perf_event_mmap_page *real[2];
	struct fastread_group g;
	struct fastread_count c[2];
	uint64_t plain[2], value[2], enabled, running;

	(void)state;
	SKIP_IF_PERF_REFUSED();
	assert_int_equal(open_clock_and_faults(&g), 0);
	assert_int_equal(g.kernel_only, 1);
	fake_pages_put(&g, fake, real);
	fastread_group_cache_fill_hooked(&g, &fake_hooks);
	assert_int_equal(g.cache.valid, 0);
	assert_int_equal(fastread_group_read_hooked(&g, &fake_hooks, c), 0);
	assert_int_equal(fastread_group_read_sample(&g, value, &enabled, &running), 0);
	plain_read(&g, plain, 2);
	assert_int_equal(g.nr_user_reads, 0);
	assert_int_equal(g.nr_syscall_reads, 2);
	assert_int_equal(g.cache.full_passes, 0);
	assert_int_not_equal(c[0].value, 1007);
	assert_int_equal(c[1].value, plain[1]);
	assert_int_equal(value[1], plain[1]);
	assert_true(c[0].value <= value[0] && value[0] <= plain[0]);
	assert_true(running > 0 && enabled == running);
	fake_pages_close(&g, real);
}

/*
 * read(2) is made without libc's wrapper: a failed read returns its -errno
 * and leaves the caller's errno as it was, in both forms.
 */
static void test_fallback_keeps_errno(void **state)
{
	struct fastread_group g;
	struct fastread_count c[2];
	uint64_t value[2], enabled, running;
	int fd;

	(void)state;
	SKIP_IF_PERF_REFUSED();
	assert_int_equal(open_clock_and_faults(&g), 0);
	fd = g.fd[0];
	g.fd[0] = -1;
	errno = EDOM;
	assert_int_equal(fastread_group_read_syscall(&g, c), -EBADF);
	assert_int_equal(fastread_group_read_sample_syscall(&g, value, &enabled, &running),
			 -EBADF);
	assert_int_equal(fastread_group_read_sample(&g, value, &enabled, &running), -EBADF);
	assert_int_equal(errno, EDOM);
	g.fd[0] = fd;
	assert_int_equal(fastread_group_read_sample_syscall(&g, value, &enabled, &running), 0);
	assert_int_equal(errno, EDOM);
	fastread_group_close(&g);
}

/*
 * The read(2) fallback's parsing, fed through a pipe: a group of 3 events
 * (IDs 11, 12, 13, values 1, 2, 3) and the reply the test writes, read in
 * the counts' form and the sample's. Return: the read's return; the values
 * and times into @value, @enabled, @running for the sample form.
 */
enum reply_form { REPLY_COUNTS, REPLY_SAMPLE };

static int reply_read(enum reply_form form, const uint64_t *words, size_t nr_words,
		      uint64_t value[3], uint64_t *enabled, uint64_t *running)
{
	struct fastread_group g = { .nr = 3, .id = { 11, 12, 13 } };
	struct fastread_count c[3];
	int p[2], err;

	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], words, nr_words * sizeof(*words)),
			 (ssize_t)(nr_words * sizeof(*words)));
	close(p[1]);
	g.fd[0] = p[0];
	if (form == REPLY_SAMPLE) {
		err = fastread_group_read_sample_syscall(&g, value, enabled, running);
	} else {
		err = fastread_group_read_syscall(&g, c);
		for (int i = 0; err == 0 && i < 3; i++) {
			value[i] = c[i].value;
			assert_int_equal(c[i].enabled, c[0].enabled);
			assert_int_equal(c[i].running, c[0].running);
		}
		*enabled = c[0].enabled;
		*running = c[0].running;
	}
	assert_int_equal(g.nr_syscall_reads, 1);
	close(p[0]);
	return err;
}

/* Each reply read in both forms: @want 0 with values 1, 2, 3 and times 70, 60, or an error. */
static void reply_expect(const uint64_t *words, size_t nr_words, int want)
{
	for (int form = REPLY_COUNTS; form <= REPLY_SAMPLE; form++) {
		uint64_t value[3] = { 0 }, enabled = 0, running = 0;

		/* A good reply first, at the same depth: what a bad one leaves unread is stale. */
		const uint64_t good[] = { 3, 70, 60, 1, 11, 2, 12, 3, 13 };

		assert_int_equal(reply_read(form, good, 9, value, &enabled, &running), 0);
		memset(value, 0, sizeof(value));
		assert_int_equal(reply_read(form, words, nr_words, value, &enabled, &running), want);
		if (want)
			continue;
		assert_int_equal(value[0], 1);
		assert_int_equal(value[1], 2);
		assert_int_equal(value[2], 3);
		assert_int_equal(enabled, 70);
		assert_int_equal(running, 60);
	}
}

/*
 * Taken at its own place when the reply lists the group in order, found by
 * ID when it does not (the leader in place and the others swapped: a read
 * that wrote part of the values and started again), or lists more; an
 * error for fewer events, a reply shorter than it says, 16 bytes, more
 * events than a group holds, nothing at all.
 */
static void test_fallback_reply_shapes(void **state)
{
	const uint64_t in_order[] = { 3, 70, 60, 1, 11, 2, 12, 3, 13 };
	const uint64_t swapped[] = { 3, 70, 60, 1, 11, 3, 13, 2, 12 };
	const uint64_t reversed[] = { 3, 70, 60, 3, 13, 2, 12, 1, 11 };
	const uint64_t more[] = { 4, 70, 60, 1, 11, 9, 99, 2, 12, 3, 13 };
	const uint64_t fewer[] = { 2, 70, 60, 1, 11, 2, 12 };
	const uint64_t unknown[] = { 3, 70, 60, 1, 11, 2, 12, 3, 14 };
	const uint64_t too_many[] = { FASTREAD_MAX_EVENTS + 1, 70, 60, 1, 11, 2, 12, 3, 13 };

	(void)state;
	reply_expect(in_order, 9, 0);
	reply_expect(swapped, 9, 0);
	reply_expect(reversed, 9, 0);
	reply_expect(more, 11, 0);
	reply_expect(fewer, 7, -EIO);
	reply_expect(unknown, 9, -EIO);
	reply_expect(in_order, 7, -EIO);	/* says 3 events, holds 2 */
	reply_expect(in_order, 2, -EIO);	/* 16 bytes */
	reply_expect(too_many, 9, -EIO);
	reply_expect(in_order, 0, -EIO);	/* end of file */
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static int count_perf_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		n += strstr(line, "perf_event") != NULL;
	fclose(f);
	return n;
}

/* close() alone would leave the event alive through its mapping. */
static int open_faults3(struct fastread_group *g)
{
	struct perf_event_attr attrs[3];

	attr_software(&attrs[0], PERF_COUNT_SW_TASK_CLOCK);
	attr_software(&attrs[1], PERF_COUNT_SW_PAGE_FAULTS);
	attr_software(&attrs[2], PERF_COUNT_SW_PAGE_FAULTS_MIN);
	return fastread_group_open(g, attrs, 3);
}

/*
 * Members whose descriptors are shed count on, in the group, as members that
 * keep theirs: the same page-faults in the same interval, to the fault, read
 * through the leader's read(2). A member without a page keeps its descriptor.
 */
static void test_shed_members_count_on(void **state)
{
	struct fastread_group shed, kept;
	struct fastread_count a0[3], a1[3], b0[3], b1[3];
	char *mem = fresh_pages(TOUCHED_PAGES);
	int fd1, fd2;

	(void)state;
	SKIP_IF_PERF_REFUSED();
	assert_int_equal(open_faults3(&shed), 0);
	assert_int_equal(open_faults3(&kept), 0);
	fd1 = shed.fd[1];
	fd2 = shed.fd[2];
	assert_int_equal(fastread_group_shed(&shed), 2);
	assert_int_equal(shed.fd[1], -1);
	assert_int_equal(shed.fd[2], -1);
	assert_true(shed.fd[0] >= 0);
	assert_int_equal(fcntl(fd1, F_GETFD), -1);
	assert_int_equal(fcntl(fd2, F_GETFD), -1);
	assert_int_equal(fastread_group_shed(&shed), 0);	/* nothing left to shed */

	assert_int_equal(fastread_group_read(&shed, a0), 0);
	assert_int_equal(fastread_group_read(&kept, b0), 0);
	touch_pages(mem, TOUCHED_PAGES);
	assert_int_equal(fastread_group_read(&shed, a1), 0);
	assert_int_equal(fastread_group_read(&kept, b1), 0);
	for (int e = 1; e < 3; e++) {
		assert_true(a1[e].value - a0[e].value >= TOUCHED_PAGES);
		assert_int_equal(a1[e].value - a0[e].value, b1[e].value - b0[e].value);
		assert_int_equal(a1[e].running, a1[0].running);
	}
	assert_true(a1[0].value > a0[0].value);
	fastread_group_close(&shed);
	fastread_group_close(&kept);

	/* A member without a page: its descriptor is what keeps it alive. */
	assert_int_equal(open_faults3(&shed), 0);
	munmap(shed.page[2], (size_t)page_size());
	shed.page[2] = NULL;
	fd2 = shed.fd[2];
	assert_int_equal(fastread_group_shed(&shed), 1);
	assert_int_equal(shed.fd[2], fd2);
	assert_true(fcntl(fd2, F_GETFD) >= 0);
	assert_int_equal(fastread_group_read(&shed, a0), 0);
	touch_pages(mem + 0, 1);	/* already faulted: nothing new */
	assert_int_equal(fastread_group_read(&shed, a1), 0);
	assert_int_equal(a1[2].running, a1[0].running);
	fastread_group_close(&shed);
	assert_int_equal(fcntl(fd2, F_GETFD), -1);
	munmap(mem, (size_t)(TOUCHED_PAGES * page_size()));
}

static void test_close_unmaps_and_closes(void **state)
{
	int fds = count_fds(), maps = count_perf_maps();
	struct fastread_group g;

	(void)state;
	SKIP_IF_PERF_REFUSED();
	assert_int_equal(open_clock_and_faults(&g), 0);
	assert_int_equal(count_fds(), fds + 2);
	assert_int_equal(count_perf_maps(), maps + 2);
	fastread_group_close(&g);
	assert_int_equal(count_fds(), fds);
	assert_int_equal(count_perf_maps(), maps);
	assert_int_equal(g.nr, 0);
	assert_int_equal(g.fd[0], -1);
	assert_null(g.page[0]);
}

static void test_open_errors_leave_nothing_open(void **state)
{
	int fds = count_fds(), maps = count_perf_maps();
	struct perf_event_attr attrs[FASTREAD_MAX_EVENTS + 1];
	struct fastread_group g;

	(void)state;
	SKIP_IF_PERF_REFUSED();
	attr_software(&attrs[0], PERF_COUNT_SW_TASK_CLOCK);
	attr_software(&attrs[1], PERF_COUNT_SW_MAX + 100);	/* no such software event */
	assert_int_equal(fastread_group_open(&g, attrs, 2), -ENOENT);
	assert_int_equal(g.nr, 0);
	assert_int_equal(count_fds(), fds);
	assert_int_equal(count_perf_maps(), maps);
	assert_int_equal(fastread_group_open(&g, attrs, 0), -EINVAL);
	assert_int_equal(fastread_group_open(&g, attrs, FASTREAD_MAX_EVENTS + 1), -EINVAL);
}

/* An inherit request is dropped: inherited per-task events cannot be mapped. */
static void test_open_drops_inherit(void **state)
{
	struct perf_event_attr attrs[2];
	struct fastread_count c[2];
	struct fastread_group g;
	char *mem = fresh_pages(TOUCHED_PAGES);

	(void)state;
	SKIP_IF_PERF_REFUSED();
	attr_software(&attrs[0], PERF_COUNT_SW_TASK_CLOCK);
	attr_software(&attrs[1], PERF_COUNT_SW_PAGE_FAULTS);
	attrs[0].inherit = attrs[1].inherit = 1;
	attrs[1].disabled = 1;	/* a member would never count if this were kept */
	assert_int_equal(fastread_group_open(&g, attrs, 2), 0);
	assert_non_null(g.page[0]);
	assert_non_null(g.page[1]);
	touch_pages(mem, TOUCHED_PAGES);
	assert_int_equal(fastread_group_read(&g, c), 0);
	assert_true(c[1].value >= TOUCHED_PAGES);
	fastread_group_close(&g);
	munmap(mem, (size_t)(TOUCHED_PAGES * page_size()));
}

/*
 * Hardware counters where there are any (arm64 under QEMU): user-space reads
 * when the machine allows them, read(2) with a stated reason otherwise.
 */
static void test_hardware_group(void **state)
{
	struct perf_event_attr attrs[2];
	struct fastread_count a[2], b[2];
	struct fastread_group g;
	const char *problem;
	uint64_t plain[2];
	volatile uint64_t sink = 0;
	int err, i;

	(void)state;
	SKIP_IF_PERF_REFUSED();
	memset(attrs, 0, sizeof(attrs));
	for (i = 0; i < 2; i++) {
		attrs[i].size = sizeof(attrs[i]);
		attrs[i].type = PERF_TYPE_HARDWARE;
		attrs[i].exclude_kernel = 1;
		attrs[i].exclude_hv = 1;
	}
	attrs[0].config = PERF_COUNT_HW_CPU_CYCLES;
	attrs[1].config = PERF_COUNT_HW_INSTRUCTIONS;
	err = fastread_group_open(&g, attrs, 2);
	if (err == -ENOENT || err == -EOPNOTSUPP || err == -ENODEV) {
		print_message("no hardware counters here (%s): skipped\n", strerror(-err));
		skip();
	}
	assert_int_equal(err, 0);
	problem = fastread_user_access_problem();
	assert_int_equal(fastread_group_read(&g, a), 0);
	for (i = 0; i < 1000000; i++)
		sink += (uint64_t)i;
	assert_int_equal(fastread_group_read(&g, b), 0);
	assert_int_equal(sink, 499999500000ULL);
	plain_read(&g, plain, 2);
	print_message("hardware group: index %u/%u width %u, %s; instructions %llu -> %llu "
		      "(read(2) %llu); user reads %llu, read(2)s %llu\n",
		      g.page[0] ? g.page[0]->index : 0, g.page[1] ? g.page[1]->index : 0,
		      g.page[1] ? g.page[1]->pmc_width : 0, problem ? problem : "no access problem",
		      (unsigned long long)a[1].value, (unsigned long long)b[1].value,
		      (unsigned long long)plain[1], (unsigned long long)g.nr_user_reads,
		      (unsigned long long)g.nr_syscall_reads);
	/* The loop alone retires at least one instruction per iteration. */
	assert_true(b[1].value - a[1].value >= 1000000);
	assert_true(plain[1] >= b[1].value);
	assert_true(plain[1] - b[1].value < 100000);
	if (problem)
		assert_int_equal(g.nr_user_reads, 0);
	else
		assert_int_equal(g.nr_user_reads, 2);
	fastread_group_close(&g);
}

/* The arm64 user-access bit goes to the core PMU only, found by format/rdpmc. */
static void make_dir(char *path, size_t size, const char *base, const char *name)
{
	snprintf(path, size, "%s/%s", base, name);
	assert_int_equal(mkdir(path, 0755), 0);
}

/* mkdir -p @base/@rel, without a shell: the arm64 guest has none. */
static void make_dirs(char *path, size_t size, const char *base, const char *rel)
{
	char *slash;

	snprintf(path, size, "%s/%s", base, rel);
	for (slash = path + strlen(base) + 1; (slash = strchr(slash, '/')); slash++) {
		*slash = '\0';
		assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
		*slash = '/';
	}
	assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

static void remove_tree(const char *root)
{
	assert_int_equal(nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS), 0);
}

static void test_pmu_takes_user_bit(void **state)
{
	char root[] = "/tmp/fastread-sysfs-XXXXXX", pmu[128], fmt[256];

	(void)state;
	assert_non_null(mkdtemp(root));
	make_dir(pmu, sizeof(pmu), root, "armv8_pmuv3");
	file_put(pmu, "type", "8\n");
	make_dir(fmt, sizeof(fmt), pmu, "format");
	file_put(fmt, "rdpmc", "config1:1\n");
	make_dir(pmu, sizeof(pmu), root, "software");
	file_put(pmu, "type", "1\n");
	make_dir(pmu, sizeof(pmu), root, "breakpoint");
	file_put(pmu, "type", "5\n");

	assert_true(fastread_pmu_takes_user_bit(8, root));
	assert_true(fastread_pmu_takes_user_bit(PERF_TYPE_HARDWARE, root));
	assert_true(fastread_pmu_takes_user_bit(PERF_TYPE_HW_CACHE, root));
	assert_true(fastread_pmu_takes_user_bit(PERF_TYPE_RAW, root));
	assert_false(fastread_pmu_takes_user_bit(PERF_TYPE_SOFTWARE, root));
	assert_false(fastread_pmu_takes_user_bit(PERF_TYPE_BREAKPOINT, root));
	assert_false(fastread_pmu_takes_user_bit(PERF_TYPE_TRACEPOINT, root));
	assert_false(fastread_pmu_takes_user_bit(80, root));
	assert_false(fastread_pmu_takes_user_bit(8, "/nonexistent"));
	remove_tree(root);
}

/* The sentence fastread_user_access_problem() gives for a few machine states. */
static void test_user_access_problem(void **state)
{
	char root[] = "/tmp/fastread-root-XXXXXX", dir[256];
	const char *p;

	(void)state;
	assert_non_null(mkdtemp(root));
#if defined(__x86_64__)
	p = fastread_user_access_problem_at(root);
	assert_non_null(p);
	assert_non_null(strstr(p, "no hardware PMU"));
	make_dirs(dir, sizeof(dir), root, "sys/bus/event_source/devices/cpu");
	file_put(dir, "rdpmc", "0\n");
	p = fastread_user_access_problem_at(root);
	assert_non_null(p);
	assert_non_null(strstr(p, "rdpmc is disabled"));
	file_put(dir, "rdpmc", "1\n");
	assert_null(fastread_user_access_problem_at(root));
	/* This machine: the answer follows what sysfs shows. */
	if (access("/sys/bus/event_source/devices/cpu", F_OK) != 0)
		assert_non_null(fastread_user_access_problem());
#elif defined(__aarch64__)
	p = fastread_user_access_problem_at(root);
	assert_non_null(p);
	assert_non_null(strstr(p, "5.17"));
	make_dirs(dir, sizeof(dir), root, "proc/sys/kernel");
	file_put(dir, "perf_user_access", "0\n");
	p = fastread_user_access_problem_at(root);
	assert_non_null(p);
	assert_non_null(strstr(p, "perf_user_access is 0"));
	file_put(dir, "perf_user_access", "1\n");
	assert_null(fastread_user_access_problem_at(root));
#else
	(void)dir;
	(void)make_dirs;
	p = fastread_user_access_problem_at(root);
	assert_non_null(p);
#endif
	remove_tree(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_software_group_reads_through_read2),
		{ "test_software_group_reads_through_read2 (leader times)",
		  test_software_group_reads_through_read2, NULL, NULL, &by_leader_times },
		cmocka_unit_test(test_fallback_matches_by_id),
		cmocka_unit_test(test_one_unreadable_page_costs_one_read2),
		cmocka_unit_test(test_kernel_only_never_tries_pages),
		cmocka_unit_test(test_fallback_keeps_errno),
		cmocka_unit_test(test_fallback_reply_shapes),
		cmocka_unit_test(test_shed_members_count_on),
		cmocka_unit_test(test_close_unmaps_and_closes),
		cmocka_unit_test(test_open_errors_leave_nothing_open),
		cmocka_unit_test(test_open_drops_inherit),
		cmocka_unit_test(test_hardware_group),
		cmocka_unit_test(test_pmu_takes_user_bit),
		cmocka_unit_test(test_user_access_problem),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
