/* SPDX-License-Identifier: MIT */
/*
 * bench_papi_arm64.c: pfshim's markers against PAPI 7 (Debian's arm64 libpapi7.0
 * over libpfm4), in the same QEMU boot, measured the same way for both: a
 * counter of our own (pmu_arm64.h) around REPS calls, the fewest of TRIALS
 * tries, minus the same loop calling nothing; and the system calls those calls
 * made, counted by the raw_syscalls:sys_enter and syscalls:sys_enter_*
 * tracepoints on this thread. Under -icount shift=0 the counts repeat exactly.
 *
 *   bench_papi_arm64                 every case below, each in a child, then the table
 *   bench_papi_arm64 pfshim N        under LD_PRELOAD=libpfshim.so: pfshim_region_begin/end
 *                                    (by name), pfshim_begin/end (handle), pfshim_read, and
 *                                    the LIKWID and PAPI_hl pairs of libpfshim-compat.so
 *   bench_papi_arm64 papi-hl N       PAPI_hl_region_begin/end, PAPI_EVENTS set by the parent
 *   bench_papi_arm64 papi-read N     PAPI_read of a low-level event set
 *
 * N is 1, 2 or 4 events: instructions:u, cycles:u, then the same two counting
 * the kernel as well; for PAPI the presets PAPI_TOT_INS, PAPI_TOT_CYC (user
 * only, PAPI's default domain) and the natives with :k=1 (libpfm4 must know
 * the CPU: on -cpu max the test list sets LIBPFM_FORCE_PMU). A child prints
 * one "COST" line per operation; the parent prints them as ARM64-BENCH lines
 * and the table. A benchmark: it checks only that the calls return success
 * (one of each before and after the runs) and that PAPI's events open.
 */
#include <dirent.h>
#include <dlfcn.h>
#include <papi.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "include/pfshim.h"
#include "pmu_arm64.h"

#define REPS 1000
#define TRIALS 8
#define SELF "/bin/bench_papi_arm64"
#define SHIM "/lib/libpfshim.so"
#define COMPAT "/lib/libpfshim-compat.so"
#define TRACEFS "/sys/kernel/tracing"
#define PARANOID "/proc/sys/kernel/perf_event_paranoid"

/* ---- the meter: our counters, the same for every operation */

struct meter {
	struct perf_event_mmap_page *user;	/* instructions:u */
	struct perf_event_mmap_page *all;	/* instructions, kernel included */
	int syscalls_fd;			/* raw_syscalls:sys_enter, -1 without tracefs */
	int reads_fd;				/* syscalls:sys_enter_read */
};

/* What one operation costs, per call. */
struct cost {
	double user, user_median, all, syscalls, reads;
};

static struct meter meter;

static struct perf_event_mmap_page *instructions_open(bool kernel_too)
{
	struct perf_event_attr attr;
	int fd;

	/* 64-bit where event counters have it (-cpu max), else 32 (cortex-a57). */
	pmu_attr_init(&attr, PERF_COUNT_HW_INSTRUCTIONS, PMU_CONFIG1_RDPMC | PMU_CONFIG1_64BIT);
	attr.exclude_kernel = !kernel_too;
	attr.pinned = 1;
	fd = pmu_open(&attr, -1);
	if (fd == -EOPNOTSUPP) {
		attr.config1 = PMU_CONFIG1_RDPMC;
		fd = pmu_open(&attr, -1);
	}
	return fd >= 0 ? pmu_map(fd) : NULL;
}

/* The id of tracepoint @event ("raw_syscalls/sys_enter"); mounts tracefs if needed. */
static long tracepoint_id(const char *event)
{
	char path[128], text[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), TRACEFS "/events/%s/id", event);
	if (access(path, R_OK) != 0)
		mount("tracefs", TRACEFS, "tracefs", 0, NULL);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(text, sizeof(text), f))
		text[0] = '\0';
	fclose(f);
	return text[0] ? atol(text) : -1;
}

