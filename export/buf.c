/* SPDX-License-Identifier: MIT */
/*
 * buf.c: the bounded string builder of export/ (see buf.h).
 *
 * Async-signal-safe: no allocation, no stdio, no locale, no locks; only
 * arithmetic on the caller's buffer. Numbers are converted here by hand
 * because snprintf is not async-signal-safe.
 */
#include <string.h>

#include "export/buf.h"

size_t buf_finish(struct buf *b)
{
	if (b->size > 0)
		b->p[b->len < b->size ? b->len : b->size - 1] = '\0';
	return b->len;
}

void buf_putc(struct buf *b, char c)
{
	/* Keep the last byte for the NUL that buf_finish() writes. */
	if (b->len + 1 < b->size)
		b->p[b->len] = c;
	b->len++;
}

/*
 * Room for bytes below the NUL's: a run is copied whole, not a call per
 * byte: a report is formatted twice (before its read, to touch what it
 * writes with, and after), and per-byte calls were a third of a small
 * process's instructions under the shim (docs/performance.md, "CPU per
 * child process").
 */
static size_t room(const struct buf *b)
{
	return b->len + 1 < b->size ? b->size - 1 - b->len : 0;
}

void buf_putn(struct buf *b, const char *s, size_t n)
{
	size_t r = room(b);

	if (r)
		memcpy(b->p + b->len, s, n < r ? n : r);
	b->len += n;
}

void buf_puts(struct buf *b, const char *s)
{
	buf_putn(b, s, strlen(s));
}

void buf_pad(struct buf *b, char c, size_t n)
{
	size_t r = room(b);

	if (r)
		memset(b->p + b->len, c, n < r ? n : r);
	b->len += n;
}

