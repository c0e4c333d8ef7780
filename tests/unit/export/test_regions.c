/* SPDX-License-Identifier: MIT */
/*
 * test_regions.c: the regions section of a report, which
 * export/text.c, csv.c and json.c each write after their events, on a
 * hand-made report whose numbers can be checked by eye: two threads, a
 * scaled and an uncounted value, misuse, a name that needs CSV quoting, the
 * probe (pfshim's own count per call) of one thread, with and without
 * PFSHIM_COMPENSATE; and a report without regions, which must not change.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <cmocka.h>

#include "export/report.h"

/* The end of every CSV row: its last columns, no job (job_scheduler, job_id, job_step), pfshim_version. */
#define END ",,,," PFSHIM_VERSION "\n"
#include "report_sample.h"

/* Region events: task-clock (sample event 0, msec) and context-switches (1). */
static const int region_events[] = { 0, 1 };

static const struct report_region_value solve0_values[] = {
	{ .value = 1900000, .raw = 1900000, .enabled = 1900000, .running = 1900000 },
	/* on a counter half the time: 2 raw -> 4 */
	{ .value = 4, .raw = 2, .enabled = 1000, .running = 500, .scaled = 1 },
};

static const struct report_region_value solve1_values[] = {
	{ .value = 3800000, .raw = 3800000, .enabled = 3800000, .running = 3800000 },
	{ .value = 6, .raw = 6, .enabled = 3800000, .running = 3800000 },
};

static const struct report_region_value open_values[] = {
	{ .status = STATUS_NOT_COUNTED, .enabled = 10 },
	{ .status = STATUS_NOT_COUNTED, .enabled = 10 },
};

static const struct report_region thread0_regions[] = {
	{ .name = "solve", .calls = 10, .wall_ns = 2000000, .wall_min_ns = 100000,
	  .wall_max_ns = 300000, .first_min = 90000, .first_max = 290000, .values = solve0_values },
};

static const struct report_region thread1_regions[] = {
	{ .name = "solve", .calls = 20, .reentries = 5, .wall_ns = 4000000, .wall_min_ns = 150000,
	  .wall_max_ns = 250000, .first_min = 140000, .first_max = 240000, .values = solve1_values },
	{ .name = "a,b", .open = 1, .unclosed = 1, .wall_min_ns = REPORT_NONE,
	  .wall_max_ns = REPORT_NONE, .first_min = REPORT_NONE, .first_max = REPORT_NONE,
	  .values = open_values },
};

/* worker-1's paths: 'a,b' begun inside 'solve'. */
static const struct report_region thread1_paths[] = {
	{ .name = "solve", .parent = -1, .calls = 20, .reentries = 5, .wall_ns = 4000000,
	  .wall_min_ns = 150000, .wall_max_ns = 250000, .first_min = 140000,
	  .first_max = 240000, .values = solve1_values },
	{ .name = "a,b", .parent = 0, .open = 1, .unclosed = 1, .wall_min_ns = REPORT_NONE,
	  .wall_max_ns = REPORT_NONE, .first_min = REPORT_NONE, .first_max = REPORT_NONE,
	  .values = open_values },
};

/* worker-0's probe: 1.5 usec of task-clock per call; its context-switches never ran whole. */
static const struct report_region_value probe0_values[] = {
	{ .value = 1500, .raw = 1500 },
	{ .status = STATUS_NOT_COUNTED },
};

static const struct report_region_stat probe_stats[] = {
	{ .sum = 1500, .min = 1500, .max = 1500, .mean = 1500, .threads = 1 },
	{ .status = STATUS_NOT_COUNTED },
};

static const struct report_thread threads[] = {
	{ .tid = 101, .name = "worker-0", .exited = 1, .syscall_reads = 20,
	  .probe = probe0_values, .nr_regions = 1, .regions = thread0_regions },
	{ .tid = 102, .name = "worker-1", .user_reads = 42, .end_without_begin = 3,
	  .unnested = 2, .nr_regions = 2, .regions = thread1_regions, .nr_paths = 2,
	  .paths = thread1_paths },
};

