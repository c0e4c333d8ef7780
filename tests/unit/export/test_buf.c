/* SPDX-License-Identifier: MIT */
/*
 * test_buf.c: export/buf.c, the async-signal-safe formatter under every
 * report: numbers, grouping, escaping, quoting, dates and truncation.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "export/buf.h"

static char out[512];
static struct buf b;

static void reset(void)
{
	memset(out, 0x5a, sizeof(out));
	buf_init(&b, out, sizeof(out));
}

static const char *done(void)
{
	buf_finish(&b);
	return out;
}

static void test_integers(void **state)
{
	(void)state;
	reset(); buf_put_u64(&b, 0); assert_string_equal(done(), "0");
	reset(); buf_put_u64(&b, UINT64_MAX);
	assert_string_equal(done(), "18446744073709551615");
	reset(); buf_put_i64(&b, INT64_MIN);
	assert_string_equal(done(), "-9223372036854775808");
	reset(); buf_put_i64(&b, -42); assert_string_equal(done(), "-42");
	reset(); buf_put_i64(&b, -1); assert_string_equal(done(), "-1");
	reset(); buf_put_u64_width(&b, 7, 3); assert_string_equal(done(), "007");
	reset(); buf_put_u64_width(&b, 12345, 3); assert_string_equal(done(), "12345");
}

static void test_grouping(void **state)
{
	static const struct { uint64_t v; const char *s; } cases[] = {
		{ 0, "0" }, { 999, "999" }, { 1000, "1,000" },
		{ 25600, "25,600" }, { 999999, "999,999" },
		{ 1234567, "1,234,567" },
		{ UINT64_MAX, "18,446,744,073,709,551,615" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		reset();
		buf_put_u64_grouped(&b, cases[i].v);
		assert_string_equal(done(), cases[i].s);
	}
}

static void test_fixed(void **state)
{
	(void)state;
	reset(); buf_put_fixed(&b, 987.654321, 2, 0); assert_string_equal(done(), "987.65");
	reset(); buf_put_fixed(&b, 1234567.891, 2, 1);
	assert_string_equal(done(), "1,234,567.89");
	reset(); buf_put_fixed(&b, 0.8, 3, 0); assert_string_equal(done(), "0.800");
	reset(); buf_put_fixed(&b, 2.5, 0, 0); assert_string_equal(done(), "3");
	reset(); buf_put_fixed(&b, -1.25, 1, 0); assert_string_equal(done(), "-1.3");
	/* rounds to zero: no "-0.00" */
	reset(); buf_put_fixed(&b, -0.001, 2, 0); assert_string_equal(done(), "0.00");
	reset(); buf_put_fixed(&b, 0.000000001, 9, 0);
	assert_string_equal(done(), "0.000000001");
	reset(); buf_put_fixed(&b, NAN, 2, 0); assert_string_equal(done(), "nan");
	reset(); buf_put_fixed(&b, -INFINITY, 2, 0); assert_string_equal(done(), "-inf");
	/* beyond 64-bit fixed point */
	reset(); buf_put_fixed(&b, 1e30, 2, 1); assert_string_equal(done(), "1e+30");
}

