/* SPDX-License-Identifier: MIT */
/*
 * test_json.c: export/json.c: the exact line for the shared sample, that
 * every output is valid JSON (a strict checker written here, and Python's
 * json module when python3 is installed), escaping of odd names, exact
 * 64-bit integers, JSON Lines, and truncation.
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

static char out[32768];

static const char *format(const struct report *r)
{
	size_t n = report_format_json(r, out, sizeof(out));

	assert_true(n < sizeof(out));
	assert_int_equal(strlen(out), n);
	return out;
}

/* --- a strict RFC 8259 checker: each returns the end of what it read, or NULL */

static const char *json_value(const char *p, int depth);

static const char *json_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* One UTF-8 encoded code point, not overlong, not a surrogate. */
static const char *json_utf8(const char *p)
{
	const unsigned char *s = (const unsigned char *)p;
	unsigned n, cp;

	if (s[0] >= 0xc0 && s[0] < 0xe0) { n = 2; cp = s[0] & 0x1f; }
	else if (s[0] >= 0xe0 && s[0] < 0xf0) { n = 3; cp = s[0] & 0x0f; }
	else if (s[0] >= 0xf0 && s[0] < 0xf8) { n = 4; cp = s[0] & 0x07; }
	else return NULL;
	for (unsigned i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return NULL;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return NULL;
	return p + n;
}

static const char *json_string(const char *p)
{
	if (*p++ != '"')
		return NULL;
	while (*p != '"') {
		unsigned char c = (unsigned char)*p;

		if (c < 0x20)
			return NULL;	/* raw control byte, or the NUL at the end */
		if (c == '\\') {
			p++;
			if (*p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!is_hex(p[i]))
						return NULL;
				p += 5;
			} else if (*p && strchr("\"\\/bfnrt", *p)) {
				p++;
			} else {
				return NULL;
			}
		} else if (c >= 0x80) {
			if (!(p = json_utf8(p)))
				return NULL;
		} else {
			p++;
		}
	}
	return p + 1;
}

static const char *json_digits(const char *p)
{
	if (*p < '0' || *p > '9')
		return NULL;
	while (*p >= '0' && *p <= '9')
		p++;
	return p;
}

static const char *json_number(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (!(p = json_digits(p)))
		return NULL;
	if (*p == '.' && !(p = json_digits(p + 1)))
		return NULL;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!(p = json_digits(p)))
			return NULL;
	}
	return p;
}

static const char *json_members(const char *p, char close, int depth)
{
	p = json_ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (close == '}') {
			if (!(p = json_string(p)))
				return NULL;
			p = json_ws(p);
			if (*p++ != ':')
				return NULL;
		}
		if (!(p = json_value(p, depth + 1)))
			return NULL;
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
		p = json_ws(p);
	}
}

static const char *json_value(const char *p, int depth)
{
	if (depth > 32)
		return NULL;
	p = json_ws(p);
	switch (*p) {
	case '{': p = json_members(p, '}', depth); break;
	case '[': p = json_members(p, ']', depth); break;
	case '"': p = json_string(p); break;
	case 't': p = strncmp(p, "true", 4) ? NULL : p + 4; break;
	case 'f': p = strncmp(p, "false", 5) ? NULL : p + 5; break;
	case 'n': p = strncmp(p, "null", 4) ? NULL : p + 4; break;
	default:  p = json_number(p); break;
	}
	return p ? json_ws(p) : NULL;
}

/* Each line of @text is one JSON document. */
static void assert_json_lines(const char *text)
{
	const char *p = text;

	assert_true(*p != '\0');
	while (*p) {
		const char *end = json_value(p, 0);

		if (!end || end[-1] != '\n') {
			print_error("not JSON Lines near offset %zu: %.60s\n",
				    (size_t)((end ? end : p) - text), end ? end : p);
			fail();
		}
		p = end;
	}
}

