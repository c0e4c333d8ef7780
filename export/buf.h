/* SPDX-License-Identifier: MIT */
/*
 * buf.h: the bounded string builder every report writer formats with.
 *
 * Async-signal-safe: reports are formatted inside the PFSHIM_SIGNAL handler,
 * where snprintf (locale, malloc on some paths) is off limits. A struct buf
 * counts every byte it is asked to write, stores only those that fit below
 * @size - 1, and buf_finish() NUL-terminates: the snprintf contract.
 */
#ifndef PFSHIM_EXPORT_BUF_H
#define PFSHIM_EXPORT_BUF_H

#include <stddef.h>
#include <stdint.h>

struct buf {
	char *p;
	size_t size;	/* bytes available at p, NUL included */
	size_t len;	/* bytes the output needs so far; may exceed size */
};

static inline void buf_init(struct buf *b, char *p, size_t size)
{
	b->p = p;
	b->size = size;
	b->len = 0;
}

/* buf_finish - NUL-terminate (when size > 0); return the needed length. */
size_t buf_finish(struct buf *b);

void buf_putc(struct buf *b, char c);
void buf_putn(struct buf *b, const char *s, size_t n);
void buf_puts(struct buf *b, const char *s);
void buf_pad(struct buf *b, char c, size_t n);

void buf_put_u64(struct buf *b, uint64_t v);
void buf_put_i64(struct buf *b, int64_t v);
/* buf_put_u64_width - @v zero-padded to at least @width digits. */
void buf_put_u64_width(struct buf *b, uint64_t v, unsigned width);
/* buf_put_u64_grouped - "1,234,567", as perf stat prints counts. */
void buf_put_u64_grouped(struct buf *b, uint64_t v);

/*
 * buf_put_fixed - @v with exactly @digits decimals (at most 9), rounded half
 * up, with thousands separators in the integer part when @grouped. Values
 * too large for 64-bit fixed point fall back to buf_put_double(); NaN and
 * infinities print as "nan", "inf", "-inf".
 */
void buf_put_fixed(struct buf *b, double v, unsigned digits, int grouped);

/*
 * buf_put_metric - a metric's value for a person: two decimals from 1 up
 * (grouped, as counts are), four significant digits below ("0.02308"), as
 * perf stat prints its ratios. The exact value is in JSON and CSV.
 */
void buf_put_metric(struct buf *b, double v);

/*
 * buf_put_double - @v with the fewest significant digits (15 to 17) that
 * read back as @v, trailing zeros dropped, exponent form outside [1e-5, 1e17): 0.0001 prints as "0.0001",
 * 1e-6 as "1e-06". The output is a valid JSON number for finite @v.
 */
void buf_put_double(struct buf *b, double v);

/*
 * buf_put_json_string - @s as a quoted JSON string ("null" for NULL).
 * Valid UTF-8 is kept; '"', '\\', control bytes, DEL and the C1 controls
 * (U+0080..U+009F) are escaped; each byte of an invalid UTF-8 sequence
 * becomes \u00XX so the output always parses.
 */
void buf_put_json_string(struct buf *b, const char *s);

/*
 * buf_put_csv_field - @s as one RFC 4180 field: quoted, with '"' doubled,
 * when it holds a comma or a quote; as is otherwise. NULL is empty. A field
 * a spreadsheet would take for a formula (first byte =, +, -, @, tab or CR)
 * starts with a ', which shows it as text. Like
 * buf_put_printable(), control bytes (CR and LF too), DEL, C1 controls and
 * invalid UTF-8 become '?': `cat report.csv` must not run a terminal's
 * escape sequences, and a row stays one line.
 */
void buf_put_csv_field(struct buf *b, const char *s);

/*
 * buf_put_label_value - @s as the inside of an OpenMetrics (and Prometheus
 * text format) label value, without the quotes: backslash, '"' and LF
 * escaped as both formats define (\\, \", \n); the other bytes as
 * buf_put_printable() writes them (control bytes, DEL, C1 controls and
 * invalid UTF-8 become '?'), so the value is valid UTF-8 on one line.
 * NULL is empty.
 */
void buf_put_label_value(struct buf *b, const char *s);

/*
 * buf_put_printable - @s for a terminal: control bytes, DEL, the C1
 * controls (U+0080..U+009F) and each byte of invalid UTF-8 become '?', so a
 * name cannot break the report's lines or send escape sequences.
 */
void buf_put_printable(struct buf *b, const char *s);

/*
 * buf_put_utc - @ns since the epoch as ISO 8601 UTC with nanoseconds,
 * "2026-11-22T01:48:47.123456789Z". The civil date is computed here
 * because gmtime() is not async-signal-safe.
 */
void buf_put_utc(struct buf *b, uint64_t ns);

/*
 * civil_from_days - the proleptic Gregorian date @days after 1970-01-01.
 * Exposed for the unit test, which checks it against gmtime_r().
 */
void civil_from_days(int64_t days, int64_t *year, unsigned *month, unsigned *day);

#endif
