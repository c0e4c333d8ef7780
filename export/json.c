/*
 * json.c: the report as one JSON object on one line, so that reports from
 * several processes appended to one file form JSON Lines.
 *
 * Async-signal-safe: formats into the caller's buffer with export/buf.h;
 * no allocation, stdio, locale or locks. Counts are printed from their u64
 * directly, never through a double, so they stay exact above 2^53.
 */
#include "export/buf.h"
#include "export/names.h"
#include "export/regions.h"
#include "export/report.h"

static void put_key(struct buf *b, const char *key)
{
	buf_putc(b, '"');
	buf_puts(b, key);
	buf_puts(b, "\":");
}

static void put_u64_field(struct buf *b, const char *key, uint64_t v)
{
	put_key(b, key);
	buf_put_u64(b, v);
	buf_putc(b, ',');
}

static void put_i64_field(struct buf *b, const char *key, int64_t v)
{
	put_key(b, key);
	buf_put_i64(b, v);
	buf_putc(b, ',');
}

static void put_string_field(struct buf *b, const char *key, const char *s)
{
	put_key(b, key);
	buf_put_json_string(b, s);
	buf_putc(b, ',');
}

static void put_bool_field(struct buf *b, const char *key, int v)
{
	put_key(b, key);
	buf_puts(b, v ? "true," : "false,");
}

/* JSON has no NaN or infinity: a scale that is not a number is null. */
static void put_double(struct buf *b, double v)
{
	if (v != v || v > 1.7976931348623157e308 || v < -1.7976931348623157e308)
		buf_puts(b, "null");
	else
		buf_put_double(b, v);
}

static void put_event(struct buf *b, const struct report_event *e)
{
	const char *err = errno_name(e->error);

	buf_putc(b, '{');
	put_string_field(b, "name", e->name);
	put_string_field(b, "status", report_status_name(e->status));
	put_key(b, "value");
	if (e->status == STATUS_COUNTED)
		buf_put_u64(b, e->value);
	else
		buf_puts(b, "null");
	buf_putc(b, ',');
	put_u64_field(b, "raw", e->raw);
	put_u64_field(b, "enabled_ns", e->enabled);
	put_u64_field(b, "running_ns", e->running);
	put_bool_field(b, "scaled", e->scaled);
	put_bool_field(b, "user_only", e->user_only);
	put_bool_field(b, "zero_when_user_only", e->zero_when_user_only);
	put_string_field(b, "unit", e->unit ? e->unit : "");
	put_key(b, "scale");
	put_double(b, e->scale);
	buf_putc(b, ',');
	put_i64_field(b, "errno", e->error < 0 ? -e->error : e->error);
	put_key(b, "error");
	if (err)
		buf_put_json_string(b, err);
	else
		buf_puts(b, "null");
	buf_putc(b, '}');
}

size_t report_format_json(const struct report *r, char *out, size_t size)
{
	struct buf b;

	buf_init(&b, out, size);
	buf_putc(&b, '{');
	put_string_field(&b, "schema", "pfshim.report");
	put_i64_field(&b, "version", REPORT_SCHEMA_VERSION);
	put_string_field(&b, "program", r->program);
	put_string_field(&b, "argv0", r->argv0);
	put_i64_field(&b, "pid", r->pid);
	put_i64_field(&b, "ppid", r->ppid);
	put_string_field(&b, "hostname", r->hostname);
	put_u64_field(&b, "start_ns", r->start_ns);
	put_key(&b, "start_time");
	buf_putc(&b, '"');
	buf_put_utc(&b, r->start_ns);
	buf_puts(&b, "\",");
	put_u64_field(&b, "wall_ns", r->wall_ns);
	put_string_field(&b, "reason", report_reason_name(r->reason));
	put_key(&b, "signal");
	if (r->reason == REPORT_SIGNAL) {
		buf_put_i64(&b, r->signo);
		buf_putc(&b, ',');
		put_string_field(&b, "signal_name", signal_name(r->signo));
	} else {
		buf_puts(&b, "null,\"signal_name\":null,");
	}
	put_key(&b, "events");
	buf_putc(&b, '[');
	for (int i = 0; i < r->nr_events; i++) {
		if (i)
			buf_putc(&b, ',');
		put_event(&b, &r->events[i]);
	}
	buf_putc(&b, ']');
	regions_put_json(&b, r);
	buf_puts(&b, "}\n");
	return buf_finish(&b);
}