/* The checker itself must refuse what is not JSON. */
static void test_checker_refuses(void **state)
{
	static const char *const bad[] = {
		"{\"a\":1,}\n", "{\"a\" 1}\n", "[01]\n", "[1.]\n", "[.5]\n",
		"[\"\t\"]\n", "[\"\\x\"]\n", "[\"\\u12g4\"]\n", "[\"\xc0\xaf\"]\n",
		"[\"\xed\xa0\x80\"]\n", "[\"\x80\"]\n", "[nan]\n", "[tru]\n",
		"{\"a\":1}", "\"open\n",
	};
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *end = json_value(bad[i], 0);

		assert_true(end == NULL || end[-1] != '\n');
	}
	assert_non_null(json_value("{\"a\":[1,-2.5e+3,true,null,\"\xc3\xa9\\u00e9\"]}\n", 0));
}

/*
 * Python's json module agrees, and @check (a Python expression on d, the
 * parsed report) holds. Skipped where python3 is not installed.
 */
static void assert_python(const char *text, const char *check)
{
	char cmd[1024];
	FILE *py;
	int status;

	if (system("command -v python3 >/dev/null 2>&1") != 0)
		return;
	/* The check travels in the environment, clear of shell quoting. */
	assert_int_equal(setenv("PFSHIM_JSON_CHECK", check, 1), 0);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,os,sys\n"
		 "for line in sys.stdin.read().splitlines():\n"
		 "    d = json.loads(line)\n"
		 "    assert eval(os.environ[\"PFSHIM_JSON_CHECK\"]), line\n'");
	py = popen(cmd, "w");
	assert_non_null(py);
	fputs(text, py);
	status = pclose(py);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static const char sample_json[] =
	"{\"schema\":\"pfshim.report\",\"version\":4,\"pfshim_version\":\"" PFSHIM_VERSION "\",\"program\":\"demo\",\"argv0\":\"./demo\","
	"\"argv\":null,\"argc\":null,\"argv_truncated\":false,\"cwd\":null,"
	"\"pid\":4242,\"ppid\":4241,\"pid_ns\":null,\"hostname\":\"build1\",\"boot_id\":null,\"rank\":null,\"job\":null,\"start_ns\":1700000000123456789,"
	"\"start_time\":\"2023-11-14T22:13:20.123456789Z\",\"wall_ns\":1234567890,"
	"\"user_ns\":null,\"system_ns\":null,"
	"\"reason\":\"exit\",\"signal\":null,\"signal_name\":null,\"exit_status\":null,\"seq\":null,\"interval_ns\":null,"
	"\"pfshim_share\":null,"
	"\"events\":["
	"{\"name\":\"task-clock\",\"status\":\"counted\",\"value\":987654321,\"raw\":987654321,"
	"\"enabled_ns\":987654321,\"running_ns\":987654321,\"scaled\":false,\"user_only\":false,"
	"\"zero_when_user_only\":false,\"unit\":\"msec\",\"scale\":1e-06,\"errno\":0,\"error\":null,\"delta\":null},"
	"{\"name\":\"context-switches\",\"status\":\"counted\",\"value\":1234,\"raw\":1234,"
	"\"enabled_ns\":987654321,\"running_ns\":987654321,\"scaled\":false,\"user_only\":false,"
	"\"zero_when_user_only\":false,\"unit\":\"\",\"scale\":1,\"errno\":0,\"error\":null,\"delta\":null},"
	"{\"name\":\"cycles\",\"status\":\"counted\",\"value\":3000000000,\"raw\":2000000000,"
	"\"enabled_ns\":1500000,\"running_ns\":1000000,\"scaled\":true,\"user_only\":false,"
	"\"zero_when_user_only\":false,\"unit\":\"\",\"scale\":1,\"errno\":0,\"error\":null,\"delta\":null},"
	"{\"name\":\"instructions\",\"status\":\"counted\",\"value\":4500000000,\"raw\":4500000000,"
	"\"enabled_ns\":1500000,\"running_ns\":1500000,\"scaled\":false,\"user_only\":true,"
	"\"zero_when_user_only\":false,\"unit\":\"\",\"scale\":1,\"errno\":0,\"error\":null,\"delta\":null},"
	"{\"name\":\"branches\",\"status\":\"counted\",\"value\":1000000,\"raw\":1000000,"
	"\"enabled_ns\":1500000,\"running_ns\":1500000,\"scaled\":false,\"user_only\":false,"
	"\"zero_when_user_only\":false,\"unit\":\"\",\"scale\":1,\"errno\":0,\"error\":null,\"delta\":null},"
	"{\"name\":\"branch-misses:u\",\"status\":\"counted\",\"value\":12345,\"raw\":12345,"
	"\"enabled_ns\":1500000,\"running_ns\":1500000,\"scaled\":false,\"user_only\":false,"
	"\"zero_when_user_only\":false,\"unit\":\"\",\"scale\":1,\"errno\":0,\"error\":null,\"delta\":null},"
	"{\"name\":\"cache-references\",\"status\":\"not-supported\",\"value\":null,\"raw\":0,"
	"\"enabled_ns\":0,\"running_ns\":0,\"scaled\":false,\"user_only\":false,"
	"\"zero_when_user_only\":false,\"unit\":\"\",\"scale\":1,\"errno\":2,\"error\":\"ENOENT\",\"delta\":null},"
	"{\"name\":\"cache-misses\",\"status\":\"not-counted\",\"value\":null,\"raw\":0,"
	"\"enabled_ns\":1500000,\"running_ns\":0,\"scaled\":false,\"user_only\":false,"
	"\"zero_when_user_only\":false,\"unit\":\"\",\"scale\":1,\"errno\":0,\"error\":null,\"delta\":null},"
	"{\"name\":\"cpu-migrations\",\"status\":\"counted\",\"value\":0,\"raw\":0,"
	"\"enabled_ns\":987654321,\"running_ns\":987654321,\"scaled\":false,\"user_only\":true,"
	"\"zero_when_user_only\":true,\"unit\":\"\",\"scale\":1,\"errno\":0,\"error\":null,\"delta\":null}"
	"]}\n";

