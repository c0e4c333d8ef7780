/* SPDX-License-Identifier: MIT */
/*
 * test_openmetrics.c: export/openmetrics.c: exact lines for the shared
 * sample, the naming rules (sanitizing, modifiers, names that would meet
 * pfshim's own families, units), what an uncounted event gives, escaping of
 * hostile labels, the regions' families, and truncation. Every output is
 * also given to a real parser, Debian's python3-prometheus-client, through
 * tests/tools/openmetrics_check.py, when it is installed (tests/deps.sh
 * installs it for make e2e; the unit tests only skip that step without it).
 * The same report in the Prometheus text format (report_format_prometheus):
 * its HELP and TYPE lines, and promtool check metrics where it is installed.
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

#include "report_sample.h"

static char out[65536];

static const char *format(const struct report *r)
{
	size_t n = report_format_openmetrics(r, out, sizeof(out));

	assert_true(n < sizeof(out));
	assert_int_equal(strlen(out), n);
	return out;
}

static int is_name_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}

static int is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

/*
 * The shape every line must have, checked here whether or not Python is
 * installed: metadata ("# TYPE|UNIT|HELP NAME ..."), a sample
 * "NAME{...} VALUE" with a valid metric name, no blank line, and "# EOF"
 * last with its newline.
 */
static void assert_shape(const char *text)
{
	size_t n = strlen(text);
	const char *line = text;

	assert_true(n >= 6);
	assert_string_equal(text + n - 6, "# EOF\n");
	assert_ptr_equal(strstr(text, "# EOF\n"), text + n - 6);	/* none earlier */
	while (*line) {
		const char *end = strchr(line, '\n');
		const char *p = line;

		assert_non_null(end);
		assert_true(end > line);
		if (*p == '#') {
			assert_true(strncmp(p, "# TYPE ", 7) == 0 || strncmp(p, "# UNIT ", 7) == 0 ||
				    strncmp(p, "# HELP ", 7) == 0 || strncmp(p, "# EOF\n", 6) == 0);
			if (p[2] != 'E') {
				p += 7;
				assert_true(strncmp(p, "pfshim_", 7) == 0);
			}
		} else {
			assert_true(strncmp(p, "pfshim_", 7) == 0);
			while (is_name_char(*p))
				p++;
			assert_int_equal(*p, '{');
		}
		line = end + 1;
	}
}

/*
 * The real parser accepts @text and @check (a Python expression on s, the
 * list of (name, labels, value) samples) holds. Skipped where
 * python3-prometheus-client is not installed.
 */
/* The shell command @cmd reads @text on its stdin and exits 0. */
static void assert_piped(const char *cmd, const char *text)
{
	FILE *p = popen(cmd, "w");
	int status;

	assert_non_null(p);
	fputs(text, p);
	status = pclose(p);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void assert_parsed(const char *text, const char *check)
{
	char cmd[1024];

	assert_shape(text);
	if (system("/usr/bin/python3 -c 'import prometheus_client' >/dev/null 2>&1") != 0)
		return;
	assert_int_equal(setenv("PFSHIM_OM_CHECK", check, 1), 0);
	snprintf(cmd, sizeof(cmd),
		 "/usr/bin/python3 tests/tools/openmetrics_check.py - | /usr/bin/python3 -c '"
		 "import json,os,sys\n"
		 "d = [json.loads(l) for l in sys.stdin.read().splitlines()]\n"
		 "s = [(x[\"name\"], x[\"labels\"], x[\"value\"]) for x in d]\n"
		 "assert eval(os.environ[\"PFSHIM_OM_CHECK\"]), s\n'");
	assert_piped(cmd, text);
}

static const char *const process_labels = "{program=\"demo\",pid=\"4242\",host=\"build1\",rank=\"\"";

/* @line (without its newline) is one of @text's lines. */
static void assert_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return;
	fail_msg("missing line: %s", line);
}

