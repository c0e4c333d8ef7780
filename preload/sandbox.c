/* SPDX-License-Identifier: MIT */
/*
 * sandbox.c: what the shim knows of the program's own seccomp filter. The
 * filter is seen as it is installed, through libc's prctl() and syscall()
 * (libseccomp, Chromium's sandbox and systemd's take them); it cannot be
 * asked later: prctl(PR_GET_SECCOMP) and /proc/self/status are system calls
 * the filter may kill for. Once seen it is never forgotten: a filter cannot
 * be removed, and a failed install leaves the shim careful for nothing worse
 * than skipped checks. Async-signal-safe.
 */
#include "preload/sandbox.h"

#include <linux/seccomp.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>

static struct {
	atomic_bool filtered;
	bool sigpipe_kills;	/* SIGPIPE's action was the default when the filter came */
	bool sigxfsz_kills;	/* a finite RLIMIT_FSIZE, and SIGXFSZ's default action */
} sandbox;

bool sandbox_filtered(void)
{
	return atomic_load_explicit(&sandbox.filtered, memory_order_acquire);
}

bool sandbox_is_install(long nr, unsigned long a0, unsigned long a1, bool *all_threads)
{
	*all_threads = false;
	if (nr == SYS_prctl)
		return a0 == PR_SET_SECCOMP;
#ifdef SYS_seccomp
	if (nr == SYS_seccomp && (a0 == SECCOMP_SET_MODE_FILTER || a0 == SECCOMP_SET_MODE_STRICT)) {
		*all_threads = a0 == SECCOMP_SET_MODE_FILTER && (a1 & SECCOMP_FILTER_FLAG_TSYNC);
		return true;
	}
#endif
	return false;
}

/* The action of @signo kills (or stops) the process: the default, for SIGPIPE and SIGXFSZ. */
static bool action_is_default(int signo)
{
	struct sigaction sa;

	return sigaction(signo, NULL, &sa) < 0 || sa.sa_handler == SIG_DFL;
}

void sandbox_enter(void)
{
	struct rlimit rl;

	sandbox.sigpipe_kills = action_is_default(SIGPIPE);
	sandbox.sigxfsz_kills = (getrlimit(RLIMIT_FSIZE, &rl) < 0 || rl.rlim_cur != RLIM_INFINITY) &&
				action_is_default(SIGXFSZ);
	atomic_store_explicit(&sandbox.filtered, true, memory_order_release);
}

bool sandbox_write_may_kill(mode_t mode)
{
	if (S_ISFIFO(mode) || S_ISSOCK(mode))
		return sandbox.sigpipe_kills;
	if (S_ISREG(mode))
		return sandbox.sigxfsz_kills;
	return false;
}

uint64_t sandbox_clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Timed by the vDSO's clock under the filter, as a report there is. */
void sandbox_pause(void)
{
	const struct timespec ms = { 0, 1000000 };
	uint64_t end;

	if (!sandbox_filtered()) {
		nanosleep(&ms, NULL);
		return;
	}
	end = sandbox_clock_ns(CLOCK_MONOTONIC) + 1000000;
	while (sandbox_clock_ns(CLOCK_MONOTONIC) < end)
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#elif defined(__aarch64__)
		__asm__ volatile("yield");
#else
		;
#endif
}

void sandbox_forget(void)
{
	atomic_store(&sandbox.filtered, false);
	sandbox.sigpipe_kills = sandbox.sigxfsz_kills = false;
}
