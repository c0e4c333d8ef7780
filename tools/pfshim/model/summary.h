/* SPDX-License-Identifier: MIT */
/*
 * summary.h: the model: a job's reports combined. A process image's LAST
 * report is what counts (its counters only grow): interval, signal and
 * explicit reports before it feed the time series only. Combined: totals,
 * one row per group (--by program, rank, host or process), the regions per
 * group, the interval series, and, when asked for, one record per image for
 * the process tree. The reader (read/read.h) fills it from JSON; the views
 * (view/view.h) print a const one. Nothing here parses or prints.
 */
#ifndef PFSHIM_TOOLS_SUMMARY_H
#define PFSHIM_TOOLS_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "tools/pfshim/model/region_tree.h"
#include "tools/pfshim/model/table.h"

enum summary_by { BY_PROGRAM, BY_RANK, BY_HOST, BY_PROCESS };

/* What to combine, from the command line. */
struct summary_options {
	enum summary_by by;
	struct names events;	/* only these events, in this order; none: all */
	struct names regions;	/* only these regions; none: all */
	bool images;		/* keep one record per image (the tree; --tree, --html) */
	bool tree;		/* print the tree in the text and JSON (--tree) */
	bool any_owner;		/* read other users' files found in directories (--any-owner) */
	bool metrics;		/* sum PFSHIM_GROUP's metrics' events (--metrics, model/metrics.h) */
	bool quiet;		/* say nothing of what is skipped (pfshim run's look for reports) */
};

/* One event, as the reports describe it. */
struct summary_event {
	char *name;
	char *unit;		/* "msec" for the clocks, or "" */
	double scale;		/* display scale (1e-6 for the clocks) */
};

struct summary_sum {
	uint64_t value;		/* sum of "value" where counted */
	uint64_t counted;	/* images where it was counted */
	uint64_t not_supported;	/* images where it could not be opened */
	uint64_t closed;	/* images whose program closed the counter */
};

struct summary_group {
	char *name;		/* program, rank ("-": none), host, or HOST:PID */
	char *program;		/* --by process: the program of its latest image */
	uint64_t reports;	/* reports read, interval ones included */
	uint64_t images;	/* process images counted */
	int64_t order;		/* rank or pid: how --by rank/process sort */
	struct summary_sum *sums;	/* [nr_events] */
};

/*
 * One region metric in one group: "wall" (metric 0, ns) or a region event,
 * summed over the group's images; min and max are over single threads.
 */
struct summary_cell {
	int region, group, metric;
	bool counted;
	uint64_t sum, thread_min, thread_max, threads;
	uint64_t calls, reentries, unclosed;	/* in metric 0's cell */
};

/* One report's "delta" of one event, summed per group and time bucket. */
struct summary_point {
	int group, event;
	int64_t bucket;		/* (start_ns + wall_ns) / bucket_ns */
	uint64_t delta;
	uint64_t reports;
};

/* One process image, for the tree (options.images). */
struct summary_image {
	int host;		/* in summary.hosts */
	int machine;		/* in summary.machines: whose process it is (summary_machine_of()) */
	uint64_t pid_ns;
	int pid, ppid;
	int program;		/* in summary.programs */
	char *argv0;
	char *argv;		/* the report's argv as one line (the reader), or NULL without one */
	char *reason;
	int exit_status, signal;	/* as its report says them; -1: not said */
	uint64_t start_ns, wall_ns;
	int nr_values;
	uint64_t *value;	/* [nr_values]; UINT64_MAX: not counted */
};

/* An image whose final (exit, exec) report has not been read yet. */
struct summary_pending {
	struct json_t *report;	/* its latest report so far (the reader's: read/) */
};

/* The state of one image: its final report seen, or its pending one. */
struct summary_seen {
	uint64_t key;		/* hash of host, pid namespace, pid, start_ns */
	int pending;		/* in summary.pending, or -1 */
	bool final;
	int64_t seq, wall_ns;	/* of the report held or counted: which is later */
};

/*
 * The markers' own count per call of one event (a report's regions.probe:
 * each thread's empty begin/end pair, measured at its set-up), over every
 * thread of every report read: the least and the most a thread measured,
 * and their sum and number for the mean. A sum of per-call costs means
 * nothing, so none is shown.
 */