/* The sample of @family (with its suffix) for @event: "NAME{process labels,event=...} VALUE". */
static void assert_event_sample(const char *text, const char *name, const char *event,
				const char *value)
{
	char line[512];

	snprintf(line, sizeof(line), "%s%s,event=\"%s\"} %s", name, process_labels, event, value);
	assert_line(text, line);
}

static void test_sample(void **state)
{
	(void)state;
	format(&sample_report);
	assert_line(out, "# TYPE pfshim_report_info gauge");
	assert_line(out, "pfshim_report_info{program=\"demo\",pid=\"4242\",host=\"build1\","
			 "rank=\"\",argv0=\"./demo\",ppid=\"4241\",pid_ns=\"\",reason=\"exit\","
			 "signal=\"\",job_scheduler=\"\",job_id=\"\",job_step=\"\","
			 "pfshim_version=\"" PFSHIM_VERSION "\"} 1");
	assert_line(out, "# UNIT pfshim_wall_seconds seconds");
	assert_line(out, "pfshim_wall_seconds{program=\"demo\",pid=\"4242\",host=\"build1\","
			 "rank=\"\"} 1.234567890");
	assert_line(out, "pfshim_start_time_seconds{program=\"demo\",pid=\"4242\",host=\"build1\","
			 "rank=\"\"} 1700000000.123456789");
	/* the clocks count ns and are shown in seconds, exactly */
	assert_line(out, "# TYPE pfshim_task_clock_seconds counter");
	assert_line(out, "# UNIT pfshim_task_clock_seconds seconds");
	assert_event_sample(out, "pfshim_task_clock_seconds_total", "task-clock", "0.987654321");
	assert_line(out, "# TYPE pfshim_cycles counter");
	assert_event_sample(out, "pfshim_cycles_total", "cycles", "3000000000");
	assert_event_sample(out, "pfshim_instructions_total", "instructions", "4500000000");
	/* a modifier stays in the name: not the family of branch-misses */
	assert_event_sample(out, "pfshim_branch_misses_u_total", "branch-misses:u", "12345");
	/* not supported, not counted, always 0 in user mode: no sample, a status */
	assert_null(strstr(out, "pfshim_cache_references"));
	assert_null(strstr(out, "pfshim_cache_misses"));
	assert_null(strstr(out, "pfshim_cpu_migrations"));
	assert_line(out, "pfshim_event_status{program=\"demo\",pid=\"4242\",host=\"build1\",rank=\"\","
			 "event=\"cache-references\",status=\"not-supported\",error=\"ENOENT\","
			 "user_only=\"false\"} 1");
	assert_line(out, "pfshim_event_status{program=\"demo\",pid=\"4242\",host=\"build1\",rank=\"\","
			 "event=\"cache-misses\",status=\"not-counted\",error=\"\",user_only=\"false\"} 1");
	assert_line(out, "pfshim_event_status{program=\"demo\",pid=\"4242\",host=\"build1\",rank=\"\","
			 "event=\"cpu-migrations\",status=\"zero-when-user-only\",error=\"\","
			 "user_only=\"true\"} 1");
	/* multiplexed: ran 1 ms of 1.5 */
	assert_event_sample(out, "pfshim_event_enabled_seconds_total", "cycles", "0.001500000");
	assert_event_sample(out, "pfshim_event_running_seconds_total", "cycles", "0.001000000");
	assert_parsed(out, "len(s) == 1 + 2 + 6 + 9 + 2 * 6"
			   " and ('pfshim_cycles_total', {'program': 'demo', 'pid': '4242',"
			   " 'host': 'build1', 'rank': '', 'event': 'cycles'}, 3000000000) in s");
}

