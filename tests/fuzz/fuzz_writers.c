/* SPDX-License-Identifier: MIT */
/*
 * fuzz_writers.c: the four report writers (export/text.c, csv.c, json.c,
 * openmetrics.c) on a report whose names, unit, scale and counts are fuzzed:
 * each writes into an exact-size heap block (a byte past it is an ASan
 * report) and must keep the snprintf contract. The OpenMetrics exposition
 * must also keep the rules a parser enforces and that the names could
 * break: every line metadata or a sample of a valid metric name, "# EOF"
 * once and last, no family declared twice, and no counter family x beside a
 * family x_total or x_created.
 *
 * Input: 8 bytes of count, 8 of scale (a double's bits), a byte of flags, a
 * byte saying which events have the unit, then fields program \0 argv0 \0 host \0 unit \0 region \0 up to six events.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "export/report.h"
#include "tests/fuzz/fuzz.h"

#define EVENTS 6
#define HEAD 18

typedef size_t (*writer)(const struct report *, char *, size_t);

/* The whole text in an exact-size block; the same length asked twice. */
static char *write_exact(writer fmt, const struct report *r, size_t *len)
{
	size_t need = fmt(r, NULL, 0);
	char *buf = malloc(need + 1);

	if (!buf)
		abort();
	if (fmt(r, buf, need + 1) != need || strlen(buf) != need)
		abort();
	*len = need;
	return buf;
}

static int is_name_char(char c, int first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
	       (!first && c >= '0' && c <= '9');
}

/* The name at @p up to a space or '{'; its length, 0 when not a valid metric name. */
static size_t metric_name(const char *p)
{
	size_t n = 0;

	while (is_name_char(p[n], n == 0))
		n++;
	return p[n] == ' ' || p[n] == '{' ? n : 0;
}

/*
 * Families as declared by the "# TYPE" lines (at a line's start: a label
 * value may hold the same text): no name declared twice, and none that is
 * a counter's sample name (x_total, x_created) of another.
 */
static void check_families(const char *text)
{
	static const char *const suffixes[] = { "", "_total", "_created" };
	const char *type[512];
	int nr = 0;

	for (const char *line = text; *line; line = strchr(line, '\n') + 1)
		if (strncmp(line, "# TYPE ", 7) == 0 && nr < 512)
			type[nr++] = line + 7;
	for (int i = 0; i < nr; i++) {
		size_t na = metric_name(type[i]);
		int counter = strncmp(type[i] + na, " counter\n", 9) == 0;

		for (int j = 0; j < nr; j++) {
			size_t nb = metric_name(type[j]);

			if (j == i)
				continue;
			for (int s = 0; s < (counter ? 3 : 1); s++) {
				size_t k = strlen(suffixes[s]);

				if (nb == na + k && memcmp(type[j], type[i], na) == 0 &&
				    memcmp(type[j] + na, suffixes[s], k) == 0)
					abort();
			}
		}
	}
}

static void check_openmetrics(const char *text, size_t len)
{
	const char *eof = strstr(text, "# EOF\n");

	if (!eof || eof != text + len - 6)
		abort();
	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n');

		if (!end || end == line)
			abort();
		if (*line == '#') {
			if (strncmp(line, "# EOF\n", 6) != 0 &&
			    ((strncmp(line, "# TYPE ", 7) && strncmp(line, "# UNIT ", 7) &&
			      strncmp(line, "# HELP ", 7)) || !metric_name(line + 7)))
				abort();
		} else if (!metric_name(line) || line[metric_name(line)] != '{') {
			abort();
		}
		line = end + 1;
	}
	check_families(text);
}

/*
 * The Prometheus text format: "# HELP NAME ..." and "# TYPE NAME counter|gauge"
 * lines and samples, no "# EOF"; every sample's name is declared by a TYPE line
 * before it (node_exporter serves an undeclared one untyped).
 */
