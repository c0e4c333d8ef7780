/*
 * text.c: the default report, laid out like `perf stat` so its readers feel
 * at home, but tagged "pfshim:" because it lands on the stderr of someone
 * else's program.
 *
 * Async-signal-safe: formats into the caller's buffer with export/buf.h;
 * no allocation, stdio, locale or locks (PFSHIM_SIGNAL reports are written
 * from the signal handler).
 */
#include "export/buf.h"
#include "export/metrics.h"
#include "export/names.h"
#include "export/regions.h"
#include "export/report.h"

/* Column widths of perf stat: counts right-aligned in 18, names in 33. */
#define VALUE_WIDTH	18
#define UNIT_WIDTH	4
#define NAME_WIDTH	33

/* Does the display need a unit and decimals (the clocks: ns -> msec)? */
static int event_has_unit(const struct report_event *e)
{
	return (e->unit && e->unit[0]) || e->scale != 1.0;
}

static void put_value(struct buf *b, const struct report_event *e)
{
	if (e->status == STATUS_NOT_SUPPORTED)
		buf_puts(b, "<not supported>");
	else if (e->status == STATUS_NOT_COUNTED)
		buf_puts(b, "<not counted>");
	else if (event_has_unit(e))
		buf_put_fixed(b, (double)e->value * e->scale, 2, 1);
	else
		buf_put_u64_grouped(b, e->value);
}

/*
 * perf stat marks an event it had to restrict to user space with ":u"; an
 * event that already carries modifiers gets the note spelled out instead.
 */
static void put_name(struct buf *b, const struct report_event *e)
{
	const char *name = e->name ? e->name : "?";
	const char *colon = name;

	buf_put_printable(b, name);
	if (!e->user_only)
		return;
	while (*colon && *colon != ':')
		colon++;
	if (!*colon) {
		buf_puts(b, ":u");
		return;
	}
	for (const char *m = colon + 1; *m; m++)
		if (*m == 'u')
			return;
	buf_puts(b, " (user only)");
}

/* Width the output of @put would take, measured with a zero-size buffer. */
static size_t measure(void (*put)(struct buf *, const struct report_event *),
		      const struct report_event *e)
{
	struct buf count;

	buf_init(&count, 0, 0);
	put(&count, e);
	return count.len;
}

static void put_metric(struct buf *b, const struct metric *m)
{
	struct buf count;
	size_t width = m->percent ? 7 : 8;

	buf_init(&count, 0, 0);
	buf_put_fixed(&count, m->value, m->digits, 0);
	if (count.len < width)
		buf_pad(b, ' ', width - count.len);
	buf_put_fixed(b, m->value, m->digits, 0);
	if (m->percent)
		buf_putc(b, '%');
	buf_putc(b, ' ');
	buf_puts(b, m->text);
}

/* The "# ..." comment: what the number means, or why there is none. */
static int put_comment(struct buf *b, const struct report *r, int i)
{
	const struct report_event *e = &r->events[i];
	struct metric m;

	/*
	 * Software events such as context-switches are counted in kernel
	 * code: with the kernel excluded (":u", or the retry) they read 0
	 * whatever happened, and a bare 0 would read as "none happened".
	 */
	if (e->zero_when_user_only) {
		buf_puts(b, "# always 0 when counting user space only");
		return 1;
	}
	if (e->status == STATUS_NOT_SUPPORTED && e->error) {
		const char *name = errno_name(e->error);

		buf_puts(b, "# ");
		if (name) {
			buf_puts(b, name);
		} else {
			buf_puts(b, "errno ");
			buf_put_i64(b, e->error < 0 ? -e->error : e->error);
		}
		return 1;
	}
	if (metric_compute(r, i, &m) == 0) {
		buf_puts(b, "# ");
		put_metric(b, &m);
		return 1;
	}
	return 0;
}

/* perf stat's "(66.67%)": the share of enabled time the event ran. */
static void put_running_share(struct buf *b, const struct report_event *e)
{
	if (!e->scaled || e->status != STATUS_COUNTED || e->enabled == 0)
		return;
	buf_puts(b, "  (");
	buf_put_fixed(b, 100.0 * (double)e->running / (double)e->enabled, 2, 0);
	buf_puts(b, "%)");
}