static void test_signal_and_rank(void **state)
{
	struct report r = sample_report;

	(void)state;
	r.reason = REPORT_SIGNAL;
	r.signo = SIGUSR1;
	r.rank = "17";
	r.pid_ns = 4026532177u;
	format(&r);
	assert_non_null(strstr(out, "rank=\"17\",argv0=\"./demo\",ppid=\"4241\","
				    "pid_ns=\"4026532177\",reason=\"signal\",signal=\"SIGUSR1\","
				    "job_scheduler=\"\",job_id=\"\",job_step=\"\",pfshim_version=\"" PFSHIM_VERSION "\"} 1\n"));
	r.signo = 1000;	/* no name: its number */
	r.start_ns = 0;	/* unknown (an unforked copy): no start time */
	format(&r);
	assert_non_null(strstr(out, "reason=\"signal\",signal=\"1000\",job_scheduler=\"\","));
	assert_null(strstr(out, "start_time"));
	assert_parsed(out, "all(l['rank'] == '17' for n, l, v in s)");
}

/* Names perf accepts, and names that would meet pfshim's own families. */
static const struct report_event odd_events[] = {
	{ .name = "L1-dcache-loads", .scale = 1.0, .value = 1 },
	{ .name = "cpu/event=0x3c,umask=0x00/u", .scale = 1.0, .value = 2 },
	{ .name = "software/page-faults/", .scale = 1.0, .value = 3 },
	/* sanitize alike: one family, two samples told apart by event */
	{ .name = "page-faults", .scale = 1.0, .value = 4 },
	{ .name = "page_faults", .scale = 1.0, .value = 5 },
	/* would be x and x_total: one family */
	{ .name = "faults_total", .scale = 1.0, .value = 6 },
	{ .name = "faults", .scale = 1.0, .value = 7 },
	/* and x_created: x too (8 bytes off, not 6) */
	{ .name = "faults_created", .scale = 1.0, .value = 17 },
	/* pfshim's own names: moved under pfshim_event_ */
	{ .name = "wall-seconds", .scale = 1.0, .value = 8 },
	{ .name = "region-calls", .scale = 1.0, .value = 9 },
	{ .name = "event_status", .scale = 1.0, .value = 10 },
	{ .name = "calls", .scale = 1.0, .value = 11 },
	/* nothing left of the name */
	{ .name = "::", .scale = 1.0, .value = 12 },
	/* listed twice: once */
	{ .name = "L1-dcache-loads", .scale = 1.0, .value = 13 },
	/* a sysfs unit and scale (power/energy-pkg/: 2^-32 J) */
	{ .name = "power/energy-pkg/", .unit = "Joules", .scale = 0x1p-32, .value = 1ull << 33 },
	/* a scale that makes no number: a status only */
	{ .name = "bad-scale", .unit = "", .scale = -1.0, .value = 1 },
	/* a unit that would end the name as a counter's suffix is dropped: no x beside x_grand */
	{ .name = "x", .unit = "Grand Total", .scale = 1.0, .value = 15 },
	{ .name = "x-grand", .scale = 1.0, .value = 16 },
	/* a hostile name */
	{ .name = "x\"y\\z\nw\x1b", .scale = 1.0, .value = 14 },
};

/* The batch job: labels of report_info, empty outside a job; hostile bytes escaped. */
static void test_job(void **state)
{
	struct report_job slurm = { .scheduler = "slurm", .id = "1234", .step = "0" };
	struct report_job flux = { .scheduler = "flux", .id = "\xc6\x92" "abc\"\n", .step = NULL };
	struct report r = sample_report;

	(void)state;
	r.job = &slurm;
	format(&r);
	assert_non_null(strstr(out, "signal=\"\",job_scheduler=\"slurm\",job_id=\"1234\",job_step=\"0\","
				    "pfshim_version=\"" PFSHIM_VERSION "\"} 1\n"));
	/* on report_info only: the other samples keep the process's labels */
	assert_line(out, "pfshim_wall_seconds{program=\"demo\",pid=\"4242\",host=\"build1\","
			 "rank=\"\"} 1.234567890");
	r.job = &flux;
	format(&r);
	assert_non_null(strstr(out, ",job_scheduler=\"flux\",job_id=\"\xc6\x92" "abc\\\"\\n\",job_step=\"\","));
	assert_parsed(out, "[l['job_id'] for n, l, v in s if n == 'pfshim_report_info'] == ['\\u0192abc\"\\n']");
}

