/* SPDX-License-Identifier: MIT */
/* test_formula.c: export/formula.c, compiling and evaluating formulas. */
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "export/formula.h"

static struct formula f;

/* The value of @text with names a=2, b=3, c=5 (in order of appearance). */
static double value(const char *text)
{
	double values[FORMULA_MAX_NAMES], out = 0;

	assert_int_equal(formula_compile(text, &f, NULL), 0);
	for (unsigned i = 0; i < f.nr_names; i++) {
		assert_int_equal(f.names[i].len, 1);
		values[i] = f.names[i].text[0] == 'a' ? 2 : f.names[i].text[0] == 'b' ? 3 : 5;
	}
	assert_int_equal(formula_eval(&f, values, &out), 0);
	return out;
}

static void precedence_and_associativity(void **state)
{
	(void)state;
	assert_true(value("a+b*c") == 17);
	assert_true(value("(a+b)*c") == 25);
	assert_true(value("c-b-a") == 0);	/* (5-3)-2, not 5-(3-2) */
	assert_true(value("c/a/a") == 1.25);	/* (5/2)/2 */
	assert_true(value("-a*b") == -6);
	assert_true(value("a--b") == 5);
	assert_true(value("-(a+b)") == -5);
	assert_true(value("+a") == 2);
	assert_true(value(" a * ( b + c ) ") == 16);
}

static void numbers(void **state)
{
	(void)state;
	assert_true(value("1.0E-06*64") == 1.0E-06 * 64);
	assert_true(value("1.E-06") == 1.E-06);
	assert_true(value(".5*a") == 1);
	assert_true(value("64.0") == 64.0);
	assert_true(value("1e3") == 1000);
}

/* A program's setlocale() must not change what "1.5" means. */
static void numbers_in_any_locale(void **state)
{
	(void)state;
	if (!setlocale(LC_NUMERIC, "de_DE.UTF-8") && !setlocale(LC_NUMERIC, "fr_FR.UTF-8"))
		skip();	/* no locale with a decimal comma installed */
	assert_true(value("1.5*a") == 3);
	setlocale(LC_NUMERIC, "C");
}

/* LIKWID's counter names with options are one name each. */
static void names_with_options(void **state)
{
	(void)state;
	assert_int_equal(formula_compile("PMC1/PMC3:EDGEDETECT+CBOX0C0:STATE=0x3F+PMC1", &f, NULL), 0);
	assert_int_equal(f.nr_names, 3);
	assert_int_equal(f.names[1].len, strlen("PMC3:EDGEDETECT"));
	assert_memory_equal(f.names[2].text, "CBOX0C0:STATE=0x3F", f.names[2].len);
}

static void bad_formulas(void **state)
{
	static const struct { const char *text; size_t where; } bad[] = {
		{ "", 0 }, { "a+", 2 }, { "(a", 2 }, { "a)", 1 }, { "a b", 2 },
		{ "*a", 0 }, { "a+[b]", 2 }, { "()", 1 }, { "a^b", 1 },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t where = 99;

		assert_int_equal(formula_compile(bad[i].text, &f, &where), -EINVAL);
		assert_int_equal(where, bad[i].where);
	}
}

static void too_big(void **state)
{
	char text[4 * FORMULA_MAX_STEPS + 8];
	size_t n = 0;

	(void)state;
	for (int i = 0; i < FORMULA_MAX_STEPS; i++)
		n += (size_t)sprintf(text + n, "%s1", i ? "+" : "");
	assert_int_equal(formula_compile(text, &f, NULL), -E2BIG);

	n = 0;
	for (int i = 0; i <= FORMULA_MAX_NAMES; i++)
		n += (size_t)sprintf(text + n, "%sx%d", i ? "+" : "", i);
	assert_int_equal(formula_compile(text, &f, NULL), -E2BIG);
}

static void division_by_zero(void **state)
{
	double zero = 0, out = 7;

	(void)state;
	assert_int_equal(formula_compile("1/x", &f, NULL), 0);
	assert_int_equal(formula_eval(&f, &zero, &out), -EDOM);
	assert_true(out == 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(precedence_and_associativity),
		cmocka_unit_test(numbers),
		cmocka_unit_test(numbers_in_any_locale),
		cmocka_unit_test(names_with_options),
		cmocka_unit_test(bad_formulas),
		cmocka_unit_test(too_big),
		cmocka_unit_test(division_by_zero),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
