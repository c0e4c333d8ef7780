/* SPDX-License-Identifier: MIT */
/*
 * jsonread.c: the fast path of jsonread.h. A recursive descent over the
 * bytes, building jansson's nodes; any doubt is a NULL that sends the
 * whole value to jansson (json_read()). Strict JSON: RFC 8259's grammar,
 * strings of printable ASCII with the two-character escapes only.
 */
#include "tools/pfshim/read/jsonread.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define DEPTH_MAX 64		/* deeper: jansson's (it allows 2048) */
#define SHORT 256		/* an escaped string or a number longer than this: jansson's */

struct scan {
	const char *p, *end;
	bool controls;		/* an escape gave a control byte (\n, \t, ...) */
};

static void space(struct scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' || *s->p == '\r' || *s->p == '\t'))
		s->p++;
}

/*
 * A string after its opening quote: its bytes in @out (escapes decoded,
 * at most SHORT) or, without escapes, where they are (@*at, @*len).
 * Return: false for anything but printable ASCII and \" \\ \/ \b \f \n \r \t.
 */
static bool string_of(struct scan *s, char *out, const char **at, size_t *len)
{
	const char *start = s->p;
	size_t n = 0;
	bool escaped = false;

	for (;;) {
		unsigned char c;

		if (s->p >= s->end)
			return false;
		c = (unsigned char)*s->p++;
		if (c == '"')
			break;
		if (c < 0x20 || c >= 0x7f)
			return false;
		if (c == '\\') {
			if (s->p >= s->end)
				return false;
			switch (*s->p++) {
			case '"': c = '"'; break;
			case '\\': c = '\\'; break;
			case '/': c = '/'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			default: return false;	/* \u, or not an escape */
			}
			s->controls |= c < 0x20;
			if (!escaped) {	/* the bytes before the first escape, copied now */
				n = (size_t)(s->p - 2 - start);
				if (n > SHORT)
					return false;
				memcpy(out, start, n);
				escaped = true;
			}
		}
		if (escaped) {
			if (n == SHORT)
				return false;
			out[n++] = (char)c;
		}
	}
	if (escaped) {
		*at = out;
		*len = n;
	} else {
		*at = start;
		*len = (size_t)(s->p - 1 - start);
	}
	return true;
}

static bool digit(const struct scan *s)
{
	return s->p < s->end && *s->p >= '0' && *s->p <= '9';
}

/* A number by JSON's grammar: an integer that fits int64, or a finite real. */
static json_t *number(struct scan *s)
{
	const char *start = s->p;
	bool real = false;
	char text[SHORT + 1];
	size_t n;

	if (s->p < s->end && *s->p == '-')
		s->p++;
	if (!digit(s))
		return NULL;
	if (*s->p == '0')
		s->p++;
	else
		while (digit(s))
			s->p++;
	if (s->p < s->end && *s->p == '.') {
		s->p++;
		real = true;
		if (!digit(s))
			return NULL;
		while (digit(s))
			s->p++;
	}
	if (s->p < s->end && (*s->p == 'e' || *s->p == 'E')) {
		s->p++;
		real = true;
		if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
			s->p++;
		if (!digit(s))
			return NULL;
		while (digit(s))
			s->p++;
	}
	n = (size_t)(s->p - start);
	if (n > SHORT)
		return NULL;
	memcpy(text, start, n);
	text[n] = '\0';
	errno = 0;
	if (real) {	/* strtod as jansson calls it (the command sets no locale) */
		double v = strtod(text, NULL);

		return errno || !isfinite(v) ? NULL : json_real(v);
	} else if (n - (*text == '-') <= 18) {	/* 10^18 - 1 at most: no overflow */
		int64_t v = 0;

		for (const char *d = text + (*text == '-'); *d; d++)
			v = v * 10 + (*d - '0');
		return json_integer(*text == '-' ? -v : v);
	} else {
		long long v = strtoll(text, NULL, 10);

		return errno ? NULL : json_integer(v);
	}
}

static bool literal(struct scan *s, const char *word, size_t n)
{
	if ((size_t)(s->end - s->p) < n || memcmp(s->p, word, n))
		return false;
	s->p += n;
	return true;
}

static json_t *value(struct scan *s, int depth);

static json_t *object(struct scan *s, int depth)
{
	json_t *o = json_object();
	char key[SHORT];

	if (!o)
		return NULL;
	space(s);
	if (s->p < s->end && *s->p == '}') {
		s->p++;
		return o;
	}
	for (;;) {
		const char *at;
		size_t len;
		json_t *v;

		if (s->p >= s->end || *s->p++ != '"' || !string_of(s, key, &at, &len))
			goto fail;
		space(s);
		if (s->p >= s->end || *s->p++ != ':')
			goto fail;
		v = value(s, depth + 1);
		if (!v || json_object_setn_new_nocheck(o, at, len, v))
			goto fail;
		space(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			space(s);
			continue;
		}
		if (s->p < s->end && *s->p == '}') {
			s->p++;
			return o;
		}
		goto fail;
	}
fail:
	json_decref(o);
	return NULL;
}

static json_t *array(struct scan *s, int depth)
{
	json_t *a = json_array();

	if (!a)
		return NULL;
	space(s);
	if (s->p < s->end && *s->p == ']') {
		s->p++;
		return a;
	}
	for (;;) {
		json_t *v = value(s, depth + 1);

		if (!v || json_array_append_new(a, v))
			break;
		space(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			continue;
		}
		if (s->p < s->end && *s->p == ']') {
			s->p++;
			return a;
		}
		break;
	}
	json_decref(a);
	return NULL;
}

static json_t *value(struct scan *s, int depth)
{
	char buf[SHORT];
	const char *at;
	size_t len;

	space(s);
	if (s->p >= s->end || depth > DEPTH_MAX)
		return NULL;
	switch (*s->p) {
	case '{':
		s->p++;
		return object(s, depth);
	case '[':
		s->p++;
		return array(s, depth);
	case '"':
		s->p++;
		return string_of(s, buf, &at, &len) ? json_stringn_nocheck(at, len) : NULL;
	case 't':
		return literal(s, "true", 4) ? json_true() : NULL;
	case 'f':
		return literal(s, "false", 5) ? json_false() : NULL;
	case 'n':
		return literal(s, "null", 4) ? json_null() : NULL;
	default:
		return number(s);
	}
}

json_t *json_read_fast(const char *text, size_t len, size_t *used, bool *plain)
{
	struct scan s = { text, text + len, false };
	json_t *v;

	space(&s);
	if (s.p >= s.end || (*s.p != '{' && *s.p != '['))
		return NULL;	/* jansson's message: only an object or an array is a document */
	v = value(&s, 0);
	if (v) {
		*used = (size_t)(s.p - text);
		*plain = !s.controls;
	}
	return v;
}

json_t *json_read(const char *text, size_t len, json_error_t *err, bool *plain)
{
	size_t used;
	json_t *v = json_read_fast(text, len, &used, plain);

	if (!v) {
		*plain = false;	/* jansson's: any string may hold any byte */
		return json_loadb(text, len, JSON_DISABLE_EOF_CHECK, err);
	}
	err->position = (int)used;
	return v;
}
