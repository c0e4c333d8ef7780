/* SPDX-License-Identifier: MIT */
/*
 * formula.c: compile a metric's formula into postfix steps (a shunting
 * yard), and evaluate them on a small stack (see formula.h).
 *
 * The evaluator runs each step on values in memory, one operation per
 * step, so the compiler cannot fuse a multiply and an add into one fma on
 * arm64: the result is the one an independent reading gets, to the bit.
 */
#include <errno.h>
#include <locale.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "export/formula.h"

static bool is_name_start(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool is_name_char(char c)
{
	return is_name_start(c) || (c >= '0' && c <= '9');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/*
 * The length of the name at @s: an identifier, then any ":MODIFIER" or
 * ":KEY=VALUE" parts (LIKWID's "PMC3:EDGEDETECT", "CBOX0C0:STATE=0x3F").
 */
static size_t name_length(const char *s)
{
	size_t n = 1;

	while (is_name_char(s[n]))
		n++;
	while (s[n] == ':' && (is_name_char(s[n + 1]))) {
		n += 2;
		while (is_name_char(s[n]) || s[n] == '=')
			n++;
	}
	return n;
}

/* The length of the decimal number at @s ("64", "1.0E-06", ".5"), or 0. */
static size_t number_length(const char *s)
{
	size_t n = 0, digits = 0;

	while (is_digit(s[n]))
		n++, digits++;
	if (s[n] == '.')
		for (n++; is_digit(s[n]); n++)
			digits++;
	if (!digits)
		return 0;
	if (s[n] == 'e' || s[n] == 'E') {
		size_t e = n + 1;

		if (s[e] == '+' || s[e] == '-')
			e++;
		if (is_digit(s[e])) {
			while (is_digit(s[e]))
				e++;
			n = e;
		}
	}
	return n;
}

/*
 * The number @s[0..@n) read in the C locale, whatever the program chose:
 * "1.0E-06" means the same in a program that called setlocale(LC_ALL,
 * "de_DE"). strtod rounds correctly, as every reader of the text does.
 */
static int number_value(const char *s, size_t n, double *out)
{
	static locale_t c_numeric;
	char text[64];

	if (n >= sizeof(text))
		return -E2BIG;
	if (!c_numeric) {
		locale_t l = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);

		if (!l)
			return -ENOMEM;
		locale_t none = (locale_t)0;

		if (!__atomic_compare_exchange_n(&c_numeric, &none, l, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			freelocale(l);
	}
	memcpy(text, s, n);
	text[n] = '\0';
	*out = strtod_l(text, NULL, __atomic_load_n(&c_numeric, __ATOMIC_ACQUIRE));
	return 0;
}

/* Binding strength; unary minus binds tighter than * and /, as in C. */
static int precedence(enum formula_op op)
{
	switch (op) {
	case FORMULA_ADD:
	case FORMULA_SUB:
		return 1;
	case FORMULA_MUL:
	case FORMULA_DIV:
		return 2;
	case FORMULA_NEG:
		return 3;
	default:
		return 0;
	}
}

/* The operator stack holds operators and '(' (as FORMULA_NUMBER). */
#define OPEN_PAREN FORMULA_NUMBER

struct compiler {
	struct formula *f;
	enum formula_op ops[FORMULA_MAX_STEPS];
	unsigned nr_ops;
};

static int emit(struct compiler *c, struct formula_step step)
{
	if (c->f->nr_steps == FORMULA_MAX_STEPS)
		return -E2BIG;
	c->f->steps[c->f->nr_steps++] = step;
	return 0;
}

static int emit_op(struct compiler *c, enum formula_op op)
{
	return emit(c, (struct formula_step){ .op = op });
}

static int name_index(struct formula *f, const char *s, size_t n, unsigned *index)
{
	for (unsigned i = 0; i < f->nr_names; i++)
		if (f->names[i].len == n && !memcmp(f->names[i].text, s, n)) {
			*index = i;
			return 0;
		}
	if (f->nr_names == FORMULA_MAX_NAMES)
		return -E2BIG;
	f->names[f->nr_names] = (struct formula_name){ .text = s, .len = n };
	*index = f->nr_names++;
	return 0;
}

/* Pop operators that bind at least as tightly as @op (left associative). */
static int push_operator(struct compiler *c, enum formula_op op)
{
	while (c->nr_ops && c->ops[c->nr_ops - 1] != OPEN_PAREN &&
	       op != FORMULA_NEG && precedence(c->ops[c->nr_ops - 1]) >= precedence(op)) {
		int err = emit_op(c, c->ops[--c->nr_ops]);

		if (err)
			return err;
	}
	if (c->nr_ops == FORMULA_MAX_STEPS)
		return -E2BIG;
	c->ops[c->nr_ops++] = op;
	return 0;
}

static int close_paren(struct compiler *c)
{
	while (c->nr_ops && c->ops[c->nr_ops - 1] != OPEN_PAREN) {
		int err = emit_op(c, c->ops[--c->nr_ops]);

		if (err)
			return err;
	}
	if (!c->nr_ops)
		return -EINVAL;
	c->nr_ops--;
	return 0;
}

static enum formula_op binary_op(char ch)
{
	switch (ch) {
	case '+': return FORMULA_ADD;
	case '-': return FORMULA_SUB;
	case '*': return FORMULA_MUL;
	default:  return FORMULA_DIV;
	}
}

int formula_compile(const char *text, struct formula *f, size_t *where)
{
	struct compiler c = { .f = f };
	bool want_operand = true;	/* a number, a name, '(' or a sign next */
	size_t i = 0;
	int err = 0;

	f->nr_steps = 0;
	f->nr_names = 0;
	while (!err && text[i]) {
		char ch = text[i];
		size_t n;

		if (ch == ' ' || ch == '\t') {
			i++;
			continue;
		}
		if (want_operand) {
			if (ch == '(') {
				err = c.nr_ops < FORMULA_MAX_STEPS ? 0 : -E2BIG;
				if (!err)
					c.ops[c.nr_ops++] = OPEN_PAREN;
				i++;
			} else if (ch == '-') {
				err = push_operator(&c, FORMULA_NEG);
				i++;
			} else if (ch == '+') {
				i++;	/* a unary plus changes nothing */
			} else if ((n = number_length(text + i))) {
				struct formula_step step = { .op = FORMULA_NUMBER };

				err = number_value(text + i, n, &step.number);
				if (!err)
					err = emit(&c, step);
				i += n;
				want_operand = false;
			} else if (is_name_start(ch)) {
				struct formula_step step = { .op = FORMULA_NAME };

				n = name_length(text + i);
				err = name_index(f, text + i, n, &step.name);
				if (!err)
					err = emit(&c, step);
				i += n;
				want_operand = false;
			} else {
				err = -EINVAL;
			}
		} else if (ch == ')') {
			err = close_paren(&c);
			i += !err;
		} else if (ch == '+' || ch == '-' || ch == '*' || ch == '/') {
			err = push_operator(&c, binary_op(ch));
			i++;
			want_operand = true;
		} else {
			err = -EINVAL;
		}
	}
	if (!err && want_operand)
		err = -EINVAL;	/* empty, or ends on an operator */
	while (!err && c.nr_ops) {
		enum formula_op op = c.ops[--c.nr_ops];

		err = op == OPEN_PAREN ? -EINVAL : emit_op(&c, op);
	}
	if (where)
		*where = i;
	return err;
}

int formula_eval(const struct formula *f, const double *values, double *out)
{
	double stack[FORMULA_MAX_STEPS];
	unsigned top = 0;

	for (unsigned i = 0; i < f->nr_steps; i++) {
		const struct formula_step *s = &f->steps[i];

		switch (s->op) {
		case FORMULA_NUMBER:
			stack[top++] = s->number;
			continue;
		case FORMULA_NAME:
			stack[top++] = values[s->name];
			continue;
		case FORMULA_NEG:
			stack[top - 1] = -stack[top - 1];
			continue;
		default:
			break;
		}
		double b = stack[--top], a = stack[top - 1];

		switch (s->op) {
		case FORMULA_ADD:
			stack[top - 1] = a + b;
			break;
		case FORMULA_SUB:
			stack[top - 1] = a - b;
			break;
		case FORMULA_MUL:
			stack[top - 1] = a * b;
			break;
		default:
			if (b == 0)
				return -EDOM;
			stack[top - 1] = a / b;
			break;
		}
	}
	*out = stack[0];
	return 0;
}