struct summary_probe {
	int metric;		/* in summary.metrics */
	uint64_t sum, threads, min, max;
};

struct summary_misuse {
	uint64_t end_without_begin, bad_handle, table_full, names_refused, unnested;
};

/*
 * pfshim's own share of the counts, in the fields a report's pfshim_share
 * has (preload/share.h): the three events the shim can measure of itself.
 */
enum summary_share_field { SHARE_PAGE_FAULTS, SHARE_TASK_CLOCK, SHARE_CONTEXT_SWITCHES, SHARE_FIELDS };
extern const char *const summary_share_names[SHARE_FIELDS];	/* "page_faults", ... */

/* The reports' own measure of it, over the images counted (read/own_share.c). */
struct summary_share {
	uint64_t value[SHARE_FIELDS];
	uint64_t images;	/* counted images whose report has a share (fork children too) */
	uint64_t loaded;	/* ... that loaded the library (an exec; not a fork child) */
	uint64_t unmeasured;	/* ... with a part it could not measure (under a seccomp filter) */
	uint64_t forks;		/* children they forked (fork(), forkpty()) */
};

/*
 * Why a process of a job is in no row, from the kernel's mappings of its
 * last image (jobcount.h): the shim could not load, was not loaded, or was
 * and left no report; RUNNING: it loaded the shim and had not exited when
 * the command ended (no exit record, and the kernel lost none: an orphan, a
 * daemon); UNCOUNTED: the kernel stopped counting it at an exec (jobcount.h);
 * UNKNOWN when the job count does not say (version 1).
 */
enum summary_kind {
	KIND_STATIC, KIND_NO_SHIM, KIND_NO_REPORT, KIND_LOST, KIND_UNKNOWN, KIND_RUNNING,
	KIND_UNCOUNTED, KINDS
};
extern const char *const summary_kind_names[KINDS];	/* "static", "no-shim", ... */
/*
 * For a person: what such a process is ("that did not load the shim"), what
 * may have made it so, and where its counts are.
 */
extern const char *const summary_kind_what[KINDS], *const summary_kind_why[KINDS];
extern const char *const summary_kind_counts[KINDS];

/* One process of a job as the kernel saw it (pfshim run's pfshim.job, read/job.c). */
struct summary_job_process {
	int pid;
	char *program;		/* its program at the end */
	enum summary_kind kind;	/* were it without a report */
	bool uncounted;		/* the kernel stopped counting it at an exec (KIND_UNCOUNTED) */
	char *report_error;	/* KIND_LOST: why its report could not be written ("ENOSPC") */
};

/* pfshim run's measure of what loading the shim costs an image (calibrate.h), per share field. */
struct summary_calibration {
	bool known;
	int event;		/* summary event index */
	bool split;		/* "off" was measured: the loader's part apart from the report's end */
	uint64_t bare, off, preloaded, in_process, setup;
	uint64_t per_1000_faults, per_fork;	/* 0: not measured (an older job count) */
	uint64_t per_exec;	/* the job's records of each exec (calibrate.h); 0: not measured */
};

/*
 * A job as the kernel counted it: totals of every task the command ever
 * made, killed, static or not; its processes whose last program left no
 * report, by program; and what of the totals no row holds.
 */
