/*
 * csv.c: the report as CSV, one header line then one row per event, every
 * row self-contained (pid, program, reason repeated) so rows from several
 * reports can be concatenated and filtered with ordinary tools.
 *
 * Async-signal-safe: formats into the caller's buffer with export/buf.h;
 * no allocation, stdio, locale or locks.
 */
#include "export/buf.h"
#include "export/names.h"
#include "export/regions.h"
#include "export/report.h"

/* Documented column by column in docs/output.md; keep them in step. */
static const char csv_header[] =
	"pid,program,reason,signal,wall_ns,event,value,unit,scale,raw,"
	"enabled_ns,running_ns,running_percent,status,user_only,"
	"zero_when_user_only,error\n";

static void put_error(struct buf *b, int error)
{
	const char *name = errno_name(error);

	if (name)
		buf_puts(b, name);
	else if (error)
		buf_put_i64(b, error < 0 ? -error : error);
}

static void put_row(struct buf *b, const struct report *r,
		    const struct report_event *e)
{
	buf_put_i64(b, r->pid);
	buf_putc(b, ',');
	buf_put_csv_field(b, r->program);
	buf_putc(b, ',');
	buf_puts(b, report_reason_name(r->reason));
	buf_putc(b, ',');
	if (r->reason == REPORT_SIGNAL)
		buf_put_i64(b, r->signo);
	buf_putc(b, ',');
	buf_put_u64(b, r->wall_ns);
	buf_putc(b, ',');
	buf_put_csv_field(b, e->name);
	buf_putc(b, ',');
	/* An empty value, never a plausible 0, when there is no count. */
	if (e->status == STATUS_COUNTED)
		buf_put_u64(b, e->value);
	buf_putc(b, ',');
	buf_put_csv_field(b, e->unit);
	buf_putc(b, ',');
	buf_put_double(b, e->scale);
	buf_putc(b, ',');
	buf_put_u64(b, e->raw);
	buf_putc(b, ',');
	buf_put_u64(b, e->enabled);
	buf_putc(b, ',');
	buf_put_u64(b, e->running);
	buf_putc(b, ',');
	if (e->enabled)
		buf_put_fixed(b, 100.0 * (double)e->running / (double)e->enabled, 2, 0);
	buf_putc(b, ',');
	buf_puts(b, report_status_name(e->status));
	buf_putc(b, ',');
	buf_putc(b, e->user_only ? '1' : '0');
	buf_putc(b, ',');
	buf_putc(b, e->zero_when_user_only ? '1' : '0');
	buf_putc(b, ',');
	put_error(b, e->error);
	buf_putc(b, '\n');
}

size_t report_format_csv(const struct report *r, char *out, size_t size)
{
	struct buf b;

	buf_init(&b, out, size);
	buf_puts(&b, csv_header);
	for (int i = 0; i < r->nr_events; i++)
		put_row(&b, r, &r->events[i]);
	regions_put_csv(&b, r);
	return buf_finish(&b);
}