static const struct report_region_stat solve_stats[] = {
	{ .sum = 5700000, .min = 1900000, .max = 3800000, .mean = 2850000, .threads = 2 },
	{ .sum = 10, .min = 4, .max = 6, .mean = 5, .threads = 2, .scaled = 1 },
};

static const struct report_region_stat open_stats[] = {
	{ .status = STATUS_NOT_COUNTED },
	{ .status = STATUS_NOT_COUNTED },
};

static const struct report_region_total totals[] = {
	{ .name = "solve", .threads = 2, .calls = 30, .reentries = 5, .first_min = 90000,
	  .first_max = 290000, .values = solve_stats,
	  .wall = { .sum = 6000000, .min = 2000000, .max = 4000000, .mean = 3000000, .threads = 2 } },
	{ .name = "a,b", .threads = 1, .unclosed = 1, .first_min = REPORT_NONE,
	  .first_max = REPORT_NONE, .values = open_stats,
	  .wall = { .status = STATUS_NOT_COUNTED } },
};

static const struct report_regions regions = {
	.nr_events = 2, .event = region_events, .capacity = 23,
	.nr_threads = 2, .threads = threads, .nr_totals = 2, .totals = totals,
	.names_refused = 1,
	.user_read_problem = "rdpmc is \"off\"",
	.probe = probe_stats,
};

static struct report with_regions(void)
{
	struct report r = sample_report;

	r.regions = &regions;
	return r;
}

static char out[65536];

static void test_text(void **state)
{
	struct report r = with_regions();

	(void)state;
	report_format_text(&r, out, sizeof(out));
	assert_non_null(strstr(out, "\n thread 101 'worker-0' (exited): 0 counter reads from user"
				    " space, 20 with read(2)\n"));
	assert_non_null(strstr(out, "\n   region 'solve': 10 calls, 2.000 msec wall"
				    " (per call 100.000 usec .. 300.000 usec)\n"
				    "              1.90 msec task-clock\n"
				    "                 4      context-switches  (50.00%, scaled)\n"));
	assert_non_null(strstr(out, "\n thread 102 'worker-1': 42 counter reads from user space,"
				    " 0 with read(2)\n   MISUSE: 3 end without begin\n"));
	assert_non_null(strstr(out, "region 'solve': 20 calls, 4.000 msec wall (per call 150.000"
				    " usec .. 250.000 usec), 5 re-entries counted once\n"));
	assert_non_null(strstr(out, "\n   region 'a,b': 0 calls, 0.000 usec wall, open now,"
				    " MISUSE: left open 1 time\n"
				    "     <not counted>      task-clock\n"));
	/* Over threads: sum, min, max, mean in 14 columns each. */
	assert_non_null(strstr(out, "\n   region 'solve': 2 threads, 30 calls\n"
				    "          6.00          2.00          4.00          3.00 msec wall\n"
				    "          5.70          1.90          3.80          2.85 msec task-clock\n"
				    "            10             4             6             5"
				    "      context-switches  (scaled)\n"));
	assert_non_null(strstr(out, " pfshim: MISUSE: 1 region names refused"));
	/* The probe beside worker-0's regions (worker-1 has none), and over threads. */
	assert_non_null(strstr(out, " with read(2)\n   each call includes ~1.500 usec task-clock, "
				    "<not counted> context-switches of pfshim itself\n   region 'solve'"));
	assert_null(strstr(out, " 0 with read(2)\n   each call"));
	assert_non_null(strstr(out, "mean\n   pfshim itself in each call, per thread (included in "
				    "every region):\n             -          1.50          1.50"
				    "          1.50 usec task-clock\n"));
	/* worker-0 took read(2): why, in the words of fastread_user_access_problem() */
	assert_non_null(strstr(out, "\n pfshim: counter reads took read(2): rdpmc is \"off\"\n"));
}