static void test_names(void **state)
{
	struct report r = sample_report;

	(void)state;
	r.events = odd_events;
	r.nr_events = sizeof(odd_events) / sizeof(odd_events[0]);
	format(&r);
	assert_event_sample(out, "pfshim_l1_dcache_loads_total", "L1-dcache-loads", "1");
	assert_event_sample(out, "pfshim_cpu_event_0x3c_umask_0x00_u_total",
			    "cpu/event=0x3c,umask=0x00/u", "2");
	assert_event_sample(out, "pfshim_software_page_faults_total", "software/page-faults/", "3");
	assert_event_sample(out, "pfshim_page_faults_total", "page-faults", "4");
	assert_event_sample(out, "pfshim_page_faults_total", "page_faults", "5");
	assert_event_sample(out, "pfshim_faults_total", "faults_total", "6");
	assert_event_sample(out, "pfshim_faults_total", "faults", "7");
	assert_event_sample(out, "pfshim_faults_total", "faults_created", "17");
	assert_event_sample(out, "pfshim_event_wall_seconds_total", "wall-seconds", "8");
	assert_event_sample(out, "pfshim_event_region_calls_total", "region-calls", "9");
	assert_event_sample(out, "pfshim_event_event_status_total", "event_status", "10");
	assert_event_sample(out, "pfshim_event_calls_total", "calls", "11");
	assert_event_sample(out, "pfshim_event_total", "::", "12");
	assert_null(strstr(out, "event=\"L1-dcache-loads\"} 13"));
	assert_line(out, "# UNIT pfshim_power_energy_pkg_joules joules");
	assert_event_sample(out, "pfshim_power_energy_pkg_joules_total", "power/energy-pkg/", "2");
	assert_null(strstr(out, "pfshim_bad_scale"));
	assert_non_null(strstr(out, "event=\"bad-scale\",status=\"counted\""));
	assert_event_sample(out, "pfshim_x_y_z_w_total", "x\\\"y\\\\z\\nw?", "14");
	assert_event_sample(out, "pfshim_x_total", "x", "15");
	assert_event_sample(out, "pfshim_x_grand_total", "x-grand", "16");
	assert_null(strstr(out, "# UNIT pfshim_x_grand_total"));
	/* one TYPE per family */
	assert_int_equal(strstr(strstr(out, "# TYPE pfshim_page_faults counter\n") + 1,
				"# TYPE pfshim_page_faults counter\n"), NULL);
	assert_parsed(out, "('pfshim_x_y_z_w_total', {'program': 'demo', 'pid': '4242', "
			   "'host': 'build1', 'rank': '', 'event': 'x\"y\\\\z\\nw?'}, 14) in s"
			   " and sum(1 for n, l, v in s if n == 'pfshim_l1_dcache_loads_total') == 1");
}

/* Hostile names in every label: the exposition still parses and says them back. */
static void test_hostile_labels(void **state)
{
	struct report r = sample_report;

	(void)state;
	r.program = "a\"b\\c\nd";
	r.argv0 = "./\x01\x7f\xc2\x9b\xff\"";
	r.hostname = "h\\\"";
	format(&r);
	assert_non_null(strstr(out, "{program=\"a\\\"b\\\\c\\nd\",pid=\"4242\",host=\"h\\\\\\\"\","));
	assert_non_null(strstr(out, "argv0=\"./????\\\"\""));
	assert_parsed(out, "all(l['program'] == 'a\"b\\\\c\\nd' and l['host'] == 'h\\\\\"'"
			   " for n, l, v in s)"
			   " and [l['argv0'] for n, l, v in s if n == 'pfshim_report_info']"
			   " == ['./????\"']");
}

/* The regions of test_regions.c, in short: two regions, two region events. */
static const int region_events[] = { 0, 1 };

static const struct report_region_stat solve_stats[] = {
	{ .sum = 5700000, .threads = 2 },
	{ .sum = 10, .threads = 2, .scaled = 1 },
};

