/* SPDX-License-Identifier: MIT */
/*
 * interval.c: the driver of PFSHIM_INTERVAL. One pthread of the shim's own,
 * named "pfshim-intv", sleeps on a futex until the next deadline of a fixed
 * CLOCK_MONOTONIC grid and calls the tick back (process.c writes the
 * report). Why a thread and not a POSIX timer: a timer's signal would
 * interrupt the program's system calls (EINTR) and take one of its signal
 * numbers; SIGEV_THREAD would make glibc create the thread after the
 * counters are open. Why a pthread and not a raw clone(): glibc must know
 * every thread (setuid() signals each one; errno is per-thread TLS).
 *
 * Never counted: the counters are inherit + inherit_thread, so a thread
 * created after they are opened would be counted with the program. The
 * thread is therefore created first (constructor, fork child), and never
 * restarted once stopped. It blocks every signal: a process-directed signal
 * is never delivered to it, the program's dispositions are untouched.
 *
 * The program's last thread: glibc ends the process with exit(0) when its
 * last thread leaves, main included (pthread_exit()). It counts this thread
 * too, so when the program's threads are gone it is this one that must
 * call exit(0), or the process would live on with a zombie leader.
 */
#include "preload/interval.h"

#include <errno.h>
#include <stdlib.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "preload/proc_stat.h"

/* How long the thread's start, and interval_stop_for_good() its release, is waited for. */
#define INTERVAL_GONE_WAIT_MS	1000
/* The thread formats reports (~6 KiB of stack, buffers are mmap()ed): small is plenty. */
#define INTERVAL_STACK_SIZE	(128 * 1024)
/* Once main has left, how soon after the program's last thread the process ends, at most. */
#define INTERVAL_LAST_THREAD_NS	(100 * 1000000ull)

static struct {
	uint64_t ns;
	interval_tick_fn tick;
	pthread_t thread;
	bool running;
	atomic_int stop;	/* the futex word: 1 asks the thread to leave */
	atomic_int tid;		/* the thread's kernel tid, for the wait until it is gone */
	pthread_key_t main_key;	/* its destructor runs when main leaves */
	bool main_key_made;
	atomic_bool main_left;
} interval;

/*
 * The vDSO's clock_gettime(), not the system call process.c takes: that
 * one spares the program's own start the fault-in of libc's clock code;
 * this thread's faults are counted nowhere, and it reads the clock twice a tick.
 */
static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Sleep until @deadline (CLOCK_MONOTONIC) or a stop, whichever comes first. */
static void sleep_until(uint64_t deadline)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline / 1000000000u),
		.tv_nsec = (long)(deadline % 1000000000u),
	};

	/* FUTEX_WAIT_BITSET: an absolute timeout, on CLOCK_MONOTONIC without FUTEX_CLOCK_REALTIME. */
	syscall(SYS_futex, &interval.stop, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, 0, &ts, NULL,
		FUTEX_BITSET_MATCH_ANY);
}

/*
 * A key's destructor runs in a thread that leaves by pthread_exit() or is
 * cancelled, never at exit(): glibc runs main's from the same path, where it
 * decides whether main was the last thread. The wake-up makes the thread
 * look again at once instead of at its next tick.
 */