static int tracepoint_open(const char *event)
{
	struct perf_event_attr attr;
	long id = tracepoint_id(event);

	if (id < 0)
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = (uint64_t)id;
	return pmu_open(&attr, -1);
}

static bool meter_open(void)
{
	meter.user = instructions_open(false);
	meter.all = instructions_open(true);
	meter.syscalls_fd = tracepoint_open("raw_syscalls/sys_enter");
	meter.reads_fd = tracepoint_open("syscalls/sys_enter_read");
	CHECK(meter.syscalls_fd >= 0 && meter.reads_fd >= 0,
	      "system calls counted by tracepoints (raw_syscalls:sys_enter, syscalls:sys_enter_read)");
	return CHECK(meter.user && meter.all, "own instructions counters (user; user+kernel) mapped");
}

/* One try of REPS calls: what each of our counters moved by. */
struct sample {
	uint64_t user, all;
	int64_t syscalls, reads;
};

static int64_t count_or_zero(int fd)
{
	int64_t v = fd >= 0 ? pmu_read_syscall(fd) : 0;

	return v < 0 ? 0 : v;
}

/*
 * The tracepoints are read with read(2) outside the instruction window (their
 * own entries count, the same in every try, and the empty loop's subtracts them).
 */
static bool sample_take(void (*fn)(void), struct sample *s)
{
	struct pmu_snapshot u0, u1, a0, a1;
	int64_t sys0 = count_or_zero(meter.syscalls_fd), rd0 = count_or_zero(meter.reads_fd);

	if (pmu_read_user(meter.all, &a0) < 0 || pmu_read_user(meter.user, &u0) < 0)
		return false;
	for (int i = 0; i < REPS; i++)
		fn();
	if (pmu_read_user(meter.user, &u1) < 0 || pmu_read_user(meter.all, &a1) < 0)
		return false;
	s->syscalls = count_or_zero(meter.syscalls_fd) - sys0;
	s->reads = count_or_zero(meter.reads_fd) - rd0;
	s->user = u1.count - u0.count;
	s->all = a1.count - a0.count;
	return true;
}

