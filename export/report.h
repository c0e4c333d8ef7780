/* SPDX-License-Identifier: MIT */
/*
 * report.h: the report model, the one structure every writer formats.
 *
 * preload/ fills a struct report from what it read; export/ turns it into
 * text, CSV, JSON or OpenMetrics. The writers are async-signal-safe
 * (PFSHIM_SIGNAL reports are formatted inside a signal handler): they only
 * write into the caller's buffer, never allocate, lock or use stdio.
 */
#ifndef PFSHIM_EXPORT_REPORT_H
#define PFSHIM_EXPORT_REPORT_H

#include <stddef.h>
#include <stdint.h>

/* 3: reason "interval", seq, interval_ns, delta; 4: region values less the probe (compensated) */
#define REPORT_SCHEMA_VERSION 4

/*
 * The machine's boot, as the reports of pfshim run's job (boot_id) and its
 * job count name it: unlike the host name, no UTS namespace changes it.
 */
#define REPORT_BOOT_ID_PATH "/proc/sys/kernel/random/boot_id"

/* Exited threads a report lists one by one; the others are in its regions' totals only. */
#define REPORT_THREADS_LISTED 256

enum report_reason {
	REPORT_EXIT,		/* exit(), return from main, _exit(), _Exit() */
	REPORT_EXEC,		/* just before an exec*() replaces the image */
	REPORT_SIGNAL,		/* the PFSHIM_SIGNAL signal arrived */
	REPORT_EXPLICIT,	/* pfshim_report() */
	REPORT_INTERVAL,	/* every PFSHIM_INTERVAL (preload/interval.c) */
};

enum report_status {
	STATUS_COUNTED,		/* value is meaningful (maybe scaled) */
	STATUS_NOT_COUNTED,	/* opened, but never ran (running == 0) */
	STATUS_NOT_SUPPORTED,	/* open failed: ENOENT, EOPNOTSUPP, ... */
	STATUS_CLOSED,		/* the program closed (or reused) the counter's descriptor */
};

/*
 * What an event counts, as the resolver that named it knew it
 * (preload/events/), whatever alias or modifiers the user wrote: the metrics
 * pair events by it, so "cpu-cycles:u" pairs with "instructions:u".
 */
enum report_kind {
	REPORT_KIND_UNKNOWN,	/* not said (a report built by hand) */
	REPORT_KIND_HARDWARE,	/* a generic hardware event with no metric (bus-cycles, ...) */
	REPORT_KIND_CYCLES,
	REPORT_KIND_INSTRUCTIONS,
	REPORT_KIND_BRANCHES,
	REPORT_KIND_BRANCH_MISSES,
	REPORT_KIND_CACHE_REFERENCES,
	REPORT_KIND_CACHE_MISSES,
	REPORT_KIND_TASK_CLOCK,
	REPORT_KIND_CPU_CLOCK,
	REPORT_KIND_SOFTWARE,	/* faults, switches, migrations: shown as rates */
	REPORT_KIND_CACHE,	/* a hardware-cache event (L1-dcache-loads, ...) */
	REPORT_KIND_RAW,	/* rNNNN */
	REPORT_KIND_PMU,	/* <pmu>/<terms>/ or a sysfs alias */
	REPORT_KIND_TRACEPOINT,	/* subsys:name, from tracefs */
};

