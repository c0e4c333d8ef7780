/* SPDX-License-Identifier: MIT */
/*
 * config.h: what the environment asks of the shim (PFSHIM_*), read once in the
 * constructor. The first stage of the data flow: environment -> configuration.
 */
#ifndef PFSHIM_PRELOAD_CONFIG_H
#define PFSHIM_PRELOAD_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <limits.h>

#include "preload/events/events.h"
#include "preload/events/pmu.h"
#include "preload/scheduler.h"

#define CONFIG_SYSFS_DEFAULT PMU_SYSFS_ROOT	/* the root is spelled once, in pmu.h */

/* A rank is digits only (it goes into file names): at most 9 of them. */
#define CONFIG_RANK_MAX 10

/* Where launchers put the rank, in the order they are believed. */
#define CONFIG_RANK_VARIABLES "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"

enum config_format {
	FORMAT_TEXT, FORMAT_CSV, FORMAT_JSON, FORMAT_OPENMETRICS, FORMAT_PROMETHEUS, FORMAT_PAPI
};

struct config {
	bool disabled;			/* PFSHIM_DISABLE=1, or secure */
	bool secure;			/* secure-execution mode (AT_SECURE): inert */
	const char *events;		/* PFSHIM_EVENTS, or EVENTS_DEFAULT */
	const char *group;		/* PFSHIM_GROUP: a metric group's name or file, or NULL */
	const char *metrics;		/* PFSHIM_METRICS: metrics by name, a comma list, or NULL */
	enum config_format format;	/* PFSHIM_FORMAT */
	char output[PATH_MAX];		/* PFSHIM_OUTPUT: "stderr", "stdout" or a template */
	bool output_explicit;		/* PFSHIM_OUTPUT was set: no job directory (preload/output/job.c) */
	char rank[CONFIG_RANK_MAX];	/* the launcher's rank (OMPI_COMM_WORLD_RANK, ...), or "" */
	struct scheduler_job job;	/* the batch job (SLURM_JOB_ID, ...), if any */
	int signal;			/* PFSHIM_SIGNAL, 0 when off */
	bool on_fatal;			/* PFSHIM_ON_FATAL=1: report on a fatal signal */
	bool handover;			/* PFSHIM_HANDOVER=1: open the next image's counters at exec */
	bool run_job;			/* PFSHIM_RUN=1: a process of pfshim run's job (set by it) */
	uint64_t interval_ns;		/* PFSHIM_INTERVAL, 0 when off */
	bool compensate;		/* PFSHIM_COMPENSATE=1: regions less the markers' own cost */
	bool prometheus_keep;		/* PFSHIM_PROMETHEUS_KEEP=1: a directory's .prom outlives its image */
	const char *sysfs_root;		/* PFSHIM_SYSFS_ROOT (tests), or CONFIG_SYSFS_DEFAULT */
	const char *tracefs_root;	/* PFSHIM_TRACEFS_ROOT (tests), or NULL: the real ones */
};

typedef const char *(*config_getenv_fn)(const char *name);

/*
 * Every PFSHIM_* variable the shim and the programs beside it read: a name
 * not here is said to be unknown (config_names_check). PFSHIM_ADOPT is
 * pfshim run's hand-over (preload/counters/handover.h); PFSHIM_RUN marks its
 * job's processes (their lost reports are the runner's to name), and
 * PFSHIM_RUN_MACHINE says the runner's machine (process.c, boot_id_take()).
 */
#define CONFIG_VARIABLES \
	"PFSHIM_EVENTS", "PFSHIM_FORMAT", "PFSHIM_OUTPUT", "PFSHIM_SIGNAL", "PFSHIM_INTERVAL", \
	"PFSHIM_ON_FATAL", "PFSHIM_HANDOVER", "PFSHIM_COMPENSATE", "PFSHIM_DISABLE", \
	"PFSHIM_SYSFS_ROOT", "PFSHIM_TRACEFS_ROOT", "PFSHIM_ADOPT", "PFSHIM_JOB_MAX", \
	"PFSHIM_JOB_EXPIRE", "PFSHIM_GROUP", "PFSHIM_METRICS", "PFSHIM_PROMETHEUS_KEEP", \
	"PFSHIM_RUN", "PFSHIM_RUN_MACHINE", "PFSHIM_RESOLVED", \
	CONFIG_TEST_VARIABLES

