/* SPDX-License-Identifier: MIT */
/*
 * test_text.c: export/text.c, the perf-stat-like report on stderr: exact
 * lines for the shared sample, each status, user-only marks, the reasons,
 * and truncation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report_sample.h"

static char out[16384];

static const char *format(const struct report *r)
{
	size_t n = report_format_text(r, out, sizeof(out));

	assert_true(n < sizeof(out));
	assert_int_equal(strlen(out), n);
	return out;
}

/* @line must be one whole line of @text. */
static void assert_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line)) != NULL) {
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return;
		p++;
	}
	print_error("missing line \"%s\" in:\n%s\n", line, text);
	fail();
}

static const char sample_text[] =
	"\n"
	" pfshim: Performance counter stats for 'demo' (pid 4242, exit):\n"
	"\n"
	"            987.65 msec task-clock                       #    0.800 CPUs utilized\n"
	"             1,234      context-switches                 #    1.249 K/sec\n"
	"     3,000,000,000      cycles                           #    3.037 GHz  (66.67%)\n"
	"     4,500,000,000      instructions:u                   #     1.50 insn per cycle\n"
	"         1,000,000      branches\n"
	"            12,345      branch-misses:u                  #    1.23% of all branches\n"
	"   <not supported>      cache-references                 # ENOENT\n"
	"     <not counted>      cache-misses\n"
	"                 0      cpu-migrations:u                 # always 0 when counting user space only\n"
	"\n"
	"       1.234567890 seconds time elapsed\n"
	"\n"
	" pfshim: reported at exit by pfshim " PFSHIM_VERSION "\n"
	" pfshim: ':u' events count user space only: the kernel refused kernel counting (perf_event_paranoid)\n"
	"\n";

static void test_sample(void **state)
{
	(void)state;
	assert_string_equal(format(&sample_report), sample_text);
}

/* The batch job: one line after the version's; none outside a job (test_sample). */
static void test_job(void **state)
{
	struct report_job slurm = { .scheduler = "slurm", .id = "1234", .step = "0" };
	struct report_job lsf = { .scheduler = "lsf", .id = "77[3]\x1b", .step = NULL };
	struct report r = sample_report;

	(void)state;
	r.job = &slurm;
	format(&r);
	assert_non_null(strstr(out, " pfshim: reported at exit by pfshim " PFSHIM_VERSION "\n"
				    " pfshim: in slurm job 1234, step 0\n"));
	r.job = &lsf;
	format(&r);
	assert_line(out, " pfshim: in lsf job 77[3]?");
}

static void test_reasons(void **state)
{
	struct report r = sample_report;
	(void)state;
	r.reason = REPORT_SIGNAL;
	r.signo = SIGUSR1;
	format(&r);
	assert_line(out, " pfshim: Performance counter stats for 'demo' (pid 4242, signal SIGUSR1):");
	assert_line(out, " pfshim: reported on signal 10 (SIGUSR1) by pfshim " PFSHIM_VERSION);

	r.signo = 40;
	format(&r);
	assert_line(out, " pfshim: Performance counter stats for 'demo' (pid 4242, signal 40):");
	assert_line(out, " pfshim: reported on signal 40 by pfshim " PFSHIM_VERSION);

	r.reason = REPORT_EXEC;
	format(&r);
	assert_line(out, " pfshim: Performance counter stats for 'demo' (pid 4242, exec):");
	assert_line(out, " pfshim: reported before exec by pfshim " PFSHIM_VERSION);

	r.reason = REPORT_EXPLICIT;
	format(&r);
	assert_line(out, " pfshim: reported by pfshim_report() by pfshim " PFSHIM_VERSION);
}