static void test_double_strings(void **state)
{
	static const struct { double v; const char *s; } cases[] = {
		{ 0.0, "0" }, { 1.0, "1" }, { -2.5, "-2.5" }, { 1e-6, "1e-06" },
		{ 0.001, "0.001" }, { 1e-5, "0.00001" }, { 1e9, "1000000000" },
		{ 1e17, "1e+17" }, { 1e22, "1e+22" }, { 1e-300, "1e-300" },
		{ 0.1, "0.1" }, { 1.0 / 3, "0.3333333333333333" }, { 2.0 / 3, "0.6666666666666666" }, { 123.456, "123.456" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		reset();
		buf_put_double(&b, cases[i].v);
		assert_string_equal(done(), cases[i].s);
	}
}

/* The digits printed read back as the same double. */
static void test_double_round_trip(void **state)
{
	unsigned seed = 12345;
	(void)state;
	for (int i = 0; i < 200000; i++) {
		double v, back;

		seed = seed * 1103515245u + 12345u;
		if (i % 2) {
			v = ldexp((double)(seed >> 4) + 0.5, (int)(seed % 400) - 200);
		} else {
			/* any finite positive double, subnormals included */
			uint64_t bits = ((uint64_t)seed << 32 | (seed * 2654435761u)) & 0x7fefffffffffffffULL;

			memcpy(&v, &bits, sizeof(v));
			if (v == 0)
				continue;
		}
		reset();
		buf_put_double(&b, v);
		back = strtod(done(), NULL);
		if (back != v)
			print_error("%.17g printed as %s\n", v, out);
		assert_true(back == v);
	}
}

static void test_json_string(void **state)
{
	static const struct { const char *in, *json; } cases[] = {
		{ "cycles", "\"cycles\"" },
		{ "a\"b\\c", "\"a\\\"b\\\\c\"" },
		{ "l1\nl2\tx\r\b\f", "\"l1\\nl2\\tx\\r\\b\\f\"" },
		{ "\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"" },
		/* stray continuation, lone lead byte, overlong '/', surrogate, > U+10FFFF */
		{ "\x80", "\"\\u0080\"" },
		{ "\xc3x", "\"\\u00c3x\"" },
		{ "\xc0\xaf", "\"\\u00c0\\u00af\"" },
		{ "\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\"" },
		{ "\xf4\x90\x80\x80", "\"\\u00f4\\u0090\\u0080\\u0080\"" },
		{ "\xe2\x82", "\"\\u00e2\\u0082\"" },
		{ "", "\"\"" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		reset();
		buf_put_json_string(&b, cases[i].in);
		assert_string_equal(done(), cases[i].json);
	}
	reset(); buf_put_json_string(&b, NULL); assert_string_equal(done(), "null");
}

static void test_csv_field(void **state)
{
	static const struct { const char *in, *csv; } cases[] = {
		{ "cycles", "cycles" },
		{ "cpu/event=0x3c,umask=0/", "\"cpu/event=0x3c,umask=0/\"" },
		{ "say \"hi\"", "\"say \"\"hi\"\"\"" },
		{ "two\nlines", "two?lines" },
		/* A terminal's escape sequences never pass: ESC, DEL, C1 CSI (U+009B), a stray 0x9b. */
		{ "x\x1b]0;owned\x07y", "x?]0;owned?y" },
		{ "a\x7f\xc2\x9b" "31m\x9b", "a??31m?" },
		{ "q\"\r,", "\"q\"\"?,\"" },
		{ "caf\xc3\xa9 \xc2\xa0", "caf\xc3\xa9 \xc2\xa0" },
		{ "", "" },
		/* What a spreadsheet would run as a formula is shown as text: a ' first. */
		{ "=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0" },
		{ "=HYPERLINK(\"x\",1)", "\"'=HYPERLINK(\"\"x\"\",1)\"" },
		{ "+1", "'+1" }, { "-x", "'-x" }, { "@SUM(A1)", "'@SUM(A1)" },
		{ "\tx", "'?x" }, { "\r,", "\"'?,\"" },
		{ "a=b", "a=b" }, { "1-2", "1-2" }, { "-", "-" }, { "--", "'--" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		reset();
		buf_put_csv_field(&b, cases[i].in);
		assert_string_equal(done(), cases[i].csv);
	}
	reset(); buf_put_csv_field(&b, NULL); assert_string_equal(done(), "");
}

static void test_printable(void **state)
{
	(void)state;
	reset(); buf_put_printable(&b, "a\nb\x1b[0m"); assert_string_equal(done(), "a?b?[0m");
	reset(); buf_put_printable(&b, "\xc2\x9b" "2J\x9b\x7f\xc3\xa9"); assert_string_equal(done(), "?2J??\xc3\xa9");
	reset(); buf_put_json_string(&b, "\xc2\x9b" "2J\x7f\xc2\xa0");
	assert_string_equal(done(), "\"\\u009b2J\\u007f\xc2\xa0\"");
}

static void test_utc_known_dates(void **state)
{
	static const struct { uint64_t ns; const char *s; } cases[] = {
		{ 0, "1970-01-01T00:00:00.000000000Z" },
		{ 951782400000000000ULL, "2000-02-29T00:00:00.000000000Z" },
		{ 951868799999999999ULL, "2000-02-29T23:59:59.999999999Z" },
		{ 1700000000123456789ULL, "2023-11-14T22:13:20.123456789Z" },
		{ 4102444800000000000ULL, "2100-01-01T00:00:00.000000000Z" },
		{ UINT64_MAX, "2554-07-21T23:34:33.709551615Z" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		reset();
		buf_put_utc(&b, cases[i].ns);
		assert_string_equal(done(), cases[i].s);
	}
}

/* Every day a u64 of ns can reach, against the C library's gmtime_r. */
static void test_civil_against_gmtime(void **state)
{
	(void)state;
	for (int64_t days = 0; days <= 213503; days++) {
		time_t t = (time_t)(days * 86400);
		struct tm tm;
		int64_t y;
		unsigned m, d;

		assert_non_null(gmtime_r(&t, &tm));
		civil_from_days(days, &y, &m, &d);
		assert_int_equal(y, tm.tm_year + 1900);
		assert_int_equal(m, tm.tm_mon + 1);
		assert_int_equal(d, tm.tm_mday);
	}
}

static void test_truncation(void **state)
{
	char small[8];
	(void)state;
	memset(small, 'x', sizeof(small));
	buf_init(&b, small, 4);
	buf_puts(&b, "hello");
	buf_put_u64_grouped(&b, 1234567);
	assert_int_equal(buf_finish(&b), 14);
	assert_string_equal(small, "hel");
	assert_int_equal(small[4], 'x');

	buf_init(&b, NULL, 0);
	buf_put_json_string(&b, "a\"b");
	assert_int_equal(buf_finish(&b), 6);

	memset(small, 'x', sizeof(small));
	buf_init(&b, small, 1);
	buf_putc(&b, 'z');
	assert_int_equal(buf_finish(&b), 1);
	assert_int_equal(small[0], '\0');
	assert_int_equal(small[1], 'x');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integers),
		cmocka_unit_test(test_grouping),
		cmocka_unit_test(test_fixed),
		cmocka_unit_test(test_double_strings),
		cmocka_unit_test(test_double_round_trip),
		cmocka_unit_test(test_json_string),
		cmocka_unit_test(test_csv_field),
		cmocka_unit_test(test_printable),
		cmocka_unit_test(test_utc_known_dates),
		cmocka_unit_test(test_civil_against_gmtime),
		cmocka_unit_test(test_truncation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