static const struct report_region_stat open_stats[] = {
	{ .status = STATUS_NOT_COUNTED },
	{ .status = STATUS_NOT_COUNTED },
};

static const struct report_region_total totals[] = {
	{ .name = "solve", .threads = 2, .calls = 30, .values = solve_stats,
	  .wall = { .sum = 6000000, .threads = 2 } },
	{ .name = "a \"b\"", .threads = 1, .unclosed = 1, .values = open_stats,
	  .wall = { .status = STATUS_NOT_COUNTED } },
};

static const struct report_regions regions = {
	.nr_events = 2, .event = region_events, .nr_totals = 2, .totals = totals,
};

static void test_regions(void **state)
{
	struct report r = sample_report;

	(void)state;
	r.regions = &regions;
	format(&r);
	assert_line(out, "# TYPE pfshim_region_calls counter");
	assert_line(out, "pfshim_region_calls_total{program=\"demo\",pid=\"4242\",host=\"build1\","
			 "rank=\"\",region=\"solve\"} 30");
	assert_line(out, "pfshim_region_calls_total{program=\"demo\",pid=\"4242\",host=\"build1\","
			 "rank=\"\",region=\"a \\\"b\\\"\"} 0");
	assert_line(out, "pfshim_region_wall_seconds_total{program=\"demo\",pid=\"4242\","
			 "host=\"build1\",rank=\"\",region=\"solve\"} 0.006000000");
	assert_null(strstr(out, "pfshim_region_wall_seconds_total{program=\"demo\",pid=\"4242\","
				"host=\"build1\",rank=\"\",region=\"a"));
	assert_line(out, "# UNIT pfshim_region_task_clock_seconds seconds");
	assert_line(out, "pfshim_region_task_clock_seconds_total{program=\"demo\",pid=\"4242\","
			 "host=\"build1\",rank=\"\",region=\"solve\",event=\"task-clock\"} 0.005700000");
	assert_line(out, "pfshim_region_context_switches_total{program=\"demo\",pid=\"4242\","
			 "host=\"build1\",rank=\"\",region=\"solve\",event=\"context-switches\"} 10");
	assert_parsed(out, "sum(v for n, l, v in s if n == 'pfshim_region_calls_total') == 30"
			   " and len([1 for n, l, v in s if n.startswith('pfshim_region_')]) == 5");

	/* a region event listed twice (the same event twice): one sample */
	{
		static const int twice[] = { 0, 1, 0 };
		static const struct report_region_stat stats3[] = {
			{ .sum = 5700000, .threads = 2 }, { .sum = 10, .threads = 2 },
			{ .sum = 5700000, .threads = 2 },
		};
		struct report_region_total t = totals[0];
		struct report_regions g = regions;

		t.values = stats3;
		g.nr_events = 3;
		g.event = twice;
		g.nr_totals = 1;
		g.totals = &t;
		r.regions = &g;
		format(&r);
		assert_ptr_equal(strstr(strstr(out, "region=\"solve\",event=\"task-clock\"}") + 1,
					"region=\"solve\",event=\"task-clock\"}"), NULL);
		assert_parsed(out, "len([1 for n, l, v in s if n == 'pfshim_region_task_clock_seconds_total']) == 1");
	}

	/* without regions, nothing of them */
	format(&sample_report);
	assert_null(strstr(out, "region"));
}

/* Two reports in a row are two expositions: each parses alone, never appended. */
static void test_nothing_after_eof(void **state)
{
	static char two[2 * 65536];
	size_t n;

	(void)state;
	n = report_format_openmetrics(&sample_report, two, sizeof(two));
	report_format_openmetrics(&sample_report, two + n, sizeof(two) - n);
	if (system("/usr/bin/python3 -c 'import prometheus_client' >/dev/null 2>&1") == 0) {
		FILE *py = popen("/usr/bin/python3 tests/tools/openmetrics_check.py - "
				 ">/dev/null 2>&1", "w");

		assert_non_null(py);
		fputs(two, py);
		assert_int_not_equal(pclose(py), 0);	/* "Received line after # EOF" */
	}
}

