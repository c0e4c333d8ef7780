/* SPDX-License-Identifier: MIT */
/*
 * process.h: the shim's state for the current process image: its
 * configuration, its events, its counters, and writing its report.
 */
#ifndef PFSHIM_PRELOAD_PROCESS_H
#define PFSHIM_PRELOAD_PROCESS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "export/report.h"
#include "preload/config.h"
#include "preload/identity.h"
#include "preload/metrics/group.h"
#include "preload/events/events.h"
#include "preload/counters/totals.h"

/*
 * What the constructor writes comes first and the event list (24 KiB, of
 * which a process writes only its few events) after it, and the whole is
 * page-aligned (process.c): the constructor's writes fault 2 pages, not 4
 * (docs/performance.md, "Counted from the exec").
 */
struct process {
	bool active;			/* counting; false with PFSHIM_DISABLE or nothing to count */
	int pid;			/* whose counters these are (a vfork child is not us) */
	int stream_fd;			/* see output_stream_open() */
	bool budget_warned;		/* the low-RLIMIT_NOFILE line was written (once per image) */
	bool since_exec;		/* the counters were handed over: counting since the exec */
	atomic_int final_report;	/* the report claim: see process.c */
	atomic_bool interval_ready;	/* the interval thread may report (after process_start) */
	uint64_t start_realtime_ns;
	uint64_t start_monotonic_ns;
	_Atomic uint64_t seq;		/* reports of this image's series so far (PFSHIM_INTERVAL) */
	/* Taken before the program's seccomp filter, for the reports under it (sandbox.h). */
	struct {
		int ppid;
		uint64_t pid_ns;
		char hostname[65];
	} before_filter;
	char program[256];		/* basename of /proc/self/exe */
	/*
	 * Under pfshim run, the machine's boot (/proc/sys/kernel/random/boot_id,
	 * read at start), by which the summary knows one process of the job
	 * whatever host name it gives itself (a new UTS namespace); "" otherwise.
	 */
	char boot_id[40];
	char argv0[256];
	/* Copied at start (identity.h): what the program was started as, whatever it does later. */
	int argc;			/* as main() got it */
	int argv_kept;			/* arguments in identity_text */
	bool argv_truncated;
	size_t argv_bytes;		/* of identity_text; the working directory follows */
	const char *cwd;		/* in identity_text; NULL when getcwd() failed */
	/* The status exit() or _exit() passed, as wait() sees it: the exit report's; -1 until known. */
	atomic_int exit_status;
	struct counter_set counters;
	_Atomic uint64_t previous[EVENTS_MAX];	/* each event's value at the previous report: deltas */
	_Atomic uint64_t previous_wall_ns;	/* the previous report's wall_ns: an interval's span */
	/* Before the config's 4 KiB path: written at start, where it took a page of its own. */
	struct metric_group *metrics;	/* PFSHIM_GROUP's, or NULL */
	struct config config;
	struct event_list events;
	/*
	 * The arguments, then the working directory: one page of its own,
	 * written from its start, so that a command line and directory of
	 * less than 4 KiB fault one page, and nothing above moves.
	 */
	char identity_text[IDENTITY_ARGV_BYTES + IDENTITY_CWD_BYTES] __attribute__((aligned(4096)));
};

extern struct process process;

/*
 * process_start - read the configuration, parse the events and open the
 * counters of the calling process, and copy its @argc arguments @argv
 * (glibc's, given to the constructor; NULL when unknown) and its working
 * directory for its reports.
 */
void process_start(int argc, char **argv, config_getenv_fn get_env);

/* process_restart_in_child - after fork(): the child counts for itself from now. */
void process_restart_in_child(void);

/* process_is_self - false in a vfork()ed child, which must touch nothing. */
bool process_is_self(void);

/*
 * process_report - read the counters and write a report now.
 * Async-signal-safe.
 */
void process_report(enum report_reason reason, int signo);

/*
 * process_report_final - the exit or exec report: written at most once per
 * image, never from a vfork()ed child. A thread that comes second (exit()
 * in one thread, _exit() or exec in another) waits, for a while, until the
 * first has written it: its _exit or exec would kill the writer. If that
 * was an exec that failed, the second writes its own report after all.
 * Async-signal-safe.
 */
void process_report_final(enum report_reason reason);

/*
 * process_report_exit - _exit(@status) or _Exit(@status): the exit report,
 * as process_report_final(REPORT_EXIT), carrying the status.
 * Async-signal-safe.
 */
void process_report_exit(int status);

/*
 * process_exit_status - exit(@status), or main returned @status (glibc's
 * on_exit() handler, shim.c): the exit report written after it carries
 * the status. Async-signal-safe.
 */
void process_exit_status(int status);

/*
 * process_report_fatal - the last report of an image that a signal is about
 * to kill (PFSHIM_ON_FATAL): reason signal, @signo, claimed as the exit
 * report is. Async-signal-safe.
 */
void process_report_fatal(int signo);

/*
 * process_report_interval - the PFSHIM_INTERVAL report, from the interval
 * thread: written unless another report of this image is being written
 * (then this tick is skipped) or the final one was.
 */
void process_report_interval(void);

/*
 * process_handover_open - with PFSHIM_HANDOVER=1, before this image execs
 * @file (searched in PATH when @search) with the environment @envp: when
 * the new image will load the shim for the same events (handover.h), open
 * its counters, started by the exec, and return "PFSHIM_ADOPT=..." to add
 * to @envp; else NULL. process_handover_close() when the exec fails.
 */
const char *process_handover_open(const char *file, bool search, char *const envp[]);
void process_handover_close(void);

/*
 * process_answers_size - the room process_answers_for() needs for an exec
 * with @envp: 0 when libpfm4 was asked nothing here, or when the value or
 * the environment's copy would take more of the caller's stack than an
 * optimisation may.
 */
size_t process_answers_size(char *const envp[]);

/*
 * process_answers_for - "PFSHIM_RESOLVED=..." in @buf (of @size:
 * process_answers_size()) for the image that @file (searched in PATH when
 * @search) starts with @envp, by exec here or spawned as our child (in our
 * working directory unless !@cwd_ours: then only for a path that does not
 * depend on it): what libpfm4 answered this process (pfm_answers.h), when
 * that image will load the shim; else NULL. The caller puts it in @envp's
 * copy. errno is preserved.
 */
const char *process_answers_for(const char *file, bool search, bool cwd_ours,
				char *const envp[], char *buf, size_t size);

/*
 * process_before_filter - the program is about to install a seccomp
 * filter (@all_threads: on every thread, TSYNC): take now what the reports
 * will need under it (names, memory, a stderr duplicate), stop the interval
 * thread if the filter would cover it, and make every later report use
 * read(2) and write(2) alone (sandbox.h). errno is preserved.
 */
void process_before_filter(bool all_threads);

/*
 * process_before_spawn - a child or a new image is about to be made (fork,
 * exec, posix_spawn, system...), or the process makes itself not dumpable:
 * leave what a child that cannot read this process's descriptors needs to
 * find its job (job_crumb_ensure()). Async-signal-safe; errno is preserved.
 */
void process_before_spawn(void);

/* process_report_final_undo - exec failed: the image lives on and will report again. */
void process_report_final_undo(void);

#endif
