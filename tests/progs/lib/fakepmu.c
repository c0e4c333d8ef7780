/* SPDX-License-Identifier: MIT */
/*
 * libfakepmu.so: a PMU where the machine has none, for the end-to-end tests
 * of fastread's read path and the markers' fast path on x86 (these VMs have
 * software events only, whose pages say index 0: no counter to read, so the
 * shim never executes rdpmc). Preloaded after the shim:
 * LD_PRELOAD="libpfshim.so libfakepmu.so".
 *
 * Each perf event page the shim maps is replaced by a private copy of the
 * kernel's (its clock fields kept) that says the event is on a counter:
 * index k for the k-th page mapped in the process, pmc_width 48,
 * cap_user_rdpmc, time_enabled = time_running (never multiplexed), offset 0,
 * a lock that never moves, and a clock where the kernel gave none (cap_user_time,
 * TSC cycles taken as ns: the markers' fast path needs a wall clock). Each rdpmc then faults (no CR4.PCE in the guest:
 * SIGSEGV) and is emulated here: slot s (page s + 1's) reads
 *     n << 48 | (s + 1) << 36 | 1000 * n
 * with n the calling thread's emulated rdpmc count so far. The bits above
 * the width change at every read, as garbage would: a reader that keeps
 * them sees jumps of 2^48. A region around nothing whose group has E events
 * thus counts exactly 1000 * E a call for each event, and a read of a slot
 * no page was given is not emulated (the program dies of SIGSEGV).
 * x86_64 only; FAKEPMU_LOG=1 prints each page given.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__x86_64__)
static atomic_uint pages;	/* pages given so far: slots 0 .. pages - 1 are valid */
static __thread uint64_t reads;

static int is_perf_event(int fd)
{
	char path[64], target[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return 0;
	target[n] = '\0';
	return strcmp(target, "anon_inode:[perf_event]") == 0;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	static void *(*next)(void *, size_t, int, int, int, off_t);
	struct perf_event_mmap_page *pc;
	void *p, *copy;

	if (!next)
		next = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
	p = next(addr, len, prot, flags, fd, off);
	if (p == MAP_FAILED || fd < 0 || off != 0 || !is_perf_event(fd))
		return p;
	copy = next(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (copy == MAP_FAILED)
		return p;
	memcpy(copy, p, len < 4096 ? len : 4096);
	munmap(p, len);
	pc = copy;
	pc->index = atomic_fetch_add(&pages, 1) + 1;
	pc->pmc_width = 48;
	pc->offset = 0;
	pc->cap_user_rdpmc = 1;
	pc->time_enabled = pc->time_running = 1000000;
	if (!pc->cap_user_time || !pc->time_mult) {
		/* A clock for the markers' wall time (their fast path needs one): TSC cycles as ns. */
		pc->cap_user_time = 1;
		pc->time_mult = 1;
		pc->time_shift = 0;
		pc->time_offset = 0;
	}
	pc->lock = 2;
	if (getenv("FAKEPMU_LOG"))
		fprintf(stderr, "fakepmu: page %u, cap_user_time %d\n", pc->index,
			(int)pc->cap_user_time);
	return copy;
}

/* rdpmc is 0f 33: emulated when its slot (ecx) is one of a page given, else the fault is real. */
static void on_segv(int signo, siginfo_t *info, void *context)
{
	ucontext_t *uc = context;
	greg_t *r = uc->uc_mcontext.gregs;
	const unsigned char *ip = (const unsigned char *)r[REG_RIP];
	uint32_t slot = (uint32_t)r[REG_RCX];
	uint64_t v;

	(void)info;
	if (ip[0] != 0x0f || ip[1] != 0x33 || slot >= atomic_load(&pages)) {
		signal(signo, SIG_DFL);
		return;		/* the fault again, now deadly */
	}
	reads++;
	v = reads << 48 | (uint64_t)(slot + 1) << 36 | 1000 * reads;
	r[REG_RAX] = (uint32_t)v;
	r[REG_RDX] = (uint32_t)(v >> 32);
	r[REG_RIP] += 2;
}

__attribute__((constructor)) static void fakepmu_init(void)
{
	struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO | SA_NODEFER };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
}
#endif