static void check_prometheus(const char *text, size_t len)
{
	/* (a "# EOF" or "# UNIT" line is refused below: only HELP and TYPE lines begin with '#') */
	if (len == 0 || text[len - 1] != '\n')
		abort();
	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n');
		size_t n;

		if (!end || end == line)
			abort();
		if (*line == '#') {
			if ((strncmp(line, "# TYPE ", 7) && strncmp(line, "# HELP ", 7)) ||
			    !(n = metric_name(line + 7)) || line[7 + n] != ' ')
				abort();
			if (line[2] == 'T' && strncmp(line + 8 + n, "counter\n", 8) &&
			    strncmp(line + 8 + n, "gauge\n", 6))
				abort();
		} else {
			const char *t = text;
			bool declared = false;

			if (!(n = metric_name(line)) || line[n] != '{')
				abort();
			for (; t < line && !declared; t = strchr(t, '\n') + 1)
				declared = strncmp(t, "# TYPE ", 7) == 0 && metric_name(t + 7) == n &&
					   memcmp(t + 7, line, n) == 0;
			if (!declared)
				abort();
		}
		line = end + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const writer writers[] = {
		report_format_text, report_format_csv, report_format_json, report_format_openmetrics,
		report_format_prometheus,
	};
	struct report_event events[EVENTS];
	struct report_region_stat stats[EVENTS];
	struct report_region_total total;
	struct report_regions regions;
	int region_event[EVENTS];
	char *name[5 + EVENTS];
	struct fuzz_fields f;
	struct report r;
	uint64_t value;
	double scale;
	uint8_t flags, with_unit;
	int nr;

	if (size < HEAD)
		return 0;
	memcpy(&value, data, 8);
	memcpy(&scale, data + 8, 8);
	flags = data[16];
	with_unit = data[17];
	fuzz_split(data + HEAD, size - HEAD, 5 + EVENTS, &f);
	for (int i = 0; i < 5 + EVENTS; i++)
		name[i] = fuzz_exact(f.field[i]);
	nr = f.nr > 5 ? f.nr - 5 : 0;

	for (int i = 0; i < nr; i++) {
		events[i] = (struct report_event){
			.name = name[5 + i], .unit = ((with_unit >> i) & 1) ? name[3] : "",
			.scale = (flags & 2) ? scale : (flags & 1) ? 1e-6 : 1.0,
			.raw = value, .value = value + (uint64_t)i,
			.enabled = value, .running = value / 2,
			.status = (enum report_status)((flags >> 2) + i) % 4,
			.error = i, .user_only = (flags >> 4) & 1,
			.zero_when_user_only = ((flags >> 5) & 1) && i == 0,
		};
		stats[i] = (struct report_region_stat){ .sum = value >> i, .threads = 1,
			.status = ((flags >> 6) & 1) ? STATUS_NOT_COUNTED : STATUS_COUNTED };
		region_event[i] = i;
	}
	total = (struct report_region_total){ .name = name[4], .threads = 1, .calls = value,
		.first_min = REPORT_NONE, .first_max = REPORT_NONE, .values = stats,
		.wall = { .sum = value, .threads = 1 } };
	regions = (struct report_regions){ .nr_events = nr, .event = region_event,
		.nr_totals = 1, .totals = &total };
	r = (struct report){
		.program = name[0], .argv0 = name[1], .hostname = name[2],
		.rank = (flags & 0x80) ? "12" : NULL, .pid = (int)value, .ppid = 1,
		.start_ns = value, .wall_ns = value, .reason = (enum report_reason)(flags % 4),
		.signo = (int)(value % 70), .nr_events = nr, .events = events,
		.regions = (flags & 0x80) ? &regions : NULL,
	};

	for (size_t w = 0; w < sizeof(writers) / sizeof(writers[0]); w++) {
		size_t len;
		char *text = write_exact(writers[w], &r, &len);

		if (writers[w] == report_format_openmetrics)
			check_openmetrics(text, len);
		if (writers[w] == report_format_prometheus)
			check_prometheus(text, len);
		free(text);
	}
	for (int i = 0; i < 5 + EVENTS; i++)
		free(name[i]);
	fuzz_fields_free(&f);
	return 0;
}