static int u64_compare(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The fewest of TRIALS tries of each counter (a timer tick only adds), and the median user. */
static bool trials_take(void (*fn)(void), struct sample *least, uint64_t *user_median)
{
	uint64_t users[TRIALS];
	struct sample s;
	int n = 0;

	least->user = least->all = UINT64_MAX;
	least->syscalls = least->reads = INT64_MAX;
	for (int t = 0; t < TRIALS; t++) {
		if (!sample_take(fn, &s))
			continue;
		users[n++] = s.user;
		least->user = s.user < least->user ? s.user : least->user;
		least->all = s.all < least->all ? s.all : least->all;
		least->syscalls = s.syscalls < least->syscalls ? s.syscalls : least->syscalls;
		least->reads = s.reads < least->reads ? s.reads : least->reads;
	}
	if (n == 0)
		return false;
	qsort(users, (size_t)n, sizeof(users[0]), u64_compare);
	*user_median = users[n / 2];
	return true;
}

static __attribute__((noinline)) void op_nothing(void)
{
	__asm__ volatile("" ::: "memory");
}

static bool cost_measure(void (*fn)(void), struct cost *c)
{
	static struct sample empty;
	static uint64_t empty_median;
	static bool have_empty;
	struct sample s;
	uint64_t median;

	if (!have_empty)
		have_empty = trials_take(op_nothing, &empty, &empty_median);
	fn();	/* set-up on first use (the library's, the thread's) stays out */
	if (!have_empty || !trials_take(fn, &s, &median))
		return false;
	c->user = (double)(s.user - empty.user) / REPS;
	c->user_median = (double)(median - empty_median) / REPS;
	c->all = (double)(s.all - empty.all) / REPS;
	c->syscalls = (double)(s.syscalls - empty.syscalls) / REPS;
	c->reads = (double)(s.reads - empty.reads) / REPS;
	return true;
}

/* The line the parent collects; "-1" system calls when no tracefs. */
static void cost_print(const char *op, int nr, const struct cost *c)
{
	bool traced = meter.syscalls_fd >= 0;

	printf("COST op=%s events=%d user=%.1f median=%.1f all=%.1f syscalls=%.2f reads=%.2f\n",
	       op, nr, c->user, c->user_median, c->all, traced ? c->syscalls : -1.0,
	       traced ? c->reads : -1.0);
	fflush(stdout);
}

/*
 * Which system calls @fn makes: every syscalls:sys_enter_* tracepoint open at
 * once (software events: no PMU counter), REPS calls of @fn against REPS of
 * nothing. The tracepoints' own read(2)s are the same in both and cancel.
 * Prints "  OP: system calls per call: NAME COUNT ..." (nothing without tracefs).
 */
#define SYSCALLS_MAX 512

static void syscalls_print(const char *op, void (*fn)(void))
{
	static struct {
		char name[48];
		int fd;
		int64_t delta[2];
	} sc[SYSCALLS_MAX];
	struct dirent *d;
	DIR *dir = opendir(TRACEFS "/events/syscalls");
	int n = 0;

	if (!dir)
		return;
	while ((d = readdir(dir)) != NULL && n < SYSCALLS_MAX) {
		char event[300];

		if (strncmp(d->d_name, "sys_enter_", 10) != 0)
			continue;
		snprintf(event, sizeof(event), "syscalls/%s", d->d_name);
		sc[n].fd = tracepoint_open(event);
		if (sc[n].fd < 0)
			continue;
		snprintf(sc[n].name, sizeof(sc[n].name), "%s", d->d_name + 10);
		n++;
	}
	closedir(dir);
	for (int pass = 0; pass < 2; pass++) {
		void (*call)(void) = pass ? fn : op_nothing;

		for (int i = 0; i < n; i++)
			sc[i].delta[pass] = count_or_zero(sc[i].fd);
		for (int r = 0; r < REPS; r++)
			call();
		for (int i = 0; i < n; i++)
			sc[i].delta[pass] = count_or_zero(sc[i].fd) - sc[i].delta[pass];
	}
	printf("  %s: system calls per call:", op);
	for (int i = 0; i < n; i++) {
		int64_t extra = sc[i].delta[1] - sc[i].delta[0];

		if (extra != 0)
			printf(" %s %.3g", sc[i].name, (double)extra / REPS);
		close(sc[i].fd);
	}
	printf("\n");
}

static bool measure(const char *op, int nr, void (*fn)(void))
{
	struct cost c = { 0 };

	if (!CHECK(cost_measure(fn, &c), "%s: our counters stayed on the PMU", op))
		return false;
	cost_print(op, nr, &c);
	syscalls_print(op, fn);
	return true;
}

/*
 * The perf events this process holds (/proc/self/fd), each disabled first when
 * @disable. Return: how many (disabled), or a negative errno.
 */
static int perf_fds_walk(bool disable)
{
	char path[300], target[64];
	struct dirent *d;
	DIR *dir = opendir("/proc/self/fd");
	int n = 0;

	if (!dir)
		return -errno;
	while ((d = readdir(dir)) != NULL) {
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", d->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (strcmp(target, "anon_inode:[perf_event]") == 0 &&
		    (!disable || ioctl(atoi(d->d_name), PERF_EVENT_IOC_DISABLE, 0) == 0))
			n++;
	}
	closedir(dir);
	return n;
}

/* The perf events a library opened: all this process holds but the meter's. */
static int perf_fds_library(void)
{
	return perf_fds_walk(false) - 2 - (meter.syscalls_fd >= 0) - (meter.reads_fd >= 0);
}

/* ---- pfshim, in a child run under the shim */

static const char *const pfshim_events[5] = {
	[1] = "instructions:u",
	[2] = "instructions:u,cycles:u",
	[4] = "instructions:u,cycles:u,instructions,cycles",
};

