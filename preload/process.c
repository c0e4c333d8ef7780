/* SPDX-License-Identifier: MIT */
/*
 * process.c: the shim's state for one process image, from the constructor's
 * configuration to the report written at exit, exec or signal.
 * Everything a report needs is gathered at start, so that writing one
 * (process_report) is async-signal-safe: read(2)s, formatting into memory
 * of its own (the .bss for the report that ends the image, else mmap()ed),
 * one write(2).
 */
#include "preload/process.h"

#include <errno.h>
#include <linux/kcmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "fastread/sysfile.h"	/* boot_id_take() */
#include "preload/actions.h"
#include "preload/counters/handover.h"
#include "preload/events/pfm_answers.h"
#include "preload/fd.h"
#include "preload/identity.h"
#include "preload/interval.h"
#include "preload/output/job.h"
#include "preload/markers/markers.h"
#include "preload/output/output.h"
#include "preload/output/dir.h"
#include "preload/prefault.h"
#include "preload/sandbox.h"
#include "preload/share.h"
#include "preload/warn.h"

/*
 * process.final_report, the claim that keeps this image's reports one at a
 * time (the series' numbers and deltas, dir.c's published name): NONE, the
 * tid of the thread writing the exit/exec report, WRITTEN once it is
 * written, or CLAIM_OTHER(tid) while a thread writes any other report.
 */
#define FINAL_REPORT_NONE	0
#define FINAL_REPORT_WRITTEN	(-1)
#define CLAIM_OTHER(tid)	(-(tid) - 1)
/* How long a second exit waits for the first one's report: a blocked write must not hang it. */
#define FINAL_REPORT_WAIT_MS	2000

/*
 * The claims' thread ids: a number of our own per thread, handed out on
 * first use, not gettid(): a system call, which the program's seccomp
 * filter may kill it for (sandbox.h). A fork child's one thread keeps its
 * number, and is alone in its process.
 */
static atomic_int thread_ids PREFAULT_DATA;	/* written by every report */
static __thread int thread_id __attribute__((tls_model("initial-exec")));

static int process_thread_id(void)
{
	if (!thread_id)
		thread_id = atomic_fetch_add(&thread_ids, 1) + 1;
	return thread_id;
}

struct process process __attribute__((aligned(4096)));

/*
 * syscall(), not clock_gettime(): three calls per process, and libc's
 * clock_gettime() lies in 64 KiB of its code that a program such as
 * /bin/true never touches, which one call would fault in (fault-around).
 */
static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void copy_name(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static void program_name_read(void)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *base;

	if (n <= 0) {
		copy_name(process.program, sizeof(process.program), process.argv0);
		return;
	}
	exe[n] = '\0';
	base = strrchr(exe, '/');
	copy_name(process.program, sizeof(process.program), base ? base + 1 : exe);
}

static void clocks_start(void)
{
	process.pid = getpid();
	process.start_realtime_ns = clock_ns(CLOCK_REALTIME);
	process.start_monotonic_ns = clock_ns(CLOCK_MONOTONIC);
	atomic_store(&process.final_report, FINAL_REPORT_NONE);
	atomic_store(&process.exit_status, -1);
}

/*
 * Whether this image leaves a problem of the whole job's to pfshim run: its
 * streams are the command's, untouched (docs/pfshim.md), where a line would
 * be in the program's data once per process. The runner says a refusal of
 * perf_event_open it meets before the job, once, and names each process
 * that left no report (one refused in a part of the job leaves none); each
 * event's error (EMFILE under a small RLIMIT_NOFILE) is in the reports.
 */
static bool runner_speaks(void)
{
	return process.config.run_job;
}

/* pfshim_report(), through the markers. */
static void report_explicit(void)
{
	process_report(REPORT_EXPLICIT, 0);
}

/*
 * The counters, when the host's descriptor table has room for them above
 * its soft limit or in the band (fd.c); else none, each reported as EMFILE,
 * and one line that says why. Their descriptors are never left below.
 */
static void counters_start(void)
{
	/* The events of the previous image or the parent: this image's deltas start from 0. */
	atomic_store(&process.seq, 0);
	atomic_store(&process.previous_wall_ns, 0);
	for (int i = 0; i < EVENTS_MAX; i++)
		atomic_store(&process.previous[i], 0);
	if (fd_room_away()) {
		counters_open(&process.counters, &process.events);
		return;
	}
	counters_none(&process.counters, &process.events, EMFILE);
	if (!process.budget_warned && !runner_speaks())
		warn_line("RLIMIT_NOFILE is under 256: pfshim takes no descriptor from a table "
			  "that small, and counts nothing (raise the limit, or its hard limit, to count)",
			  NULL);
	process.budget_warned = true;
}

/*
 * The counters opened before the exec that made this image, by `pfshim
 * run` or by the previous image under PFSHIM_HANDOVER=1 (PFSHIM_ADOPT):
 * counting since the exec, the loader's work included. The variable goes
 * from the environment first, so that no child of the program sees numbers
 * that are not its descriptors. An interval thread, already made, would be
 * counted by them (interval.c): then, as when they are not for these
 * events, they are closed and the shim opens its own. Return: whether
 * they were adopted.
 */
extern char **environ;

/*
 * Remove @name from environ in place, as glibc's unsetenv() does; not
 * unsetenv() itself: bash defines its own, which before bash's main() knows
 * no variables and removes nothing, and bash then exports PFSHIM_ADOPT to
 * every command it runs.
 */
static void environ_remove(const char *name)
{
	size_t len = strlen(name);

	for (char **e = environ; e && *e; ) {
		if (!strncmp(*e, name, len) && (*e)[len] == '=') {
			for (char **d = e; (d[0] = d[1]) != NULL; d++)
				;
		} else {
			e++;
		}
	}
}

/*
 * A relative PFSHIM_OUTPUT, made absolute against this process's working
 * directory, here and in the environment its descendants inherit: they
 * write where it meant, whatever directory they (or it) change to. The
 * shim owns PFSHIM_* variables; the entry is replaced in place (a static
 * string: no malloc before main, and not setenv(): bash's own would not
 * see it, as environ_remove() says). Only a process that finds the value
 * relative does it, so the first one. Without a working directory (deleted,
 * or a path too long) the value stays as it was.
 */
static void output_make_absolute(void)
{
	static char entry[sizeof("PFSHIM_OUTPUT=") + PATH_MAX];
	const size_t len = sizeof("PFSHIM_OUTPUT=") - 1;

	if (!process.config.output_explicit || !process.cwd ||
	    config_output_absolute(entry + len, sizeof(process.config.output),
				   process.config.output, process.cwd) != 1)
		return;
	strcpy(process.config.output, entry + len);
	memcpy(entry, "PFSHIM_OUTPUT=", len);
	for (char **e = environ; e && *e; e++)
		if (!strncmp(*e, entry, len))
			*e = entry;
}

/*
 * The working directory the reports name: read here, at start, never at a
 * report, which may come under the program's seccomp filter (sandbox.h);
 * and the one reading serves output_make_absolute() too.
 */
