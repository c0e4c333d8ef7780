/* SPDX-License-Identifier: MIT */
/*
 * calibrate.c: the loader's share of an image that loads libpfshim.so
 * (calibrate.h). CALIBRATE_PROGRAM is started stopped on a pipe, its
 * events opened on its pid as the job's are (enable_on_exec: from its exec,
 * as perf stat counts) and its execs, mappings and exit recorded as the
 * job's are (jobcount_recorder_open()), then let go; bare and preloaded
 * runs alternate so that the machine's drift touches both alike. A
 * preloaded run's own report says the share the shim measured in it; what
 * the preloaded runs cost more than the bare ones beyond that is the part
 * no process sees of itself.
 * task-clock is taken as each run's whole CPU time (the kernel's
 * sum_exec_runtime, read before the run is reaped), which is what a job's
 * total holds of a descendant; the counter's, where the kernel has no
 * schedstat.
 */
#include "tools/pfshim/run/calibrate.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fastread/sysfile.h"
#include "preload/events/pfm_answers.h"	/* PFM_ANSWERS_VAR */
#include "tools/pfshim/model/table.h"
#include "tools/pfshim/run/spool.h"

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* The share field of a job event, by what it counts: the three a report measures of itself. */
static const char *share_field(const struct perf_event_attr *a)
{
	if (a->type != PERF_TYPE_SOFTWARE)
		return NULL;
	switch (a->config) {
	case PERF_COUNT_SW_PAGE_FAULTS:		return "page_faults";
	case PERF_COUNT_SW_TASK_CLOCK:		return "task_clock_ns";
	case PERF_COUNT_SW_CONTEXT_SWITCHES:	return "context_switches";
	default:				return NULL;
	}
}

/*
 * Each run is counted as the job counts its processes, its records taken
 * too (jobcount_recorder_open()), but RUN_PLAIN: bare, counted as perf stat
 * counts (the events on its pid only), for what the job's records of an
 * exec cost it.
 */
enum run_kind { RUN_PLAIN, RUN_BARE, RUN_OFF, RUN_ON };

/*
 * The CPU time of @pid, ended and not yet reaped: the kernel's
 * sum_exec_runtime (/proc/PID/schedstat's first field, in ns), from its fork
 * to its very end. Return: 0, or -errno (no schedstat in this kernel).
 */
static int cpu_time_of_ended(pid_t pid, uint64_t *ns)
{
	char path[64], text[128];
	int n;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	n = sysfile_read(path, text, sizeof(text));
	if (n < 0)
		return n;
	if (text[0] < '0' || text[0] > '9')
		return -EIO;
	*ns = strtoull(text, NULL, 10);
	return 0;
}

/*
 * One run: @argv (CALIBRATE_PROGRAM's, or the command's own as
 * CALIBRATE_CHILD) bare, preloaded with the shim off (PFSHIM_DISABLE: the
 * loader's work and a constructor that returns at once), or preloaded and
 * reporting into @outdir, recorded as the job's processes are (RUN_PLAIN:
 * bare, not recorded); its events counted from its exec into @value
 * (its children's folded in: inherited), and its whole CPU time into
 * *@cpu_ns (0 when the kernel does not say). With @said, the three numbers
 * CALIBRATE_CHILD writes on its stdout: its children's CPU time (added to
 * *@cpu_ns), its page touching's and its forking's. Return: 0, or -errno.
 */
