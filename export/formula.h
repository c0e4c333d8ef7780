/* SPDX-License-Identifier: MIT */
/*
 * formula.h: a derived metric's formula ("1.0E-06*(PMC2+PMC3)*64.0/time"),
 * compiled once into a postfix program and evaluated at every report.
 *
 * The grammar is the one LIKWID's group files and perf's metric expressions
 * share at their core: numbers, names, + - * /, unary minus and parentheses,
 * with the usual precedence and left associativity. Evaluation performs the
 * operations in the order a C or Python reading of the same text would, so
 * a value can be checked to the last digit against an independent
 * evaluation (tests/e2e/metrics.bats does, for every group file).
 *
 * formula_compile() runs once, where allocation and locale are fine (it
 * reads numbers in the C locale whatever the program set);
 * formula_eval() is async-signal-safe: arithmetic on the caller's values.
 */
#ifndef PFSHIM_EXPORT_FORMULA_H
#define PFSHIM_EXPORT_FORMULA_H

#include <stddef.h>

#define FORMULA_MAX_STEPS 192
#define FORMULA_MAX_NAMES 64

enum formula_op {
	FORMULA_NUMBER,
	FORMULA_NAME,
	FORMULA_ADD,
	FORMULA_SUB,
	FORMULA_MUL,
	FORMULA_DIV,
	FORMULA_NEG,
};

struct formula_step {
	enum formula_op op;
	double number;		/* FORMULA_NUMBER */
	unsigned name;		/* FORMULA_NAME: index in formula.names */
};

/*
 * A name as it appears in the text, with its modifiers (LIKWID writes
 * "PMC3:EDGEDETECT" for the counter PMC3 counted with an edge detect):
 * the caller maps each to a value before evaluating.
 */
struct formula_name {
	const char *text;	/* points into the compiled text */
	size_t len;
};

struct formula {
	unsigned nr_steps;
	unsigned nr_names;
	struct formula_step steps[FORMULA_MAX_STEPS];
	struct formula_name names[FORMULA_MAX_NAMES];
};

/*
 * formula_compile - compile @text (which must outlive @f: names point into
 * it) into @f.
 *
 * Return: 0, or -EINVAL when @text is not a formula (an unbalanced
 * parenthesis, an operator without an operand, a character no formula
 * has), with *@where set to the offset of the first byte that does not fit;
 * -E2BIG when it needs more steps or names than a struct formula holds.
 */
int formula_compile(const char *text, struct formula *f, size_t *where);

/*
 * formula_eval - the value of @f with @values[i] for f->names[i].
 *
 * Return: 0 with *@out set, or -EDOM when a division by zero occurred
 * (a metric with no meaning for these counts: the caller prints none).
 * Async-signal-safe.
 */
int formula_eval(const struct formula *f, const double *values, double *out);

#endif
