/* SPDX-License-Identifier: MIT */
/*
 * sandbox.h: the program's own seccomp filter. From the moment the program
 * installs one (seen through libc's prctl() and syscall(), shim.c), a
 * system call the filter does not allow may kill it (SIGSYS) or fail
 * (EPERM): the shim's reports then make no system call but read(2) of its
 * counters and write(2) of the report to a descriptor opened before
 * (docs/usage.md, "Sandboxes (seccomp)"). Async-signal-safe.
 */
#ifndef PFSHIM_PRELOAD_SANDBOX_H
#define PFSHIM_PRELOAD_SANDBOX_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* sandbox_filtered - has the program (possibly) installed a seccomp filter? Sticky. */
bool sandbox_filtered(void);

/*
 * sandbox_is_install - is the system call @nr with arguments @a0, @a1 one
 * that installs a seccomp filter (seccomp(2) SET_MODE_FILTER or _STRICT,
 * prctl(PR_SET_SECCOMP))? *@all_threads: with SECCOMP_FILTER_FLAG_TSYNC,
 * the filter applies to the shim's own thread too.
 */
bool sandbox_is_install(long nr, unsigned long a0, unsigned long a1, bool *all_threads);

/*
 * sandbox_enter - from now on the reports are filtered: called before the
 * program's install goes to the kernel, while every system call still
 * works. Records what a failed write would raise (SIGPIPE's and SIGXFSZ's
 * actions, RLIMIT_FSIZE), which the shim could not hold back under the
 * filter (rt_sigprocmask may be refused).
 */
void sandbox_enter(void);

/*
 * sandbox_write_may_kill - could a write to a file of type @mode, under the
 * filter, raise a signal whose action kills the program? A pipe, FIFO or
 * socket whose reader is gone raises SIGPIPE; a regular file past
 * RLIMIT_FSIZE raises SIGXFSZ. Such a write is not made: no report is
 * worth the program's life.
 */
bool sandbox_write_may_kill(mode_t mode);

/*
 * sandbox_pause - about a millisecond of waiting for another thread's
 * report: nanosleep(2) while unfiltered, a spin on the vDSO's clock (no
 * system call) under the filter.
 */
void sandbox_pause(void);

/*
 * sandbox_clock_ns - @clock in ns by the vDSO's clock_gettime(): no system
 * call, where the kernel's clock source has a vDSO mode (tsc, kvm-clock,
 * arm64's counter; docs/usage.md says what happens elsewhere).
 */
uint64_t sandbox_clock_ns(clockid_t clock);

/* sandbox_forget - back to unfiltered (unit tests). */
void sandbox_forget(void);

#endif