static int run_once(struct calibration *c, struct jobcount *j, const char *lib,
		    enum run_kind kind, const char *outdir, char *const *argv, uint64_t *said,
		    uint64_t *value, uint64_t *cpu_ns)
{
	bool children = said != NULL;
	struct jobcount_event ev[3];
	struct spool_split_result split = { 0 };
	struct jobcount_ring *rec = NULL;
	int go[2], out[2] = { -1, -1 }, status, ret = 0, dirfd = -1, spool = -1, nr_rec = 0;
	siginfo_t info;
	pid_t pid;

	*cpu_ns = 0;
	/* As the job's processes report: into a spool (spool.h), split after the run. */
	if (kind == RUN_ON && (dirfd = open(outdir, O_PATH | O_DIRECTORY | O_CLOEXEC)) >= 0)
		spool = run_spool_create(dirfd, &split);
	if (children && pipe2(out, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(go, O_CLOEXEC) < 0) {
		ret = -errno;
		goto out;
	}
	pid = fork();
	if (pid == 0) {
		char buf, path[4200];

		close(go[1]);
		while (read(go[0], &buf, 1) < 0 && errno == EINTR)
			;
		if (kind == RUN_BARE || kind == RUN_PLAIN) {
			unsetenv("LD_PRELOAD");
			unsetenv(PFM_ANSWERS_VAR);	/* for a shim only (run_answers_hand()) */
		} else {
			snprintf(path, sizeof(path), "%s/", outdir);
			setenv("LD_PRELOAD", lib, 1);
			setenv("PFSHIM_OUTPUT", path, 1);
			if (kind == RUN_OFF)
				setenv("PFSHIM_DISABLE", "1", 1);
		}
		if (children && dup2(out[1], STDOUT_FILENO) < 0)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	close(go[0]);
	if (pid < 0) {
		close(go[1]);
		ret = -errno;
		goto out;
	}
	for (int k = 0; k < c->nr; k++) {
		ev[k] = j->ev[c->ev[k].job_event];
		jobcount_event_open(&ev[k], pid);
	}
	if (kind != RUN_PLAIN && j->nr_rings) {
		rec = xrealloc(NULL, (size_t)j->nr_rings * sizeof(*rec));
		nr_rec = jobcount_recorder_open(j, pid, rec);
		if (nr_rec < 0)
			ret = nr_rec;
	}
	close(go[1]);
	/* Waited for without reaping first, so that its CPU time can still be read. */
	while (waitid(P_PID, pid, &info, WEXITED | WNOWAIT) < 0)
		if (errno != EINTR) {
			ret = -errno;
			goto out;
		}
	(void)cpu_time_of_ended(pid, cpu_ns);	/* 0 where the kernel has no schedstat */
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			ret = -errno;
			goto out;
		}
	for (int k = 0; k < c->nr; k++) {
		uint64_t v[3];

		if (ev[k].fd < 0 || read(ev[k].fd, v, sizeof(v)) != (ssize_t)sizeof(v))
			ret = -(ev[k].error ? ev[k].error : EIO);
		else
			value[k] = v[0];
		if (ev[k].fd >= 0)
			close(ev[k].fd);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		ret = -ECHILD;
	if (children && !ret) {
		char text[64], *end;
		ssize_t n;

		close(out[1]);
		out[1] = -1;
		n = read(out[0], text, sizeof(text) - 1);
		text[n > 0 ? n : 0] = '\0';
		said[0] = strtoull(text, &end, 10);
		said[1] = strtoull(end, &end, 10);
		said[2] = strtoull(end, &end, 10);
		if (n <= 0 || text[0] < '0' || text[0] > '9' || *end != '\n')
			ret = -EIO;
		else if (*cpu_ns)
			*cpu_ns += said[0];
	}
out:
	if (nr_rec > 0)
		jobcount_recorder_close(j, rec, nr_rec);
	free(rec);
	if (spool >= 0)
		run_spool_split(dirfd, spool, &split, NULL, NULL);
	if (dirfd >= 0)
		close(dirfd);
	if (out[0] >= 0)
		close(out[0]);
	if (out[1] >= 0)
		close(out[1]);
	return ret;
}

/* The share a preloaded run's reports say, summed over those in @outdir, emptied after. */
static int report_share(struct calibration *c, const char *outdir, uint64_t *value,
			uint64_t *setup)
{
	DIR *d = opendir(outdir);
	struct dirent *e;
	int ret = -ENOENT;

	if (!d)
		return -errno;
	memset(value, 0, (size_t)c->nr * sizeof(*value));
	memset(setup, 0, (size_t)c->nr * sizeof(*setup));
	while ((e = readdir(d))) {
		char path[4400];
		json_t *r, *share;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", outdir, e->d_name);
		r = json_load_file(path, 0, NULL);
		unlink(path);
		share = json_object_get(r, "pfshim_share");
		if (json_is_object(share)) {
			ret = ret == -ENOENT ? 0 : ret;
			for (int k = 0; k < c->nr; k++) {
				json_t *v = json_object_get(share, c->ev[k].share);
				json_t *u = json_object_get(json_object_get(share, "setup"), c->ev[k].share);

				if (!json_is_integer(v) || !json_is_integer(u))
					ret = -EINVAL;
				else
					value[k] += (uint64_t)json_integer_value(v);
				setup[k] += json_is_integer(u) ? (uint64_t)json_integer_value(u) : 0;
			}
		}
		json_decref(r);
	}
	closedir(d);
	return ret;
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), u64_cmp);
	return v[n / 2];
}

