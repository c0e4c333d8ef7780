/* SPDX-License-Identifier: MIT */
/*
 * fastread/timer.c: the timestamp counter of the PMU pages (cntvct_el0 on
 * arm64, the TSC on x86) as a clock of ns, converted with the factors the
 * kernel writes into a page (time_mult, time_shift): a fraction of the
 * cost of clock_gettime() for a caller that times short intervals beside
 * its counter reads. ASYNC-SIGNAL-SAFE: no allocation, lock or system call.
 */
#include <errno.h>

#include "fastread/arch.h"
#include "fastread/internal.h"

/*
 * The factors are those of the kernel's sched_clock, which it writes into
 * every page it gives cap_user_time (docs/kernel-notes.md "The mmap
 * page"); they are fixed once that clock is registered at boot, so they are
 * taken once, in one seqlock pass, and kept. One exception is accepted: x86 refines the TSC
 * calibration about a second after boot and then writes new factors; a
 * thread set up before that keeps the old ones. Only regions' wall time
 * would drift by that correction, never a count.
 */
int fastread_timer_init(struct fastread_timer *t, const struct fastread_group *g)
{
	const struct perf_event_mmap_page *pc;
	uint32_t seq, mult;
	uint16_t shift;
	uint64_t caps;

	t->mult = 0;
	t->shift = 0;
	if (!FASTREAD_ARCH_USER_READ || g->nr < 1 || !(pc = g->page[0]))
		return -ENODATA;
	do {
		seq = fastread_lock_begin(pc);
		caps = FASTREAD_READ_ONCE(pc->capabilities);
		mult = FASTREAD_READ_ONCE(pc->time_mult);
		shift = FASTREAD_READ_ONCE(pc->time_shift);
	} while ((seq & 1) || fastread_lock_end(pc) != seq);
	if (!(caps & FASTREAD_CAP_USER_TIME) || mult == 0 || shift >= 64)
		return -ENODATA;
	t->mult = mult;
	t->shift = shift;
	return 0;
}

uint64_t fastread_timer_ns(const struct fastread_timer *t)
{
	return fastread_cycles_to_ns(arch_read_timestamp(), t->mult, t->shift);
}