struct report_event {
	const char *name;	/* as the user wrote it, modifiers included */
	enum report_kind kind;
	const char *unit;	/* "msec" for the clocks, sysfs .unit, or "" */
	double scale;		/* multiply value by this for display (1.0 if none) */
	uint64_t raw;		/* the count as read */
	uint64_t value;		/* raw scaled by enabled/running */
	uint64_t enabled;	/* ns */
	uint64_t running;	/* ns */
	int64_t delta;		/* value - value at the previous report of this image */
	enum report_status status;
	int error;		/* errno of the failed open when NOT_SUPPORTED */
	unsigned user_only : 1;	/* retried with exclude_kernel/hv (permissions) */
	unsigned zero_when_user_only : 1; /* the kernel never counts it in user mode */
	unsigned scaled : 1;	/* enabled != running: value was extrapolated */
	unsigned has_delta : 1;	/* delta was computed (a report built by hand has none) */
	/*
	 * A machine of several core PMUs (Intel hybrid, arm64 big.LITTLE) counts
	 * a generic event once per core PMU: each part names its PMU, and the
	 * sum of the parts lists them (docs/events.md "Hybrid machines").
	 * NULL and 0 everywhere else.
	 */
	const char *pmu;	/* a part: its core PMU ("cpu_core"); value never extrapolated */
	int nr_parts;		/* a sum: how many parts */
	const int *parts;	/* a sum: their indices in report.events */
};

/*
 * Regions of the marker API (pfshim.h), when the program used it. Each
 * region value is the sum over completed calls of (end - begin), inclusive
 * of nested regions, scaled by the enabled/running sums of its thread's
 * group: per-thread groups compete with the totals for counters, and the
 * scaling says so.
 */
struct report_region_value {
	uint64_t value;		/* raw scaled by enabled/running */
	uint64_t raw;
	uint64_t enabled;	/* ns, summed over calls */
	uint64_t running;	/* ns, summed over calls */
	enum report_status status;	/* COUNTED, or NOT_COUNTED (never ran) */
	unsigned scaled : 1;
};

#define REPORT_NONE UINT64_MAX	/* a per-call min/max with no call to take it from */

/* One region of one thread. */
struct report_region {
	const char *name;
	uint64_t calls;		/* completed outermost calls */
	uint64_t reentries;	/* begins of a region already open: counted once */
	uint64_t open;		/* 1 when open at the report (live threads) */
	uint64_t unclosed;	/* misuse: open at its thread's exit, or at a final report */
	uint64_t wall_ns;
	uint64_t wall_min_ns, wall_max_ns;	/* per call; REPORT_NONE without calls */
	uint64_t first_min, first_max;		/* per call, first region event; REPORT_NONE */
	const struct report_region_value *values;	/* [report_regions.nr_events] */
	int parent;		/* a path node: its parent's index in the thread's paths; -1 top */
};

struct report_thread {
	int tid;
	const char *name;	/* comm at thread setup or exit */
	int exited;		/* 0: still running at the report */
	int skipped;		/* its table was being written (a signal inside a marker call) */
	int open_error;		/* errno of a counter group this thread could not open */
	uint64_t user_reads;	/* counter reads served from user space */
	uint64_t syscall_reads;	/* ... that took read(2) */
	uint64_t read_errors;
	uint64_t end_without_begin, bad_handle, table_full;	/* misuse */
	uint64_t unnested;	/* misuse: a region ended while one begun inside it was open */
	/*
	 * [report_regions.nr_events] the markers' own count per call in this
	 * thread (an empty begin/end pair, measured at its set-up:
	 * preload/markers/probe.c); NULL when it has none.
	 */
	const struct report_region_value *probe;
	int nr_regions;
	const struct report_region *regions;	/* per region: the sums over its paths */
	/*
	 * The nesting paths: one node per region per parent node, parents
	 * first, each with its own calls and sums (inclusive of the nodes
	 * below it); a region's entry in regions is the sum of its nodes.
	 */
	int nr_paths;
	const struct report_region *paths;
};

/* A value over threads: the sum, min, max and mean of each thread's total. */
struct report_region_stat {
	uint64_t sum, min, max, mean;
	int threads;		/* threads it was counted in; 0: status NOT_COUNTED */
	enum report_status status;
	unsigned scaled : 1;	/* some thread's value was extrapolated */
};

struct report_region_total {
	const char *name;
	int threads;		/* threads with this region */
	uint64_t calls, reentries, unclosed;
	uint64_t first_min, first_max;		/* per call, over every thread */
	struct report_region_stat wall;
	const struct report_region_stat *values;	/* [nr_events] */
};