static int i64_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* The median of @more[n] - @less[n] - @also[n] (@also may be NULL), 0 when it is negative. */
static uint64_t median_of_differences(const uint64_t *more, const uint64_t *less,
				      const uint64_t *also, int n)
{
	int64_t d[CALIBRATE_RUNS];

	for (int i = 0; i < n; i++)
		d[i] = (int64_t)more[i] - (int64_t)less[i] - (also ? (int64_t)also[i] : 0);
	qsort(d, (size_t)n, sizeof(*d), i64_cmp);
	return d[n / 2] > 0 ? (uint64_t)d[n / 2] : 0;
}

/* The command run as CALIBRATE_CHILD: no work, pages faulted in, children forked. */
enum unit_program { UNIT_NONE, UNIT_PAGES, UNIT_FORKS, UNIT_PROGRAMS };

struct unit_runs {
	char self[4096];		/* the command's own executable */
	char pages[24], forks[24];
	char *argv[UNIT_PROGRAMS][5];
	/* Per round: the unit program's cost beyond the no-work one's, beyond the reports' share */
	int64_t more[UNIT_PROGRAMS][3][CALIBRATE_RUNS];
	int64_t touch_more[CALIBRATE_RUNS];	/* the pages' touching's CPU time, preloaded less bare */
	/*
	 * The forks' CPU time, preloaded less bare: the parent's fork() and
	 * waits, and the children's whole lives beyond what their reports
	 * measured (the no-work program's report's share taken as the parent's)
	 */
	int64_t fork_more[CALIBRATE_RUNS];
};

/* false: the command cannot run itself (no /proc): the per-unit parts are not measured. */
static bool unit_runs_init(struct unit_runs *u)
{
	ssize_t n = readlink("/proc/self/exe", u->self, sizeof(u->self) - 1);
	static const int work[UNIT_PROGRAMS][2] = {
		[UNIT_NONE] = { 0, 0 },
		[UNIT_PAGES] = { CALIBRATE_PAGES, 0 },
		[UNIT_FORKS] = { 0, CALIBRATE_FORKS },
	};

	if (n <= 0 || access((u->self[n] = '\0', u->self), X_OK) < 0)
		return false;
	snprintf(u->pages, sizeof(u->pages), "%d", CALIBRATE_PAGES);
	snprintf(u->forks, sizeof(u->forks), "%d", CALIBRATE_FORKS);
	for (int p = 0; p < UNIT_PROGRAMS; p++) {
		u->argv[p][0] = u->self;
		u->argv[p][1] = (char *)CALIBRATE_CHILD;
		u->argv[p][2] = work[p][0] ? u->pages : (char *)"0";
		u->argv[p][3] = work[p][1] ? u->forks : (char *)"0";
		u->argv[p][4] = NULL;
	}
	return true;
}

/*
 * @argv run as @kind[0] and as @kind[1] (with @said[i], as run_once() takes
 * it), in that order in an even round @n and the other way round in an odd
 * one: the second of two runs is the faster (unit_round()), so each order's
 * median is taken apart. Their events into @value[i]; task-clock as each
 * run's whole CPU time where the kernel keeps both. Return: 0, or -errno.
 */