struct summary_job {
	/* Each job count taken, by job_key() (read/job.c): one read twice is counted once */
	int nr_keys;
	uint64_t *keys;
	char *host;
	char *boot_id;		/* the runner's machine's boot (its processes' reports say it too), or NULL */
	uint64_t pid_ns;
	int pid;		/* the command's */
	int end_exit, end_signal;	/* how the command ended; -1: not so */
	uint64_t elapsed_ns;	/* from the counters' open to the command's end; 0: not said */
	uint64_t end_realtime_ns;	/* the command's end by CLOCK_REALTIME; 0: not said (older) */
	/* A process may have run on past the command's end: no exit record, or records lost */
	bool running_maybe;
	bool unnamed;		/* the kernel could not name the processes (processes_error) */
	uint64_t lost_records;	/* FORK, COMM, EXIT records the kernel could not write */
	uint64_t ledger_malformed;	/* lines of pfshim run's ledger that could not be read */
	int nr_events;
	int *event;		/* [nr_events]: summary event index */
	uint64_t *total;	/* [nr_events]; UINT64_MAX: not counted */
	int nr_processes;
	struct summary_job_process *process;
	int64_t shim_images;	/* images that loaded the shim; -1: not said (version 1) */
	uint64_t execs;		/* images its tasks exec'd, by the kernel's records; 0: not said */
	struct summary_calibration calibration[SHARE_FIELDS];
	char *calibration_error;	/* why there is none, or NULL */
	char *calibration_program;	/* what it ran */
	bool calibration_cached;	/* taken from an earlier run's (calibrate_cache.c) */
	uint64_t calibration_cost_ns;
	/* At summary_finish(): */
	uint64_t unreported;		/* processes whose last program left no report */
	uint64_t kind_count[KINDS];	/* ... by kind */
	/* KIND_LOST's names are "ERROR\tPROGRAM": each program by the error its reports met */
	struct names unreported_programs[KINDS];
	uint64_t *unreported_count[KINDS];	/* [unreported_programs[kind].n] */
	/*
	 * Images whose report came after the command's end (by end_realtime_ns;
	 * without it, of processes still running then that have reported since):
	 * the totals hold them up to that end, their rows their whole lives, so
	 * what no row holds is not known (rest_sums not counted); the share
	 * holds of them their loading and set-up (own_share.c).
	 */
	uint64_t outlived;
	struct names outlived_programs;
	/*
	 * Processes the kernel stopped counting at an exec that reported all the
	 * same (an image its user may execute but not read: the loader still
	 * preloads the shim there): their rows hold what the totals do not.
	 */
	uint64_t uncounted_reported;
	struct names uncounted_programs;
	/* ... their processes, by summary_process_key() (by boot and by host name): [2 x uncounted_reported] */
	uint64_t *uncounted_keys;
	bool rest_unknown;	/* either: what no row holds is not known */
	/*
	 * By summary event index [summary.nr_events]: the totals, what no row
	 * holds, pfshim's own share (not counted: not measured), the totals less it.
	 */
	struct summary_sum *total_sums, *rest_sums, *share_sums, *less_share_sums;
};

struct summary {
	struct summary_options opt;
	uint64_t reports;		/* whole pfshim.report objects read */
	uint64_t images;		/* process images counted (their last report) */
	/* ... whose last report is not their end (an interval or explicit one: running, or killed after it) */
	uint64_t images_unended;
	uint64_t processes;		/* distinct (host, pid namespace, pid) */
	uint64_t skipped;		/* inputs named on stderr and skipped */
	uint64_t first_start_ns;	/* earliest start_ns: the job's date */
	uint64_t series_start_ns;	/* earliest start_ns of a report with a seq: t=0 of the series */
	uint64_t bucket_ns;		/* the first interval_ns read: the series' step */
	int nr_events;
	struct summary_event *events;
	struct summary_sum *totals;	/* [nr_events] */
	int nr_groups;
	struct summary_group *groups;
	struct names group_keys;	/* groups[i] is group_keys.name[i] */
	struct names hosts, programs, region_names, metrics;	/* metrics[0] = "wall" */
	struct names machines;	/* summary_image.machine's */
	struct region_tree region_tree;	/* the reports' paths, over every thread and image */
	int nr_cells;
	struct summary_cell *cells;
	struct table_index cell_index;
	struct summary_misuse misuse;
	int nr_probes;
	struct summary_probe *probes;
	/* Reports with regions, and how many of them had the probe subtracted (PFSHIM_COMPENSATE=1). */
	uint64_t region_reports, compensated_reports;
	int nr_points;
	struct summary_point *points;
	struct table_index point_index;
	int nr_images;
	struct summary_image *image_list;
	/*
	 * Each image counted: when it started and when its report was written
	 * (start_ns + wall_ns), its program, and what its report adds to the
	 * job's share (own_share.c): a job's totals end with its command, and an
	 * image that reported later is taken out of the share again.
	 */
	int nr_ends;
	struct summary_end {
		uint64_t start_ns, end_ns;
		uint64_t share[SHARE_FIELDS];	/* its pfshim_share */
		uint64_t forks;
		uint64_t faults;	/* its count of event faults_event (page faults), or 0 */
		uint64_t process;	/* summary_process_key() of its process */
		int faults_event;	/* -1: none */
		int program;		/* in programs */
		bool has_share, loaded;
		bool exec_end;		/* its report is its exec's: an image before another */
	} *ends;
	int nr_seen;
	struct summary_seen *seen;
	struct table_index seen_index;
	int nr_pending;
	struct summary_pending *pending;
	struct table_index process_index;	/* of (host, ns, pid) hashes in process_keys */
	uint64_t *process_keys;			/* [processes] */
	/* Processes whose last image reported (a report of another reason than exec). */
	struct table_index ended_index;
	uint64_t *ended_keys;
	int nr_ended;
	/* The (image, seq) of every report put in the series: each once. */
	struct table_index series_index;
	uint64_t *series_keys;
	int nr_series;
	struct summary_share share;	/* the counted images' reports' pfshim_share */
	/*
	 * Images whose counted report was written at a signal (PFSHIM_ON_FATAL:
	 * killed by it), by "SIGNAME\tprogram", and how many of each.
	 */
	struct names signal_ends;
	uint64_t *signal_end_count;
	struct summary_job *job;	/* a pfshim.job read (pfshim run's), or NULL */
	struct metric_sums *metric_sums;	/* --metrics: NULL until a report has metrics */
	char *title;			/* argv0 of the earliest image read */
	uint64_t title_start_ns;
};