static void cwd_read(void)
{
	int saved_errno = errno;
	char *at = process.identity_text + process.argv_bytes;

	process.cwd = getcwd(at, IDENTITY_CWD_BYTES) ? at : NULL;
	errno = saved_errno;
}

/*
 * Under pfshim run, the machine's boot, which the summary identifies the
 * job's processes by (host, pid namespace and pid, the host a UTS namespace
 * may rename): taken at start, never at a report (sandbox.h), and a fork
 * child keeps its parent's. The runner says its own (PFSHIM_RUN_MACHINE:
 * "BOOT_ID HOST"): an image whose host name is the runner's takes it from
 * there; one of another name (a UTS namespace, or another machine the
 * environment reached, as srun passes it) reads its own, a cold lookup in
 * /proc/sys of 16-24 us a process. Not without pfshim run: of use only
 * beside the runner's job count.
 */
static void boot_id_take(config_getenv_fn get_env)
{
	const size_t len = 36;	/* a UUID as the kernel writes it */
	const char *machine = get_env("PFSHIM_RUN_MACHINE");
	int saved_errno = errno;
	struct utsname uts;

	process.boot_id[0] = '\0';
	if (!process.config.run_job)
		return;
	if (machine && strspn(machine, "0123456789abcdef-") == len && machine[len] == ' ' &&
	    uname(&uts) == 0 && strcmp(machine + len + 1, uts.nodename) == 0) {
		memcpy(process.boot_id, machine, len);
		process.boot_id[len] = '\0';
	} else if (sysfile_read(REPORT_BOOT_ID_PATH, process.boot_id, sizeof(process.boot_id)) <= 0) {
		process.boot_id[0] = '\0';
	}
	errno = saved_errno;
}

static bool counters_adopt(const char *handed)
{
	int ret;

	if (!handed)
		return false;
	environ_remove(HANDOVER_VAR);
	ret = handover_adopt(&process.counters, &process.events, process.config.events,
			     !process.config.interval_ns, handed);
	if (ret == -EINVAL)
		warn_line(HANDOVER_VAR ": names no counters handed to this process; its "
			  "descriptors are left alone, and counting starts with the shim", NULL);
	return ret == 0;
}

/*
 * What libpfm4 answered the image that exec'd us, or the process that
 * spawned us (pfm_answers.h): taken when it was meant for this process,
 * and out of the environment either way.
 */
static void answers_take(config_getenv_fn get_env)
{
	const char *handed = get_env(PFM_ANSWERS_VAR);

	if (!handed)
		return;
	if (!process.config.disabled && pfm_answers_take(handed, getpid()) < 0)
		pfm_answers_take(handed, getppid());
	environ_remove(PFM_ANSWERS_VAR);
}

static void report_interval_tick(void)
{
	process_report_interval();
}

/* The interval thread, before the counters are opened: it must not inherit them (interval.c). */
static void interval_begin(void)
{
	if (!process.config.interval_ns)
		return;
	if (interval_start(process.config.interval_ns, report_interval_tick) < 0) {
		warn_line("PFSHIM_INTERVAL: no thread for the interval reports (pthread_create "
			  "failed); only the final report", NULL);
		process.config.interval_ns = 0;
	}
}

/*
 * perf_event_open refused (counters_refused): it holds for the children too
 * (a seccomp filter is inherited), so nothing can count; the shim says so
 * once, for the whole job, and stays out of the way, as when it is off.
 */
static void counters_refused_stand_aside(void)
{
	if (process.config.interval_ns)
		interval_stop_for_good();
	if (!runner_speaks())
		warn_line(COUNTERS_REFUSED_WHY ": nothing is counted and no report written. "
			  COUNTERS_REFUSED_FIX "; PFSHIM_DISABLE=1 turns pfshim off without this line",
			  NULL);
	job_root_has_spoken();
	fd_stream_release();
}

/*
 * PFSHIM_GROUP and PFSHIM_METRICS: the group's events are counted after
 * PFSHIM_EVENTS' (the text for events_parse() is returned, and @ctx set to
 * what its warnings name), and its metrics computed at every report
 * (report_write()).
 */
static const char *metrics_start(const char *events, const char **ctx)
{
	static struct metric_group group;
	static char names[96];
	char why[512], *text;

	*ctx = "PFSHIM_EVENTS";
	if (!process.config.group && !process.config.metrics)
		return events;
	/* Not set by the user: the compat library's answer for a LIKWID_EVENTS group. */
	const char *variable = process.config.metrics ? "PFSHIM_METRICS" :
			       getenv("PFSHIM_GROUP") ? "PFSHIM_GROUP" : "LIKWID_EVENTS";
	char note[768];
	const struct metric_request q = {
		process.config.metrics, process.config.group, METRIC_GROUP_ROOT, "/proc/cpuinfo",
		process.config.sysfs_root, events, "/sys/devices/system/cpu"
	};
	int err = process.config.metrics ?
		metric_group_open_named(&q, &group, why, sizeof(why), note, sizeof(note)) :
		metric_group_open(process.config.group, METRIC_GROUP_ROOT, "/proc/cpuinfo", events,
				  &group, why, sizeof(why));

	/* One line: what could not be had says why nothing is left, when nothing is. */
	if (process.config.metrics && note[0])
		warn_message((void *)variable, note);
	else if (err)
		warn_message((void *)variable, why);
	if (err)
		return events;
	text = malloc(strlen(events) + strlen(group.events_text) + 2);
	if (!text) {
		metric_group_free(&group);
		return events;
	}
	strcpy(text, events);
	if (*group.events_text) {
		strcat(text, ",");
		strcat(text, group.events_text);
	}
	snprintf(names, sizeof(names), "PFSHIM_EVENTS and %s %s", variable, group.name);
	*ctx = names;
	process.metrics = &group;
	return text;
}