static int run_pair(struct calibration *c, struct jobcount *j, const char *lib,
		    const char *outdir, char *const *argv, int n, const enum run_kind kind[2],
		    uint64_t *said[2], uint64_t value[2][3])
{
	uint64_t cpu[2] = { 0, 0 };
	int ret = 0;

	for (int r = 0; r < 2 && !ret; r++) {
		int i = r == (n & 1) ? 0 : 1;

		ret = run_once(c, j, lib, kind[i], outdir, argv, said[i], value[i], &cpu[i]);
	}
	for (int k = 0; k < c->nr && !ret; k++)
		if (!strcmp(c->ev[k].share, "task_clock_ns") && cpu[0] && cpu[1]) {
			value[0][k] = cpu[0];
			value[1][k] = cpu[1];
		}
	return ret;
}

/*
 * Round @n of the unit programs, each bare and preloaded: what the
 * preloaded run cost beyond the bare one and beyond what its reports
 * measured (task-clock: the whole CPU time, its children's included, where
 * the kernel keeps it), less the same of the no-work program. The second of
 * two runs faults in the pages the first just freed, 30-60 ns a fault
 * faster (cache-warm, measured in 3 calibrations each way): the order
 * alternates from round to round, and unit_prices() takes each order's
 * median.
 */
static int unit_round(struct unit_runs *u, struct calibration *c, struct jobcount *j,
		      const char *lib, const char *outdir, int n)
{
	int64_t excess[UNIT_PROGRAMS][3], reports[UNIT_PROGRAMS] = { 0 };

	for (int p = 0; p < UNIT_PROGRAMS; p++) {
		static const enum run_kind kind[2] = { RUN_BARE, RUN_ON };
		uint64_t v[2][3] = { { 0 } }, *b = v[0], *on = v[1], s[3] = { 0 }, setup[3];
		uint64_t said_b[3], said_on[3];
		int ret = run_pair(c, j, lib, outdir, u->argv[p], n, kind,
				   (uint64_t *[2]){ said_b, said_on }, v);

		if (!ret)
			ret = report_share(c, outdir, s, setup);
		if (ret)
			return ret;
		for (int k = 0; k < c->nr; k++) {
			excess[p][k] = (int64_t)on[k] - (int64_t)b[k] - (int64_t)s[k];
			if (!strcmp(c->ev[k].share, "task_clock_ns"))
				reports[p] = (int64_t)s[k];
		}
		if (p == UNIT_PAGES)
			u->touch_more[n] = (int64_t)said_on[1] - (int64_t)said_b[1];
		if (p == UNIT_FORKS) {
			u->fork_more[n] = (int64_t)said_on[2] - (int64_t)said_b[2];
			/* the children's lives, where the kernel keeps each one's CPU time */
			if (said_on[0] && said_b[0])
				u->fork_more[n] += (int64_t)said_on[0] - (int64_t)said_b[0] -
						   (reports[UNIT_FORKS] - reports[UNIT_NONE]);
		}
	}
	for (int p = 0; p < UNIT_PROGRAMS; p++)
		for (int k = 0; k < c->nr; k++)
			u->more[p][k][n] = excess[p][k] - excess[UNIT_NONE][k];
	return 0;
}

/* The mean of the medians of the rounds bare first (even) and preloaded first (odd). */
static int64_t median_both_orders(const int64_t *v)
{
	int64_t order[2][CALIBRATE_RUNS];
	int n[2] = { 0, 0 };

	for (int i = 0; i < CALIBRATE_RUNS; i++)
		order[i & 1][n[i & 1]++] = v[i];
	for (int o = 0; o < 2; o++)
		qsort(order[o], (size_t)n[o], sizeof(order[o][0]), i64_cmp);
	return (order[0][n[0] / 2] + order[1][n[1] / 2]) / 2;
}