struct report_regions {
	int nr_events;
	const int *event;	/* index in report.events of each region event */
	int capacity;		/* regions one thread can hold */
	int nr_threads;
	const struct report_thread *threads;
	int nr_totals;
	const struct report_region_total *totals;
	uint64_t threads_unlisted;	/* exited threads counted in the totals only */
	uint64_t names_refused;		/* pfshim_region() calls refused (bad name, table full) */
	uint64_t threads_failed;	/* threads whose marker state could not be set up */
	const char *note;		/* why some region data is missing, or NULL */
	const char *user_read_problem;	/* why reads cannot come from user space here, or NULL */
	int compensated;		/* PFSHIM_COMPENSATE=1: region values are less calls x probe */
	/* [nr_events] each thread's probe, over threads (sum, min, max, mean); NULL: none */
	const struct report_region_stat *probe;
};

/*
 * pfshim's own share of the report's counts (preload/share.c): its set-up and
 * its reports up to this one's last read, as the kernel counted them for the
 * threads that did the work. The loader's work for the library is not in it.
 */
struct report_share {
	unsigned measured : 1;		/* 0: a report built by hand, or of an unforked copy: none */
	unsigned loaded : 1;		/* the image loaded the library (an exec), not a fork child's */
	unsigned setup_measured : 1;	/* 0: the set-up could not be read */
	unsigned reports_measured : 1;	/* 0: a report under the program's seccomp filter added nothing */
	uint64_t page_faults, context_switches, task_clock_ns;
	/* Of which the set-up's: what an image that never reports costs (pfshim run's calibration). */
	uint64_t setup_page_faults, setup_context_switches, setup_task_clock_ns;
	uint64_t forks;		/* children the image forked (fork(), forkpty()): each costs more */
};

/* The batch job of the process, as its scheduler's variables name it (preload/scheduler.c). */
struct report_job {
	const char *scheduler;	/* "slurm", "flux", "lsf", "pbs" */
	const char *id;
	const char *step;	/* NULL when none (only Slurm's steps have one) */
};

/*
 * A derived metric of the run's metric group (PFSHIM_GROUP,
 * preload/metrics/group.h): computed from the report's counts with the
 * group's formula, at every report.
 */
enum report_metric_status {
	METRIC_COMPUTED,	/* value is meaningful */
	METRIC_NOT_COUNTED,	/* a name it needs has no count here: @missing, @why */
	METRIC_UNDEFINED,	/* a division by zero for these counts */
};

/*
 * What a name of a metric's formula stands for, so that a reader of the
 * report can compute the metric again from other counts (pfshim report
 * --metrics sums the events of many reports first, then computes).
 */
enum report_input_source {
	INPUT_EVENT,		/* the count of events[@event] */
	INPUT_TIME,		/* the seconds the counts cover */
	INPUT_INVERSE_CLOCK,	/* @value: seconds per cycle at the CPU's base clock */
	INPUT_NONE,		/* no value here: the metric says why */
};

struct report_metric_input {
	const char *name;	/* as the formula writes it: "PMC0", "PMC3:EDGEDETECT", "time" */
	enum report_input_source source;
	int event;		/* INPUT_EVENT: index in the report's events */
	double value;		/* INPUT_INVERSE_CLOCK */
};

struct report_metric {
	const char *name;	/* "Branch misprediction ratio" */
	const char *unit;	/* "MBytes/s", or "" */
	const char *formula;	/* as the group writes it, over its counter names */
	double value;
	enum report_metric_status status;
	const char *missing;	/* NOT_COUNTED: the counter or name without a value */
	const char *why;	/* NOT_COUNTED: "not counted", "unknown here", ... */
	unsigned scaled : 1;	/* an event it uses was extrapolated (multiplexed) */
	unsigned nr_inputs;
	const struct report_metric_input *inputs;	/* [nr_inputs]: one per name of the formula */
};