void process_start(int argc, char **argv, config_getenv_fn get_env)
{
	const char *events_text, *events_ctx;
	const char *argv0 = argc > 0 && argv ? argv[0] : NULL;

	/*
	 * The pages of process that every image writes, each in one system
	 * call rather than a fault (prefault.h): its fields and configuration
	 * now, its first events (the default list's 8 take 3 KiB) and the
	 * start of its command line once it counts.
	 */
	prefault_populate(&process, offsetof(struct process, events));
	job_start(get_env, clock_ns(CLOCK_REALTIME));
	config_read(&process.config, get_env, warn_message);
	answers_take(get_env);
	if (process.config.disabled)
		return;
	prefault_populate(&process.events, 4096);
	prefault_populate(process.identity_text, 1);
	process.argc = argv ? argc : 0;
	process.argv_bytes = identity_argv_copy(process.identity_text, process.argc, argv,
						&process.argv_kept, &process.argv_truncated);
	cwd_read();
	output_make_absolute();
	/*
	 * pfshim's own share of this image starts here (share.h): what came
	 * before is done with the shim off too, and pfshim run measures it with
	 * the loader's work (tools/pfshim/run/calibrate.h).
	 */
	share_setup_begin();
	boot_id_take(get_env);
	config_names_check(environ, warn_message);
	events_text = metrics_start(process.config.events, &events_ctx);
	events_parse(events_text, process.config.sysfs_root, process.config.tracefs_root,
		     &process.events, warn_message, (void *)events_ctx);
	if (process.metrics)
		metric_group_bind(process.metrics, &process.events, "/sys/devices/system/cpu");
	if (process.events.nr == 0) {
		warn_line("PFSHIM_EVENTS: no event left to count; pfshim is off for this program", NULL);
		process.pid = getpid();		/* its crumb goes at exit: report_final() */
		return;
	}
	copy_name(process.argv0, sizeof(process.argv0), argv0 ? argv0 : "");
	program_name_read();
	clocks_start();
	/*
	 * A job's descendant writes nothing on its streams, ever (job.h; its
	 * warnings are muted): none is recorded or duplicated, which saved it
	 * 3 system calls and a descriptor.
	 */
	process.stream_fd = job_role() == JOB_DESCENDANT || job_role() == JOB_DROPPED ? -1 :
			    output_stream_open(process.config.output);
	interval_begin();
	process.since_exec = counters_adopt(get_env(HANDOVER_VAR));
	if (!process.since_exec)
		counters_start();
	if (counters_refused(&process.counters)) {
		counters_refused_stand_aside();
		return;
	}
	markers_start(&(struct markers_host){
		.events = &process.events,
		.totals = &process.counters,
		.is_self = process_is_self,
		.report = report_explicit,
		.compensate = process.config.compensate,
	});
	process.active = true;
	atomic_store(&process.interval_ready, true);
}

/* The next image's counters (PFSHIM_HANDOVER=1), from its exec until it adopts them. */
static struct counter_set next_image;

/* The value of @name in @envp, or NULL. */
static const char *env_in(char *const envp[], const char *name)
{
	size_t len = strlen(name);

	for (char *const *e = envp; e && *e; e++)
		if (!strncmp(*e, name, len) && (*e)[len] == '=')
			return *e + len + 1;
	return NULL;
}

/* Does @envp's LD_PRELOAD name a libpfshim.so? */
static bool env_names_shim(char *const envp[])
{
	const char *preload = env_in(envp, "LD_PRELOAD"), *word, *end, *base;
	bool named = false;

	for (word = preload; word && *word; word = *end ? end + 1 : end) {
		end = word + strcspn(word, " :");
		base = word;
		for (const char *c = word; c < end; c++)
			if (*c == '/')
				base = c + 1;
		named |= end - base == (ptrdiff_t)strlen("libpfshim.so") &&
			 !strncmp(base, "libpfshim.so", (size_t)(end - base));
	}
	return named;
}

/*
 * The exec's environment, while next_image_adopts() reads it: per thread,
 * as two threads may exec at once; initial-exec, as the markers' (no
 * __tls_get_addr, so no link to the dynamic loader).
 */
static __thread char *const *next_envp __attribute__((tls_model("initial-exec")));

static const char *next_env(const char *name)
{
	return env_in(next_envp, name);
}

/* The next image's shim says what is wrong with its variables itself. */
static void quiet(void *ctx, const char *message)
{
	(void)ctx;
	(void)message;
}

/*
 * Will the image that @envp starts adopt counters opened for ours? Its
 * LD_PRELOAD names the shim, and its variables, read by the code its shim
 * will read them with (config_read_secure(); AT_SECURE is
 * handover_target_ok()'s to rule out), leave it on for our events:
 * PFSHIM_DISABLE=yes is off there as here, PFSHIM_INTERVAL=soon is no
 * interval there either.
 */
static bool next_image_adopts(char *const envp[])
{
	struct config next;

	if (!env_names_shim(envp))
		return false;
	next_envp = envp;
	config_read_secure(&next, next_env, quiet, false);
	next_envp = NULL;
	return config_adopts_handover(&next, &process.config);
}

const char *process_handover_open(const char *file, bool search, char *const envp[])
{
	static char value[sizeof(HANDOVER_VAR "=") + HANDOVER_MAX];
	const size_t prefix = sizeof(HANDOVER_VAR "=") - 1;
	int saved_errno = errno;
	const char *ret = NULL;

	if (!process.config.handover || sandbox_filtered() || !process_is_self() ||
	    !next_image_adopts(envp))
		return NULL;
	/* execve() takes a name without '/' as a path in the working directory. */
	memcpy(value, HANDOVER_VAR "=", prefix);
	if (handover_target_ok(file, search ? getenv("PATH") : "") && fd_room_away() &&
	    handover_open(&next_image, &process.events, process.config.events, value + prefix,
			  sizeof(value) - prefix) == 0)
		ret = value;
	errno = saved_errno;
	return ret;
}

/*
 * The most the answers' hand-over takes of the exec's stack, beside what
 * the exec takes without them: the value, and a pointer an entry of the
 * environment's copy. A thread's stack may be small, and no exec may
 * overflow it for an optimisation: past either, the next image asks
 * libpfm4 itself.
 */
#define ANSWERS_VALUE_MAX	2048
#define ANSWERS_ENV_MAX		512

size_t process_answers_size(char *const envp[])
{
	size_t size, n = 0;

	if (!pfm_answers_kept)
		return 0;
	for (char *const *e = envp; e && *e && n <= ANSWERS_ENV_MAX; e++)
		n++;
	size = sizeof(PFM_ANSWERS_VAR "=") + pfm_answers_size();
	return n <= ANSWERS_ENV_MAX && size <= ANSWERS_VALUE_MAX ? size : 0;
}

/*
 * Will @file (searched in PATH when @search) name the same file wherever
 * the working directory is? posix_spawn()'s file actions may change it
 * (posix_spawn_file_actions_addchdir_np()) before its exec.
 */
static bool path_absolute(const char *file, bool search)
{
	const char *path = getenv("PATH"), *end;

	if (strchr(file, '/') || !search)
		return file[0] == '/';
	for (; path; path = *end ? end + 1 : NULL) {
		end = path + strcspn(path, ":");
		if (*path != '/')	/* an empty element is the working directory */
			return false;
	}
	return true;	/* glibc's default, "/bin:/usr/bin" */
}

const char *process_answers_for(const char *file, bool search, bool cwd_ours,
				char *const envp[], char *buf, size_t size)
{
	const size_t prefix = sizeof(PFM_ANSWERS_VAR "=") - 1;
	int saved_errno = errno;
	const char *ret = NULL;

	/* Only for an image whose shim will take them: none other must see them. */
	if (size <= prefix || sandbox_filtered() || !env_names_shim(envp) ||
	    (!cwd_ours && !path_absolute(file, search)) ||
	    !handover_target_ok(file, search ? getenv("PATH") : ""))
		return NULL;
	memcpy(buf, PFM_ANSWERS_VAR "=", prefix);
	if (pfm_answers_format(getpid(), buf + prefix, size - prefix) > 0)
		ret = buf;
	errno = saved_errno;
	return ret;
}

