/* SPDX-License-Identifier: MIT */
/*
 * jobcount.h: `pfshim run` counts the whole job itself, as perf stat does:
 * the command's events opened by the runner on the command's pid, inherited
 * by every task the job ever makes, so that the kernel folds each of them
 * into the totals however it ends (killed, static, a raw exit_group). The
 * job's processes are named from the kernel's FORK, COMM and EXIT records,
 * so that those that left no report can be named. Written into the job
 * directory as one pfshim.job object (docs/output.md), which `pfshim report`
 * reads beside the reports. Nothing runs in the job's processes.
 */
#ifndef PFSHIM_TOOLS_JOBCOUNT_H
#define PFSHIM_TOOLS_JOBCOUNT_H

#include <stdbool.h>
#include <stdint.h>
#include <poll.h>
#include <stdio.h>
#include <sys/types.h>
#include <jansson.h>

#include "preload/events/spec.h"

#define JOBCOUNT_COMM_MAX 16	/* TASK_COMM_LEN */

/* Its name in the job directory (a name no report takes: theirs begin with the host). */
#define JOBCOUNT_FILE "pfshim-job.jsonl"

/* One process of the job (a thread group), from its FORK to its EXIT. */
struct jobcount_process {
	int pid, ppid;
	char comm[JOBCOUNT_COMM_MAX];	/* its program at the end (COMM at each exec) */
	bool exited;			/* its EXIT record was seen */
	/* Its last image, from the executable mappings after its last exec (a fork child: its parent's): */
	bool dynamic;			/* the dynamic loader was mapped: an ELF image with an interpreter */
	bool shim;			/* libpfshim.so was mapped: the shim was loaded */
	int images;			/* execs seen */
	int exec_maps;			/* executable mappings since its last exec */
	/*
	 * Its exit record came right after an exec, before any mapping: the
	 * kernel's perf_event_exit_task() at an exec that makes the process
	 * not dumpable (a setuid, setgid or file-capability program), which
	 * stops counting it and the children it makes from there on.
	 */
	bool uncounted;
	int report_errno;		/* its last report's error, from the ledger; 0: none said */
};

struct jobcount_event {
	const struct event_spec *spec;	/* name, unit, scale; the attr opened */
	int fd;				/* -1: not opened (error), or a hybrid sum */
	int error;			/* errno of the failed open or read */
	uint64_t value, enabled, running;	/* the job's total, at jobcount_finish() */
};

/* The records of one CPU: a dummy event's buffer, written by that CPU alone. */
struct jobcount_ring {
	int fd;
	int cpu;
	void *meta;		/* the metadata page, then the data pages */
};

/* The job's totals at one moment (pfshim run -I). */
struct jobcount_sample {
	uint64_t t_ns;			/* since the command's start */
	uint64_t *value;		/* [nr]; UINT64_MAX: not counted */
};

struct jobcount {
	int nr;
	struct jobcount_event ev[EVENTS_MAX];
	int nr_rings;			/* one per CPU; 0: the processes are not named */
	struct jobcount_ring *ring;
	size_t ring_size;		/* data pages only */
	int ring_error;			/* why there are no rings */
	int nr_proc;
	struct jobcount_process *proc;	/* a reused pid is a new one */
	int *by_pid;			/* open-addressed pid -> its latest proc, or -1 */
	int by_pid_size;
	uint64_t lost;			/* records the kernel could not write (PERF_RECORD_LOST) */
	uint64_t ledger_malformed;	/* lines of the ledger that were not "PID ERRNO": skipped */
	uint64_t shim_images;		/* images that mapped libpfshim.so (each exec that loaded it) */
	uint64_t execs;			/* images the job's tasks exec'd, the command's own included */
	int root_pid;
	uint64_t start_ns;		/* CLOCK_MONOTONIC at jobcount_open() */
	uint64_t end_ns;		/* ... at jobcount_finish(): the job's elapsed time ends */
	uint64_t end_realtime_ns;	/* the same moment by CLOCK_REALTIME, as reports' start_ns */
	int nr_samples;
	struct jobcount_sample *sample;
};

/*
 * jobcount_open - open @events on @pid (a child stopped before its exec:
 * each event starts at that exec, enable_on_exec) inherited by all it will
 * start, with the buffer its tasks' records go to. Return: how many events
 * count (0: none could be opened; each keeps its errno).
 */
int jobcount_open(struct jobcount *j, pid_t pid, const struct event_list *events);

/*
 * jobcount_event_open - open @e's event on @pid (stopped before its exec)
 * as the job's are: inherited, started by the exec; e->fd -1 and e->error
 * when it cannot be.
 */
void jobcount_event_open(struct jobcount_event *e, pid_t pid);

/*
 * jobcount_recorder_open - open on @pid (stopped before its exec) the
 * records @j's buffers take of the job, as they are opened for it (one per
 * CPU, into @r[0..@j->nr_rings - 1]), so that a calibration run costs what
 * a process of the job does. Nothing is read from them.
 * jobcount_recorder_close - close the @nr of @r.
 * Return: how many were opened (0: the job has no buffers), or -errno.
 */
int jobcount_recorder_open(const struct jobcount *j, pid_t pid, struct jobcount_ring *r);
void jobcount_recorder_close(const struct jobcount *j, struct jobcount_ring *r, int nr);

/*
 * jobcount_poll_fds - fill @fds[0..max-1] with the descriptors poll(2) finds
 * readable when a buffer is half full. Return: how many.
 */
int jobcount_poll_fds(const struct jobcount *j, struct pollfd *fds, int max);

/* jobcount_drain - take every record the buffer holds now. Call while the job runs. */
void jobcount_drain(struct jobcount *j);

/* jobcount_finish - the last records and the totals; call when the command has ended. */
void jobcount_finish(struct jobcount *j);

/*
 * jobcount_sample - read the totals now, as perf stat -I does (a read(2) of
 * each event, nothing in the job), and keep them. Return: the sample, valid
 * until the next call.
 */
const struct jobcount_sample *jobcount_sample(struct jobcount *j);

/* jobcount_value - event @i of @values as the report shows it (hybrid sums added up); false: not counted. */
bool jobcount_value(const struct jobcount *j, const uint64_t *values, int i, uint64_t *out);

/*
 * jobcount_ledger_line - @line (@len bytes, its '\n' included) as the
 * ledger's "PID ERRNO\n" (preload/output/ledger.h): decimal digits only, a
 * pid above 0, an errno below 4096. Return: true with *@pid and *@err, or
 * false for anything else: two lines joined by a short write past the
 * reserved room ("4242 24243 0"), a last line cut short (no '\n'), bytes of
 * another writer.
 */
bool jobcount_ledger_line(const char *line, size_t len, int *pid, int *err);

/*
 * jobcount_ledger_read - the ledger's lines from @f: each process's last
 * one says whether its last report was written. A malformed line
 * (jobcount_ledger_line()) is skipped and counted in @j->ledger_malformed;
 * the lines after it are read.
 */
void jobcount_ledger_read(struct jobcount *j, FILE *f);

/*
 * jobcount_write - the pfshim.job object: the events and their totals, the
 * command's end (@status from waitpid), the processes by pid and program,
 * and @calibration (calibrate_json(), taken over). Return: 0, or -1 with
 * errno when @f could not be written.
 */
int jobcount_write(const struct jobcount *j, const char *command, int status, json_t *calibration,
		   FILE *f);

void jobcount_close(struct jobcount *j);

#endif
