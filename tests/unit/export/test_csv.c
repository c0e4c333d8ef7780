/* SPDX-License-Identifier: MIT */
/*
 * test_csv.c: export/csv.c: the exact rows of the shared sample, RFC 4180
 * quoting read back by a small parser written here, empty values for
 * events without a count, and truncation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report_sample.h"

#define NR_COLUMNS 25
/*
 * The end of every row: the last columns, job_scheduler, job_id and job_step
 * (empty: the sample is in no batch job), then pfshim_version (VERSION,
 * through the Makefile).
 */
#define END ",,,," PFSHIM_VERSION "\n"
#define FIELD_MAX 256

static char out[16384];

static const char *format(const struct report *r)
{
	size_t n = report_format_csv(r, out, sizeof(out));

	assert_true(n < sizeof(out));
	assert_int_equal(strlen(out), n);
	return out;
}

/*
 * Read one RFC 4180 record at *@p into @fields; return the number of
 * fields, advancing *@p past the record's '\n'. Fails the test on a
 * malformed record (a quote inside an unquoted field, an unclosed quote).
 */
static int csv_parse_record(const char **p, char fields[][FIELD_MAX], int max)
{
	const char *s = *p;
	int n = 0;

	for (;;) {
		size_t len = 0;

		assert_true(n < max);
		if (*s == '"') {
			for (s++;; s++) {
				assert_true(*s != '\0');
				if (*s == '"' && s[1] == '"')
					s++;
				else if (*s == '"')
					break;
				fields[n][len++] = *s;
			}
			s++;
		} else {
			for (; *s && *s != ',' && *s != '\n'; s++) {
				assert_true(*s != '"');
				fields[n][len++] = *s;
			}
		}
		fields[n++][len] = '\0';
		if (*s == ',') {
			s++;
			continue;
		}
		assert_int_equal(*s, '\n');
		*p = s + 1;
		return n;
	}
}

static const char sample_csv[] =
	"pid,program,reason,signal,wall_ns,event,value,unit,scale,raw,enabled_ns,"
	"running_ns,running_percent,status,user_only,zero_when_user_only,error,pid_ns,seq,"
	"interval_ns,delta,job_scheduler,job_id,job_step,pfshim_version\n"
	"4242,demo,exit,,1234567890,task-clock,987654321,msec,1e-06,987654321,987654321,987654321,100.00,counted,0,0,,,,," END
	"4242,demo,exit,,1234567890,context-switches,1234,,1,1234,987654321,987654321,100.00,counted,0,0,,,,," END
	"4242,demo,exit,,1234567890,cycles,3000000000,,1,2000000000,1500000,1000000,66.67,counted,0,0,,,,," END
	"4242,demo,exit,,1234567890,instructions,4500000000,,1,4500000000,1500000,1500000,100.00,counted,1,0,,,,," END
	"4242,demo,exit,,1234567890,branches,1000000,,1,1000000,1500000,1500000,100.00,counted,0,0,,,,," END
	"4242,demo,exit,,1234567890,branch-misses:u,12345,,1,12345,1500000,1500000,100.00,counted,0,0,,,,," END
	"4242,demo,exit,,1234567890,cache-references,,,1,0,0,0,,not-supported,0,0,ENOENT,,,," END
	"4242,demo,exit,,1234567890,cache-misses,,,1,0,1500000,0,0.00,not-counted,0,0,,,,," END
	"4242,demo,exit,,1234567890,cpu-migrations,0,,1,0,987654321,987654321,100.00,counted,1,1,,,,," END;

static void test_sample(void **state)
{
	(void)state;
	assert_string_equal(format(&sample_report), sample_csv);
}

/* Every record, header included, has the same 22 columns. */
static void test_columns(void **state)
{
	static char fields[NR_COLUMNS + 1][FIELD_MAX];
	const char *p = format(&sample_report);
	int rows = 0;
	(void)state;
	while (*p) {
		assert_int_equal(csv_parse_record(&p, fields, NR_COLUMNS + 1), NR_COLUMNS);
		rows++;
	}
	assert_int_equal(rows, 1 + sample_report.nr_events);
}

static void test_quoting_reads_back(void **state)
{
	static const char *const names[] = {
		"cpu/event=0x3c,umask=0x0/",
		"say \"hi\"",
		"two\nlines",
		"\"",
		",",
	};
	static char fields[NR_COLUMNS + 1][FIELD_MAX];
	struct report_event ev[5];
	struct report r = { .program = "my,prog", .pid = 9, .reason = REPORT_SIGNAL,
			    .signo = 12, .nr_events = 5, .events = ev };
	const char *p;
	(void)state;
	memset(ev, 0, sizeof(ev));
	for (int i = 0; i < 5; i++) {
		ev[i].name = names[i];
		ev[i].unit = "";
		ev[i].scale = 1.0;
		ev[i].value = (uint64_t)i;
	}
	p = format(&r);
	assert_int_equal(csv_parse_record(&p, fields, NR_COLUMNS + 1), NR_COLUMNS);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(csv_parse_record(&p, fields, NR_COLUMNS + 1), NR_COLUMNS);
		assert_string_equal(fields[1], "my,prog");
		assert_string_equal(fields[2], "signal");
		assert_string_equal(fields[3], "12");
		assert_string_equal(fields[5], i == 2 ? "two?lines" : names[i]);
	}
	assert_int_equal(*p, '\0');
	/* the raw bytes, as RFC 4180 spells them */
	assert_non_null(strstr(out, "9,\"my,prog\",signal,12,0,\"say \"\"hi\"\"\",1,"));
	/* a control byte becomes '?': a row is one line, and no escape reaches a terminal */
	assert_non_null(strstr(out, ",two?lines,2,"));
	assert_non_null(strstr(out, ",\"\"\"\",3,"));
}

