/* SPDX-License-Identifier: MIT */
/*
 * name.c: a report file's name from the PFSHIM_OUTPUT template
 * (output_name.h). Async-signal-safe: export/buf.h formatting only.
 */
#include "preload/output/name.h"

#include <errno.h>

#include "export/buf.h"

/* %t: sortable, UTC, to the second: 20261122T010203Z. */
void output_put_time(struct buf *b, uint64_t ns)
{
	uint64_t s = ns / 1000000000u;
	unsigned month, day;
	int64_t year;

	civil_from_days((int64_t)(s / 86400), &year, &month, &day);
	buf_put_u64_width(b, (uint64_t)year, 4);
	buf_put_u64_width(b, month, 2);
	buf_put_u64_width(b, day, 2);
	buf_putc(b, 'T');
	buf_put_u64_width(b, s % 86400 / 3600, 2);
	buf_put_u64_width(b, s % 3600 / 60, 2);
	buf_put_u64_width(b, s % 60, 2);
	buf_putc(b, 'Z');
}

bool output_uses_seq(const char *template)
{
	for (const char *t = template; *t; t++)
		if (*t == '%' && *++t == 'n')
			return true;
		else if (!*t)
			break;
	return false;
}

/*
 * A field of the template (%h, %e: the host's and the program's names,
 * which others choose) must not climb out of the template's directory: '/'
 * and control bytes become '_', and so does a '.' that would make a path
 * component of nothing but dots ("..", "."). @dots_only says whether the
 * component written so far is empty or all dots.
 */
static void put_field(struct buf *b, const char *s, bool *dots_only)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '/' || c < 0x20 || c == 0x7f || (c == '.' && *dots_only))
			c = '_';
		*dots_only = *dots_only && c == '.';
		buf_putc(b, (char)c);
	}
}

int output_expand(const char *template, const struct output_names *names, char *path, size_t size)
{
	bool dots_only = true;
	struct buf b;

	buf_init(&b, path, size);
	for (const char *t = template; *t; t++) {
		if (*t != '%') {
			buf_putc(&b, *t);
			dots_only = *t == '/' || (dots_only && *t == '.');
			continue;
		}
		switch (*++t) {
		case 'p': buf_put_i64(&b, names->pid); dots_only = false; break;
		case 'h': put_field(&b, names->host, &dots_only); break;
		case 'e': put_field(&b, names->program, &dots_only); break;
		case 'r': put_field(&b, names->rank ? names->rank : "", &dots_only); break;
		case 't': output_put_time(&b, names->start_ns); dots_only = false; break;
		case 'n': buf_put_u64(&b, names->seq); dots_only = false; break;
		case '%': buf_putc(&b, '%'); dots_only = false; break;
		default: return -EINVAL;	/* also a '%' at the very end */
		}
	}
	return buf_finish(&b) < size ? 0 : -ENAMETOOLONG;
}