void process_handover_close(void)
{
	int saved_errno = errno;

	counters_close(&next_image);
	errno = saved_errno;
}

/*
 * A child forked under the program's seccomp filter cannot open counters
 * (perf_event_open, and the atfork work around it, may kill it): it
 * counts nothing and writes no report (docs/usage.md). `pfshim run` names
 * it among the processes without a report.
 */
void process_restart_in_child(void)
{
	if (!process.active)
		return;
	if (sandbox_filtered()) {
		process.active = false;
		return;
	}
	share_setup_begin();
	/* The child's interval thread waits until its counters are open. */
	atomic_store(&process.interval_ready, false);
	/* The inherited fds count the parent (inherit_thread: not us). */
	counters_close(&process.counters);
	process.since_exec = false;
	clocks_start();
	cwd_read();	/* the child's start: where it was forked (argv stays the parent's) */
	job_restart_in_child();
	/* Before the counters: a thread made after them would be counted (interval.c). */
	if (process.config.interval_ns && interval_restart_in_child() < 0)
		warn_line("PFSHIM_INTERVAL: no thread for the interval reports of this child "
			  "(pthread_create failed); only its final report", NULL);
	counters_start();
	markers_restart_in_child();
	share_setup_end(true);
	atomic_store(&process.interval_ready, true);
}

/* Under the program's seccomp filter, getpid() may kill it: then trusted (docs/usage.md). */
bool process_is_self(void)
{
	return process.active && (sandbox_filtered() || getpid() == process.pid);
}

/* A job's descendant writes JSON into the job directory, whatever PFSHIM_FORMAT says. */
static enum config_format report_format_chosen(void)
{
	enum job_role role = job_role();

	return role == JOB_DESCENDANT || role == JOB_DROPPED ? FORMAT_JSON : process.config.format;
}

static const char *const format_ext[] = {
	[FORMAT_TEXT] = ".txt", [FORMAT_CSV] = ".csv", [FORMAT_JSON] = ".json",
	/*
	 * node_exporter's textfile collector reads only *.prom, as the
	 * Prometheus text format: an OpenMetrics file there would be served
	 * untyped (export/openmetrics.c), so it is named otherwise.
	 */
	[FORMAT_PROMETHEUS] = ".prom", [FORMAT_OPENMETRICS] = ".om",
	[FORMAT_PAPI] = ".json",
};

/*
 * One document read whole (an exposition a scraper reads; PAPI's file,
 * export/papi.c, named rank_* as PAPI's are): replaced at each report,
 * never appended to.
 */
static bool format_is_exposition(enum config_format format)
{
	return format == FORMAT_OPENMETRICS || format == FORMAT_PROMETHEUS || format == FORMAT_PAPI;
}

static size_t report_format(const struct report *r, char *buf, size_t size)
{
	switch (report_format_chosen()) {
	case FORMAT_CSV:
		return report_format_csv(r, buf, size);
	case FORMAT_JSON:
		return report_format_json(r, buf, size);
	case FORMAT_OPENMETRICS:
		return report_format_openmetrics(r, buf, size);
	case FORMAT_PROMETHEUS:
		return report_format_prometheus(r, buf, size);
	case FORMAT_PAPI:
		return report_format_papi(r, buf, size);
	case FORMAT_TEXT:
	default:
		return report_format_text(r, buf, size);
	}
}

/*
 * Where a report is read into and formatted: mapped for each report and
 * unmapped after it, since a report may be written from a signal handler on
 * any thread; but the interval thread's is mapped once and reused. An
 * munmap() in a process whose other thread runs on another CPU sends that
 * CPU a TLB-shootdown interrupt: with it, an interval report cost ~5 times
 * as much CPU in a VM (docs/performance.md, "Interval reports").
 */
struct report_memory {
	struct report_event *events;	/* EVENTS_MAX of them */
	char *text;
	size_t text_size;
};

/*
 * A report's events, then its metrics and the writers' scratch for one
 * region's (PFSHIM_GROUP: LIKWID's groups have at most 38 metrics).
 */
#define REPORT_METRICS_MAX METRIC_GROUP_MAX
#define REPORT_EVENTS_SIZE ((size_t)EVENTS_MAX * sizeof(struct report_event) + \
			    2 * (size_t)REPORT_METRICS_MAX * sizeof(struct report_metric))

/* The interval thread's: only the claim holder of an interval report uses it. */
static struct report_memory interval_memory;

/*
 * The text's first size, larger than most reports need (a default one
 * is under 3 KiB): formatted into it at once, without a pass that only
 * measures (a third of the report's instructions). Only the pages the text
 * takes are touched, so only they are resident.
 */
#define REPORT_TEXT_FIRST (16 * 1024)

/*
 * The report that ends the image (exit, exec, a fatal signal) is read and
 * formatted here, in the shim's own .bss, not in two mmap()s of its own:
 * each mapping cost every process a system call, and its unmapping at exit
 * a TLB flush (docs/performance.md, "CPU per child process"). Only the
 * final report's claim holder writes here, one at a time (a failed exec
 * gives the claim back, and the exit report then uses it again); a vfork
 * child writes no report. Zero until then: only the pages a report
 * touches are resident, as with a mapping. A report larger than the text
 * is formatted into memory mapped for it, as any other report's, and so is
 * one written on an alternate signal stack too small for it: its stack
 * overflows into the mappings made just below (hardening-process.bats,
 * "a stack overflow caught on the program's alternate stack"; a stack of
 * the report's own would end that).
 */
static struct {
	struct report_event events[REPORT_EVENTS_SIZE / sizeof(struct report_event) + 1];
	char text[REPORT_TEXT_FIRST] __attribute__((aligned(4096)));
} final_memory __attribute__((aligned(4096)));

/*
 * Under the program's seccomp filter, mmap(2) may kill it: the reports use
 * this memory, mapped before the filter, one at a time (a second report at
 * the same moment is lost, and says so). Its pages are touched only by a
 * report; regions are left out there, so 256 KiB holds any report.
 */
#define SANDBOX_TEXT_SIZE (256 * 1024)
static struct report_memory sandbox_memory;
static atomic_flag sandbox_memory_busy = ATOMIC_FLAG_INIT;

/* @size bytes of text in @mem, grown (by whole 64 KiB) when a report needs more. */
static char *memory_text(struct report_memory *mem, size_t size)
{
	size_t want = (size + 0xffff) & ~(size_t)0xffff;

	if (mem->text && mem->text_size >= size)
		return mem->text;
	/* No mmap(2) under the program's filter; the interval thread is never under it. */
	if (sandbox_filtered() && mem != &interval_memory)
		return NULL;
	if (mem->text)
		munmap(mem->text, mem->text_size);
	mem->text = fd_map_zeroed(want);
	mem->text_size = mem->text ? want : 0;
	return mem->text;
}