/*
 * The operations discard what they return, as markers_target_arm64's do (so
 * that the pfshim figures are the ones docs/performance.md quotes); each
 * child checks one call's result before and after measuring.
 */
static pfshim_region_t pfshim_pair_region;
static struct pfshim_counts pfshim_sink;

static __attribute__((noinline)) void op_pfshim_pair_name(void)
{
	pfshim_region_begin("pair");
	pfshim_region_end("pair");
}

static __attribute__((noinline)) void op_pfshim_pair(void)
{
	pfshim_begin(pfshim_pair_region);
	pfshim_end(pfshim_pair_region);
}

static __attribute__((noinline)) void op_pfshim_read(void)
{
	pfshim_read(&pfshim_sink);
}

/*
 * libpfshim-compat.so's pairs, by name as a LIKWID or PAPI_hl program calls
 * them. Reached by dlopen(RTLD_LOCAL) and dlsym, as compat/bench_compat.c
 * does: this program links libpapi, whose PAPI_hl_* the global scope holds.
 */
static int (*compat_likwid_start)(const char *), (*compat_likwid_stop)(const char *);
static int (*compat_hl_begin)(const char *), (*compat_hl_end)(const char *);

static __attribute__((noinline)) void op_compat_likwid_pair(void)
{
	compat_likwid_start("pair");
	compat_likwid_stop("pair");
}

static __attribute__((noinline)) void op_compat_hl_pair(void)
{
	compat_hl_begin("pair");
	compat_hl_end("pair");
}

/* The compat library's calls, LIKWID's marker initialised. Return: false if it does not load. */
static bool compat_open(int nr)
{
	void *lib = dlopen(COMPAT, RTLD_NOW | RTLD_LOCAL);
	void (*init)(void);

	if (!CHECK(lib != NULL, "pfshim %d: %s loaded: %s", nr, COMPAT, lib ? "" : dlerror()))
		return false;
	compat_likwid_start = (int (*)(const char *))dlsym(lib, "likwid_markerStartRegion");
	compat_likwid_stop = (int (*)(const char *))dlsym(lib, "likwid_markerStopRegion");
	compat_hl_begin = (int (*)(const char *))dlsym(lib, "PAPI_hl_region_begin");
	compat_hl_end = (int (*)(const char *))dlsym(lib, "PAPI_hl_region_end");
	init = (void (*)(void))dlsym(lib, "likwid_markerInit");
	if (!CHECK(compat_likwid_start && compat_likwid_stop && compat_hl_begin && compat_hl_end &&
		   init && (void *)compat_hl_begin != (void *)PAPI_hl_region_begin,
		   "pfshim %d: the compat library's LIKWID and PAPI_hl calls found", nr))
		return false;
	init();
	return true;
}

/*
 * The shim's process-wide counters (its totals) would take PMU counters that
 * PAPI's run does not hold, and QEMU's 6 event counters could not hold them,
 * 4 marker events and the meter at once: they are disabled before the meter
 * opens, as markers_target_arm64 does. They are read only at exit; a pair's
 * cost does not depend on them.
 */
