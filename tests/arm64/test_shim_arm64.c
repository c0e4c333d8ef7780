/* SPDX-License-Identifier: MIT */
/*
 * test_shim_arm64.c: the real LD_PRELOAD shim, cross-built for aarch64, on a
 * dynamically linked program in the guest. Runs shim_target_arm64 with a
 * known loop under PFSHIM_EVENTS/PFSHIM_FORMAT=csv, captures its stderr, and
 * checks that the report counts the loop's instructions: two loop lengths
 * must differ by exactly 2 * (difference of iterations), up to a small slack.
 * Also: threads, more events than counters, unprivileged runs, (argument
 * "markers") the marker API through markers_target_arm64, (argument
 * "regions") exact region counts from tests/progs/markers_loop's JSON report
 * and the markers' own cost subtracted (tests/progs/markers_compensate),
 * and (argument "vendor") libpfm4's names counting the same loop.
 */
#include <stdbool.h>
#include <sys/wait.h>

#include "pmu_arm64.h"

#define SHIM "/lib/libpfshim.so"
#define TARGET "/bin/shim_target_arm64"
#define MARKERS_TARGET "/bin/markers_target_arm64"
#define MARKERS_LOOP "/bin/markers_loop"
#define MARKERS_COMPENSATE "/bin/markers_compensate"
#define REPORT_MAX 16384

static bool run_unprivileged;	/* the target runs as nobody */
static const char *report_format = "csv";	/* PFSHIM_FORMAT of the next run */
static bool bind_now;	/* LD_BIND_NOW=1 for the next run */
/* The last report read: check_known_loop leaves its second run's here. */
static char last_report[REPORT_MAX];

/*
 * Run @program @n [@threads, when > 0] under the shim with @events (NULL: the
 * shim's default list); its stdout stays the console's, its stderr (where the
 * report goes) is captured into @report.
 * Return: the program's exit status, 128 + signal, or -1.
 */