static void test_sample(void **state)
{
	(void)state;
	assert_string_equal(format(&sample_report), sample_json);
	assert_json_lines(out);
	assert_python(out, "d['schema'] == 'pfshim.report' and d['version'] == 4"
		      " and d['start_ns'] == 1700000000123456789"
		      " and [e['value'] for e in d['events']][6:8] == [None, None]"
		      " and d['events'][0]['scale'] == 1e-6");
}

static void test_signal(void **state)
{
	struct report r = sample_report;
	(void)state;
	r.reason = REPORT_SIGNAL;
	r.signo = SIGUSR2;
	format(&r);
	assert_non_null(strstr(out, ",\"reason\":\"signal\",\"signal\":12,\"signal_name\":\"SIGUSR2\","));
	r.signo = 40;
	format(&r);
	assert_non_null(strstr(out, ",\"reason\":\"signal\",\"signal\":40,\"signal_name\":null,"));
	assert_json_lines(out);
}

/* pfshim's own share: its three counts, its forks and what it measured, as the shim filled them. */
static void test_share(void **state)
{
	struct report r = sample_report;
	(void)state;
	r.share = (struct report_share){ .measured = 1, .loaded = 1, .setup_measured = 1,
					 .reports_measured = 0, .page_faults = 17,
					 .context_switches = 2, .task_clock_ns = 150123,
					 .setup_page_faults = 9, .setup_context_switches = 1,
					 .setup_task_clock_ns = 90000, .forks = 42 };
	format(&r);
	assert_non_null(strstr(out, ",\"interval_ns\":null,\"pfshim_share\":{\"page_faults\":17,"
		"\"context_switches\":2,\"task_clock_ns\":150123,\"setup\":{\"page_faults\":9,"
		"\"context_switches\":1,\"task_clock_ns\":90000},\"forks\":42,\"loaded\":true,"
		"\"setup_measured\":true,\"reports_measured\":false},\"events\":["));
	assert_json_lines(out);
}