static int pfshim_child(int nr)
{
	if (!CHECK(pfshim_active(), "pfshim %d: libpfshim.so loaded and counting", nr))
		return 1;
	CHECK(perf_fds_walk(true) > 0, "pfshim %d: the shim's process-wide counters disabled",
	      nr);
	if (!meter_open())
		return 1;
	pfshim_pair_region = pfshim_region("pair");
	if (!CHECK(pfshim_read(&pfshim_sink) == 0 && pfshim_sink.nr == nr,
		   "pfshim %d: pfshim_read gives %d events", nr, pfshim_sink.nr))
		return 1;
	measure("pfshim-pair-name", nr, op_pfshim_pair_name);
	measure("pfshim-pair", nr, op_pfshim_pair);
	measure("pfshim-read", nr, op_pfshim_read);
	CHECK(pfshim_region_begin("pair") == 0 && pfshim_region_end("pair") == 0 &&
	      pfshim_begin(pfshim_pair_region) == 0 && pfshim_end(pfshim_pair_region) == 0 &&
	      pfshim_read(&pfshim_sink) == 0 && pfshim_sink.running[0] > 0,
	      "pfshim %d: begin, end and read return 0 after the runs; the first event ran", nr);
	if (compat_open(nr)) {
		measure("compat-likwid-pair", nr, op_compat_likwid_pair);
		measure("compat-hl-pair", nr, op_compat_hl_pair);
		CHECK(compat_likwid_start("pair") == 0 && compat_likwid_stop("pair") == 0 &&
		      compat_hl_begin("pair") == PAPI_OK && compat_hl_end("pair") == PAPI_OK,
		      "pfshim %d: the compat pairs return 0 / PAPI_OK after the runs", nr);
	}
	return pmu_exit_status();
}

/* ---- PAPI */

/*
 * Candidate event lists, the first that PAPI can start wins. The 4-event one
 * adds the kernel-counting twins, as pfshim's does. (libpfm4's generic perf::
 * names are no way around an unknown CPU: PAPI then disables its whole
 * perf_event component, "libpfm4 no default PMU found".)
 */
static const char *const papi_lists[5][2] = {
	[1] = { "PAPI_TOT_INS" },
	[2] = { "PAPI_TOT_INS,PAPI_TOT_CYC" },
	[4] = { "PAPI_TOT_INS,PAPI_TOT_CYC,INST_RETIRED:k=1,CPU_CYCLES:k=1" },
};

static int papi_eventset = PAPI_NULL;
static long long papi_values[4];

/* An event set of the comma-separated @list, started. Return: PAPI_OK or PAPI's error. */
static int papi_eventset_start(const char *list, const char **failed)
{
	char names[256], *save = NULL;
	int err;

	snprintf(names, sizeof(names), "%s", list);
	err = PAPI_create_eventset(&papi_eventset);
	for (char *n = strtok_r(names, ",", &save); err == PAPI_OK && n;
	     n = strtok_r(NULL, ",", &save)) {
		err = PAPI_add_named_event(papi_eventset, n);
		*failed = err == PAPI_OK ? *failed : strstr(list, n);
	}
	return err == PAPI_OK ? PAPI_start(papi_eventset) : err;
}

static void papi_eventset_end(void)
{
	long long v[4];

	PAPI_stop(papi_eventset, v);
	PAPI_cleanup_eventset(papi_eventset);
	PAPI_destroy_eventset(&papi_eventset);
}

/* PAPI's components, and why any is disabled (once). */
static void papi_components_print(void)
{
	for (int i = 0; i < PAPI_num_components(); i++) {
		const PAPI_component_info_t *c = PAPI_get_component_info(i);

		if (c)
			printf("  PAPI component %s: %s%s\n", c->name,
			       c->disabled ? "disabled: " : "enabled",
			       c->disabled ? c->disabled_reason : "");
	}
}

/* The first list of @nr events PAPI can count here, or NULL. */
static const char *papi_list_choose(int nr)
{
	if (PAPI_is_initialized() == PAPI_NOT_INITED) {
		if (PAPI_library_init(PAPI_VER_CURRENT) != PAPI_VER_CURRENT)
			return NULL;
		papi_components_print();
	}
	for (int i = 0; papi_lists[nr][i]; i++) {
		const char *failed = "";
		int err = papi_eventset_start(papi_lists[nr][i], &failed);

		if (err == PAPI_OK) {
			papi_eventset_end();
			return papi_lists[nr][i];
		}
		printf("  PAPI cannot count %s: %s (at %s)\n", papi_lists[nr][i],
		       PAPI_strerror(err), failed);
		if (papi_eventset != PAPI_NULL) {
			PAPI_cleanup_eventset(papi_eventset);
			PAPI_destroy_eventset(&papi_eventset);
		}
	}
	return NULL;
}