static void test_truncation(void **state)
{
	struct report r = sample_report;

	(void)state;
	check_truncation(report_format_openmetrics, &sample_report);
	r.regions = &regions;
	check_truncation(report_format_openmetrics, &r);
	r.events = odd_events;
	r.nr_events = sizeof(odd_events) / sizeof(odd_events[0]);
	check_truncation(report_format_openmetrics, &r);
}

static int has_line_starting(const char *text, const char *prefix)
{
	for (const char *p = text; (p = strstr(p, prefix)); p++)
		if (p == text || p[-1] == '\n')
			return 1;
	return 0;
}

/*
 * The Prometheus text format, node_exporter's: every sample's name has its
 * "# HELP" and "# TYPE" lines (a counter's name is its sample's, _total),
 * no "# UNIT", no "# EOF"; the samples are the OpenMetrics ones, line for line.
 */
static void assert_prometheus_text(const struct report *r)
{
	static char om[65536];
	size_t n = report_format_prometheus(r, out, sizeof(out));
	const char *line;

	assert_true(n < sizeof(out));
	assert_int_equal(strlen(out), n);
	assert_int_equal(out[n - 1], '\n');
	assert_null(strstr(out, "# UNIT"));
	assert_null(strstr(out, "# EOF"));
	report_format_openmetrics(r, om, sizeof(om));
	for (line = out; *line; line = strchr(line, '\n') + 1) {
		char name[256], want[300];
		size_t k = strcspn(line, "{");

		if (*line == '#')
			continue;
		assert_true(k < sizeof(name));
		memcpy(name, line, k);
		name[k] = '\0';
		snprintf(want, sizeof(want), "# HELP %s ", name);
		assert_true(has_line_starting(out, want));
		snprintf(want, sizeof(want), "# TYPE %s ", name);
		assert_true(has_line_starting(out, want));
		/* the same sample in the OpenMetrics exposition */
		k = strcspn(line, "\n");
		assert_non_null(memmem(om, strlen(om), line, k + 1));
	}
	if (system("promtool --version >/dev/null 2>&1") == 0)
		assert_piped("promtool check metrics", out);
}

static void test_prometheus_text(void **state)
{
	struct report r = sample_report;

	(void)state;
	assert_prometheus_text(&sample_report);
	assert_line(out, "# HELP pfshim_report_info The process a pfshim report is about and why "
			 "it was written (value 1)");
	assert_line(out, "# TYPE pfshim_report_info gauge");
	assert_line(out, "# TYPE pfshim_wall_seconds gauge");
	assert_line(out, "# HELP pfshim_cycles_total A perf event counted by pfshim over the "
			 "process, named in the event label");
	assert_line(out, "# TYPE pfshim_cycles_total counter");
	assert_line(out, "# TYPE pfshim_task_clock_seconds_total counter");
	assert_event_sample(out, "pfshim_task_clock_seconds_total", "task-clock", "0.987654321");
	assert_event_sample(out, "pfshim_cycles_total", "cycles", "3000000000");
	assert_line(out, "# TYPE pfshim_event_enabled_seconds_total counter");
	assert_null(strstr(out, "# TYPE pfshim_cycles counter"));
	r.regions = &regions;
	assert_prometheus_text(&r);
	assert_line(out, "# TYPE pfshim_region_calls_total counter");
	assert_line(out, "# TYPE pfshim_region_wall_seconds_total counter");
	r.events = odd_events;
	r.nr_events = sizeof(odd_events) / sizeof(odd_events[0]);
	assert_prometheus_text(&r);
	check_truncation(report_format_prometheus, &r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_signal_and_rank),
		cmocka_unit_test(test_job),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_hostile_labels),
		cmocka_unit_test(test_regions),
		cmocka_unit_test(test_nothing_after_eof),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_prometheus_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