/*
 * The per-unit prices from the rounds, for task-clock timed inside the
 * program and its children, preloaded less bare: the whole program's CPU
 * time varies by more than the price of its 2048 faults or its 16 forks. A
 * page fault's: task-clock only (a fault takes no more faults or switches
 * with the shim); per 1000: a fault costs tens of ns. A fork's: task-clock,
 * the parent's fork() and wait and the child's whole life (each timed
 * alone), its other events from the fork program's whole runs beyond the
 * no-work one's; both less what the summary counts of the children
 * otherwise (each child's report, measured, and the end's part @end of
 * each). A price the runs' noise makes negative is 0.
 */
static void unit_prices(struct unit_runs *u, const struct calibration *c,
			struct calibrate_event *e, int k, uint64_t end)
{
	int64_t pages = median_both_orders(u->touch_more);
	int64_t forks = median_both_orders(u->more[UNIT_FORKS][k]);

	if (!strcmp(e->share, "task_clock_ns")) {
		e->per_1000_faults = pages > 0 ? (uint64_t)pages * 1000 / CALIBRATE_PAGES : 0;
		forks = median_both_orders(u->fork_more);
	}
	/*
	 * Without schedstat (no whole CPU times, the children's neither) the
	 * parent's part alone: nothing of the children's to take out.
	 */
	if (strcmp(e->share, "task_clock_ns") || c->cpu_whole)
		forks -= (int64_t)end * CALIBRATE_FORKS;
	e->per_fork = forks > 0 ? (uint64_t)forks / CALIBRATE_FORKS : 0;
}

/*
 * The job's records of an exec, priced on a chain of execs: CALIBRATE_EXECS
 * images of CALIBRATE_CHAIN, each exec'ing the next, then CALIBRATE_PROGRAM,
 * all in one process, bare, recorded and not (RUN_PLAIN). One /bin/true
 * run's CPU time here moves by +-400 us from run to run, the records' price
 * is tens of us: on single runs it came out 0 to 254 us over five
 * calibrations in a row. (The loader's part is not taken from a chain: an
 * image exec'd from the one before, its files warm in the CPU's caches,
 * loads the shim for 300-330 us against 450-500 on single runs, and a job's
 * images are apart.)
 */
struct chain_runs {
	bool usable;			/* CALIBRATE_CHAIN is there */
	char *argv[CALIBRATE_EXECS + 2];
	int64_t more[3][CALIBRATE_RUNS];	/* per event and round: recorded less plain */
};

static void chain_init(struct chain_runs *ch)
{
	ch->usable = access(CALIBRATE_CHAIN, X_OK) == 0;
	for (int i = 0; i < CALIBRATE_EXECS; i++)
		ch->argv[i] = (char *)CALIBRATE_CHAIN;
	ch->argv[CALIBRATE_EXECS] = (char *)CALIBRATE_PROGRAM;
	ch->argv[CALIBRATE_EXECS + 1] = NULL;
}

/* Round @n: the chain recorded and plain, the order alternating (unit_round()'s reason). */
static int chain_round(struct chain_runs *ch, struct calibration *c, struct jobcount *j,
		       const char *lib, const char *outdir, int n)
{
	static const enum run_kind kind[2] = { RUN_BARE, RUN_PLAIN };
	uint64_t v[2][3] = { { 0 } };
	int ret = run_pair(c, j, lib, outdir, ch->argv, n, kind, (uint64_t *[2]){ NULL, NULL }, v);

	if (ret)
		return ret;
	for (int k = 0; k < c->nr; k++)
		ch->more[k][n] = (int64_t)v[0][k] - (int64_t)v[1][k];
	return 0;
}

/* Per exec of the chain (its images and the run's own): 0 when the runs' noise makes it negative. */
static uint64_t chain_price(const struct chain_runs *ch, int k)
{
	int64_t price = median_both_orders(ch->more[k]) / (CALIBRATE_EXECS + 1);

	return price > 0 ? (uint64_t)price : 0;
}

