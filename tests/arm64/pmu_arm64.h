/* SPDX-License-Identifier: MIT */
/*
 * pmu_arm64.h: the guest tests' own, independent way to open, map and read one
 * arm64 counter from user space, so fastread/ can be checked against code it
 * does not share. Header-only; aarch64 only. Plus the TAP-like check helpers
 * every guest test prints with, and the known instruction loop.
 */
#ifndef PFSHIM_TESTS_PMU_ARM64_H
#define PFSHIM_TESTS_PMU_ARM64_H

#ifndef __aarch64__
#error "pmu_arm64.h reads arm64 PMU registers: build it with aarch64-linux-gnu-gcc"
#endif

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* config1 bits of armv8_pmuv3 (sysfs format/: long=config1:0, rdpmc=config1:1). */
#define PMU_CONFIG1_64BIT 0x1
#define PMU_CONFIG1_RDPMC 0x2

/* ---- checks: one line each, "  ok ..." or "  FAIL ...", counted for the exit status */

static int pmu_failures;

#define CHECK(cond, ...) pmu_check(!!(cond), #cond, __FILE__, __LINE__, __VA_ARGS__)

static inline __attribute__((format(printf, 5, 6))) int
pmu_check(int ok, const char *expr, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("  %s ", ok ? "ok  " : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (!ok) {
		printf("  [%s:%d: %s]", file, line, expr);
		pmu_failures++;
	}
	printf("\n");
	fflush(stdout);
	return ok;
}

/* Exit status for /init: 0 all passed, 1 something failed. */
static inline int pmu_exit_status(void)
{
	return pmu_failures ? 1 : 0;
}

/* ---- opening */

static inline void pmu_attr_init(struct perf_event_attr *a, uint64_t hw_config, uint64_t config1)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_HARDWARE;
	a->config = hw_config;
	a->config1 = config1;
	/* User space only: a timer tick inside a measured loop would otherwise
	 * add kernel instructions and the exact counts below would wander. */
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
}

/* Return: the fd, or a negative errno. */
static inline int pmu_open(struct perf_event_attr *a, int group_fd)
{
	long fd = syscall(SYS_perf_event_open, a, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : (int)fd;
}

/* Return: the metadata page of @fd, or NULL (errno set). */
static inline struct perf_event_mmap_page *pmu_map(int fd)
{
	void *p = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

static inline void pmu_unmap(struct perf_event_mmap_page *pc)
{
	if (pc)
		munmap(pc, (size_t)sysconf(_SC_PAGESIZE));
}

/* ---- reading */

/*
 * The counter register is part of the mrs encoding, so reading counter n
 * needs one instruction per register. Index 32 is PMCCNTR_EL0 (the cycle
 * counter), index n+1 is PMEVCNTR<n>_EL0. The case label and the register
 * name come from the same number, so no two entries can be swapped.
 */
#define PMU_EVCNTR_CASE(n)						\
	case (n) + 1:							\
		__asm__ volatile("mrs %0, pmevcntr" #n "_el0" : "=r"(v));	\
		break;
#define PMU_EVCNTRS(X)							\
	X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9)		\
	X(10) X(11) X(12) X(13) X(14) X(15) X(16) X(17) X(18) X(19)	\
	X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30)

static inline uint64_t pmu_counter_read(uint32_t index)
{
	uint64_t v = 0;

	switch (index) {
	PMU_EVCNTRS(PMU_EVCNTR_CASE)
	case 32:
		/* PMCCNTR_EL0 directly: QEMU returned 0 for the cycle counter
		 * through PMSELR_EL0/PMXEVCNTR_EL0 (arm64-qemu.md). */
		__asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v));
		break;
	}
	return v;
}

#define pmu_barrier() __asm__ volatile("" ::: "memory")

/* What one seqlock pass saw, for tests that check the page itself. */
struct pmu_snapshot {
	uint64_t count;
	uint32_t index;
	uint16_t pmc_width;
	int64_t offset;
};

/*
 * pmu_read_user - the count of the event behind @pc, read with mrs inside the
 * seqlock of perf_event_open(2). The kernel rewrites the page only while this
 * task is switched out or interrupted on this CPU, so a compiler barrier is
 * enough. The raw register is sign-extended by pmc_width: a 32-bit event can
 * live on a 64-bit counter with garbage above bit 31 (seen: 0xffffffff8xxxxxxx
 * with offset 0x7fffffff).
 *
 * Return: 0, or -EAGAIN when the counter is not readable now (index 0 means
 * multiplexed out; cap_user_rdpmc 0 means user access is off).
 */
static inline int pmu_read_user(const volatile struct perf_event_mmap_page *pc,
				struct pmu_snapshot *s)
{
	uint32_t seq, index;
	uint16_t width;
	int64_t offset;
	uint64_t pmc;

	do {
		seq = pc->lock;
		pmu_barrier();
		index = pc->index;
		offset = pc->offset;
		width = pc->pmc_width;
		if (!pc->cap_user_rdpmc || index == 0)
			return -EAGAIN;
		pmc = pmu_counter_read(index);
		pmu_barrier();
	} while (pc->lock != seq);

	pmc <<= 64 - width;
	pmc = (uint64_t)((int64_t)pmc >> (64 - width));
	s->count = (uint64_t)offset + pmc;
	s->index = index;
	s->pmc_width = width;
	s->offset = offset;
	return 0;
}

/* Return: the count from read(2), or a negative errno (as int64_t). */
static inline int64_t pmu_read_syscall(int fd)
{
	uint64_t v;

	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return -errno;
	return (int64_t)v;
}

/* ---- the known loop */

/*
 * pmu_loop - retire exactly 2 * @n user instructions in its body (subs +
 * b.ne), plus the few of the asm around it. The loop is asm so that no
 * compiler can change how many instructions it takes.
 */
static inline void pmu_loop(uint64_t n)
{
	__asm__ volatile("1:	subs %0, %0, #1\n"
			 "	b.ne 1b\n"
			 : "+r"(n) : : "cc");
}
#define PMU_LOOP_BODY_INSNS 2

/* Write @text to a /proc/sys file. Return: 0 or a negative errno. */
static inline int pmu_sysctl_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, text, strlen(text));
	close(fd);
	return n < 0 ? -errno : 0;
}

/*
 * pmu_drop_privileges - become nobody (uid/gid 65534, no groups) for good.
 * Return: 0 or a negative errno.
 */
static inline int pmu_drop_privileges(void)
{
	if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
		return -errno;
	return 0;
}

/* The CPU model /init was told to expect (pfshim_cpu= on the kernel command line). */
static inline const char *pmu_cpu_model(void)
{
	const char *cpu = getenv("pfshim_cpu");

	return cpu ? cpu : "max";
}

/* 64-bit event counters came with PMUv3p5: -cpu max has them, cortex-a57 not
 * (config1 bit 0 on an event counter is then EOPNOTSUPP). The cycle counter
 * is 64-bit everywhere. */
static inline bool pmu_cpu_has_long_counters(void)
{
	return strcmp(pmu_cpu_model(), "cortex-a57") != 0;
}

#endif