/* pfshim's own test harness's (tests/): passed to the programs it runs under the shim. */
#define CONFIG_TEST_VARIABLES \
	"PFSHIM_PRELOAD", "PFSHIM_SANITIZER", "PFSHIM_TEST_FIXTURES", "PFSHIM_FUZZ_SYSFS", \
	"PFSHIM_JSON_CHECK", "PFSHIM_OM_CHECK", "PFSHIM_TEST_FORCE_NO_PAPI"

/*
 * config_names_check - one warning per PFSHIM_* name in @env that no part
 * of pfshim reads, with the closest known name: "PFSHIM_EVNETS: not a
 * pfshim variable (did you mean 'PFSHIM_EVENTS'?); ignored".
 */
void config_names_check(char *const *env, events_warn_fn warn);

/*
 * config_adopts_handover - would a shim configured as @next (config_read()
 * of an exec's environment) adopt counters opened for @ours
 * (preload/counters/handover.h)? Not when it is off, keeps interval reports
 * (its thread would be counted) or reads other events (their text, or the
 * sysfs or tracefs root that resolves it), nor with a metric group.
 */
bool config_adopts_handover(const struct config *next, const struct config *ours);

/*
 * config_read - fill @c from the variables @get_env returns. A malformed value
 * is reported through @warn (ctx = the variable's name) and its default used.
 */
void config_read(struct config *c, config_getenv_fn get_env, events_warn_fn warn);

/*
 * config_output_absolute - @output (a PFSHIM_OUTPUT template) made absolute
 * against @cwd into @out: a '%' of @cwd doubled, a template being what it
 * is. The first process under the shim does it, so that a descendant that
 * changes directory writes where that process meant (preload/process.c).
 * Return: 1 when @output is a relative path and @out holds it absolute, 0
 * when it is absolute, stderr or stdout (@out untouched), -ENAMETOOLONG.
 */
int config_output_absolute(char *out, size_t size, const char *output, const char *cwd);

/*
 * config_read_secure - config_read() with getauxval(AT_SECURE) given as
 * @secure: when true the shim is inert (disabled, nothing read from the
 * environment), whatever PFSHIM_* say.
 */
void config_read_secure(struct config *c, config_getenv_fn get_env, events_warn_fn warn,
			bool secure);

/*
 * pfshim_compat_v1_getenv - the value of the PFSHIM_* variable @name that
 * the user did not set, as other tools' variables imply it; NULL when they
 * imply none. Defined by libpfshim-compat.so (compat/env.c: LIKWID_EVENTS,
 * PAPI_EVENTS, PAPI_OUTPUT_DIRECTORY), and only there: a weak reference, so
 * that libpfshim.so asks only when the user preloads the compat library
 * too (preload/shim.c makes the reference weak: declared weak here, the
 * compat library's definition would be weak too). @get_env reads the
 * real environment; each problem goes to @warn once, with the other
 * tool's variable as ctx. Called from the constructor only
 * (preload/shim.c), never in secure-execution mode; the string returned
 * stays valid for the life of the process. docs/compat.md.
 */
const char *pfshim_compat_v1_getenv(const char *name, config_getenv_fn get_env,
				    events_warn_fn warn);

/* PFSHIM_INTERVAL's bounds: shorter would make the reports the work; longer is a typo. */
#define CONFIG_INTERVAL_MIN_NS	10000000ull		/* 10 ms */
#define CONFIG_INTERVAL_MAX_NS	86400000000000ull	/* 1 day */

/*
 * config_interval_parse - "500ms", "2s", "1m" or a plain number of
 * milliseconds ("250", as perf stat -I takes it) -> ns; -EINVAL if not a
 * duration, -ERANGE if outside CONFIG_INTERVAL_MIN_NS..CONFIG_INTERVAL_MAX_NS.
 */
int64_t config_interval_parse(const char *text);

/*
 * config_signal_parse - "USR1", "SIGUSR1", "10", "RTMIN+2" -> number;
 * -EINVAL if none, or if the signal cannot carry a report.
 */
int config_signal_parse(const char *text);

/*
 * config_signal_refusal - why @signo cannot carry a report ("cannot be
 * caught", ...), to follow its name in a message; NULL when it can.
 */
const char *config_signal_refusal(int signo);

#endif