/*
 * Formatted twice: once to learn the size, once into memory of that size
 * (@mem's, kept, or mapped for this report alone when @mem is NULL). Into
 * kept memory, or into @text that report_prepare() mapped (@text_size
 * bytes), the report is formatted first: when it fits, once is enough.
 */
/*
 * The report that ends this image: at exit, before an exec, or of the fatal
 * signal (PFSHIM_ON_FATAL; the PFSHIM_SIGNAL one is caught, never fatal).
 */
static bool reason_ends_image(enum report_reason reason, int signo)
{
	return reason == REPORT_EXIT || reason == REPORT_EXEC ||
	       (reason == REPORT_SIGNAL && signo != process.config.signal);
}

static bool report_ends_image(const struct report *r)
{
	return reason_ends_image(r->reason, r->signo);
}

/*
 * A Prometheus file in a directory lives as long as its image, unless
 * PFSHIM_PROMETHEUS_KEEP=1: node_exporter serves every *.prom of its
 * directory, so the files of ended processes, one per pid, would pile up
 * and be served for ever (docs/output.md, "Files of ended processes"). A
 * template names a file of the user's: written as always (output_remove()).
 */
static bool report_removes_file(const struct report *r)
{
	return report_format_chosen() == FORMAT_PROMETHEUS && !process.config.prometheus_keep &&
	       report_ends_image(r) && job_role() != JOB_DESCENDANT && job_role() != JOB_DROPPED;
}

/*
 * The names of @r's file. An OpenMetrics or Prometheus file is one
 * exposition that a scraper reads whole at any moment: each report, an
 * interval one too, replaces it, and it has no series (appended expositions
 * parse as none, and node_exporter would read a .series.prom as one more
 * file of duplicates). PAPI's file too is one document, named rank_* as
 * PAPI's are.
 */
static struct output_names report_names(const struct report *r, enum config_format format)
{
	bool exposition = format_is_exposition(format);

	return (struct output_names){
		.pid = r->pid, .host = r->hostname, .program = r->program, .rank = r->rank,
		.start_ns = r->start_ns, .ext = format_ext[format],
		.prefix = format == FORMAT_PAPI ? "rank_" : NULL,
		.series = r->seq != 0 && !exposition,
		.series_only = r->reason == REPORT_INTERVAL && !exposition,
		/* An image's series is a file beside its report's: such an image writes files. */
		.spool = process.config.run_job && format == FORMAT_JSON && r->seq == 0,
		.private_dir = process.config.run_job,
	};
}

/*
 * Before the report's last read: the file it will be written to made now
 * (output_reserve(), job_reserve()), so that its cost is in the share.
 */
static void report_destination_reserve(const struct report *r)
{
	enum config_format format = report_format_chosen();
	struct output_names names = report_names(r, format);

	if (report_removes_file(r))
		return;
	switch (job_role()) {
	case JOB_DESCENDANT:
		job_reserve();
		break;
	case JOB_DROPPED:
		break;
	default:
		output_reserve(process.config.output, &names);
	}
}

/*
 * The memory of a report that ends its image (exit, exec, a fatal signal)
 * stays mapped: the exit or the exec frees it with the rest of the address
 * space, where an munmap() of it costs a TLB flush of its own (188 us for
 * 16 KiB just written, on this VM: more than the system calls of the whole
 * report). If the image lives on (a failed exec or daemon()),
 * process_report_final_undo() unmaps it. Only the final report's claim
 * holder writes here.
 */
static struct {
	void *addr;
	size_t size;
} kept[2];

static void report_unmap(void *addr, size_t size, bool ends_image)
{
	if (addr == final_memory.text || addr == final_memory.events)
		return;
	for (size_t i = 0; ends_image && i < sizeof(kept) / sizeof(kept[0]); i++) {
		if (!kept[i].addr) {
			kept[i].addr = addr;
			kept[i].size = size;
			return;
		}
	}
	munmap(addr, size);
}

static void report_kept_unmap(void)
{
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		if (kept[i].addr)
			munmap(kept[i].addr, kept[i].size);
		kept[i].addr = NULL;
	}
}

static void report_format_write(const struct report *r, struct report_memory *mem, char *text,
				size_t text_size)
{
	enum config_format format = report_format_chosen();
	bool exposition = format_is_exposition(format);
	struct output_names names = report_names(r, format);
	char *buf = mem ? mem->text : text;
	size_t size = mem ? mem->text_size : text_size;
	size_t len;

	if (report_removes_file(r) && output_remove(process.config.output, &names)) {
		if (text)
			report_unmap(text, text_size, false);
		return;
	}
	len = buf ? report_format(r, buf, size) : 0;

	if (!buf || len >= size) {
		if (text)
			report_unmap(text, text_size, false);
		text = NULL;
		size = report_format(r, NULL, 0) + 1;
		buf = mem ? memory_text(mem, size) : fd_map_zeroed(size);
		if (!buf) {
			warn_line("no memory to format the report; it is lost", NULL);
			return;
		}
		len = report_format(r, buf, size);
		if (!mem)
			text = buf, text_size = size;
	}
	/* PAPI writes no file for a process that ran no region: nor does its format */
	if (len == 0) {
		if (text)
			report_unmap(text, text_size, false);
		return;
	}

	switch (job_role()) {
	case JOB_DESCENDANT:
	case JOB_DROPPED:
		job_write(&names, buf, len);
		break;
	default:
		/* A second exposition appended would spoil the first (OpenMetrics' "# EOF", duplicates). */
		output_write(process.config.output, process.config.run_job, &names, exposition, buf,
			     len);
	}
	if (text)
		report_unmap(text, text_size, report_ends_image(r));
}

static void region_metrics(const struct report *r, const struct report_region_total *t,
			   struct report_metric *out)
{
	metric_group_compute_region(process.metrics, r, t, out);
}

/*
 * PFSHIM_GROUP's metrics of @r into @metrics: an interval report's over
 * its events' deltas and the @since_ns since the previous report (as perf
 * stat -I prints them), any other's over its totals and wall time; and the
 * regions' on demand into the scratch after them. Async-signal-safe.
 */
static void report_metrics(struct report *r, struct report_metric *metrics, uint64_t since_ns)
{
	if (!process.metrics)
		return;
	r->metric_group = process.metrics->name;
	r->nr_metrics = process.metrics->group.nr_metrics;	/* at most METRIC_GROUP_MAX */
	r->metrics_ns = r->reason == REPORT_INTERVAL ? since_ns : r->wall_ns;
	if (r->reason == REPORT_INTERVAL)
		metric_group_compute_delta(process.metrics, r, (double)since_ns / 1e9, metrics);
	else
		metric_group_compute(process.metrics, r, (double)r->wall_ns / 1e9, metrics);
	r->metrics = metrics;
	r->region_metrics = region_metrics;
	r->region_metrics_out = metrics + REPORT_METRICS_MAX;
}

/* Room for the counts to grow by a few digits between report_prepare() and the read. */
#define REPORT_TEXT_SLACK 512
/*
 * The writer's stack below report_write() (gcc -fstack-usage): output_write
 * 4.2 KiB, the directory writer 0.6 KiB, libc's calls: 8 KiB. A directory
 * walked or created on the way (trusted.c) needs ~0.7 KiB more, and may
 * fault it.
 */