static __attribute__((noinline)) void op_papi_hl_pair(void)
{
	PAPI_hl_region_begin("pair");
	PAPI_hl_region_end("pair");
}

static __attribute__((noinline)) void op_papi_read(void)
{
	PAPI_read(papi_eventset, papi_values);
}

/* PAPI_EVENTS and PAPI_OUTPUT_DIRECTORY come from the parent. */
static int papi_hl_child(int nr)
{
	if (!meter_open())
		return 1;
	/* PAPI_hl reads PAPI_EVENTS and starts here */
	if (!CHECK(PAPI_hl_region_begin("pair") == PAPI_OK && PAPI_hl_region_end("pair") == PAPI_OK,
		   "PAPI_hl %d: the first begin and end return PAPI_OK", nr))
		return 1;
	printf("  PAPI_hl %d: PAPI_EVENTS=%s, %d perf events opened by PAPI\n", nr,
	       getenv("PAPI_EVENTS") ?: "?", perf_fds_library());
	measure("papi-hl-pair", nr, op_papi_hl_pair);
	CHECK(PAPI_hl_region_begin("pair") == PAPI_OK && PAPI_hl_region_end("pair") == PAPI_OK,
	      "PAPI_hl %d: begin and end return PAPI_OK after the runs", nr);
	return pmu_exit_status();
}

static int papi_read_child(int nr, const char *list)
{
	const char *failed = "";
	int err;

	if (!meter_open())
		return 1;
	if (!CHECK(PAPI_library_init(PAPI_VER_CURRENT) == PAPI_VER_CURRENT,
		   "PAPI_library_init"))
		return 1;
	err = papi_eventset_start(list, &failed);
	if (!CHECK(err == PAPI_OK, "PAPI_read %d: event set %s started: %s", nr, list,
		   PAPI_strerror(err)))
		return 1;
	printf("  PAPI_read %d: %d perf events opened by PAPI\n", nr, perf_fds_library());
	measure("papi-read", nr, op_papi_read);
	CHECK(PAPI_read(papi_eventset, papi_values) == PAPI_OK && papi_values[0] > 0,
	      "PAPI_read %d: a read after the runs returns PAPI_OK, %s = %lld", nr, list,
	      papi_values[0]);
	papi_eventset_end();
	return pmu_exit_status();
}

/* ---- the parent: run the children, collect their COST lines, print the table */

#define ROWS_MAX 32

struct row {
	char op[32];
	int nr;
	struct cost c;
};

static struct row rows[ROWS_MAX];
static int nr_rows;

static const struct row *row_find(const char *op, int nr)
{
	for (int i = 0; i < nr_rows; i++)
		if (strcmp(rows[i].op, op) == 0 && rows[i].nr == nr)
			return &rows[i];
	return NULL;
}