struct report {
	const char *program;	/* basename of /proc/self/exe */
	const char *argv0;
	/*
	 * What the process was started as (preload/identity.h): @argv_kept of
	 * its @argc arguments, each NUL-terminated, one after the other; NULL
	 * when unknown. argv_truncated: an argument was cut or left out.
	 */
	const char *argv;
	int argv_kept;
	int argc;
	unsigned argv_truncated : 1;
	unsigned has_exit_status : 1;	/* exit_status is known */
	unsigned has_cpu_times : 1;	/* user_ns and system_ns were read */
	const char *cwd;	/* the working directory at start; NULL when unknown */
	int exit_status;	/* REPORT_EXIT: what exit()/_exit() passed, as wait() sees it (0..255) */
	uint64_t user_ns, system_ns;	/* the process's CPU time at the report (getrusage) */
	int pid;
	int ppid;
	uint64_t pid_ns;	/* inode of the pid namespace; 0 in the initial one (or unknown) */
	const char *hostname;
	const char *boot_id;	/* the machine's boot under pfshim run (its job's identity); or NULL */
	const char *rank;	/* the launcher's rank (digits), NULL when none */
	const struct report_job *job;	/* NULL: not in a batch job */
	uint64_t start_ns;	/* CLOCK_REALTIME at the constructor */
	uint64_t wall_ns;	/* CLOCK_MONOTONIC from constructor to report */
	enum report_reason reason;
	int signo;		/* with REPORT_SIGNAL */
	uint64_t seq;		/* number in this image's series (1, 2, ...); 0 without PFSHIM_INTERVAL */
	uint64_t interval_ns;	/* PFSHIM_INTERVAL; 0 when off */
	int nr_events;
	const struct report_event *events;
	const struct report_regions *regions;	/* NULL: the marker API was not used */
	struct report_share share;
	const char *metric_group;	/* PFSHIM_GROUP's name, or NULL */
	int nr_metrics;
	const struct report_metric *metrics;	/* [nr_metrics] */
	/*
	 * The span the metrics cover, ns: an interval report's are the
	 * interval's (its events' deltas over the time since the previous
	 * report), any other report's the whole image's (wall_ns).
	 */
	uint64_t metrics_ns;
	/*
	 * The metrics of a region over its threads, into @out[nr_metrics]
	 * (the writers' scratch: one region at a time); NULL without a group.
	 * Async-signal-safe.
	 */
	void (*region_metrics)(const struct report *r, const struct report_region_total *t,
			       struct report_metric *out);
	struct report_metric *region_metrics_out;	/* [nr_metrics]: the scratch */
};

/*
 * report_format_text/csv/json/openmetrics/prometheus/papi - format @r into @buf (at
 * most @size bytes, always NUL-terminated when size > 0). prometheus is the
 * Prometheus text format 0.0.4 (node_exporter's textfile collector),
 * openmetrics OpenMetrics 1.0.
 *
 * Return: the length the whole report needs, excluding the NUL, as snprintf
 * does: a result >= @size means the output was truncated and the caller
 * should retry with a larger buffer. Async-signal-safe.
 */
size_t report_format_text(const struct report *r, char *buf, size_t size);
size_t report_format_csv(const struct report *r, char *buf, size_t size);
size_t report_format_json(const struct report *r, char *buf, size_t size);
size_t report_format_openmetrics(const struct report *r, char *buf, size_t size);
/* report_format_papi - the regions as PAPI 7's high-level JSON; nothing (0) without regions. */
size_t report_format_papi(const struct report *r, char *buf, size_t size);
size_t report_format_prometheus(const struct report *r, char *buf, size_t size);

const char *report_reason_name(enum report_reason reason);
const char *report_status_name(enum report_status status);
const char *report_metric_status_name(enum report_metric_status status);
const char *report_input_source_name(enum report_input_source source);

/*
 * report_region_event - the event of @r->events that region event @e
 * counts, or NULL; report_region_event_name - its name, or "?".
 */
const struct report_event *report_region_event(const struct report *r, int e);
const char *report_region_event_name(const struct report *r, int e);

#endif