#define REPORT_STACK_BYTES (8 * 1024)

/*
 * Everything a one-off report touches after it reads its counters, touched
 * before: the counters read once and the report formatted into the memory
 * it will be written from (the formatter's code, stack and constants), the
 * rest of the shim's code and constants, the writer's statics and stack.
 * With pfshim run's counters (counted since the exec) the report's count is
 * then perf stat's for the same image (docs/performance.md, "Counted from
 * the exec"): a fault after the read would be in perf stat's count only.
 * @final: the report ends the image, its text first in final_memory.
 * Return: the text memory (*@size bytes), or NULL (then mapped after the read).
 */
static char *report_prepare(struct report *r, struct report_event *events, size_t *size,
			    bool final, bool on_alt)
{
	size_t need;
	char *text;

	/* The pages about to be written, in one system call each (prefault.h); a long report's rest faults. */
	if (final) {
		prefault_populate(events, (size_t)r->nr_events * sizeof(*events));
		prefault_populate(final_memory.text, 4096);
	}
	counters_read(&process.counters, &process.events, events);
	for (int i = 0; i < r->nr_events; i++) {
		events[i].has_delta = 1;
		events[i].delta = (int64_t)(events[i].value - atomic_load(&process.previous[i]));
	}
	/* The metrics too, computed and formatted: their code is in layout.ld's cold part. */
	report_metrics(r, (struct report_metric *)(events + EVENTS_MAX), r->wall_ns);
	text = final ? final_memory.text : fd_map_zeroed(REPORT_TEXT_FIRST);
	need = report_format(r, text, text ? REPORT_TEXT_FIRST : 0) + 1 + REPORT_TEXT_SLACK;
	*size = REPORT_TEXT_FIRST;
	if (!text || need > REPORT_TEXT_FIRST) {
		if (text)
			report_unmap(text, REPORT_TEXT_FIRST, false);
		*size = need;
		text = fd_map_zeroed(need);
		if (text)
			report_format(r, text, need);
	}
	if (text)
		prefault_write(text, need);
	/* series_next()'s: as atomics of their own size (512 bytes: at most 2 pages). */
	atomic_fetch_add(&process.previous[0], 0);
	atomic_fetch_add(&process.previous[EVENTS_MAX - 1], 0);
	atomic_fetch_add(&process.seq, 0);
	output_dir_prefault();
	prefault_self(process.since_exec);
	/*
	 * The main thread's stack only: it grows on demand to RLIMIT_STACK. A
	 * thread's may be PTHREAD_STACK_MIN, which the report itself nearly
	 * fills (signals.bats, "the smallest stack allowed"): a fault there, if
	 * any, is the report's one miss. Nor on an alternate signal stack (a
	 * fatal signal's report from the program's handler): below it lies
	 * whatever the program mapped there, or nothing (hardening-process.bats,
	 * "a stack overflow caught on the program's alternate stack").
	 */
	if (gettid() == getpid() && !on_alt)	/* never under a filter: report_write() */
		prefault_stack(REPORT_STACK_BYTES);
	report_destination_reserve(r);
	return text;
}

/*
 * A process made without fork() (clone() without CLONE_THREAD, the raw fork
 * system call) ran no atfork handler: it holds a copy of the parent's state
 * and descriptors, and the kernel gave it no counters of its own
 * (inherit_thread: only CLONE_THREAD children inherit; docs/kernel-notes.md
 * "inherit and mmap do not mix").
 * Its events were counted nowhere, and that is what its report must say.
 * But a vfork() child, or one of clone(CLONE_VM), shares our memory and must
 * touch nothing: kcmp(KCMP_VM) tells them apart. A parent already gone
 * (ESRCH) shares memory with no one alive. Where kcmp is missing, no report.
 */
static bool process_is_unforked_copy(void)
{
	int saved_errno = errno;
	long r;

	if (!process.active || sandbox_filtered() || getpid() == process.pid)
		return false;
	r = syscall(SYS_kcmp, getpid(), process.pid, KCMP_VM, 0, 0);
	r = r > 0 || (r < 0 && errno == ESRCH);
	errno = saved_errno;
	return r;
}

/* The initial pid namespace's inode (PROC_PID_INIT_INO, include/linux/proc_ns.h). */
#define PID_NS_INIT_INO 0xEFFFFFFCu

/*
 * The pid namespace, read at each report (a child of unshare(CLONE_NEWPID)
 * is in a new one): two containers' pid 1 are told apart by it. 0 in the
 * initial namespace, or when /proc cannot say.
 */
static uint64_t pid_ns_read(void)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st) < 0 || st.st_ino == PID_NS_INIT_INO)
		return 0;
	return st.st_ino;
}

/*
 * The interval reports' pid namespace: read once per process, since a
 * process never changes its own (unshare and setns of CLONE_NEWPID move its
 * children): stat()ing /proc/self/ns/pid makes the kernel build an nsfs
 * inode and dentry each time, a good share of an interval report's cost.
 */
static uint64_t pid_ns_cached(void)
{
	static uint64_t ns;
	static int for_pid;

	if (for_pid != getpid()) {
		ns = pid_ns_read();
		for_pid = getpid();
	}
	return ns;
}

/* Nothing of an unforked copy was counted: ECHILD says why, in every format. */
static void events_uncounted(struct report_event *events, int nr)
{
	for (int i = 0; i < nr; i++) {
		events[i].raw = events[i].value = events[i].enabled = events[i].running = 0;
		events[i].status = STATUS_NOT_COUNTED;
		events[i].scaled = 0;
		events[i].error = ECHILD;
	}
}

/*
 * The report's place in this image's series: its number, returned (used
 * with PFSHIM_INTERVAL), and each event's change since the previous report,
 * so that the deltas of a series add up to its last totals exactly. With
 * PFSHIM_INTERVAL the reports of an image are one at a time (the claim);
 * without it, two threads' pfshim_report() may run at once, and the
 * atomic exchanges still make their deltas add up to the last value.
 */
static uint64_t series_next(struct report_event *events, int nr)
{
	for (int i = 0; i < nr; i++) {
		events[i].has_delta = 1;
		if (events[i].status == STATUS_COUNTED)
			events[i].delta = (int64_t)(events[i].value -
				atomic_exchange(&process.previous[i], events[i].value));
		else
			events[i].delta = 0;	/* shown as null: no count */
	}
	return atomic_fetch_add(&process.seq, 1) + 1;
}

/*
 * The process's user and system CPU time, just after the counters' read
 * that gives the report's task-clock: the kernel's accounting for both
 * (utime + stime is sum_exec_runtime, split by ticks). Not under the
 * program's seccomp filter, where getrusage(2) may kill it: then unknown.
 * syscall(), not getrusage(): share.c says why.
 */