/* The batch job: an object, its step null outside a Slurm step; hostile bytes escaped. */
static void test_job(void **state)
{
	struct report_job slurm = { .scheduler = "slurm", .id = "1234", .step = "0" };
	struct report_job pbs = { .scheduler = "pbs", .id = "56[7].pbs\"srv\n", .step = NULL };
	struct report r = sample_report;

	(void)state;
	r.rank = "3";
	r.job = &slurm;
	format(&r);
	assert_non_null(strstr(out, ",\"rank\":3,\"job\":{\"scheduler\":\"slurm\",\"id\":\"1234\","
				    "\"step\":\"0\"},\"start_ns\":"));
	assert_json_lines(out);
	r.job = &pbs;
	format(&r);
	assert_non_null(strstr(out, ",\"job\":{\"scheduler\":\"pbs\",\"id\":\"56[7].pbs\\\"srv\\n\","
				    "\"step\":null},"));
	assert_python(out, "d['job'] == {'scheduler': 'pbs', 'id': '56[7].pbs\"srv\\n', 'step': None}");
}

static void test_odd_names(void **state)
{
	static const struct { const char *name, *json; } cases[] = {
		{ "q\"uote", "\"q\\\"uote\"" },
		{ "back\\slash", "\"back\\\\slash\"" },
		{ "new\nline\ttab", "\"new\\nline\\ttab\"" },
		{ "bell\x07" "esc\x1b" "del\x7f", "\"bell\\u0007esc\\u001bdel\\u007f\"" },
		{ "caf\xc3\xa9-\xe6\x97\xa5", "\"caf\xc3\xa9-\xe6\x97\xa5\"" },
		{ "bad\xff\xc3(", "\"bad\\u00ff\\u00c3(\"" },
	};
	enum { N = sizeof(cases) / sizeof(cases[0]) };
	struct report_event ev[N];
	struct report r = { .program = "p\"rog\n", .argv0 = "/x/\xfe", .hostname = NULL,
			    .nr_events = N, .events = ev };
	(void)state;
	memset(ev, 0, sizeof(ev));
	for (int i = 0; i < N; i++) {
		ev[i].name = cases[i].name;
		ev[i].unit = "\xc2\xb5s";
		ev[i].scale = 1.0;
	}
	format(&r);
	for (int i = 0; i < N; i++) {
		char key[128];

		snprintf(key, sizeof(key), "{\"name\":%s,", cases[i].json);
		assert_non_null(strstr(out, key));
	}
	assert_non_null(strstr(out, "\"program\":\"p\\\"rog\\n\",\"argv0\":\"/x/\\u00fe\","));
	assert_non_null(strstr(out, "\"hostname\":null,"));
	assert_json_lines(out);
	assert_python(out, "d['events'][4]['name'] == 'caf\\u00e9-\\u65e5'"
		      " and d['events'][2]['name'] == 'new\\nline\\ttab'"
		      " and d['events'][0]['unit'] == '\\u00b5s'");
}

/* The series: seq and interval_ns, each event's signed delta, null when not counted. */
static void test_series(void **state)
{
	struct report_event ev[] = {
		{ .name = "a", .unit = "", .scale = 1.0, .value = 10, .delta = -3, .has_delta = 1 },
		{ .name = "b", .unit = "", .scale = 1.0, .value = 7, .delta = 7, .has_delta = 1 },
		{ .name = "c", .unit = "", .scale = 1.0, .status = STATUS_NOT_COUNTED,
		  .delta = 5, .has_delta = 1 },
		{ .name = "d", .unit = "", .scale = 1.0, .value = 1 },
	};
	struct report r = { .program = "p", .pid = 1, .reason = REPORT_INTERVAL, .seq = 4,
			    .interval_ns = 100000000, .nr_events = 4, .events = ev };
	(void)state;
	format(&r);
	assert_non_null(strstr(out, ",\"reason\":\"interval\",\"signal\":null,\"signal_name\":null,"
				    "\"exit_status\":null,\"seq\":4,\"interval_ns\":100000000,"));
	assert_json_lines(out);
	assert_python(out, "[e['delta'] for e in d['events']] == [-3, 7, None, None]");
}

/*
 * What the process was started as: each argument a JSON string, control
 * bytes, quotes and stray bytes escaped; its count, the cut said; the
 * working directory; the exit status and CPU times where known.
 */
