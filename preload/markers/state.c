/* SPDX-License-Identifier: MIT */
/*
 * state.c: the marker API's process-wide state (state.h) and the helpers
 * both markers.c and report.c use on it: memory, the retire lock, a
 * thread's read counts. Apart from both, so that report.c can be unit-tested
 * on a state built by hand, with no marker call and no counter.
 *
 * Async-signal-safe: everything in this file (report.c calls it from the
 * PFSHIM_SIGNAL handler).
 */
#include "preload/markers/state.h"

#include <sched.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

struct markers_state markers = {
	.once = PTHREAD_ONCE_INIT,
	.budget_warned = ATOMIC_FLAG_INIT,
	.intern_lock = PTHREAD_MUTEX_INITIALIZER,
};

struct region_names markers_names;

void markers_reads_collect(const struct marker_thread *t, struct region_thread *into)
{
	into->user_reads = 0;
	into->syscall_reads = 0;
	for (int g = 0; g < markers.nr_groups; g++) {
		into->user_reads += t->groups[g].nr_user_reads;
		into->syscall_reads += t->groups[g].nr_syscall_reads;
	}
	/* The program's reads only: a report's counts of reads match its calls. */
	into->user_reads -= t->probe_user_reads;
	into->syscall_reads -= t->probe_syscall_reads;
	into->read_errors = t->read_errors;
}

bool markers_retire_lock_try(int tries)
{
	const struct timespec ms = { 0, 1000000 };
	int self = gettid(), waited_ms = 0, owner = 0;

	while (!atomic_compare_exchange_weak_explicit(&markers.retiring, &owner, self,
						      memory_order_acquire, memory_order_relaxed)) {
		if (owner == self)
			return false;
		owner = 0;
		if (tries > 0) {
			tries--;
			sched_yield();
		} else if (waited_ms++ < MARKERS_RETIRE_WAIT_MS) {
			nanosleep(&ms, NULL);
		} else {
			return false;
		}
	}
	return true;
}

void markers_retire_unlock(void)
{
	atomic_store_explicit(&markers.retiring, 0, memory_order_release);
}