static void cpu_times_read(struct report *r, bool filtered)
{
	struct rusage ru;

	if (filtered || syscall(SYS_getrusage, RUSAGE_SELF, &ru) < 0)
		return;
	r->user_ns = (uint64_t)ru.ru_utime.tv_sec * 1000000000u +
		     (uint64_t)ru.ru_utime.tv_usec * 1000u;
	r->system_ns = (uint64_t)ru.ru_stime.tv_sec * 1000000000u +
		       (uint64_t)ru.ru_stime.tv_usec * 1000u;
	r->has_cpu_times = 1;
}

/* An exit report's status, once exit() or _exit() said it (-1: not said, as for quick_exit()). */
static void exit_status_take(struct report *r)
{
	int status = atomic_load(&process.exit_status);

	if (r->reason != REPORT_EXIT || status < 0)
		return;
	r->exit_status = status;	/* stored as wait() sees it: exit(256) is 0 */
	r->has_exit_status = 1;
}

/*
 * The events and the text are not on the stack: the signal may land on any
 * thread, and a thread's stack may be as small as PTHREAD_STACK_MIN
 * (16 KiB), the signal frame included. @mem: see struct report_memory;
 * without it, final_memory for the report that ends the image, else mapped.
 */
static void report_write(enum report_reason reason, int signo, bool unforked,
			 struct report_memory *mem)
{
	struct report_event *events;
	struct markers_report regions;
	struct utsname uts;
	struct report r;
	const struct scheduler_job *sj = &process.config.job;
	struct report_job job = { .scheduler = sj->scheduler, .id = sj->id,
				  .step = sj->step[0] ? sj->step : NULL };
	char *text = NULL;
	size_t text_size = 0;
	uint64_t seq = 0, since_ns;
	int saved_errno = errno;
	bool filtered = sandbox_filtered();
	/*
	 * Not on a small alternate signal stack (a program's handler that
	 * calls _exit()): the report needs more than its 8 KiB, and runs on
	 * into what lies below it, which used to be the report's own mappings
	 * (see final_memory). Asked once: report_prepare() takes @on_alt too.
	 */
	bool on_alt = false;
	bool final = !mem && actions_stack_has_room(signo, &on_alt) &&
		     reason_ends_image(reason, signo);
	struct share_point share_start;
	bool share_measured;

	if (filtered && !mem) {
		if (atomic_flag_test_and_set(&sandbox_memory_busy)) {
			warn_line("a report was lost: another one was being written under the "
				  "program's seccomp filter", NULL);
			errno = saved_errno;
			return;
		}
		report_write(reason, signo, unforked, &sandbox_memory);
		atomic_flag_clear(&sandbox_memory_busy);
		return;
	}
	share_measured = share_report_begin(&share_start);
	if (mem && !mem->events && (!filtered || mem == &interval_memory))
		mem->events = fd_map_zeroed(REPORT_EVENTS_SIZE);
	events = mem ? mem->events : final ? final_memory.events : fd_map_zeroed(REPORT_EVENTS_SIZE);
	if (!events) {
		warn_line("no memory to read the counters; the report is lost", NULL);
		errno = saved_errno;
		return;
	}
	memset(&regions, 0, sizeof(regions));
	if (filtered)
		memcpy(uts.nodename, process.before_filter.hostname,
		       sizeof(process.before_filter.hostname));
	else if (uname(&uts) < 0)
		strcpy(uts.nodename, "");
	r = (struct report){
		.program = process.program,
		.argv0 = process.argv0,
		.argv = process.identity_text,
		.argv_kept = process.argv_kept,
		.argc = process.argc,
		.argv_truncated = process.argv_truncated,
		.cwd = process.cwd,
		.pid = unforked ? getpid() : process.pid,
		.ppid = filtered ? process.before_filter.ppid : getppid(),
		.pid_ns = filtered ? process.before_filter.pid_ns :
				     mem ? pid_ns_cached() : pid_ns_read(),
		.hostname = uts.nodename,
		.boot_id = process.boot_id[0] ? process.boot_id : NULL,
		.rank = process.config.rank[0] ? process.config.rank : NULL,
		.job = sj->scheduler ? &job : NULL,
		/* An unforked copy's start is unknown: the parent's clocks are all it has. */
		.start_ns = unforked ? 0 : process.start_realtime_ns,
		.reason = reason,
		.signo = signo,
		.interval_ns = unforked ? 0 : process.config.interval_ns,
		.nr_events = process.events.nr,
		.events = events,
		/* Their working memory is mmap()ed for each report: none under the filter. */
		.regions = filtered ? NULL :
				      markers_report_build(&regions, reason == REPORT_EXIT ||
									  reason == REPORT_EXEC),
	};
	/* The interval thread's memory is kept: an interval report touches nothing new. */
	if (!mem && !unforked)
		text = report_prepare(&r, events, &text_size, final, on_alt);
	if (!unforked)
		share_report_upto(&share_start, share_measured, &r.share);
	counters_read(&process.counters, &process.events, events);
	cpu_times_read(&r, filtered);
	exit_status_take(&r);
	if (unforked)
		events_uncounted(events, process.events.nr);
	else
		seq = series_next(events, process.events.nr);
	r.seq = process.config.interval_ns ? seq : 0;	/* 0 for an unforked copy */
	r.wall_ns = unforked ? 0 : (filtered ? sandbox_clock_ns(CLOCK_MONOTONIC) :
					    clock_ns(CLOCK_MONOTONIC)) - process.start_monotonic_ns;
	since_ns = unforked ? 0 : r.wall_ns - atomic_exchange(&process.previous_wall_ns, r.wall_ns);
	report_metrics(&r, (struct report_metric *)(events + EVENTS_MAX), since_ns);
	report_format_write(&r, mem, text, text_size);
	output_release();
	markers_report_release(&regions);
	if (!mem)
		report_unmap(events, REPORT_EVENTS_SIZE, report_ends_image(&r));
	share_report_end(&share_start, share_measured);
	errno = saved_errno;
}

/* Give back a claim of CLAIM_OTHER(@self), unless a final report took it over meanwhile. */
static void claim_release(int self)
{
	int mine = CLAIM_OTHER(self);

	atomic_compare_exchange_strong(&process.final_report, &mine, FINAL_REPORT_NONE);
}

/*
 * With PFSHIM_INTERVAL, a signal or explicit report waits, for a while, for
 * a report being written in another thread, so that the series is one
 * report at a time. It writes unclaimed when it interrupted its own
 * thread's report (a signal handler), or after the final report.
 */
void process_report(enum report_reason reason, int signo)
{
	int self = process_thread_id();
	bool claimed = false;

	if (!process_is_self())
		return;
	/* Without an interval thread, as before it: reports of several threads run at once. */
	for (int waited = 0; process.config.interval_ns && waited < FINAL_REPORT_WAIT_MS; waited++) {
		int writer = FINAL_REPORT_NONE;

		if (atomic_compare_exchange_strong(&process.final_report, &writer,
						   CLAIM_OTHER(self))) {
			claimed = true;
			break;
		}
		if (writer == FINAL_REPORT_WRITTEN || writer == self || writer == CLAIM_OTHER(self))
			break;
		sandbox_pause();
	}
	report_write(reason, signo, false, NULL);
	if (claimed)
		claim_release(self);
}