static void test_identity(void **state)
{
	static const char args[] = "./cc1\0-o\0a \"b\"\nc\0\x1b[31m\0\xfe";
	struct report r = { .program = "cc1", .argv0 = "./cc1", .argv = args, .argv_kept = 5,
			    .argc = 9, .argv_truncated = 1, .cwd = "/home/u/new\nline",
			    .reason = REPORT_EXIT, .has_exit_status = 1, .exit_status = 3,
			    .has_cpu_times = 1, .user_ns = 12000000, .system_ns = 3000 };
	(void)state;
	format(&r);
	assert_non_null(strstr(out, ",\"argv\":[\"./cc1\",\"-o\",\"a \\\"b\\\"\\nc\",\"\\u001b[31m\","
				    "\"\\u00fe\"],\"argc\":9,\"argv_truncated\":true,"
				    "\"cwd\":\"/home/u/new\\nline\","));
	assert_non_null(strstr(out, ",\"user_ns\":12000000,\"system_ns\":3000,"));
	assert_non_null(strstr(out, ",\"signal_name\":null,\"exit_status\":3,"));
	assert_json_lines(out);
	assert_python(out, "d['argv'] == ['./cc1', '-o', 'a \"b\"\\nc', '\\x1b[31m', '\\xfe'] and "
		      "d['argc'] == 9 and d['argv_truncated'] and d['cwd'] == '/home/u/new\\nline'");

	/* No argument at all (argc 0): an empty array, not null. */
	r = (struct report){ .program = "p", .argv = "", .argv_kept = 0, .argc = 0 };
	format(&r);
	assert_non_null(strstr(out, ",\"argv\":[],\"argc\":0,\"argv_truncated\":false,"
				    "\"cwd\":null,"));
	/* A signal's report says its signal, never an exit status. */
	r = (struct report){ .program = "p", .reason = REPORT_SIGNAL, .signo = 9 };
	format(&r);
	assert_non_null(strstr(out, ",\"signal\":9,\"signal_name\":\"SIGKILL\",\"exit_status\":null,"));
}

/* u64 counts stay exact: they never pass through a double. */
static void test_exact_integers(void **state)
{
	struct report_event ev[] = {
		{ .name = "big", .scale = 2.5e-10, .raw = UINT64_MAX - 1, .value = UINT64_MAX,
		  .enabled = 9007199254740993ULL, .running = 9007199254740993ULL },
		{ .name = "nan-scale", .scale = 0.0 / 0.0 },
	};
	struct report r = { .program = "p", .pid = -1, .ppid = 2147483647,
			    .start_ns = UINT64_MAX, .nr_events = 2, .events = ev };
	(void)state;
	format(&r);
	assert_non_null(strstr(out, "\"value\":18446744073709551615,\"raw\":18446744073709551614,"
				    "\"enabled_ns\":9007199254740993,"));
	assert_non_null(strstr(out, "\"scale\":2.5e-10,"));
	assert_non_null(strstr(out, "\"scale\":null,"));
	assert_non_null(strstr(out, "\"pid\":-1,\"ppid\":2147483647,"));
	assert_non_null(strstr(out, "\"start_time\":\"2554-07-21T23:34:33.709551615Z\""));
	assert_json_lines(out);
	assert_python(out, "d['events'][0]['value'] == 2**64 - 1"
		      " and d['events'][0]['enabled_ns'] == 2**53 + 1");
}

/* Two reports appended to one file are two lines of JSON. */
static void test_json_lines(void **state)
{
	static char two[65536];
	size_t n;
	(void)state;
	n = report_format_json(&sample_report, two, sizeof(two));
	report_format_json(&sample_report, two + n, sizeof(two) - n);
	assert_int_equal(strchr(two, '\n') - two, (ptrdiff_t)n - 1);
	assert_json_lines(two);
	assert_python(two, "len(d['events']) == 9");
}

static void test_truncation(void **state)
{
	(void)state;
	check_truncation(report_format_json, &sample_report);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_checker_refuses),
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_share),
		cmocka_unit_test(test_job),
		cmocka_unit_test(test_odd_names),
		cmocka_unit_test(test_series),
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_exact_integers),
		cmocka_unit_test(test_json_lines),
		cmocka_unit_test(test_truncation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