int calibrate(struct calibration *c, struct jobcount *j, const char *lib,
	      const volatile sig_atomic_t *stop)
{
	uint64_t bare[3][CALIBRATE_RUNS], off[3][CALIBRATE_RUNS], pre[3][CALIBRATE_RUNS];
	uint64_t in[3][CALIBRATE_RUNS], su[3][CALIBRATE_RUNS];
	uint64_t cpu[3][CALIBRATE_RUNS] = { { 0 } };
	uint64_t start = mono_ns();
	bool whole_cpu = true;
	const char *tmp = getenv("TMPDIR");
	static struct unit_runs units;
	static struct chain_runs chain;
	char outdir[4096];
	int ret = 0;

	memset(c, 0, sizeof(*c));
	for (int i = 0; i < j->nr && c->nr < 3; i++) {
		const char *field = share_field(&j->ev[i].spec->attr);

		if (field && j->ev[i].fd >= 0 && !j->ev[i].spec->nr_parts)
			c->ev[c->nr++] = (struct calibrate_event){ .job_event = i, .share = field };
	}
	if (!c->nr || access(CALIBRATE_PROGRAM, X_OK) < 0) {
		c->error = c->nr ? errno : ENOENT;
		c->nr = 0;
		return -c->error;
	}
	if (calibrate_cache_load(c, j, lib))
		return 0;
	if (*stop) {
		c->error = ECANCELED;
		c->nr = 0;
		return -c->error;
	}
	/* Seconds with nothing to show, the first time: said where someone waits for it. */
	if (isatty(STDERR_FILENO))
		fputs("pfshim run: measuring pfshim's own share for these events, once "
		      "(a few seconds; kept for later runs)...\n", stderr);
	snprintf(outdir, sizeof(outdir), "%s/pfshim-calibrate.XXXXXX",
		 tmp && *tmp == '/' ? tmp : "/tmp");
	if (!mkdtemp(outdir)) {
		c->error = errno;
		c->nr = 0;
		return -c->error;
	}
	c->per_unit = unit_runs_init(&units);
	chain_init(&chain);
	/* where the job has no buffers, nothing records its execs: no price */
	chain.usable = chain.usable && j->nr_rings > 0;
	for (int n = 0; n < CALIBRATE_RUNS && !ret; n++) {
		if (*stop) {	/* pfshim run was told to stop: no more rounds */
			ret = -ECANCELED;
			break;
		}
		uint64_t b[3] = { 0 }, o[3] = { 0 }, p[3] = { 0 }, s[3] = { 0 }, u[3] = { 0 };

		ret = run_once(c, j, lib, RUN_BARE, outdir, (char *[]){ CALIBRATE_PROGRAM, NULL },
			       NULL, b, &cpu[0][n]);
		if (!ret)
			ret = run_once(c, j, lib, RUN_OFF, outdir,
				       (char *[]){ CALIBRATE_PROGRAM, NULL }, NULL, o, &cpu[1][n]);
		if (!ret)
			ret = run_once(c, j, lib, RUN_ON, outdir,
				       (char *[]){ CALIBRATE_PROGRAM, NULL }, NULL, p, &cpu[2][n]);
		if (!ret)
			ret = report_share(c, outdir, s, u);
		/* the prices are a part: a round they fail in leaves them out, not the rest */
		if (!ret && c->per_unit && unit_round(&units, c, j, lib, outdir, n) < 0)
			c->per_unit = false;
		if (!ret && chain.usable && chain_round(&chain, c, j, lib, outdir, n) < 0)
			chain.usable = false;
		for (int k = 0; k < c->nr; k++) {
			bare[k][n] = b[k];
			off[k][n] = o[k];
			pre[k][n] = p[k];
			in[k][n] = s[k];
			su[k][n] = u[k];
		}
		for (int r = 0; r < 3; r++)
			whole_cpu = whole_cpu && cpu[r][n];
	}
	/* a failed run may have left its reports */
	report_share(c, outdir, (uint64_t[3]){ 0 }, (uint64_t[3]){ 0 });
	rmdir(outdir);
	if (ret) {
		c->error = -ret;
		c->nr = 0;
		return ret;
	}
	/*
	 * task-clock as the job's counters see a descendant: its whole CPU time.
	 * Counted by an event opened on the run's pid (perf stat's way), a
	 * preloaded /bin/true shows 60-70 us less of the shim's own work than
	 * sum_exec_runtime does, while a job's total is its processes'
	 * sum_exec_runtime to within 10-35 us each (docs/pfshim.md, "pfshim's
	 * own share"). The time before the exec is the same in all three kinds.
	 */
	for (int k = 0; k < c->nr && whole_cpu; k++) {
		if (strcmp(c->ev[k].share, "task_clock_ns"))
			continue;
		for (int n = 0; n < CALIBRATE_RUNS; n++) {
			bare[k][n] = cpu[0][n];
			off[k][n] = cpu[1][n];
			pre[k][n] = cpu[2][n];
		}
		c->cpu_whole = true;
	}
	for (int k = 0; k < c->nr; k++) {
		/*
		 * The parts from each round's own differences (off less bare; on
		 * less its report's measure less off), the rounds' median: a
		 * round's three runs are a few milliseconds apart, so the machine's
		 * drift between rounds cancels (configure's share: a standard
		 * deviation of 9 ms over 15 rounds against 14 from the medians of
		 * each kind). off and preloaded are kept as bare plus those parts.
		 */
		uint64_t loader = median_of_differences(off[k], bare[k], NULL, CALIBRATE_RUNS);
		uint64_t end = median_of_differences(pre[k], off[k], in[k], CALIBRATE_RUNS);

		if (chain.usable)
			c->ev[k].per_exec = chain_price(&chain, k);
		if (c->per_unit)
			unit_prices(&units, c, &c->ev[k], k, end);
		c->ev[k].in_process = median(in[k], CALIBRATE_RUNS);
		c->ev[k].setup = median(su[k], CALIBRATE_RUNS);
		c->ev[k].bare = median(bare[k], CALIBRATE_RUNS);
		c->ev[k].off = c->ev[k].bare + loader;
		c->ev[k].preloaded = c->ev[k].off + c->ev[k].in_process + end;
	}
	c->cost_ns = mono_ns() - start;
	calibrate_cache_save(c, j, lib);
	return 0;
}

