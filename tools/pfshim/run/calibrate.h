/* SPDX-License-Identifier: MIT */
/*
 * calibrate.h: what loading libpfshim.so costs an image beyond what the shim
 * measures of itself (preload/share.h): the dynamic loader's work for it
 * (mapping, relocation, every symbol looked up in its table first), and its
 * final report's work after the report's last read with the process's exit
 * from its counters. No process can see those from inside; `pfshim run`
 * measures them once per run on a small dynamic program, bare, preloaded
 * with the shim off, and preloaded, alternated: the summary counts the
 * loader's once per image that loaded the shim, the rest once per image
 * that reported (docs/pfshim.md "pfshim's own share"). Beside them, what
 * the job's own records of an exec (jobcount.h) cost an image beyond perf
 * stat's counting, on a chain of execs: once per image the job exec'd.
 */
#ifndef PFSHIM_TOOLS_CALIBRATE_H
#define PFSHIM_TOOLS_CALIBRATE_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "tools/pfshim/run/jobcount.h"

/*
 * Runs of each kind, alternated: the medians are taken. 5 left the loader's
 * and the end's task-clock 150 to 250 us apart from one calibration to the
 * next on a loaded 2-core VM; 15, 120 to 140; 31, a loader's part 48 us apart
 * over four in a row at load 1, against 139 with 15 (docs/pfshim.md).
 */
#define CALIBRATE_RUNS 31
/* How the runs are measured: a cached calibration of another method is not taken. */
#define CALIBRATE_METHOD 6
/* The program run: small, dynamic, in every Debian (coreutils). */
#define CALIBRATE_PROGRAM "/bin/true"
/*
 * The job's records of an exec, priced on one process that execs
 * CALIBRATE_EXECS images of CALIBRATE_CHAIN (each running the next: env
 * execs its arguments; coreutils too) and then CALIBRATE_PROGRAM.
 */
#define CALIBRATE_CHAIN "/usr/bin/env"
#define CALIBRATE_EXECS 8

/*
 * What a page fault and a fork cost more in an image with the shim on, in
 * the kernel, where the shim's readings cannot see it: the pfshim command
 * run as CALIBRATE_CHILD (calibrate_child.c) with no work, with
 * CALIBRATE_PAGES pages faulted in, and with CALIBRATE_FORKS children
 * forked, bare and preloaded in each round. The per-unit price is the
 * median of the rounds' differences beyond what the reports measured.
 */
#define CALIBRATE_CHILD "__calibrate-child"
#define CALIBRATE_PAGES 2048
#define CALIBRATE_FORKS 16

/*
 * calibrate_child - `pfshim CALIBRATE_CHILD PAGES FORKS`: the work; on
 * stdout its children's CPU time and its page touching's (ns).
 */
int calibrate_child(int argc, char **argv);

/* One of the events a report's pfshim_share has, as the job counts it. */
struct calibrate_event {
	int job_event;		/* its index in the job's events */
	const char *share;	/* its field in a report's pfshim_share ("page_faults") */
	/* Medians: bare, preloaded with the shim off, preloaded; the share its reports said. */
	uint64_t bare, off, preloaded, in_process, setup;
	/* Beyond what the reports measure: per 1000 page faults an image's report counted, per fork. */
	uint64_t per_1000_faults, per_fork;
	/*
	 * What the job's records (jobcount.h: an exec's COMM, each executable
	 * mapping's MMAP, the EXIT) cost an image bare, beyond perf stat's way
	 * of counting it: per image the job exec'd, whether it loaded the shim
	 * or not. The shim's own mappings' records are in the loader's part.
	 */
	uint64_t per_exec;
};

struct calibration {
	int nr;
	struct calibrate_event ev[3];
	int error;		/* errno: not calibrated (nr 0) */
	bool cached;		/* read from the cache (calibrate_cache.c), not measured now */
	bool cpu_whole;		/* task-clock's runs are each process's whole CPU time (schedstat) */
	bool per_unit;		/* per_1000_faults and per_fork measured (the command could run itself) */
	uint64_t cost_ns;	/* the calibration's own wall time */
};

/*
 * calibrate - run CALIBRATE_PROGRAM CALIBRATE_RUNS times bare, as many
 * preloaded with @lib off (PFSHIM_DISABLE=1) and as many preloaded (the
 * environment as the job's, reports into a directory of its own),
 * alternated, each counted by @j's events that a report's share has
 * (page-faults, task-clock, context-switches) and recorded as @j's
 * processes are; and as many CALIBRATE_CHAIN chains, bare, recorded and
 * not (none where @j records nothing).
 * A calibration of the same library, kernel, host and events kept by an
 * earlier run is taken instead (calibrate_cache.c); without one, none is
 * made once *@stop is set (before or between rounds: -ECANCELED, nothing
 * kept).
 * Return: 0, or -errno (then nothing is said of the loader's share).
 */
int calibrate(struct calibration *c, struct jobcount *j, const char *lib,
	      const volatile sig_atomic_t *stop);

/*
 * calibrate_cache_load - @c's events (chosen) filled from the cache when it
 * holds a calibration of the library @lib names (LD_PRELOAD's first), this
 * kernel, host and these events: true. calibrate_cache_save - keep @c there.
 */
bool calibrate_cache_load(struct calibration *c, const struct jobcount *j, const char *lib);
void calibrate_cache_save(const struct calibration *c, const struct jobcount *j, const char *lib);

/* calibrate_json - the pfshim.job object's "calibration" (docs/output.md), or null. */
json_t *calibrate_json(const struct calibration *c, const struct jobcount *j);

#endif