/* Run ourselves as @argv with @env added; echo its output, keep its COST lines. */
static bool child_run(char *const argv[], char *const env[])
{
	char line[512];
	int pipefd[2], status;
	FILE *out;
	pid_t pid;

	fflush(stdout);
	if (pipe(pipefd) < 0)
		return false;
	pid = fork();
	if (pid == 0) {
		dup2(pipefd[1], 1);
		close(pipefd[0]);
		close(pipefd[1]);
		for (int i = 0; env[i]; i++)
			putenv(env[i]);
		execv(SELF, argv);
		_exit(127);
	}
	close(pipefd[1]);
	out = fdopen(pipefd[0], "r");
	while (out && fgets(line, sizeof(line), out)) {
		struct row *r = &rows[nr_rows];

		if (nr_rows < ROWS_MAX &&
		    sscanf(line, "COST op=%31s events=%d user=%lf median=%lf all=%lf syscalls=%lf "
			   "reads=%lf", r->op, &r->nr, &r->c.user, &r->c.user_median, &r->c.all,
			   &r->c.syscalls, &r->c.reads) == 7)
			nr_rows++;
		else
			fputs(line, stdout);
	}
	if (out)
		fclose(out);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s %s: exit status %d",
		     argv[1], argv[2], WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* Is every event of @list named in PAPI_hl's output under @dir? */
static bool papi_hl_output_has(const char *dir, const char *list)
{
	char cmd[512];

	/* The guest's busybox: a grep per event over the rank files PAPI wrote. */
	snprintf(cmd, sizeof(cmd), "for e in $(echo '%s' | tr , ' '); do "
		 "grep -rqF \"\\\"$e\\\"\" '%s' || { echo \"  PAPI_hl output lacks $e\"; exit 1; }; "
		 "done", list, dir);
	fflush(stdout);
	return system(cmd) == 0;
}

static void table_row(const char *what, int nr, const char *ours, const char *theirs)
{
	const struct row *a = row_find(ours, nr), *b = row_find(theirs, nr);
	const char *cpu = pmu_cpu_model();

	if (!a || !b) {
		printf("ARM64-BENCH cpu=%s vs-papi %-14s %d   (not measured: see above)\n", cpu,
		       what, nr);
		return;
	}
	printf("ARM64-BENCH cpu=%s vs-papi %-14s %d %8.1f %8.1f %6.1fx %8.1f %8.1f %6.1fx %4.0f %4.0f\n",
	       cpu, what, nr, a->c.user, b->c.user, b->c.user / a->c.user, a->c.all, b->c.all,
	       b->c.all / a->c.all, b->c.syscalls, b->c.reads);
}

/* The compat layers' pairs against the pair by handle (issue 22 point 4: at most 1.2x). */
static void compat_row(int nr)
{
	const struct row *h = row_find("pfshim-pair", nr), *lk = row_find("compat-likwid-pair", nr),
			 *hl = row_find("compat-hl-pair", nr);

	if (!h || !lk || !hl) {
		printf("ARM64-BENCH cpu=%s compat events=%d (not measured: see above)\n",
		       pmu_cpu_model(), nr);
		return;
	}
	printf("ARM64-BENCH cpu=%s compat events=%d by_handle=%.1f likwid_pair=%.1f (%.2fx) "
	       "papi_hl_pair=%.1f (%.2fx); goal <= 1.2x: likwid %s, papi_hl %s\n",
	       pmu_cpu_model(), nr, h->c.user, lk->c.user, lk->c.user / h->c.user, hl->c.user,
	       hl->c.user / h->c.user, lk->c.user <= 1.2 * h->c.user ? "met" : "NOT MET",
	       hl->c.user <= 1.2 * h->c.user ? "met" : "NOT MET");
}

/*
 * Every operation's line (machine-readable: op, events, user, median, all,
 * syscalls, reads), then the table: pfshim's pair by handle and by name
 * against PAPI_hl's (which takes a name), pfshim_read against PAPI_read.
 */
static void table_print(void)
{
	const char *cpu = pmu_cpu_model();
	static const int sizes[] = { 1, 2, 4 };

	for (int i = 0; i < nr_rows; i++)
		printf("ARM64-BENCH cpu=%s papi op=%s events=%d user=%.1f median=%.1f all=%.1f "
		       "syscalls=%.2f reads=%.2f\n", cpu, rows[i].op, rows[i].nr, rows[i].c.user,
		       rows[i].c.user_median, rows[i].c.all, rows[i].c.syscalls, rows[i].c.reads);
	printf("ARM64-BENCH cpu=%s vs-papi instructions per call, fewest of %d x %d calls: user "
	       "space, then with the kernel's (+k); PAPI's system calls per call, all and read(2)\n",
	       cpu, TRIALS, REPS);
	printf("ARM64-BENCH cpu=%s vs-papi %-14s %s %8s %8s %7s %8s %8s %7s %4s %4s\n", cpu, "call",
	       "N", "pfshim", "PAPI", "PAPI/pf", "pfshim+k", "PAPI+k", "PAPI/pf", "sys", "read");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		table_row("pair", sizes[i], "pfshim-pair", "papi-hl-pair");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		table_row("pair by name", sizes[i], "pfshim-pair-name", "papi-hl-pair");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		table_row("read", sizes[i], "pfshim-read", "papi-read");
	printf("ARM64-BENCH cpu=%s vs-papi pair: pfshim_begin/end(handle) and "
	       "pfshim_region_begin/end(name) against PAPI_hl_region_begin/end(name); read: "
	       "pfshim_read against PAPI_read\n", cpu);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		compat_row(sizes[i]);
	for (int i = 0; i < nr_rows; i++)
		if (strncmp(rows[i].op, "papi", 4) != 0 && rows[i].c.syscalls != 0)
			printf("ARM64-BENCH cpu=%s vs-papi NOTE %s with %d events made %.2f system "
			       "calls per call (read(2), not user space)\n", cpu, rows[i].op,
			       rows[i].nr, rows[i].c.syscalls);
}

static int parent(void)
{
	static const int sizes[] = { 1, 2, 4 };
	char paranoid[8] = "";
	FILE *f = fopen(PARANOID, "r");

	/*
	 * Debian's kernel starts at paranoid 3 (its own patch), and PAPI 7.0
	 * then disables its perf_event component, root or not ("perf_event
	 * support disabled by Linux with paranoid=3"). 2 is upstream's default;
	 * the old value is put back at the end. pfshim counts the same at both.
	 */
	if (f) {
		if (!fgets(paranoid, sizeof(paranoid), f))
			paranoid[0] = '\0';
		fclose(f);
	}
	CHECK(pmu_sysctl_write(PARANOID, "2") == 0, "perf_event_paranoid 2 for PAPI (was %.1s)",
	      paranoid);

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int nr = sizes[i];
		char n[4], events[128], papi_events[160], outdir[64], outvar[96];
		const char *list = papi_list_choose(nr);

		snprintf(n, sizeof(n), "%d", nr);
		snprintf(events, sizeof(events), "PFSHIM_EVENTS=%s", pfshim_events[nr]);
		{
			char *argv[] = { SELF, "pfshim", n, NULL };
			char *env[] = { "LD_PRELOAD=" SHIM, events, "PFSHIM_OUTPUT=/tmp/pfshim.txt",
					NULL };

			child_run(argv, env);
		}
		if (!CHECK(list != NULL, "PAPI can count %d events here", nr))
			continue;
		snprintf(papi_events, sizeof(papi_events), "PAPI_EVENTS=%s", list);
		snprintf(outdir, sizeof(outdir), "/tmp/papi-hl-%d", nr);
		snprintf(outvar, sizeof(outvar), "PAPI_OUTPUT_DIRECTORY=%s", outdir);
		{
			char *argv[] = { SELF, "papi-hl", n, NULL };
			char *env[] = { papi_events, outvar, NULL };

			if (child_run(argv, env))
				CHECK(papi_hl_output_has(outdir, list),
				      "PAPI_hl %d: its output in %s names every event of %s", nr,
				      outdir, list);
		}
		{
			char *argv[] = { SELF, "papi-read", n, (char *)list, NULL };
			char *env[] = { NULL };

			child_run(argv, env);
		}
	}
	table_print();
	if (paranoid[0])
		pmu_sysctl_write(PARANOID, paranoid);
	return pmu_exit_status();
}

int main(int argc, char **argv)
{
	int nr = argc > 2 ? atoi(argv[2]) : 0;

	if (argc == 1)
		return parent();
	if (nr != 1 && nr != 2 && nr != 4)
		return 2;
	if (strcmp(argv[1], "pfshim") == 0)
		return pfshim_child(nr);
	if (strcmp(argv[1], "papi-hl") == 0)
		return papi_hl_child(nr);
	if (strcmp(argv[1], "papi-read") == 0 && argc > 3)
		return papi_read_child(nr, argv[3]);
	return 2;
}