json_t *calibrate_json(const struct calibration *c, const struct jobcount *j)
{
	json_t *events, *o;

	if (!c->nr)
		return json_pack("{s:s}", "error", strerror(c->error ? c->error : ENOENT));
	events = json_array();
	for (int k = 0; k < c->nr; k++) {
		json_t *e = json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I}",
			"name", j->ev[c->ev[k].job_event].spec->name, "share", c->ev[k].share,
			"bare", (json_int_t)c->ev[k].bare, "off", (json_int_t)c->ev[k].off,
			"preloaded", (json_int_t)c->ev[k].preloaded,
			"in_process", (json_int_t)c->ev[k].in_process,
			"setup", (json_int_t)c->ev[k].setup, "per_exec", (json_int_t)c->ev[k].per_exec);

		if (c->per_unit) {
			json_object_set_new(e, "per_1000_faults",
					    json_integer((json_int_t)c->ev[k].per_1000_faults));
			json_object_set_new(e, "per_fork", json_integer((json_int_t)c->ev[k].per_fork));
		}
		json_array_append_new(events, e);
	}
	o = json_pack("{s:s, s:i, s:I, s:b, s:s, s:o}", "program", CALIBRATE_PROGRAM,
		      "runs", CALIBRATE_RUNS, "cost_ns", (json_int_t)c->cost_ns,
		      "cached", c->cached, "task_clock", c->cpu_whole ? "process" : "counter",
		      "events", events);
	if (c->per_unit)
		json_object_set_new(o, "units", json_pack("{s:i, s:i}", "pages", CALIBRATE_PAGES,
							  "forks", CALIBRATE_FORKS));
	return o;
}
