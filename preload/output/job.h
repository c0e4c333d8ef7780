/* SPDX-License-Identifier: MIT */
/*
 * job.h: the process tree one command makes is one job. Only its root (the
 * process the user started, and the images it execs) writes on its streams;
 * every descendant's report goes into the job directory, which the root
 * names at its exit. Used only when PFSHIM_OUTPUT is not set.
 */
#ifndef PFSHIM_PRELOAD_OUTPUT_JOB_H
#define PFSHIM_PRELOAD_OUTPUT_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "export/report.h"
#include "preload/config.h"
#include "preload/output/name.h"

enum job_role {
	JOB_NONE,		/* PFSHIM_OUTPUT set, or no job: reports go where it says */
	JOB_ROOT,		/* the process the user started: reports on its stderr */
	JOB_DESCENDANT,		/* reports into the job directory, JSON, silent on stderr */
	JOB_DROPPED,		/* a descendant whose root could keep no directory: silent */
};

/*
 * job_start - find this process's place: the job directory its parent holds
 * open (a new descendant), else its own crumb (an exec of a job's process),
 * else its parent's crumb, else it is a root, which makes its job directory
 * and holds it. Holds the job directory for its children; its crumb waits
 * for job_crumb_ensure(). @start_ns: CLOCK_REALTIME now. Does nothing with PFSHIM_DISABLE
 * or PFSHIM_OUTPUT set. Called from the constructor (jobfd_keep()).
 */
void job_start(config_getenv_fn get_env, uint64_t start_ns);

/* job_restart_in_child - after fork(): a descendant, with no crumb yet. */
void job_restart_in_child(void);

/*
 * job_crumb_ensure - this image's crumb, made once, where it may be needed:
 * before it starts a child or a new image (or makes itself not dumpable).
 * It is what a new image finds when no parent's descriptor leads to the
 * job: the next image of an orphan, or of the root; a child of a parent
 * that closed its descriptors or whose descriptors it may not read. In a
 * vfork child it is the parent's (the memory is the parent's). Does nothing
 * under the program's seccomp filter. Async-signal-safe; errno preserved.
 */
void job_crumb_ensure(void);

enum job_role job_role(void);

/*
 * job_root_has_spoken - the root said what holds for its whole life (the
 * shim stands aside: process.c): its next images, execs of it, say nothing
 * on its streams, as its descendants do. A crumb of a third kind says so.
 */
void job_root_has_spoken(void);

/*
 * job_write - a descendant's report (JSON) into the job directory; nothing
 * for JOB_DROPPED. Silent on failure: a descendant never writes on its
 * streams. Async-signal-safe.
 */
void job_write(const struct output_names *names, const char *buf, size_t len);

/*
 * job_reserve - before a report's last read of its counters: the file
 * job_write() will write made now (jobdir_reserve()), when this image
 * writes into the job directory. Async-signal-safe.
 */
void job_reserve(void);

/*
 * job_finish - after the final report: at exit, or before the death by a
 * signal it reported (PFSHIM_ON_FATAL), the crumb goes; the root names the
 * job directory and how many reports it holds, and removes the crumbs of
 * dead processes. Async-signal-safe.
 */
void job_finish(enum report_reason reason);

#endif