static void put_event_line(struct buf *b, const struct report *r, int i)
{
	const struct report_event *e = &r->events[i];
	size_t w = measure(put_value, e);
	struct buf comment;

	if (w < VALUE_WIDTH)
		buf_pad(b, ' ', VALUE_WIDTH - w);
	put_value(b, e);
	buf_putc(b, ' ');
	if (e->status == STATUS_COUNTED && event_has_unit(e)) {
		const char *unit = e->unit ? e->unit : "";

		buf_put_printable(b, unit);
		for (w = 0; unit[w]; w++)
			;
		if (w < UNIT_WIDTH)
			buf_pad(b, ' ', UNIT_WIDTH - w);
	} else {
		buf_pad(b, ' ', UNIT_WIDTH);
	}
	buf_putc(b, ' ');
	put_name(b, e);

	buf_init(&comment, 0, 0);
	if (put_comment(&comment, r, i)) {
		w = measure(put_name, e);
		buf_pad(b, ' ', w < NAME_WIDTH ? NAME_WIDTH - w : 1);
		put_comment(b, r, i);
	}
	put_running_share(b, e);
	buf_putc(b, '\n');
}

/* "signal 10 (SIGUSR1)", or "signal 40" for a signal without a name. */
static void put_signal(struct buf *b, int signo)
{
	const char *name = signal_name(signo);

	buf_puts(b, "signal ");
	buf_put_i64(b, signo);
	if (name) {
		buf_puts(b, " (");
		buf_puts(b, name);
		buf_putc(b, ')');
	}
}

static void put_reason(struct buf *b, const struct report *r)
{
	switch (r->reason) {
	case REPORT_EXIT:	buf_puts(b, "at exit"); break;
	case REPORT_EXEC:	buf_puts(b, "before exec"); break;
	case REPORT_SIGNAL:	buf_puts(b, "on "); put_signal(b, r->signo); break;
	case REPORT_EXPLICIT:	buf_puts(b, "by pfshim_report()"); break;
	default:		buf_puts(b, "for an unknown reason"); break;
	}
}

/* "       0.001234567 seconds time elapsed", exact from integer ns. */
static void put_elapsed(struct buf *b, uint64_t ns)
{
	struct buf count;

	buf_init(&count, 0, 0);
	buf_put_u64(&count, ns / 1000000000u);
	/* integer digits + '.' + 9 decimals, right-aligned like the counts */
	if (count.len + 10 < VALUE_WIDTH)
		buf_pad(b, ' ', VALUE_WIDTH - count.len - 10);
	buf_put_u64(b, ns / 1000000000u);
	buf_putc(b, '.');
	buf_put_u64_width(b, ns % 1000000000u, 9);
	buf_puts(b, " seconds time elapsed\n");
}

static int any_user_only(const struct report *r)
{
	for (int i = 0; i < r->nr_events; i++)
		if (r->events[i].user_only)
			return 1;
	return 0;
}

size_t report_format_text(const struct report *r, char *out, size_t size)
{
	struct buf b;

	buf_init(&b, out, size);
	buf_puts(&b, "\n pfshim: Performance counter stats for '");
	buf_put_printable(&b, r->program ? r->program : "?");
	buf_puts(&b, "' (pid ");
	buf_put_i64(&b, r->pid);
	buf_puts(&b, ", ");
	buf_puts(&b, report_reason_name(r->reason));
	if (r->reason == REPORT_SIGNAL) {
		const char *name = signal_name(r->signo);

		buf_putc(&b, ' ');
		if (name)
			buf_puts(&b, name);
		else
			buf_put_i64(&b, r->signo);
	}
	buf_puts(&b, "):\n\n");

	for (int i = 0; i < r->nr_events; i++)
		put_event_line(&b, r, i);

	buf_putc(&b, '\n');
	put_elapsed(&b, r->wall_ns);
	buf_putc(&b, '\n');
	buf_puts(&b, " pfshim: reported ");
	put_reason(&b, r);
	buf_putc(&b, '\n');
	if (any_user_only(r))
		buf_puts(&b, " pfshim: ':u' events count user space only: the kernel"
			 " refused kernel counting (perf_event_paranoid)\n");
	buf_putc(&b, '\n');
	regions_put_text(&b, r);
	return buf_finish(&b);
}