/*
 * Sums of counts saturate at INT64_MAX, the largest a JSON integer carries
 * (jansson's json_int_t): never a wrap, never a negative number.
 */
#define SUMMARY_COUNT_MAX ((uint64_t)INT64_MAX)

static inline void count_add(uint64_t *sum, uint64_t v)
{
	*sum = v > SUMMARY_COUNT_MAX - *sum ? SUMMARY_COUNT_MAX : *sum + v;
}

/* summary_init - an empty summary; it owns @opt's lists from now on. */
void summary_init(struct summary *s, const struct summary_options *opt);
void summary_free(struct summary *s);
void summary_job_free(struct summary_job *job);

/*
 * The key of a process (machine, pid namespace, pid), and whether a report
 * of its last image was read: one that is not an exec report (that image
 * was followed by another). The machine: the report's boot_id where it has
 * one (pfshim run's job), else its host name (summary_machine_of()).
 */
uint64_t summary_process_key(const char *machine, uint64_t pid_ns, int64_t pid);
bool summary_process_ended(const struct summary *s, uint64_t key);

/* An event's index in s->events, added if new (whatever --events says). */
int summary_event_index(struct summary *s, const char *name, const char *unit, double scale);
/* The group named @key (a program, rank, host or HOST:PID), made when new; @order: its rank or pid. */
int summary_group_get(struct summary *s, const char *key, int64_t order);
/* The cell of (region, group, metric): summary_cell_get() makes it when new, summary_cell() NULL. */
struct summary_cell *summary_cell_get(struct summary *s, int region, int group, int metric);
const struct summary_cell *summary_cell(const struct summary *s, int region, int group, int metric);

const char *summary_by_name(enum summary_by by);
/* The order groups are printed in: by first event (program, host), or by rank/pid. */
int *summary_groups_sorted(const struct summary *s);

/* Statistics of one region metric over the groups that have it. */
struct summary_stats {
	int groups;
	bool counted;
	uint64_t sum, min, max, threads, thread_min, thread_max;
	uint64_t calls, reentries, unclosed;
	double mean, imbalance;		/* imbalance: max / mean (1: balanced) */
};
void summary_region_stats(const struct summary *s, int region, int metric, struct summary_stats *st);

/*
 * tree.c: summary_images_by_pid - the images' indices sorted by machine, pid
 * namespace, pid and start: each process's images together, in exec order
 * (an array of nr_images + 1, the caller's to free).
 */
int *summary_images_by_pid(const struct summary *s);
/* tree.c: whether two images are of one process: the same (machine, pid namespace, pid). */
bool summary_images_one_process(const struct summary_image *a, const struct summary_image *b);

/* tree.c: images in tree order, with their depth; returns how many. */
int summary_tree(const struct summary *s, int **order, int **depth);

#endif