/* pfshim's own share: one line before "reported", grouped faults, msec; none when not measured. */
static void test_share(void **state)
{
	struct report r = sample_report;
	(void)state;
	r.share = (struct report_share){ .measured = 1, .loaded = 1, .setup_measured = 1,
					 .reports_measured = 1, .page_faults = 1234,
					 .context_switches = 2, .task_clock_ns = 248123 };
	format(&r);
	assert_line(out, " pfshim: pfshim's own share: 1,234 page-faults, 0.248 msec"
		    " task-clock, 2 context-switches (its set-up, which these counts hold from their"
		    " start on, and its reports up to this one; loading the library is not in it)");
	r.share.reports_measured = 0;
	format(&r);
	assert_line(out, " pfshim: pfshim's own share: 1,234 page-faults, 0.248 msec"
		    " task-clock, 2 context-switches (its set-up, which these counts hold from their"
		    " start on, and its reports up to this one, but not those under the program's"
		    " seccomp filter; loading the library is not in it)");
	r.share.measured = 0;
	format(&r);
	assert_null(strstr(out, "own share"));
}

/* An interval report is perf stat -I's table: time, change, event, and the total beside. */
static void test_interval(void **state)
{
	struct report_event ev[] = {
		{ .name = "page-faults", .unit = "", .scale = 1.0, .value = 1507, .delta = 500,
		  .has_delta = 1 },
		{ .name = "task-clock", .kind = REPORT_KIND_TASK_CLOCK, .unit = "msec",
		  .scale = 1e-6, .value = 4630000, .delta = 1910000, .has_delta = 1 },
		{ .name = "cycles", .unit = "", .scale = 1.0, .status = STATUS_NOT_SUPPORTED,
		  .error = ENOENT },
		{ .name = "scaled", .unit = "", .scale = 1.0, .value = 5, .delta = -2, .has_delta = 1 },
	};
	struct report r = { .program = "touch_rate", .pid = 1035, .reason = REPORT_INTERVAL,
			    .seq = 3, .interval_ns = 100000000, .wall_ns = 301704402,
			    .nr_events = 4, .events = ev };
	(void)state;
	format(&r);
	assert_line(out, " pfshim: interval report 3 of 'touch_rate' (pid 1035, every 100 ms), "
			 "change since the previous one:");
	assert_line(out, "#           time             change unit event");
	assert_line(out, "     0.301704402                500      page-faults                      total 1,507");
	assert_line(out, "     0.301704402               1.91 msec task-clock                       total 4.63 msec");
	assert_line(out, "     0.301704402    <not supported>      cycles");
	assert_line(out, "     0.301704402                 -2      scaled                           total 5");
	/* the table alone: no perf stat block */
	assert_null(strstr(out, "Performance counter stats"));

	/* any other report in interval mode: the usual block, then the same table */
	r.reason = REPORT_EXIT;
	r.seq = 4;
	r.interval_ns = 2000000000;
	format(&r);
	assert_line(out, " pfshim: Performance counter stats for 'touch_rate' (pid 1035, exit):");
	assert_line(out, " pfshim: report 4 of 'touch_rate' (pid 1035, every 2 s), "
			 "change since the previous one:");
}

static void test_clock_grouping_and_elapsed(void **state)
{
	struct report_event ev[] = {
		{ .name = "task-clock", .kind = REPORT_KIND_TASK_CLOCK, .unit = "msec",
		  .scale = 1e-6, .value = 1234567890123ULL, .enabled = 1, .running = 1 },
	};
	struct report r = { .program = "p", .pid = 1, .nr_events = 1, .events = ev,
			    .wall_ns = 10000000000000000000ULL };
	(void)state;
	format(&r);
	/* 1,234,567.89 msec over 1e10 s of wall time: 0.000 CPUs */
	assert_line(out, "      1,234,567.89 msec task-clock                       #    0.000 CPUs utilized");
	assert_line(out, "10000000000.000000000 seconds time elapsed");
	/* no user-only event: no note about them */
	assert_null(strstr(out, "':u'"));

	r.wall_ns = 0;
	format(&r);
	assert_line(out, "       0.000000000 seconds time elapsed");
	/* no wall time: no CPUs-utilized ratio, and no trailing blanks */
	assert_line(out, "      1,234,567.89 msec task-clock");
}