static void main_leaves(void *value)
{
	(void)value;
	atomic_store(&interval.main_left, true);
	syscall(SYS_futex, &interval.stop, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
}

/* Called in the process's main thread (the constructor, a fork child's only thread). */
static void main_watch(void)
{
	atomic_store(&interval.main_left, false);
	if (!interval.main_key_made)
		interval.main_key_made = pthread_key_create(&interval.main_key, main_leaves) == 0;
	if (interval.main_key_made)
		pthread_setspecific(interval.main_key, &interval);
}

/*
 * Are the program's threads all gone? Only asked once main has left, so a
 * program that never calls pthread_exit() in main pays nothing. Then the
 * leader is a zombie ('Z') until the process ends, still counted in
 * num_threads: 2 means this thread alone is left. No other thread can
 * start one meanwhile, so the answer cannot turn stale.
 */
static bool program_threads_gone(void)
{
	struct proc_stat st;

	return atomic_load(&interval.main_left) && proc_stat_read(0, &st) == 0 &&
	       st.state == 'Z' && st.threads <= 2;
}

/* The next wake-up: the next tick, or sooner once main has left (program_threads_gone()). */
static uint64_t wake_time(uint64_t now, uint64_t next)
{
	if (atomic_load(&interval.main_left) && next - now > INTERVAL_LAST_THREAD_NS)
		return now + INTERVAL_LAST_THREAD_NS;
	return next;
}

static void *interval_main(void *arg)
{
	uint64_t next = monotonic_ns() + interval.ns;

	(void)arg;
	atomic_store(&interval.tid, (int)syscall(SYS_gettid));
	syscall(SYS_futex, &interval.tid, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
	prctl(PR_SET_NAME, INTERVAL_THREAD_NAME, 0, 0, 0);
	while (!atomic_load(&interval.stop)) {
		uint64_t now = monotonic_ns();

		/* As glibc's last thread does: atexit handlers, then our exit report (shim.c). */
		if (program_threads_gone())
			exit(0);
		if (now < next) {
			sleep_until(wake_time(now, next));
			continue;
		}
		interval.tick();
		/* A report slower than the interval skips ticks, as perf stat -I's do not pile up. */
		now = monotonic_ns();
		while (next <= now)
			next += interval.ns;
	}
	return NULL;
}

/*
 * Until the new thread runs its own code: a fork at the program's first
 * line must not copy a thread that is still starting. A sanitizer's runtime
 * holds its locks there, and a fork child inherits them held for good: its
 * own interval thread then never started (make check-asan, 1 run in 3).
 */
static void wait_started(void)
{
	const struct timespec ms = { 0, 1000000 };

	for (int waited = 0; !atomic_load(&interval.tid) && waited < INTERVAL_GONE_WAIT_MS; waited++)
		syscall(SYS_futex, &interval.tid, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0, &ms, NULL, 0);
}

static int thread_create(void)
{
	sigset_t all, old;
	pthread_attr_t attr;
	int err;

	atomic_store(&interval.stop, 0);
	atomic_store(&interval.tid, 0);
	if (pthread_attr_init(&attr))
		return -ENOMEM;
	pthread_attr_setstacksize(&attr, INTERVAL_STACK_SIZE);
	/* The new thread starts with the creator's mask: all blocked, then the creator's back. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&interval.thread, &attr, interval_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	interval.running = err == 0;
	if (interval.running)
		wait_started();
	return -err;
}

int interval_start(uint64_t ns, interval_tick_fn tick)
{
	int saved_errno = errno, err;

	interval.ns = ns;
	interval.tick = tick;
	main_watch();
	err = thread_create();
	errno = saved_errno;
	return err;
}

int interval_restart_in_child(void)
{
	int saved_errno = errno, err;

	/*
	 * The parent's thread is not here: its pthread_t means nothing in the
	 * child. A child of a parent that stopped its thread for good starts
	 * one too: its counters are not open yet.
	 */
	interval.running = false;
	if (!interval.tick)
		return 0;
	main_watch();
	err = thread_create();
	errno = saved_errno;
	return err;
}

/* tgkill(sig 0) fails with ESRCH once the kernel has released the thread (after its futex wake). */
static void wait_gone(int tid)
{
	const struct timespec ms = { 0, 1000000 };

	for (int waited = 0; tid > 0 && waited < INTERVAL_GONE_WAIT_MS; waited++) {
		if (syscall(SYS_tgkill, getpid(), tid, 0) < 0 && errno == ESRCH)
			return;
		nanosleep(&ms, NULL);
	}
}

bool interval_stop_for_good(void)
{
	int saved_errno = errno;

	if (!interval.running)
		return false;
	atomic_store(&interval.stop, 1);
	syscall(SYS_futex, &interval.stop, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, NULL, NULL, 0);
	pthread_join(interval.thread, NULL);
	/* pthread_join() returns at the thread's CLONE_CHILD_CLEARTID wake, before release_task(). */
	wait_gone(atomic_load(&interval.tid));
	interval.running = false;
	errno = saved_errno;
	return true;
}

bool interval_running(void)
{
	return interval.running;
}