/* Digits of @v, most significant first, into @out (20 bytes suffice). */
static unsigned u64_digits(uint64_t v, char out[20])
{
	char tmp[20];
	unsigned n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (unsigned i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

void buf_put_u64(struct buf *b, uint64_t v)
{
	char d[20];

	buf_putn(b, d, u64_digits(v, d));
}

void buf_put_i64(struct buf *b, int64_t v)
{
	if (v < 0) {
		buf_putc(b, '-');
		/* Negate in unsigned arithmetic: INT64_MIN has no positive twin. */
		buf_put_u64(b, 0 - (uint64_t)v);
	} else {
		buf_put_u64(b, (uint64_t)v);
	}
}

void buf_put_u64_width(struct buf *b, uint64_t v, unsigned width)
{
	char d[20];
	unsigned n = u64_digits(v, d);

	if (width > n)
		buf_pad(b, '0', width - n);
	buf_putn(b, d, n);
}

void buf_put_u64_grouped(struct buf *b, uint64_t v)
{
	char d[20];
	unsigned n = u64_digits(v, d);

	for (unsigned i = 0; i < n; i++) {
		if (i > 0 && (n - i) % 3 == 0)
			buf_putc(b, ',');
		buf_putc(b, d[i]);
	}
}

/* Exact in binary64 up to 1e22. */
static const double pow10_table[] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};

/*
 * @x * 10^@e in exact-power steps. long double keeps the error of several
 * steps (1e-300 takes 14) below the last digit a double can show, and holds
 * a 17-digit mantissa exactly; on arm64 it is software binary128, slow but
 * pure arithmetic.
 */
static long double scale10(long double x, int e)
{
	while (e > 22) {
		x *= 1e22L;
		e -= 22;
	}
	while (e < -22) {
		x /= 1e22L;
		e += 22;
	}
	return e >= 0 ? x * pow10_table[e] : x / pow10_table[-e];
}

/* Returns 1 and prints a word when @v is not a finite number. */
static int put_nonfinite(struct buf *b, double v)
{
	if (v != v) {
		buf_puts(b, "nan");
		return 1;
	}
	if (v > 1.7976931348623157e308 || v < -1.7976931348623157e308) {
		buf_puts(b, v < 0 ? "-inf" : "inf");
		return 1;
	}
	return 0;
}

void buf_put_fixed(struct buf *b, double v, unsigned digits, int grouped)
{
	uint64_t p, m;
	double x;

	if (put_nonfinite(b, v))
		return;
	if (digits > 9)
		digits = 9;
	p = (uint64_t)pow10_table[digits];
	if (v < 0) {
		x = -v * (double)p + 0.5;
		/* No "-0.00": a value that rounds to zero has no sign. */
		if (x >= 1.0)
			buf_putc(b, '-');
	} else {
		x = v * (double)p + 0.5;
	}
	if (x >= 18446744073709551616.0) {
		buf_put_double(b, v < 0 ? -v : v);
		return;
	}
	m = (uint64_t)x;
	if (grouped)
		buf_put_u64_grouped(b, m / p);
	else
		buf_put_u64(b, m / p);
	if (digits) {
		buf_putc(b, '.');
		buf_put_u64_width(b, m % p, digits);
	}
}

/*
 * @v > 0 rounded to @digits significant digits, as an integer of exactly
 * @digits digits, and the decimal exponent of its leading digit.
 */
static uint64_t mantissa(double v, int digits, int *exp10)
{
	uint64_t lo = (uint64_t)pow10_table[digits - 1], hi = lo * 10;
	int k = 0;
	double t = v;
	uint64_t m = lo;

	/* A first guess at the exponent; rounding may leave it one off. */
	while (t >= 10.0) {
		t /= 10.0;
		k++;
	}
	while (t < 1.0) {
		t *= 10.0;
		k--;
	}
	for (int tries = 0; tries < 3; tries++) {
		long double y = scale10(v, digits - 1 - k) + 0.5L;

		m = y >= 18446744073709551616.0L ? UINT64_MAX : (uint64_t)y;
		if (m >= hi)
			k++;
		else if (m < lo)
			k--;
		else
			break;
	}
	*exp10 = k;
	return m;
}

/*
 * Does the decimal @m * 10^@e read back (by a correctly rounding strtod) as
 * @v > 0? Yes when it lies within half an ulp of @v; the margin absorbs the
 * long double error of computing it, so a decimal close to the midpoint
 * between two doubles gets one more digit instead of a wrong answer.
 */
static int reads_back(uint64_t m, int e, double v)
{
	uint64_t bits;
	double next;
	long double diff = scale10((long double)m, e) - v;

	memcpy(&bits, &v, sizeof(bits));
	bits++;
	memcpy(&next, &bits, sizeof(next));
	if (diff < 0)
		diff = -diff;
	return diff < 0.49L * ((long double)next - v);
}

void buf_put_double(struct buf *b, double v)
{
	char d[20];
	unsigned n;
	uint64_t m = 0;
	int k = 0;

	if (put_nonfinite(b, v))
		return;
	if (v == 0) {
		buf_putc(b, '0');
		return;
	}
	if (v < 0) {
		buf_putc(b, '-');
		v = -v;
	}
	/*
	 * The fewest digits (15 to 17) that read back as @v: 1e-6 prints as
	 * "1e-06", not "9.9999999999999995e-07" as %.17g would.
	 */
	for (int digits = 15; digits <= 17; digits++) {
		m = mantissa(v, digits, &k);
		if (reads_back(m, k - digits + 1, v))
			break;
	}
	n = u64_digits(m, d);
	while (n > 1 && d[n - 1] == '0')
		n--;

	if (k >= 0 && k < 17) {
		/* Positional, integer part of k + 1 digits. */
		for (int i = 0; i <= k; i++)
			buf_putc(b, (unsigned)i < n ? d[i] : '0');
		if ((unsigned)k + 1 < n) {
			buf_putc(b, '.');
			buf_putn(b, d + k + 1, n - (unsigned)k - 1);
		}
	} else if (k < 0 && k >= -5) {
		buf_puts(b, "0.");
		buf_pad(b, '0', (size_t)(-k - 1));
		buf_putn(b, d, n);
	} else {
		buf_putc(b, d[0]);
		if (n > 1) {
			buf_putc(b, '.');
			buf_putn(b, d + 1, n - 1);
		}
		buf_putc(b, 'e');
		buf_putc(b, k < 0 ? '-' : '+');
		buf_put_u64_width(b, (uint64_t)(k < 0 ? -k : k), 2);
	}
}

/*
 * Length of the valid UTF-8 sequence at @s, or 0 when the byte at @s does
 * not start one (stray continuation, overlong form, surrogate, > U+10FFFF,
 * or a sequence cut short by the NUL).
 */
static unsigned utf8_valid_len(const unsigned char *s)
{
	unsigned n;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		n = 2;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		n = 3;
		if (s[0] == 0xe0)
			lo = 0xa0;	/* overlong */
		if (s[0] == 0xed)
			hi = 0x9f;	/* UTF-16 surrogates */
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		n = 4;
		if (s[0] == 0xf0)
			lo = 0x90;	/* overlong */
		if (s[0] == 0xf4)
			hi = 0x8f;	/* beyond U+10FFFF */
	} else {
		return 0;
	}
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (unsigned i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

static void put_json_u00(struct buf *b, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";

	buf_puts(b, "\\u00");
	buf_putc(b, hex[c >> 4]);
	buf_putc(b, hex[c & 15]);
}

void buf_put_json_string(struct buf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	if (!s) {
		buf_puts(b, "null");
		return;
	}
	buf_putc(b, '"');
	while (*s) {
		size_t plain = 0;
		unsigned n;

		/* Printable ASCII but the two JSON escapes as it is, a run at a time. */
		while (s[plain] >= 0x20 && s[plain] < 0x7f && s[plain] != '"' && s[plain] != '\\')
			plain++;
		if (plain) {
			buf_putn(b, (const char *)s, plain);
			s += plain;
			continue;
		}
		switch (*s) {
		case '"':  buf_puts(b, "\\\""); s++; continue;
		case '\\': buf_puts(b, "\\\\"); s++; continue;
		case '\n': buf_puts(b, "\\n"); s++; continue;
		case '\t': buf_puts(b, "\\t"); s++; continue;
		case '\r': buf_puts(b, "\\r"); s++; continue;
		case '\b': buf_puts(b, "\\b"); s++; continue;
		case '\f': buf_puts(b, "\\f"); s++; continue;
		}
		if (*s < 0x20 || *s == 0x7f) {
			put_json_u00(b, *s++);
			continue;
		}
		n = utf8_valid_len(s);
		if (n == 2 && s[0] == 0xc2 && s[1] < 0xa0) {
			/* U+0080..U+009F, the C1 controls (CSI is U+009B): escaped too. */
			put_json_u00(b, s[1]);
			s += 2;
			continue;
		}
		if (n == 0) {
			/* Latin-1 reading of the stray byte: lossy, but it parses. */
			put_json_u00(b, *s++);
			continue;
		}
		buf_putn(b, (const char *)s, n);
		s += n;
	}
	buf_putc(b, '"');
}

/*
 * The bytes of @s a terminal shows as they are: valid UTF-8 other than the
 * C0 and C1 controls and DEL. Everything else (an escape sequence's ESC,
 * U+009B CSI, a stray byte that a Latin-1 terminal reads as CSI) becomes
 * '?', one per byte. Return: bytes consumed; *@out_len bytes at *@out.
 */
static unsigned printable_at(const unsigned char *s, const char **out, unsigned *out_len)
{
	unsigned n = utf8_valid_len(s);

	if (n == 0 || s[0] < 0x20 || s[0] == 0x7f || (s[0] == 0xc2 && s[1] < 0xa0)) {
		*out = "?";
		*out_len = 1;
		return n ? n : 1;
	}
	*out = (const char *)s;
	*out_len = n;
	return n;
}

void buf_put_printable(struct buf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	while (*s) {
		const char *out;
		size_t plain = 0;
		unsigned n;

		while (s[plain] >= 0x20 && s[plain] < 0x7f)
			plain++;
		if (plain) {
			buf_putn(b, (const char *)s, plain);
			s += plain;
			continue;
		}
		s += printable_at(s, &out, &n);
		buf_putn(b, out, n);
	}
}

void buf_put_label_value(struct buf *b, const char *s)
{
	if (!s)
		return;
	for (const unsigned char *u = (const unsigned char *)s; *u;) {
		const char *out;
		unsigned n;

		if (*u == '\n' || *u == '\\' || *u == '"') {
			buf_putc(b, '\\');
			buf_putc(b, *u == '\n' ? 'n' : (char)*u);
			u++;
			continue;
		}
		u += printable_at(u, &out, &n);
		buf_putn(b, out, n);
	}
}

void buf_put_csv_field(struct buf *b, const char *s)
{
	const char *q;
	int quote = 0, formula;

	if (!s)
		return;
	/*
	 * A cell a spreadsheet would take for a formula (=, +, -, @, or a tab
	 * or CR first: OWASP's list) starts with a ' that shows it as text. A
	 * lone '-' (no rank, in pfshim report's rows) is text as it stands.
	 */
	formula = *s && strchr("=+-@\t\r", *s) && strcmp(s, "-") != 0;
	for (q = s; *q; q++)
		if (*q == ',' || *q == '"')
			quote = 1;
	if (!quote) {
		if (formula)
			buf_putc(b, '\'');
		buf_put_printable(b, s);
		return;
	}
	buf_putc(b, '"');
	if (formula)
		buf_putc(b, '\'');
	for (const unsigned char *u = (const unsigned char *)s; *u;) {
		const char *out;
		unsigned n;

		u += printable_at(u, &out, &n);
		if (*out == '"')
			buf_putc(b, '"');
		buf_putn(b, out, n);
	}
	buf_putc(b, '"');
}

void civil_from_days(int64_t days, int64_t *year, unsigned *month, unsigned *day)
{
	/*
	 * Count in 400-year eras starting 0000-03-01, so the leap day is the
	 * last day of each year and the month lengths from March repeat in a
	 * 153-day pattern of five months. 719468 days lie between 0000-03-01
	 * and 1970-01-01.
	 */
	int64_t z = days + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;			/* [0, 146096] */
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);	/* [0, 365] */
	int64_t mp = (5 * doy + 2) / 153;		/* March = 0 */

	*day = (unsigned)(doy - (153 * mp + 2) / 5 + 1);
	*month = (unsigned)(mp < 10 ? mp + 3 : mp - 9);
	*year = yoe + era * 400 + (*month <= 2);
}

void buf_put_utc(struct buf *b, uint64_t ns)
{
	uint64_t secs = ns / 1000000000u;
	uint64_t sod = secs % 86400;
	int64_t year;
	unsigned month, day;

	civil_from_days((int64_t)(secs / 86400), &year, &month, &day);
	buf_put_u64_width(b, (uint64_t)year, 4);
	buf_putc(b, '-');
	buf_put_u64_width(b, month, 2);
	buf_putc(b, '-');
	buf_put_u64_width(b, day, 2);
	buf_putc(b, 'T');
	buf_put_u64_width(b, sod / 3600, 2);
	buf_putc(b, ':');
	buf_put_u64_width(b, sod / 60 % 60, 2);
	buf_putc(b, ':');
	buf_put_u64_width(b, sod % 60, 2);
	buf_putc(b, '.');
	buf_put_u64_width(b, ns % 1000000000u, 9);
	buf_putc(b, 'Z');
}

void buf_put_metric(struct buf *b, double v)
{
	double a = v < 0 ? -v : v;
	unsigned digits = 2;

	for (double lim = 1; a > 0 && a < lim && digits < 9; lim /= 10)
		digits++;
	if (a > 0 && a < 1)
		digits += 1;	/* 0.1234 and 0.01234: four significant digits */
	buf_put_fixed(b, v, digits, 1);
}