/* The interval thread never waits: a tick that finds a report being written is skipped. */
void process_report_interval(void)
{
	int self = process_thread_id(), writer = FINAL_REPORT_NONE;

	if (!atomic_load(&process.interval_ready) || !process_is_self())
		return;
	if (!atomic_compare_exchange_strong(&process.final_report, &writer, CLAIM_OTHER(self)))
		return;
	report_write(REPORT_INTERVAL, 0, false, &interval_memory);
	claim_release(self);
}

/*
 * The signals held back while this thread writes its final report: a
 * signal whose handler (PFSHIM_ON_FATAL's, or the kernel's default) would
 * end the image finds the report in progress in this same thread, and
 * could only die with it half written (a Python pool's worker, sent TERM as
 * it exits: 17 of 30 runs without a report). Held, it comes once the report
 * is whole, and ends the image as it would have. Only for a report into a
 * file, whose writes are bounded (a FIFO's wait for room included:
 * FD_WRITE_WAIT_MS): a standard stream may be a blocking pipe whose reader
 * stopped reading, and a program stuck there must still die of TERM or ^C.
 * The faults of our own code stay deliverable, and the stops; under the
 * program's seccomp filter, no mask is touched (sandbox.h). The mask is
 * the thread's: in a program with other threads the kernel's default action
 * takes one of those (PFSHIM_ON_FATAL's handler there waits for the report).
 */
static bool final_signals_hold(sigset_t *old)
{
	/* the faults, and the stops: a stop mid-report harms nothing, and TTOU keeps `stty tostop` */
	static const int passing[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS,
				       SIGTSTP, SIGTTIN, SIGTTOU };
	enum job_role role = job_role();
	sigset_t held;

	if (sandbox_filtered() ||
	    (role != JOB_DESCENDANT && role != JOB_DROPPED &&
	     (!strcmp(process.config.output, "stderr") || !strcmp(process.config.output, "stdout"))))
		return false;
	sigfillset(&held);
	for (size_t i = 0; i < sizeof(passing) / sizeof(passing[0]); i++)
		sigdelset(&held, passing[i]);
	return pthread_sigmask(SIG_BLOCK, &held, old) == 0;
}

/*
 * The exit/exec report is claimed with the writer's tid. A thread that finds
 * it claimed waits (its _exit or exec would kill the writer), and claims it
 * in turn if a failed exec gives it back; it never waits for itself (a
 * signal handler that exits while the report it interrupted is half-written).
 */
static void report_final(enum report_reason reason, int signo, int exit_status)
{
	int self = process_thread_id();
	/* one getpid() for both: process_is_unforked_copy() asks it again only when not self */
	bool is_self = process_is_self(), unforked = !is_self && process_is_unforked_copy();
	sigset_t mask;
	bool held;

	/* Off after its job began (nothing to count, perf_event_open refused): only its crumb goes. */
	if (!process.active) {
		if (process.pid && getpid() == process.pid)
			job_finish(reason);
		return;
	}
	if (!is_self && !unforked)
		return;
	/* Before the claim: a signal between the two would find the claim ours, and die. */
	held = final_signals_hold(&mask);
	for (int waited = 0; waited < FINAL_REPORT_WAIT_MS; waited++) {
		int writer = FINAL_REPORT_NONE;

		if (atomic_compare_exchange_strong(&process.final_report, &writer, self) ||
		    /* a signal handler that exits while its thread writes another report */
		    (writer == CLAIM_OTHER(self) &&
		     atomic_compare_exchange_strong(&process.final_report, &writer, self))) {
			if (unforked)
				job_restart_in_child();	/* a descendant, as a fork child is */
			if (exit_status >= 0)	/* _exit() in an atexit handler: its status wins */
				atomic_store(&process.exit_status, exit_status & 0xff);
			report_write(reason, signo, unforked, NULL);
			job_finish(reason);
			/*
			 * An exec report keeps the claim until the exec: if it fails,
			 * process_report_final_undo() gives it back, and a thread whose
			 * _exit() waits here must then write the exit report. Marked
			 * WRITTEN, that thread could return in the moment before the
			 * exec failed, and the image ended with no exit report
			 * (exit-status.bats, "an _exit() waiting for an exec report
			 * that fails": seen once under load).
			 */
			if (reason != REPORT_EXEC)
				atomic_store(&process.final_report, FINAL_REPORT_WRITTEN);
			break;
		}
		if (writer == FINAL_REPORT_WRITTEN || writer == self)
			break;
		sandbox_pause();
	}
	if (held)
		pthread_sigmask(SIG_SETMASK, &mask, NULL);
}

void process_report_final(enum report_reason reason)
{
	report_final(reason, 0, -1);
}

void process_report_exit(int status)
{
	report_final(REPORT_EXIT, 0, status);
}

/* Not in a vfork()ed child, whose store would land in its parent's memory. */
void process_exit_status(int status)
{
	if (process_is_self() || process_is_unforked_copy())
		atomic_store(&process.exit_status, status & 0xff);	/* exit(-1) is 255 */
}

void process_report_fatal(int signo)
{
	report_final(REPORT_SIGNAL, signo, -1);
}

void process_report_final_undo(void)
{
	if (process_is_self() || process_is_unforked_copy()) {
		report_kept_unmap();	/* the image lives on */
		atomic_store(&process.final_report, FINAL_REPORT_NONE);
	}
}

void process_before_spawn(void)
{
	job_crumb_ensure();
}

void process_before_filter(bool all_threads)
{
	int saved_errno = errno;
	struct utsname uts;

	if (!process_is_self())
		return;
	if (all_threads && interval_stop_for_good())
		warn_line("PFSHIM_INTERVAL: interval reports stop here: the program installs a "
			  "seccomp filter on all its threads (TSYNC), under which the shim's thread "
			  "could not sleep; the final report still comes", NULL);
	if (sandbox_filtered()) {
		errno = saved_errno;
		return;
	}
	process.before_filter.ppid = getppid();
	process.before_filter.pid_ns = pid_ns_read();
	job_crumb_ensure();	/* a child's fallback: made while symlink(2) still works */
	if (uname(&uts) == 0)
		memcpy(process.before_filter.hostname, uts.nodename,
		       sizeof(process.before_filter.hostname));
	if (!sandbox_memory.events)
		sandbox_memory.events = fd_map_zeroed(REPORT_EVENTS_SIZE);
	memory_text(&sandbox_memory, SANDBOX_TEXT_SIZE);
	/* A file target keeps no stderr duplicate; its fallback and the warnings need one now. */
	fd_stream_keep(STDERR_FILENO);
	if (strcmp(process.config.output, "stdout") == 0)
		fd_stream_keep(STDOUT_FILENO);
	sandbox_enter();
	errno = saved_errno;
}