/* Fields of one CSV line, RFC 4180: commas inside quotes do not count. */
static int csv_fields(const char *line, const char *end)
{
	int n = 1, quoted = 0;

	for (const char *p = line; p < end; p++) {
		if (*p == '"')
			quoted = !quoted;
		else if (*p == ',' && !quoted)
			n++;
	}
	return n;
}

static void test_csv(void **state)
{
	struct report r = with_regions();
	const char *table, *line, *end;
	int rows = 0, header;

	(void)state;
	report_format_csv(&r, out, sizeof(out));
	table = strstr(out, "\n\npid,program,reason,scope,tid,thread,region,threads,calls,");
	assert_non_null(table);
	line = table + 2;
	end = strchr(line, '\n');
	header = csv_fields(line, end);
	assert_int_equal(header, 26);
	/*
	 * every row has the header's fields: 3 thread regions x 2 events, 2
	 * totals x 2, worker-0's probe x 2 events, the probe over threads x 2
	 */
	for (line = end + 1; *line; line = end + 1, rows++) {
		end = strchr(line, '\n');
		assert_non_null(end);
		assert_int_equal(csv_fields(line, end), header);
	}
	assert_int_equal(rows, 14);
	assert_non_null(strstr(table, "\n4242,demo,exit,thread,101,worker-0,solve,1,10,0,0,2000000,"
				      "context-switches,4,2,1000,500,counted,,,,0" END));
	assert_non_null(strstr(table, "\n4242,demo,exit,thread,102,worker-1,\"a,b\",1,0,0,1,0,"
				      "task-clock,,0,10,0,not-counted,,,,0" END));
	assert_non_null(strstr(table, "\n4242,demo,exit,total,,,solve,2,30,5,0,6000000,"
				      "task-clock,5700000,,,,counted,1900000,3800000,2850000,0" END));
	assert_non_null(strstr(table, "\n4242,demo,exit,total,,,\"a,b\",1,0,0,1,0,"
				      "context-switches,,,,,not-counted,,,,0" END));
	assert_non_null(strstr(table, "\n4242,demo,exit,probe,101,worker-0,,1,,,,,"
				      "task-clock,1500,1500,,,counted,,,,0" END));
	assert_non_null(strstr(table, "\n4242,demo,exit,probe,101,worker-0,,1,,,,,"
				      "context-switches,,,,,not-counted,,,,0" END));
	assert_non_null(strstr(table, "\n4242,demo,exit,probe_total,,,,1,,,,,"
				      "task-clock,,,,,counted,1500,1500,1500,0" END));
	assert_null(strstr(table, ",probe,102,"));
}