static int shim_run_program(const char *program, const char *events, uint64_t n, int threads,
			    char *report, size_t size)
{
	char arg[32], arg2[16];
	size_t len = 0;
	ssize_t got;
	int fds[2], status;
	pid_t pid;

	snprintf(arg, sizeof(arg), "%" PRIu64, n);
	snprintf(arg2, sizeof(arg2), "%d", threads);
	if (pipe(fds) < 0)
		return -1;
	fflush(stdout);	/* or the child would print our buffered lines again */
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		if (run_unprivileged && pmu_drop_privileges() < 0)
			_exit(126);
		setenv("LD_PRELOAD", SHIM, 1);
		setenv("PFSHIM_FORMAT", report_format, 1);
		setenv("PFSHIM_OUTPUT", "stderr", 1);
		if (bind_now)
			setenv("LD_BIND_NOW", "1", 1);
		if (events)
			setenv("PFSHIM_EVENTS", events, 1);
		else
			unsetenv("PFSHIM_EVENTS");
		execl(program, program, arg, threads > 0 ? arg2 : (char *)NULL, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (len + 1 < size && (got = read(fds[0], report + len, size - 1 - len)) > 0)
		len += (size_t)got;
	report[len] = '\0';
	close(fds[0]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int shim_run(const char *events, uint64_t n, char *report, size_t size)
{
	return shim_run_program(TARGET, events, n, 0, report, size);
}

/*
 * Field @col (0-based) of the CSV line at @line, which ends at its '\n';
 * unquoted (the fields read here hold no commas). Return: 0, or -ENOENT when
 * the line has fewer fields.
 */
static int csv_field(const char *line, int col, char *out, size_t size)
{
	size_t n;

	out[0] = '\0';
	for (; col > 0; col--) {
		line += strcspn(line, ",\n");
		if (*line != ',')
			return -ENOENT;
		line++;
	}
	if (*line == '"')
		line++;
	n = strcspn(line, ",\"\n");
	if (n >= size)
		n = size - 1;
	memcpy(out, line, n);
	out[n] = '\0';
	return 0;
}

static int csv_column(const char *header, const char *name)
{
	char field[64];

	for (int col = 0; csv_field(header, col, field, sizeof(field)) == 0; col++)
		if (strcmp(field, name) == 0)
			return col;
	return -1;
}

/*
 * The header line of the report's table that has a column @name: the CSV
 * report is an events table ("signal" is one of its columns) and, with
 * markers, a regions table ("region") after an empty line. Columns are found
 * by name, so their order may change.
 */
static const char *table_header(const char *report, const char *name)
{
	for (const char *line = report; *line;) {
		size_t n = strcspn(line, "\n");

		if (csv_column(line, name) >= 0)
			return line;
		line += n + (line[n] == '\n');
	}
	return NULL;
}

struct match {
	const char *column, *value;
};

/*
 * Field @column of the first row of the table under @header whose fields
 * match all @nr of @m (the table ends at an empty line). Return: 0 or -ENOENT.
 */
static int table_field(const char *header, const struct match *m, int nr, const char *column,
		       char *out, size_t size)
{
	int col = header ? csv_column(header, column) : -1, c, i;
	char field[128];

	if (col < 0)
		return -ENOENT;
	for (const char *line = strchr(header, '\n'); line && line[1] && line[1] != '\n';
	     line = strchr(line + 1, '\n')) {
		for (i = 0; i < nr; i++) {
			c = csv_column(header, m[i].column);
			if (c < 0 || csv_field(line + 1, c, field, sizeof(field)) < 0 ||
			    strcmp(field, m[i].value) != 0)
				break;
		}
		if (i == nr)
			return csv_field(line + 1, col, out, size);
	}
	return -ENOENT;
}

/* Field @column of @row, a line of the table under @header. Return: 0 or -ENOENT. */
static int row_field(const char *header, const char *row, const char *column, char *out,
		     size_t size)
{
	int col = csv_column(header, column);

	out[0] = '\0';
	return col < 0 ? -ENOENT : csv_field(row, col, out, size);
}

static int number_parse(const char *field, uint64_t *value)
{
	if (field[0] < '0' || field[0] > '9')
		return -ENOENT;
	*value = strtoull(field, NULL, 10);
	return 0;
}

/* Field @column of @event's row in the events table. Return: 0 or -ENOENT. */
static int report_column(const char *report, const char *event, const char *column,
			 char *out, size_t size)
{
	const struct match m[] = { { "event", event } };

	return table_field(table_header(report, "signal"), m, 1, column, out, size);
}

/* A number of the process-wide ("total") row of @region and @event. */
static int region_total(const char *report, const char *region, const char *event,
			const char *column, uint64_t *value)
{
	const struct match m[] = { { "scope", "total" }, { "region", region }, { "event", event } };
	char field[64];

	if (table_field(table_header(report, "region"), m, 3, column, field, sizeof(field)) < 0)
		return -ENOENT;
	return number_parse(field, value);
}

/* The counted value of @event in the CSV report. Return: 0 or -ENOENT. */
static int report_value(const char *report, const char *event, uint64_t *value)
{
	char field[64];

	if (report_column(report, event, "value", field, sizeof(field)) < 0)
		return -ENOENT;
	return number_parse(field, value);
}

static void report_print(const char *report)
{
	for (const char *p = report; *p;) {
		size_t n = strcspn(p, "\n");

		printf("    | %.*s\n", (int)n, p);
		p += n + (p[n] == '\n');
	}
}

/* Run @n1 and @n2 iterations; the counts of @event must differ by 2 * (n2 - n1). */
static void check_known_loop(const char *events, const char *event, uint64_t slack)
{
	const uint64_t n[2] = { 1000000, 10000000 };
	uint64_t v[2] = { 0, 0 };
	int status;
	bool ok;

	for (int i = 0; i < 2; i++) {
		status = shim_run(events, n[i], last_report, sizeof(last_report));
		ok = CHECK(status == 0, "PFSHIM_EVENTS=%s: target exited %d", events ?: "(default)",
			   status) &&
		     CHECK(report_value(last_report, event, &v[i]) == 0,
			   "PFSHIM_EVENTS=%s: the CSV report has a counted %s", events ?: "(default)",
			   event);
		if (i == 1 || !ok)
			report_print(last_report);
		if (!ok)
			return;
	}
	CHECK(v[0] >= 2 * n[0] && v[1] >= 2 * n[1],
	      "%s: %" PRIu64 " >= 2 x %" PRIu64 " and %" PRIu64 " >= 2 x %" PRIu64, event, v[0], n[0],
	      v[1], n[1]);
	CHECK(v[1] - v[0] >= 2 * (n[1] - n[0]) && v[1] - v[0] <= 2 * (n[1] - n[0]) + slack,
	      "%s: the two runs differ by %" PRIu64 " = 2 x %" PRIu64 " + %" PRId64
	      " (slack %" PRIu64 ")", event, v[1] - v[0], n[1] - n[0],
	      (int64_t)(v[1] - v[0] - 2 * (n[1] - n[0])), slack);
}

/*
 * The shim's process-wide group is inherited by threads: 1 thread and 3
 * threads of the same loop must differ by 2 loops, plus what creating and
 * joining the threads costs in user space (measured: a few thousand).
 */
static void check_threads(void)
{
	const uint64_t n = 5000000;
	uint64_t v[2] = { 0, 0 };
	int status[2];

	for (int i = 0; i < 2; i++) {
		status[i] = shim_run_program(TARGET, "instructions:u", n, i == 0 ? 1 : 3, last_report,
					     sizeof(last_report));
		if (!CHECK(status[i] == 0 && report_value(last_report, "instructions:u", &v[i]) == 0,
			   "threads: %d thread(s) ran and were counted", i == 0 ? 1 : 3)) {
			report_print(last_report);
			return;
		}
	}
	report_print(last_report);
	CHECK(v[1] - v[0] >= 2 * 2 * n && v[1] - v[0] < 2 * 2 * n + 100000,
	      "threads: 3 threads - 1 thread = %" PRIu64 " = 2 loops of 2 x %" PRIu64 " + %" PRId64
	      " (slack 100,000)", v[1] - v[0], n, (int64_t)(v[1] - v[0] - 4 * n));
}

/*
 * More hardware events than the PMU has counters: 7 x instructions:u on 6
 * event counters (instructions cannot use the cycle counter). The kernel
 * refuses the 7th member of the first group (its leader carries
 * enable_on_exec: preload/counters/totals.c), so the shim opens 2 groups, 6 + 1, which
 * take turns: every event is counted, scaled, near the loop's 2 x 10,000,000.
 * Members of a group share their times, so 2 groups = 2 distinct running_ns,
 * and each runs about half of the time.
 *
 * The same 7 as a weak group, {...}:W, as perf does: the group cannot be
 * held, so its members are opened as 7 events of their own, and 6 of them
 * count at any time: each runs about 6/7 of the time (at least 70% is
 * asked; 2 groups taking turns would give about 50%).
 */
static void check_seven_instructions(const char *label, const char *events, const char *name,
				     int weak)
{
	const uint64_t loop = 2 * 10000000;
	const char *header, *line;
	char event[32], status[32], field[32];
	uint64_t value, running[7], enabled;
	int rows = 0, counted = 0, groups = 0, most_of_the_time = 0;

	if (!CHECK(shim_run(events, 10000000, last_report, sizeof(last_report)) == 0,
		   "%s: target exited 0", label))
		return;
	report_print(last_report);
	header = table_header(last_report, "signal");
	for (line = header ? strchr(header, '\n') : NULL; line && line[1] && line[1] != '\n';
	     line = strchr(line + 1, '\n')) {
		if (row_field(header, line + 1, "event", event, sizeof(event)) < 0 ||
		    strcmp(event, name) != 0 || rows == 7)
			continue;
		row_field(header, line + 1, "status", status, sizeof(status));
		row_field(header, line + 1, "value", field, sizeof(field));
		if (strcmp(status, "counted") == 0 && number_parse(field, &value) == 0 &&
		    value > loop - loop / 10 && value < loop + loop / 10)
			counted++;
		row_field(header, line + 1, "running_ns", field, sizeof(field));
		running[rows] = strtoull(field, NULL, 10);
		row_field(header, line + 1, "enabled_ns", field, sizeof(field));
		enabled = strtoull(field, NULL, 10);
		most_of_the_time += running[rows] * 10 >= enabled * 7;
		groups++;
		for (int k = 0; k < rows; k++)
			if (running[k] == running[rows]) {
				groups--;
				break;
			}
		rows++;
	}
	if (weak)
		CHECK(rows == 7 && counted == 7 && most_of_the_time == 7,
		      "%s: %d rows, %d counted within 10%% of 2 x 10,000,000, %d ran at least 70%% "
		      "of the time (want 7, 7, 7: separate events)", label, rows, counted,
		      most_of_the_time);
	else
		CHECK(rows == 7 && counted == 7 && groups == 2 && most_of_the_time == 0,
		      "%s: %d rows, %d counted within 10%% of 2 x 10,000,000, in %d groups, %d ran "
		      "at least 70%% of the time (want 7, 7, 2, 0)", label, rows, counted, groups,
		      most_of_the_time);
}

static void check_more_events_than_counters(void)
{
	check_seven_instructions("7 x instructions:u",
				 "instructions:u,instructions:u,instructions:u,instructions:u,"
				 "instructions:u,instructions:u,instructions:u", "instructions:u", 0);
	check_seven_instructions("{7 x instructions:u}",
				 "{instructions:u,instructions:u,instructions:u,instructions:u,"
				 "instructions:u,instructions:u,instructions:u}", "instructions:u", 0);
	check_seven_instructions("{7 x instructions:u}:W",
				 "{instructions:u,instructions:u,instructions:u,instructions:u,"
				 "instructions:u,instructions:u,instructions:u}:W",
				 "instructions:uW", 1);
}

/*
 * tests/progs/markers_loop N under the shim, JSON report: region "loop"
 * minus region "base" is exactly 2N instructions (each iteration is subs +
 * b.ne; both regions run the same code around it), and the thread's regions
 * were read from user space (user_reads > 0, syscall_reads 0). The events
 * count user space only (:u), so a timer tick inside a region adds nothing
 * to the counts; it does add its kernel time to the region's wall time (under
 * -icount a region of 2N instructions lasts 2N ns; the tick is every 4 ms),
 * so the wall check runs the program again, at another phase of the tick,
 * before it calls a difference a failure.
 */
static int json_number_after(const char *from, const char *key, uint64_t *value)
{
	const char *p = from ? strstr(from, key) : NULL;

	if (!p)
		return -ENOENT;
	return number_parse(p + strlen(key), value);
}

/* The value of @event in the first per-thread region named @region. */
static int json_region_value(const char *report, const char *region, const char *event,
			     uint64_t *value)
{
	char key[96];
	const char *p;

	snprintf(key, sizeof(key), "{\"name\":\"%s\",\"calls\":", region);
	p = strstr(report, key);
	snprintf(key, sizeof(key), "{\"name\":\"%s\",\"value\":", event);
	return json_number_after(p, key, value);
}

/* The wall ns of the first per-thread region named @region. */
static int json_region_wall(const char *report, const char *region, uint64_t *value)
{
	char key[96];

	snprintf(key, sizeof(key), "{\"name\":\"%s\",\"calls\":", region);
	return json_number_after(strstr(report, key), "\"wall_ns\":", value);
}

/* The per-call minimum and maximum of the first event of region @region. */
static int json_region_first(const char *report, const char *region, uint64_t *min,
			     uint64_t *max)
{
	char key[96];
	const char *p;

	snprintf(key, sizeof(key), "{\"name\":\"%s\",\"calls\":", region);
	p = strstr(report, key);
	if (json_number_after(p, "\"first_min\":", min) < 0)
		return -ENOENT;
	return json_number_after(p, "\"first_max\":", max);
}

#define MARKERS_LOOP_TRIES 8
/* What markers_loop's region "base" may count of the markers themselves (43-63 seen). */
#define EMPTY_REGION_MAX 1000

/* markers_loop's regions by name (MARKERS_LOOP_BY_NAME=1), not by handle. */
static bool loop_by_name;

/*
 * One run; returns wall(loop) - wall(base) - 2N, or INT64_MAX when the report
 * had no wall times. A run whose wall times say a timer tick fell inside a
 * region is not judged when @may_retry: the kernel rewrote the page there
 * (a context switch), and the read after it took fastread's full pass, which
 * counts its own user instructions (+43 seen in "loop", cycles:u).
 */
static int64_t markers_loop_run(const char *events, uint64_t n, bool may_retry)
{
	uint64_t loop = 0, base = 0, user = 0, sys = 1, wall_loop = 0, wall_base = 0;
	uint64_t first_min = 0, first_max = 1;
	char event[32];
	int status;

	/* The first event of the list is the one compared. */
	snprintf(event, sizeof(event), "%.*s", (int)strcspn(events, ","), events);
	report_format = "json";
	bind_now = true;
	if (loop_by_name)
		setenv("MARKERS_LOOP_BY_NAME", "1", 1);
	status = shim_run_program(MARKERS_LOOP, events, n, 0, last_report, sizeof(last_report));
	unsetenv("MARKERS_LOOP_BY_NAME");
	bind_now = false;
	report_format = "csv";
	if (!CHECK(status == 0, "markers_loop %" PRIu64 ", PFSHIM_EVENTS=%s%s: exit %d", n, events,
		   loop_by_name ? ", by name" : "", status) ||
	    !CHECK(json_region_value(last_report, "loop", event, &loop) == 0 &&
		   json_region_value(last_report, "base", event, &base) == 0 &&
		   json_number_after(last_report, "\"user_reads\":", &user) == 0 &&
		   json_number_after(last_report, "\"syscall_reads\":", &sys) == 0,
		   "markers_loop %" PRIu64 ": the JSON report has regions loop and base and the "
		   "thread's reads", n)) {
		report_print(last_report);
		return INT64_MAX;
	}
	if (may_retry && json_region_wall(last_report, "loop", &wall_loop) == 0 &&
	    json_region_wall(last_report, "base", &wall_base) == 0) {
		int64_t wall_extra = (int64_t)(wall_loop - wall_base) - (int64_t)(2 * n);

		if (wall_extra < -128 || wall_extra > 128) {
			printf("  note markers_loop %" PRIu64 ", %s: %s loop %" PRIu64 " - base %"
			       PRIu64 " not judged\n", n, events, event, loop, base);
			return wall_extra;
		}
	}
	CHECK(loop - base == 2 * n, "markers_loop %" PRIu64 ", %s: %s loop %" PRIu64
	      " - base %" PRIu64 " = %" PRId64 " (want exactly 2N = %" PRIu64 ")", n, events, event, loop,
	      base, (int64_t)(loop - base), 2 * n);
	/*
	 * No one-time cost inside a region: "base" is entered twice, the first
	 * time by the thread's first marker call (which opens its groups, maps
	 * their pages, fills fastread's cache and creates the slot); both calls
	 * must count the same (first_min, first_max: the first event per call).
	 */
	if (CHECK(json_region_first(last_report, "base", &first_min, &first_max) == 0,
		  "markers_loop %" PRIu64 ": region base's first_min and first_max", n)) {
		CHECK(first_min == first_max, "markers_loop %" PRIu64 ", %s%s: the first call of base "
		      "counts as the second: %s %" PRIu64 " and %" PRIu64, n, events,
		      loop_by_name ? ", by name" : "", event, first_min, first_max);
		/*
		 * Tens of the markers' own instructions: a begin that took
		 * another event's counter for this one's (they differ by the
		 * kernel's count where the list mixes :u and :k) is far off.
		 */
		CHECK(first_max < EMPTY_REGION_MAX, "markers_loop %" PRIu64 ", %s%s: an empty region "
		      "counts the markers' own instructions: %s %" PRIu64 " (want < %d)", n, events,
		      loop_by_name ? ", by name" : "", event, first_max, EMPTY_REGION_MAX);
	}
	/* What an empty region counts (base: a call of spin(1) inside), for the benches. */
	printf("ARM64-BENCH cpu=%s markers events=%s empty_region_%s %s=%" PRIu64 "\n",
	       pmu_cpu_model(), events, loop_by_name ? "by_name" : "by_handle", event, first_min);
	CHECK(user > 0 && sys == 0, "markers_loop %" PRIu64 ", %s: the thread's regions were read "
	      "from user space: user_reads %" PRIu64 ", syscall_reads %" PRIu64, n, events, user,
	      sys);
	if (!CHECK(json_region_wall(last_report, "loop", &wall_loop) == 0 &&
		   json_region_wall(last_report, "base", &wall_base) == 0,
		   "markers_loop %" PRIu64 ": the regions' wall_ns in the report", n))
		return INT64_MAX;
	return (int64_t)(wall_loop - wall_base) - (int64_t)(2 * n);
}

static void check_markers_loop(const char *events, uint64_t n)
{
	int64_t wall_extra = INT64_MAX;

	/*
	 * Under -icount shift=0 an instruction lasts 1 ns of guest time, so the
	 * 2N instructions more of "loop" last 2N ns more; the clock (cntvct_el0,
	 * 62.5 MHz) ticks every 16 ns, and each of the 4 calls' 2 stamps can be
	 * off by one tick: 128 ns at most, unless a timer tick fell inside.
	 */
	for (int try = 1; try <= MARKERS_LOOP_TRIES; try++) {
		wall_extra = markers_loop_run(events, n, try < MARKERS_LOOP_TRIES);
		if (wall_extra == INT64_MAX || (wall_extra >= -128 && wall_extra <= 128))
			break;
		printf("  note markers_loop %" PRIu64 ", %s: wall 2N %+" PRId64 " ns: a timer tick "
		       "in a region; again\n", n, events, wall_extra);
	}
	if (wall_extra != INT64_MAX)
		CHECK(wall_extra >= -128 && wall_extra <= 128, "markers_loop %" PRIu64 ", %s: wall "
		      "loop - base = 2N %+" PRId64 " ns (want within 128 ns)", n, events, wall_extra);
}

/*
 * The default event list (no PFSHIM_EVENTS): its hardware group holds cycles
 * and instructions, beside the totals' inherited cycles. Every read of that
 * group must come from user space (user_reads: 2 per call, 4 calls), the
 * software group's through read(2) (their pages say index 0); cycles and
 * instructions count the kernel too, so a timer tick or an interrupt inside
 * either region adds a few thousand to it (-2,818 seen in "base"): loop -
 * base is 2N within 50,000.
 */
static void check_markers_defaults(uint64_t n)
{
	uint64_t user = 0, loop[2] = { 0, 0 }, base[2] = { 0, 0 };
	static const char *const names[2] = { "cycles", "instructions" };
	int status;

	report_format = "json";
	bind_now = true;
	status = shim_run_program(MARKERS_LOOP, NULL, n, 0, last_report, sizeof(last_report));
	bind_now = false;
	report_format = "csv";
	if (!CHECK(status == 0 && json_number_after(last_report, "\"user_reads\":", &user) == 0,
		   "markers_loop %" PRIu64 ", default events: exit %d, the thread's reads", n,
		   status)) {
		report_print(last_report);
		return;
	}
	CHECK(user == 8, "markers_loop %" PRIu64 ", default events: the hardware group read from "
	      "user space at every begin and end: user_reads %" PRIu64 " (want 8)", n, user);
	for (int e = 0; e < 2; e++) {
		if (!CHECK(json_region_value(last_report, "loop", names[e], &loop[e]) == 0 &&
			   json_region_value(last_report, "base", names[e], &base[e]) == 0,
			   "markers_loop %" PRIu64 ", default events: %s counted in both regions", n,
			   names[e])) {
			report_print(last_report);
			continue;
		}
		CHECK((int64_t)(loop[e] - base[e] - 2 * n) > -50000 &&
		      (int64_t)(loop[e] - base[e] - 2 * n) < 50000,
		      "markers_loop %" PRIu64 ", default events: %s loop - base = 2N + %" PRId64, n,
		      names[e], (int64_t)(loop[e] - base[e] - 2 * n));
	}
}

/*
 * tests/progs/markers_compensate N: in 2 threads (one exited, one read live
 * by the report), regions "empty" and "spin" (N iterations inline), CALLS
 * calls each, nested in "outer". Without PFSHIM_COMPENSATE, spin - empty is
 * exactly 2N per call, every call of a region counts as its first (no
 * set-up inside a region: the probe's measurement included), and the thread
 * has a probe; with PFSHIM_COMPENSATE=1, empty reads 0 + 2 at most per call
 * and spin 2N +- 2 (the probe's pair and a program's differ by what the
 * compiler puts between the calls), never below 0. A run is judged only
 * when it is exact or is the last: a timer tick between two reads makes the
 * next one take fastread's full pass (+13 seen; +239 in "spin" when it fell
 * in the end's read), as in check_markers_loop. On a loaded host the guest's
 * ticks come more often per instruction (make check beside two other QEMU
 * runs: 3 tries in 3 hit): 8 tries.
 */
#define COMPENSATE_CALLS 3
#define COMPENSATE_TRIES 8
#define JUDGE(judge, cond, ...) ((judge) ? CHECK(cond, __VA_ARGS__) : !!(cond))

/* Thread @k's object of the JSON report (threads in report order), copied into @out. */
static int json_thread_copy(const char *report, int k, char *out, size_t size)
{
	const char *p = strstr(report, "\"threads\":[{\"tid\":"), *end;
	size_t len;

	if (p)
		p += strlen("\"threads\":[");
	for (; p && k > 0; k--)
		p = strstr(p + 1, "{\"tid\":");
	if (!p)
		return -ENOENT;
	end = strstr(p + 1, "{\"tid\":");
	if (!end)
		end = strstr(p, "\"totals\":");
	len = end ? (size_t)(end - p) : strlen(p);
	if (len >= size)
		return -ENOSPC;
	memcpy(out, p, len);
	out[len] = '\0';
	return 0;
}

static bool compensate_run(const char *events, uint64_t n, bool compensate, bool judge)
{
	static char thread[REPORT_MAX];
	char names[2][32];
	int nr = 0, status;
	bool ok = true;

	for (const char *p = events; *p && nr < 2; nr++) {
		size_t len = strcspn(p, ",");

		snprintf(names[nr], sizeof(names[nr]), "%.*s", (int)len, p);
		p += len + (p[len] == ',');
	}
	report_format = "json";
	bind_now = true;
	if (compensate)
		setenv("PFSHIM_COMPENSATE", "1", 1);
	status = shim_run_program(MARKERS_COMPENSATE, events, n, 0, last_report,
				  sizeof(last_report));
	unsetenv("PFSHIM_COMPENSATE");
	bind_now = false;
	report_format = "csv";
	if (!CHECK(status == 0, "markers_compensate %" PRIu64 ", %s: exit %d", n, events, status))
		return false;
	ok &= JUDGE(judge, strstr(last_report, compensate ? "\"compensated\":true" :
						"\"compensated\":false") != NULL,
		    "markers_compensate %" PRIu64 ", %s: the report says compensated %d", n, events,
		    compensate);
	for (int k = 0; k < 2; k++) {
		uint64_t user = 0, sys = 1, calls = 0, fmin[2] = { 1, 1 }, fmax[2] = { 0, 0 };

		if (!CHECK(json_thread_copy(last_report, k, thread, sizeof(thread)) == 0 &&
			   json_number_after(thread, "\"user_reads\":", &user) == 0 &&
			   json_number_after(thread, "\"syscall_reads\":", &sys) == 0 &&
			   json_number_after(strstr(thread, "{\"name\":\"empty\",\"calls\":"),
					     "\"calls\":", &calls) == 0 &&
			   json_region_first(thread, "empty", &fmin[0], &fmax[0]) == 0 &&
			   json_region_first(thread, "spin", &fmin[1], &fmax[1]) == 0,
			   "markers_compensate %" PRIu64 ", %s: thread %d's reads and regions", n,
			   events, k)) {
			report_print(last_report);
			return false;
		}
		ok &= JUDGE(judge, user > 0 && sys == 0 && calls == COMPENSATE_CALLS,
			    "markers_compensate %" PRIu64 ", %s, thread %d: %" PRIu64 " calls, read "
			    "from user space (user_reads %" PRIu64 ", syscall_reads %" PRIu64 ")", n,
			    events, k, calls, user, sys);
		for (int r = 0; r < 2; r++)
			ok &= JUDGE(judge, fmin[r] == fmax[r], "markers_compensate %" PRIu64 ", %s, "
				    "thread %d: every call of %s counts as its first: %" PRIu64
				    " .. %" PRIu64, n, events, k, r ? "spin" : "empty", fmin[r],
				    fmax[r]);
		for (int e = 0; e < nr; e++) {
			uint64_t empty = 0, spin = 0, probe = 0;
			char key[64];
			int64_t extra;

			snprintf(key, sizeof(key), "{\"name\":\"%s\",\"value\":", names[e]);
			if (!CHECK(json_region_value(thread, "empty", names[e], &empty) == 0 &&
				   json_region_value(thread, "spin", names[e], &spin) == 0 &&
				   json_number_after(strstr(thread, "\"probe\":["), key, &probe) == 0,
				   "markers_compensate %" PRIu64 ", %s, thread %d: %s in empty, spin "
				   "and the probe", n, events, k, names[e])) {
				report_print(last_report);
				return false;
			}
			extra = (int64_t)(spin - COMPENSATE_CALLS * 2 * n);
			printf("  markers_compensate %" PRIu64 ", %s, thread %d, %s: probe %" PRIu64
			       ", %d calls: empty %" PRIu64 ", spin 2N x calls %+" PRId64 "%s\n", n,
			       events, k, names[e], probe, COMPENSATE_CALLS, empty, extra,
			       compensate ? " (compensated)" : "");
			ok &= JUDGE(judge, probe > 0, "markers_compensate %" PRIu64 ", %s, thread %d: "
				    "a probe of %s measured: %" PRIu64, n, events, k, names[e], probe);
			if (!compensate) {
				ok &= JUDGE(judge, spin - empty == COMPENSATE_CALLS * 2 * n,
					    "markers_compensate %" PRIu64 ", %s, thread %d: %s spin - "
					    "empty = %" PRId64 " (want exactly calls x 2N = %" PRIu64 ")",
					    n, events, k, names[e], (int64_t)(spin - empty),
					    (uint64_t)COMPENSATE_CALLS * 2 * n);
				continue;
			}
			ok &= JUDGE(judge, empty <= 2 * COMPENSATE_CALLS,
				    "markers_compensate %" PRIu64 ", %s, thread %d: %s of empty, "
				    "compensated, %" PRIu64 " over %d calls (want 0 + 2 at most per call)",
				    n, events, k, names[e], empty, COMPENSATE_CALLS);
			ok &= JUDGE(judge, extra >= -2 * COMPENSATE_CALLS &&
					   extra <= 2 * COMPENSATE_CALLS,
				    "markers_compensate %" PRIu64 ", %s, thread %d: %s of spin, "
				    "compensated, calls x 2N %+" PRId64 " (want within 2 per call)", n,
				    events, k, names[e], extra);
		}
	}
	return ok;
}

static void check_compensate(const char *events, uint64_t n, bool compensate)
{
	for (int try = 1; try <= COMPENSATE_TRIES; try++) {
		if (compensate_run(events, n, compensate, try == COMPENSATE_TRIES))
			return;
		printf("  note markers_compensate %" PRIu64 ", %s: not exact (a timer tick?); "
		       "again\n", n, events);
	}
}

/* The text report's regions of one run, printed for people (docs/markers.md quotes it). */
static void compensate_text_print(const char *events, uint64_t n, bool compensate)
{
	const char *regions;

	report_format = "text";
	bind_now = true;
	if (compensate)
		setenv("PFSHIM_COMPENSATE", "1", 1);
	if (shim_run_program(MARKERS_COMPENSATE, events, n, 0, last_report,
			     sizeof(last_report)) == 0 &&
	    (regions = strstr(last_report, " pfshim: regions per thread")) != NULL)
		printf("%s", regions);
	unsetenv("PFSHIM_COMPENSATE");
	bind_now = false;
	report_format = "csv";
}

#define PARANOID "/proc/sys/kernel/perf_event_paranoid"

/*
 * As nobody. At perf_event_paranoid 2 an unprivileged process may count only
 * user space: the shim's open of "instructions" fails with EACCES, is retried
 * with exclude_kernel, and the report says user_only = 1; the count is then
 * as exact as instructions:u. At 3 (Debian's kernel default) every open
 * fails: the program must still run and the report must say why.
 */
static void check_unprivileged(void)
{
	char field[32] = "";
	int status;

	run_unprivileged = true;
	if (CHECK(pmu_sysctl_write(PARANOID, "2") == 0, "unprivileged: perf_event_paranoid 2")) {
		check_known_loop("instructions", "instructions", 1000);
		report_column(last_report, "instructions", "user_only", field, sizeof(field));
		CHECK(strcmp(field, "1") == 0, "unprivileged: user_only = %s (want 1)", field);
	}
	if (CHECK(pmu_sysctl_write(PARANOID, "3") == 0, "unprivileged: perf_event_paranoid 3")) {
		status = shim_run("instructions", 1000, last_report, sizeof(last_report));
		report_print(last_report);
		report_column(last_report, "instructions", "error", field, sizeof(field));
		CHECK(status == 0 && strcmp(field, "EACCES") == 0,
		      "unprivileged, paranoid 3: target exited %d, report error %s (want EACCES)",
		      status, field);
	}
	run_unprivileged = false;
}

/*
 * The marker API in a dynamic program: markers_target_arm64 checks itself
 * (exit 0), and its region "loop" must show in the report's regions table as
 * 5 calls of 2 x 1,000,000 instructions plus the markers' own few hundred.
 */
static void check_markers(const char *events)
{
	uint64_t calls = 0, sum = 0;
	int status;

	fflush(stdout);
	status = shim_run_program(MARKERS_TARGET, events, 0, 0, last_report, sizeof(last_report));
	report_print(last_report);
	CHECK(status == 0, "markers, PFSHIM_EVENTS=%s: the program's own checks passed (exit %d)",
	      events, status);
	if (!CHECK(region_total(last_report, "loop", "instructions:u", "calls", &calls) == 0 &&
		   region_total(last_report, "loop", "instructions:u", "value", &sum) == 0,
		   "markers: the report has region \"loop\" with calls and value"))
		return;
	CHECK(calls == 5 && sum >= 5 * 2000000 && sum < 5 * 2001000,
	      "markers: region \"loop\" %" PRIu64 " calls, %" PRIu64 " instructions:u = 5 x "
	      "2,000,000 + %" PRIu64, calls, sum, sum - 5 * 2000000);
}

/*
 * The cost of a pair with @events, measured by markers_target_arm64 with the
 * shim's totals disabled (they would not fit beside the thread's group), and
 * every one of its reads served from user space (the JSON report's
 * user_reads, syscall_reads), or the number would be read(2)'s.
 */
static void check_markers_costs(const char *events)
{
	uint64_t user = 0, sys = 1;
	int status;

	report_format = "json";
	setenv("MARKERS_COSTS_ONLY", "1", 1);
	status = shim_run_program(MARKERS_TARGET, events, 0, 0, last_report, sizeof(last_report));
	unsetenv("MARKERS_COSTS_ONLY");
	report_format = "csv";
	if (!CHECK(status == 0 && json_number_after(last_report, "\"user_reads\":", &user) == 0 &&
		   json_number_after(last_report, "\"syscall_reads\":", &sys) == 0,
		   "markers costs, PFSHIM_EVENTS=%s: exit %d, the thread's reads in the report",
		   events, status)) {
		report_print(last_report);
		return;
	}
	CHECK(user > 0 && sys == 0, "markers costs, %s: every read from user space: user_reads %"
	      PRIu64 ", syscall_reads %" PRIu64, events, user, sys);
}

/*
 * Vendor names through libpfm4 (preload/events/pfm.c), on -cpu cortex-a57,
 * which libpfm4 finds in /proc/cpuinfo: INST_RETIRED is Arm's common event
 * 0x08, the one the generic instructions event maps to, so it counts the
 * known loop, and counts what instructions counts beside it in one group.
 */
static void check_vendor_names(void)
{
	uint64_t generic = 0, vendor = 0;
	int status;

	check_known_loop("INST_RETIRED:u", "INST_RETIRED:u", 1000);
	/* Not "inst_retired": that is the kernel's sysfs alias, resolved before libpfm4 */
	check_known_loop("Inst_Retired:u,CPU_CYCLES:u", "Inst_Retired:u", 1000);
	status = shim_run("{instructions:u,INST_RETIRED:u}", 1000000, last_report,
			  sizeof(last_report));
	if (!CHECK(status == 0 && report_value(last_report, "instructions:u", &generic) == 0 &&
		   report_value(last_report, "INST_RETIRED:u", &vendor) == 0,
		   "{instructions:u,INST_RETIRED:u}: both counted (exit %d)", status)) {
		report_print(last_report);
		return;
	}
	CHECK(generic == vendor, "{instructions:u,INST_RETIRED:u}: %" PRIu64 " = %" PRIu64,
	      generic, vendor);
}

/*
 * PFSHIM_GROUP on a real PMU: a group file of LIKWID's format over
 * INST_RETIRED and CPU_CYCLES (the one table's instructions and cycles,
 * the default list's own), and LIKWID's arm8 BRANCH group by name when the
 * initramfs carries Debian's group files. Each metric, of the process and
 * of region "loop", must be its formula over the same report's counts, to
 * the bit. The same for PFSHIM_METRICS=IPC,CPI: perf's generic instructions
 * and cycles, the default list's own, with perf stat's formulas.
 */
#define CPI_GROUP "/tmp/cpi.txt"
#define ARM8_BRANCH "/usr/share/likwid/perfgroups/arm8/BRANCH.txt"

/* The number after @key at or after @from, as a double. */
static int json_double_after(const char *from, const char *key, double *value)
{
	const char *p = from ? strstr(from, key) : NULL;
	char *end;

	if (!p)
		return -ENOENT;
	*value = strtod(p + strlen(key), &end);
	return end == p + strlen(key) ? -EINVAL : 0;
}

/* Metric @name's value in the "metrics" array at or after @from. */
static int json_metric(const char *from, const char *name, double *value)
{
	char key[96];
	const char *p = from ? strstr(from, "\"metrics\":[") : NULL;

	snprintf(key, sizeof(key), "{\"name\":\"%s\",\"unit\":\"\",\"value\":", name);
	return json_double_after(p, key, value);
}

static void check_metric_ratio(const char *what, const char *metric, double got,
			       uint64_t num, uint64_t den)
{
	double want = (double)num / (double)den;

	CHECK(got == want, "%s: %s %.17g = %" PRIu64 " / %" PRIu64 " (%.17g)", what,
	      metric, got, num, den, want);
}

/* markers_loop under @variable=@group (PFSHIM_GROUP or PFSHIM_METRICS), @label in messages. */
static void check_group_run(const char *variable, const char *group, const char *label)
{
	uint64_t ins = 0, cyc = 0, rins = 0, rcyc = 0;
	double cpi = 0, ipc = 0, rcpi = 0;
	const char *loop;
	int status;

	setenv(variable, group, 1);
	report_format = "json";
	status = shim_run_program(MARKERS_LOOP, NULL, 20000, 0, last_report, sizeof(last_report));
	report_format = "csv";
	unsetenv(variable);
	loop = strstr(last_report, "{\"name\":\"loop\",\"threads\":");
	if (!CHECK(status == 0 && strstr(last_report, "\"metric_group\":") && loop &&
		   json_number_after(last_report, "{\"name\":\"instructions\",\"status\":\"counted\","
				     "\"value\":", &ins) == 0 &&
		   json_number_after(last_report, "{\"name\":\"cycles\",\"status\":\"counted\","
				     "\"value\":", &cyc) == 0 &&
		   json_number_after(strstr(loop, "{\"name\":\"instructions\","), "\"sum\":",
				     &rins) == 0 &&
		   json_number_after(strstr(loop, "{\"name\":\"cycles\","), "\"sum\":", &rcyc) == 0 &&
		   json_metric(last_report, "CPI", &cpi) == 0 && json_metric(loop, "CPI", &rcpi) == 0,
		   "%s: exit %d, the report has the group's metrics, the process's "
		   "and region loop's counts", label, status)) {
		report_print(last_report);
		return;
	}
	check_metric_ratio(label, "CPI", cpi, cyc, ins);
	check_metric_ratio(label, "CPI of region loop", rcpi, rcyc, rins);
	if (json_metric(last_report, "IPC", &ipc) == 0)
		check_metric_ratio(label, "IPC", ipc, ins, cyc);
	printf("  note %s: CPI %.4f (process), %.4f (region loop, %" PRIu64
	       " instructions)\n", label, cpi, rcpi, rins);
}

static void check_metrics(void)
{
	FILE *f = fopen(CPI_GROUP, "w");

	if (!CHECK(f, "write %s", CPI_GROUP))
		return;
	fputs("SHORT Cycles per instruction\n\nEVENTSET\nPMC0 INST_RETIRED\nPMC1 CPU_CYCLES\n\n"
	      "METRICS\nCPI PMC1/PMC0\nIPC PMC0/PMC1\n", f);
	fclose(f);
	check_group_run("PFSHIM_GROUP", CPI_GROUP, "PFSHIM_GROUP cpi.txt");
	check_group_run("PFSHIM_METRICS", "IPC,CPI", "PFSHIM_METRICS=IPC,CPI");
	if (access(ARM8_BRANCH, R_OK) == 0)
		check_group_run("PFSHIM_GROUP", "BRANCH", "PFSHIM_GROUP BRANCH (LIKWID's arm8)");
	else
		printf("  note no %s in the initramfs (Debian's likwid is not installed on the host): "
		       "LIKWID's group by name not run\n", ARM8_BRANCH);
}

int main(int argc, char **argv)
{
	if (access(SHIM, R_OK) != 0 || access(TARGET, X_OK) != 0 ||
	    access(MARKERS_TARGET, X_OK) != 0 || access(MARKERS_LOOP, X_OK) != 0 ||
	    access(MARKERS_COMPENSATE, X_OK) != 0) {
		printf("  %s, %s, %s, %s or %s missing from the initramfs\n", SHIM, TARGET,
		       MARKERS_TARGET, MARKERS_LOOP, MARKERS_COMPENSATE);
		return 1;
	}
	if (argc > 1 && strcmp(argv[1], "markers") == 0) {
		check_markers("instructions:u");
		/* The totals' cycles and the thread's: on cortex-a57 (no 64-bit
		 * event counters) the thread's is 32-bit, so both find a counter. */
		check_markers("instructions:u,cycles:u");
		/* 4 + 4 events and the program's own counter: only -cpu max has room. */
		if (strcmp(pmu_cpu_model(), "max") == 0)
			check_markers_costs("instructions:u,cycles:u,instructions,cycles");
		return pmu_exit_status();
	}
	if (argc > 1 && strcmp(argv[1], "metrics") == 0) {
		check_metrics();
		return pmu_exit_status();
	}
	if (argc > 1 && strcmp(argv[1], "vendor") == 0) {
		check_vendor_names();
		return pmu_exit_status();
	}
	if (argc > 1 && strcmp(argv[1], "regions") == 0) {
		check_markers_loop("instructions:u", 1000);
		check_markers_loop("instructions:u", 20000);
		/*
		 * cycles beside the totals' cycles, on both CPUs: on cortex-a57
		 * the one 64-bit counter is the cycle counter, and the totals'
		 * take it first; the thread's must still read from user space
		 * (docs/kernel-notes.md "The cycle counter on a PMU without
		 * 64-bit event counters"). Under -icount a user cycle is a user
		 * instruction, so cycles are exact too.
		 */
		check_markers_loop("instructions:u,cycles:u", 1000);
		check_markers_loop("instructions:u,cycles:u", 20000);
		check_markers_loop("cycles:u,instructions:u", 1000);
		check_markers_loop("cycles:u", 20000);
		/*
		 * Events whose counters hold different counts (the kernel's
		 * instructions beside the program's): each begin's counter in
		 * its own event's place, with 2 and 3 events (arch_read_slots()
		 * and the values taken from it, fastread/cached.h).
		 */
		check_markers_loop("instructions:u,instructions:k", 20000);
		check_markers_loop("instructions:u,cycles:u,instructions:k", 20000);
		/* By name: the same exact counts, the thread's first call a begin by name. */
		loop_by_name = true;
		check_markers_loop("instructions:u", 20000);
		check_markers_loop("instructions:u,cycles:u", 20000);
		loop_by_name = false;
		check_markers_defaults(20000);
		for (int c = 0; c < 2; c++) {
			check_compensate("instructions:u,cycles:u", 1000, c);
			check_compensate("instructions:u,cycles:u", 50000, c);
			compensate_text_print("instructions:u,cycles:u", 1000, c);
		}
		return pmu_exit_status();
	}
	/* User space only: the two runs differ only by the loop. */
	check_known_loop("instructions:u", "instructions:u", 1000);
	/* Kernel included: the runs' system calls are alike, not identical. */
	check_known_loop("instructions", "instructions", 200000);
	/* The default list: events QEMU lacks (branches) must not stop the rest. */
	check_known_loop(NULL, "instructions", 200000);
	check_threads();
	check_more_events_than_counters();
	check_unprivileged();
	return pmu_exit_status();
}
