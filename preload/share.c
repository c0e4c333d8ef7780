/* SPDX-License-Identifier: MIT */
/*
 * share.c: pfshim's own share of this image's counts (share.h). The set-up
 * is measured once, around the constructor's work (or a fork child's
 * restart); each report adds its cost when it is written. A report carries
 * the share up to its own last read of the counters: what it costs after
 * that read (the write(2), unmapping its memory) is in no count it holds,
 * and for the final report in no report at all: pfshim run's calibration
 * takes it with the loader's (docs/pfshim.md "pfshim's own share").
 *
 * Async-signal-safe: a report may be written in a signal handler, on any
 * thread; the readings are two system calls (getrusage, clock_gettime),
 * never made once the program's seccomp filter is in (sandbox.h): those
 * reports add nothing, and say so (report_share.measured).
 */
#include "preload/share.h"

#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "preload/prefault.h"
#include "preload/sandbox.h"

/*
 * The image's share so far: the set-up and the reports written. In .data:
 * every process writes them.
 */
static _Atomic uint64_t share_faults PREFAULT_DATA, share_switches PREFAULT_DATA,
	share_cpu_ns PREFAULT_DATA;
static _Atomic uint64_t share_forks PREFAULT_DATA;
static struct share_point setup_start PREFAULT_DATA;
static bool setup_measured PREFAULT_DATA, image_forked PREFAULT_DATA;
static struct share_point setup_cost PREFAULT_DATA;
static atomic_bool reports_unmeasured PREFAULT_DATA;

/*
 * syscall(), not the libc wrappers: their code lies in pages of libc a
 * small program never touches, which one call would fault in (process.c's
 * clock_ns() says the same).
 */
bool share_read(struct share_point *p)
{
	struct rusage ru;
	struct timespec ts;

	if (sandbox_filtered() || syscall(SYS_getrusage, RUSAGE_THREAD, &ru) < 0 ||
	    syscall(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return false;
	p->faults = (uint64_t)ru.ru_minflt + (uint64_t)ru.ru_majflt;
	p->switches = (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
	p->cpu_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	return true;
}

static void share_since(const struct share_point *begin, struct share_point *d)
{
	struct share_point now;

	if (!share_read(&now)) {
		*d = (struct share_point){ 0 };
		return;
	}
	d->faults = now.faults - begin->faults;
	d->switches = now.switches - begin->switches;
	d->cpu_ns = now.cpu_ns - begin->cpu_ns;
}

void share_setup_begin(void)
{
	/* Its statics' page, in one system call rather than a fault (prefault.h). */
	prefault_populate(&setup_start, sizeof(setup_start));
	setup_measured = share_read(&setup_start);
}

void share_setup_end(bool forked)
{
	struct share_point d = { 0 };

	image_forked = forked;
	if (setup_measured)
		share_since(&setup_start, &d);
	setup_cost = d;
	atomic_store(&share_faults, d.faults);
	atomic_store(&share_switches, d.switches);
	atomic_store(&share_cpu_ns, d.cpu_ns);
	atomic_store(&share_forks, 0);	/* a fork child's are its own */
	atomic_store(&reports_unmeasured, false);
}

void share_fork_done(void)
{
	atomic_fetch_add(&share_forks, 1);
}

bool share_report_begin(struct share_point *p)
{
	bool measured = share_read(p);

	if (!measured)
		atomic_store(&reports_unmeasured, true);
	return measured;
}

void share_report_upto(const struct share_point *begin, bool measured, struct report_share *out)
{
	struct share_point d = { 0 };

	if (measured)
		share_since(begin, &d);
	out->page_faults = atomic_load(&share_faults) + d.faults;
	out->context_switches = atomic_load(&share_switches) + d.switches;
	out->task_clock_ns = atomic_load(&share_cpu_ns) + d.cpu_ns;
	out->forks = atomic_load(&share_forks);
	out->measured = 1;
	out->setup_page_faults = setup_cost.faults;
	out->setup_context_switches = setup_cost.switches;
	out->setup_task_clock_ns = setup_cost.cpu_ns;
	out->loaded = !image_forked;
	out->setup_measured = setup_measured;
	out->reports_measured = !atomic_load(&reports_unmeasured);
}

void share_report_end(const struct share_point *begin, bool measured)
{
	struct share_point d;

	if (!measured)
		return;
	share_since(begin, &d);
	atomic_fetch_add(&share_faults, d.faults);
	atomic_fetch_add(&share_switches, d.switches);
	atomic_fetch_add(&share_cpu_ns, d.cpu_ns);
}