static void test_odd_names(void **state)
{
	struct report_event ev[] = {
		{ .name = "bad\nname\x1b", .scale = 1.0, .value = 1 },
		{ .name = NULL, .scale = 1.0, .value = 2 },
		{ .name = "cycles:k", .kind = REPORT_KIND_CYCLES, .scale = 1.0, .value = 3, .user_only = 1 },
		{ .name = "cycles:u", .kind = REPORT_KIND_CYCLES, .scale = 1.0, .value = 4, .user_only = 1 },
		{ .name = "a-very-long-event-name-that-fills-the-column", .scale = 1.0,
		  .status = STATUS_NOT_SUPPORTED, .error = 4095 },
		{ .name = "raw", .unit = "Joules", .scale = 0.5, .value = 3 },
		{ .name = "task-clock", .unit = "msec", .scale = 1e-6, .status = STATUS_CLOSED },
	};
	struct report r = { .program = NULL, .pid = 7, .nr_events = 7, .events = ev };
	(void)state;
	format(&r);
	assert_line(out, " pfshim: Performance counter stats for '?' (pid 7, exit):");
	assert_line(out, "                 1      bad?name?");
	assert_line(out, "                 2      ?");
	assert_line(out, "                 3      cycles:k (user only)");
	assert_line(out, "                 4      cycles:u");
	assert_line(out, "   <not supported>      a-very-long-event-name-that-fills-the-column # errno 4095");
	assert_line(out, "              1.50 Joules raw");
	/* one wider than the value column: the name keeps its own */
	assert_line(out, "<closed by program>     task-clock");
}

/* An explicit ":u" (no retry) on a kernel-side event still gets the note. */
static void test_zero_when_user_only_without_retry(void **state)
{
	struct report_event ev[] = {
		{ .name = "context-switches:u", .kind = REPORT_KIND_SOFTWARE, .scale = 1.0,
		  .zero_when_user_only = 1, .enabled = 10, .running = 10 },
	};
	struct report r = { .program = "p", .nr_events = 1, .events = ev, .wall_ns = 10 };
	(void)state;
	format(&r);
	assert_line(out, "                 0      context-switches:u               # always 0 when counting user space only");
	assert_null(strstr(out, "':u' events"));
}

static void test_scaled_not_counted(void **state)
{
	/* A scaled event that never ran shows no running share. */
	struct report_event ev[] = {
		{ .name = "page-faults", .kind = REPORT_KIND_SOFTWARE, .scale = 1.0,
		  .status = STATUS_NOT_COUNTED, .enabled = 100, .running = 0, .scaled = 1 },
		{ .name = "minor-faults", .kind = REPORT_KIND_SOFTWARE, .scale = 1.0,
		  .value = 25600, .raw = 2560, .enabled = 1000, .running = 100, .scaled = 1 },
	};
	struct report r = { .program = "p", .nr_events = 2, .events = ev };
	(void)state;
	format(&r);
	assert_line(out, "     <not counted>      page-faults");
	assert_line(out, "            25,600      minor-faults  (10.00%)");
}

static void test_truncation(void **state)
{
	struct report r = sample_report;
	(void)state;
	check_truncation(report_format_text, &r);
	r.reason = REPORT_SIGNAL;
	r.signo = SIGTERM;
	check_truncation(report_format_text, &r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_job),
		cmocka_unit_test(test_interval),
		cmocka_unit_test(test_reasons),
		cmocka_unit_test(test_share),
		cmocka_unit_test(test_clock_grouping_and_elapsed),
		cmocka_unit_test(test_odd_names),
		cmocka_unit_test(test_zero_when_user_only_without_retry),
		cmocka_unit_test(test_scaled_not_counted),
		cmocka_unit_test(test_truncation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
