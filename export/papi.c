/* SPDX-License-Identifier: MIT */
/*
 * papi.c: the report's marker regions as PAPI 7's high-level JSON, the file
 * libpapi writes into papi_hl_output/ and PAPI's papi_hl_output_writer
 * reads: PAPI_OUTPUT_DIRECTORY under libpfshim-compat.so (compat/env.c).
 * The members are libpapi 7.0's, spelled and laid out as its writer does,
 * every value a string as there. PAPI keeps each call of a region (an
 * entry per PAPI_hl_region_begin); pfshim keeps a region's sums per thread,
 * so each region of a thread is one entry whose "region_count" is its calls:
 * the script sums that member over entries as it sums one per call.
 * Async-signal-safe: export/buf.h only, as json.c.
 */
#include "export/buf.h"
#include "export/report.h"
#include "export/version.h"

/* The PAPI version whose high-level API and file compat/papi_hl.c follows. */
#define PAPI_HL_VERSION "7.0.0.0"

/* A line break and @depth levels of libpapi's two-space indent. */
static void indent(struct buf *b, int depth)
{
	buf_putc(b, '\n');
	buf_pad(b, ' ', 2 * (size_t)depth);
}

/* "perf::NAME": libpfm4's perf:: spelling, perf's name upper-cased (task-clock: perf::TASK-CLOCK). */
static void put_event_name(struct buf *b, const struct report *r, int e)
{
	buf_puts(b, "\"perf::");
	for (const char *p = report_region_event_name(r, e); *p; p++)
		buf_putc(b, *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p == '"' ? '_' : *p);
	buf_putc(b, '"');
}

static void put_string_member(struct buf *b, int depth, const char *key, const char *value)
{
	indent(b, depth);
	buf_putc(b, '"');
	buf_puts(b, key);
	buf_puts(b, "\":");
	buf_put_json_string(b, value);
}

static void put_count_member(struct buf *b, int depth, const char *key, uint64_t value)
{
	indent(b, depth);
	buf_putc(b, '"');
	buf_puts(b, key);
	buf_puts(b, "\":\"");
	buf_put_u64(b, value);
	buf_putc(b, '"');
}

static void put_definitions(struct buf *b, const struct report *r)
{
	indent(b, 1);
	buf_puts(b, "\"event_definitions\":{");
	for (int e = 0; e < r->regions->nr_events; e++) {
		indent(b, 2);
		put_event_name(b, r, e);
		buf_puts(b, ":{");
		put_string_member(b, 3, "component", "perf_event");
		buf_putc(b, ',');
		put_string_member(b, 3, "type", "delta");	/* counts, read as differences */
		indent(b, 2);
		buf_puts(b, e + 1 < r->regions->nr_events ? "}," : "}");
	}
	indent(b, 1);
	buf_puts(b, "},");
}

/* A region PAPI would write: ended at least once (a region never ended is none of its entries). */
static int region_written(const struct report_region *g)
{
	return g->calls > 0;
}

static void put_region(struct buf *b, const struct report *r, const struct report_region *g,
		       int id)
{
	indent(b, 4);
	buf_putc(b, '"');
	buf_put_u64(b, (uint64_t)id);
	buf_puts(b, "\":{");
	put_string_member(b, 5, "name", g->name);
	buf_putc(b, ',');
	put_count_member(b, 5, "region_count", g->calls);
	buf_putc(b, ',');
	put_count_member(b, 5, "real_time_nsec", g->wall_ns);
	for (int e = 0; e < r->regions->nr_events; e++) {
		buf_putc(b, ',');
		indent(b, 5);
		put_event_name(b, r, e);
		buf_puts(b, ":\"");
		buf_put_u64(b, g->values[e].value);
		buf_putc(b, '"');
	}
	indent(b, 4);
	buf_putc(b, '}');
}

/* Threads numbered from 0, as libpapi numbers them; those without a region written are left out. */
static void put_threads(struct buf *b, const struct report *r)
{
	int n = 0;

	indent(b, 1);
	buf_puts(b, "\"threads\":{");
	for (int i = 0; i < r->regions->nr_threads; i++) {
		const struct report_thread *t = &r->regions->threads[i];
		int id = 0;

		for (int k = 0; k < t->nr_regions; k++) {
			if (!region_written(&t->regions[k]))
				continue;
			if (id == 0) {
				buf_puts(b, n ? "," : "");
				indent(b, 2);
				buf_putc(b, '"');
				buf_put_u64(b, (uint64_t)n++);
				buf_puts(b, "\":{");
				indent(b, 3);
				buf_puts(b, "\"regions\":{");
			} else {
				buf_putc(b, ',');
			}
			put_region(b, r, &t->regions[k], id++);
		}
		if (id) {
			indent(b, 3);
			buf_putc(b, '}');
			indent(b, 2);
			buf_putc(b, '}');
		}
	}
	indent(b, 1);
	buf_putc(b, '}');
}

size_t report_format_papi(const struct report *r, char *buf, size_t size)
{
	struct buf b;

	buf_init(&b, buf, size);
	if (r->regions) {
		buf_putc(&b, '{');
		put_string_member(&b, 1, "papi_version", PAPI_HL_VERSION);
		buf_putc(&b, ',');
		put_string_member(&b, 1, "pfshim_version", pfshim_version);
		buf_putc(&b, ',');
		put_definitions(&b, r);
		put_threads(&b, r);
		indent(&b, 0);
		buf_puts(&b, "}\n");
	}
	return buf_finish(&b);
}