static void test_unknown_errno_and_null_strings(void **state)
{
	struct report_event ev[] = {
		{ .name = NULL, .unit = NULL, .scale = 1.0,
		  .status = STATUS_NOT_SUPPORTED, .error = -4095 },
	};
	struct report r = { .program = NULL, .pid = 1, .nr_events = 1, .events = ev };
	(void)state;
	format(&r);
	assert_non_null(strstr(out, "\n1,,exit,,0,,,,1,0,0,0,,not-supported,0,0,4095,,,," END));
}

/* The pid namespace, where it is not the initial one, ends every row. */
static void test_pid_ns(void **state)
{
	struct report_event ev[] = { { .name = "e", .unit = "", .scale = 1.0 } };
	struct report r = { .program = "p", .pid = 1, .pid_ns = 4026532000u, .nr_events = 1,
			    .events = ev };
	(void)state;
	format(&r);
	assert_non_null(strstr(out, "\n1,p,exit,,0,e,0,,1,0,0,0,,counted,0,0,,4026532000,,," END));
}

/* The series columns: seq and interval_ns of the report, each event's signed delta. */
static void test_series(void **state)
{
	struct report_event ev[] = {
		{ .name = "a", .unit = "", .scale = 1.0, .value = 10, .delta = -3, .has_delta = 1 },
		{ .name = "b", .unit = "", .scale = 1.0, .value = 7, .delta = 7, .has_delta = 1 },
		{ .name = "c", .unit = "", .scale = 1.0, .status = STATUS_NOT_COUNTED,
		  .delta = 5, .has_delta = 1 },
	};
	struct report r = { .program = "p", .pid = 1, .reason = REPORT_INTERVAL, .seq = 4,
			    .interval_ns = 100000000, .nr_events = 3, .events = ev };
	(void)state;
	format(&r);
	assert_non_null(strstr(out, "\n1,p,interval,,0,a,10,,1,0,0,0,,counted,0,0,,,4,100000000,-3" END));
	assert_non_null(strstr(out, "\n1,p,interval,,0,b,7,,1,0,0,0,,counted,0,0,,,4,100000000,7" END));
	/* no count, no change: empty, never a plausible number */
	assert_non_null(strstr(out, "\n1,p,interval,,0,c,,,1,0,0,0,,not-counted,0,0,,,4,100000000," END));
}

/* The batch job: three columns before the version on every row, the id quoted as any field. */
static void test_job(void **state)
{
	static char fields[NR_COLUMNS + 1][FIELD_MAX];
	struct report_event ev[] = { { .name = "e", .unit = "", .scale = 1.0 } };
	struct report_job slurm = { .scheduler = "slurm", .id = "1234", .step = "0" };
	struct report_job odd = { .scheduler = "pbs", .id = "9,\"x\"", .step = NULL };
	struct report r = { .program = "p", .pid = 1, .nr_events = 1, .events = ev, .job = &slurm };
	const char *p;

	(void)state;
	format(&r);
	assert_non_null(strstr(out, "\n1,p,exit,,0,e,0,,1,0,0,0,,counted,0,0,,,,,,slurm,1234,0,"
				    PFSHIM_VERSION "\n"));
	r.job = &odd;
	p = format(&r);
	assert_int_equal(csv_parse_record(&p, fields, NR_COLUMNS + 1), NR_COLUMNS);
	assert_string_equal(fields[21], "job_scheduler");
	assert_int_equal(csv_parse_record(&p, fields, NR_COLUMNS + 1), NR_COLUMNS);
	assert_string_equal(fields[21], "pbs");
	assert_string_equal(fields[22], "9,\"x\"");
	assert_string_equal(fields[23], "");
	assert_string_equal(fields[24], PFSHIM_VERSION);
}

static void test_truncation(void **state)
{
	(void)state;
	check_truncation(report_format_csv, &sample_report);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_columns),
		cmocka_unit_test(test_quoting_reads_back),
		cmocka_unit_test(test_unknown_errno_and_null_strings),
		cmocka_unit_test(test_pid_ns),
		cmocka_unit_test(test_series),
		cmocka_unit_test(test_job),
		cmocka_unit_test(test_truncation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