/* Python's json module parses it and @check holds (skipped without python3). */
static void assert_python(const char *text, const char *check)
{
	FILE *py;
	int status;

	if (system("command -v python3 >/dev/null 2>&1") != 0)
		return;
	assert_int_equal(setenv("PFSHIM_JSON_CHECK", check, 1), 0);
	py = popen("python3 -c 'import json,os,sys\n"
		   "d = json.loads(sys.stdin.read())\n"
		   "assert eval(os.environ[\"PFSHIM_JSON_CHECK\"]), d[\"regions\"]\n'", "w");
	assert_non_null(py);
	fputs(text, py);
	status = pclose(py);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_json(void **state)
{
	struct report r = with_regions();

	(void)state;
	report_format_json(&r, out, sizeof(out));
	assert_non_null(strstr(out, "],\"regions\":{\"events\":[\"task-clock\",\"context-switches\"],"
				    "\"capacity\":23,"));
	assert_python(out, "d['regions']['threads'][0]['regions'][0]['events'][1] == "
			   "{'name': 'context-switches', 'value': 4, 'raw': 2, 'enabled_ns': 1000, "
			   "'running_ns': 500, 'scaled': True, 'status': 'counted'}");
	assert_python(out, "d['regions']['threads'][1]['misuse'] == {'end_without_begin': 3, "
			   "'bad_handle': 0, 'table_full': 0, 'unnested': 2, 'unclosed': 1}");
	/* Paths: the flat regions' fields and the parent's index; none for worker-0. */
	assert_python(out, "[(g['name'], g['parent'], g['calls']) for g in "
			   "d['regions']['threads'][1]['paths']] == [('solve', -1, 20), ('a,b', 0, 0)]"
			   " and d['regions']['threads'][0]['paths'] == [] and "
			   "'parent' not in d['regions']['threads'][1]['regions'][0]");
	assert_python(out, "[g['name'] for g in d['regions']['threads'][1]['regions']] == "
			   "['solve', 'a,b']");
	/* No call, no per-call extremes: null, never a made-up 0 or 2^64-1. */
	assert_python(out, "d['regions']['threads'][1]['regions'][1]['wall_min_ns'] is None and "
			   "d['regions']['threads'][1]['regions'][1]['first_max'] is None and "
			   "d['regions']['threads'][1]['regions'][1]['events'][0]['value'] is None");
	assert_python(out, "d['regions']['totals'][0]['events'][0] == {'name': 'task-clock', "
			   "'status': 'counted', 'scaled': False, 'threads': 2, 'sum': 5700000, "
			   "'min': 1900000, 'max': 3800000, 'mean': 2850000}");
	assert_python(out, "d['regions']['totals'][1]['wall_ns']['sum'] is None and "
			   "d['regions']['totals'][1]['unclosed'] == 1");
	assert_python(out, "d['regions']['names_refused'] == 1 and d['regions']['note'] is None");
	assert_python(out, "d['regions']['user_read_problem'] == 'rdpmc is \"off\"'");
	assert_python(out, "d['regions']['compensated'] is False and "
			   "d['regions']['threads'][0]['probe'] == [{'name': 'task-clock', 'value': "
			   "1500, 'status': 'counted'}, {'name': 'context-switches', 'value': None, "
			   "'status': 'not-counted'}] and d['regions']['threads'][1]['probe'] is None");
	assert_python(out, "d['regions']['probe'][0] == {'name': 'task-clock', 'status': "
			   "'counted', 'scaled': False, 'threads': 1, 'sum': 1500, 'min': 1500, "
			   "'max': 1500, 'mean': 1500} and d['regions']['probe'][1]['min'] is None");
}

/* PFSHIM_COMPENSATE=1: the same numbers, said to be less the probe. */
static void test_compensated(void **state)
{
	struct report_regions g = regions;
	struct report r = with_regions();

	(void)state;
	g.compensated = 1;
	r.regions = &g;
	report_format_text(&r, out, sizeof(out));
	assert_non_null(strstr(out, " with read(2)\n   subtracted from each call "
				    "(PFSHIM_COMPENSATE=1): ~1.500 usec task-clock, <not counted> "
				    "context-switches of pfshim itself\n"));
	assert_non_null(strstr(out, "   pfshim itself in each call, per thread, subtracted "
				    "(PFSHIM_COMPENSATE=1):\n"));
	report_format_csv(&r, out, sizeof(out));
	assert_non_null(strstr(out, "task-clock,5700000,,,,counted,1900000,3800000,2850000,1" END));
	assert_null(strstr(strstr(out, "\n\npid,"), ",0" END));
	report_format_json(&r, out, sizeof(out));
	assert_python(out, "d['regions']['compensated'] is True");
}

/* A program without markers gets exactly the report it got before regions existed. */
static void test_no_regions_no_change(void **state)
{
	(void)state;
	report_format_json(&sample_report, out, sizeof(out));
	assert_null(strstr(out, "regions"));
	assert_int_equal(out[strlen(out) - 3], ']');
	report_format_csv(&sample_report, out, sizeof(out));
	assert_null(strstr(out, "scope"));
	report_format_text(&sample_report, out, sizeof(out));
	assert_null(strstr(out, "region"));
}

static void test_truncation(void **state)
{
	struct report r = with_regions();

	(void)state;
	check_truncation(report_format_text, &r);
	check_truncation(report_format_csv, &r);
	check_truncation(report_format_json, &r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_compensated),
		cmocka_unit_test(test_no_regions_no_change),
		cmocka_unit_test(test_truncation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
