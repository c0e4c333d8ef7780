/* SPDX-License-Identifier: MIT */
/*
 * report_sample.h: one full report shared by the writer tests
 * (test_text.c, test_csv.c, test_json.c), with numbers chosen so that every
 * derived metric can be computed by hand: see the comments beside them.
 */
#ifndef PFSHIM_TESTS_REPORT_SAMPLE_H
#define PFSHIM_TESTS_REPORT_SAMPLE_H

#include <errno.h>
#include <signal.h>

#include "export/report.h"

static const struct report_event sample_events[] = {
	/* 987,654,321 ns = 987.65 msec; / 1,234,567,890 ns wall = 0.800 CPUs */
	{ .name = "task-clock", .kind = REPORT_KIND_TASK_CLOCK, .unit = "msec", .scale = 1e-6,
	  .raw = 987654321, .value = 987654321,
	  .enabled = 987654321, .running = 987654321 },
	/* 1,234 per 0.987654321 s = 1249.425 /sec = 1.249 K/sec */
	{ .name = "context-switches", .kind = REPORT_KIND_SOFTWARE, .unit = "", .scale = 1.0,
	  .raw = 1234, .value = 1234, .enabled = 987654321, .running = 987654321 },
	/* ran 1 ms of 1.5 ms enabled: 2e9 raw scaled to 3e9, (66.67%); 3.037 GHz (3.03749...) */
	{ .name = "cycles", .kind = REPORT_KIND_CYCLES, .unit = "", .scale = 1.0,
	  .raw = 2000000000, .value = 3000000000ULL,
	  .enabled = 1500000, .running = 1000000, .scaled = 1 },
	/* 4.5e9 / 3e9 = 1.50 insn per cycle; retried as user-only */
	{ .name = "instructions", .kind = REPORT_KIND_INSTRUCTIONS, .unit = "", .scale = 1.0,
	  .raw = 4500000000ULL, .value = 4500000000ULL,
	  .enabled = 1500000, .running = 1500000, .user_only = 1 },
	{ .name = "branches", .kind = REPORT_KIND_BRANCHES, .unit = "", .scale = 1.0,
	  .raw = 1000000, .value = 1000000, .enabled = 1500000, .running = 1500000 },
	/* 12,345 / 1,000,000 = 1.23% of all branches */
	{ .name = "branch-misses:u", .kind = REPORT_KIND_BRANCH_MISSES, .unit = "", .scale = 1.0,
	  .raw = 12345, .value = 12345, .enabled = 1500000, .running = 1500000 },
	{ .name = "cache-references", .kind = REPORT_KIND_CACHE_REFERENCES, .unit = "", .scale = 1.0,
	  .status = STATUS_NOT_SUPPORTED, .error = ENOENT },
	{ .name = "cache-misses", .kind = REPORT_KIND_CACHE_MISSES, .unit = "", .scale = 1.0,
	  .status = STATUS_NOT_COUNTED, .enabled = 1500000 },
	{ .name = "cpu-migrations", .kind = REPORT_KIND_SOFTWARE, .unit = "", .scale = 1.0,
	  .user_only = 1, .zero_when_user_only = 1,
	  .enabled = 987654321, .running = 987654321 },
};

static const struct report sample_report = {
	.program = "demo",
	.argv0 = "./demo",
	.pid = 4242,
	.ppid = 4241,
	.hostname = "build1",
	.start_ns = 1700000000123456789ULL,	/* 2023-11-14T22:13:20.123456789Z */
	.wall_ns = 1234567890,
	.reason = REPORT_EXIT,
	.nr_events = sizeof(sample_events) / sizeof(sample_events[0]),
	.events = sample_events,
};

#endif

/*
 * check_truncation - format @r into every buffer size from 0 to the needed
 * length + 1, inside a guard region: no byte outside [0, size) may change,
 * the result must be the same needed length every time (the snprintf
 * contract), and what fits must be a NUL-terminated prefix of the whole.
 * Needs <cmocka.h>, <stdlib.h> and <string.h> included before this header.
 */
#define GUARD 64
typedef size_t (*report_formatter)(const struct report *, char *, size_t);

static __attribute__((unused)) void check_truncation(report_formatter fmt, const struct report *r)
{
	static char full[65536];
	size_t need = fmt(r, full, sizeof(full));
	size_t total = need + 1 + 2 * GUARD;
	unsigned char *mem = malloc(total);

	assert_true(need > 0 && need < sizeof(full));
	assert_int_equal(strlen(full), need);
	assert_int_equal(fmt(r, NULL, 0), need);
	assert_non_null(mem);
	for (size_t size = 0; size <= need + 1; size++) {
		char *buf = (char *)mem + GUARD;
		size_t kept = size ? (size - 1 < need ? size - 1 : need) : 0;

		memset(mem, 0xa5, total);
		assert_int_equal(fmt(r, buf, size), need);
		for (size_t i = 0; i < GUARD; i++)
			assert_int_equal(mem[i], 0xa5);
		for (size_t i = GUARD + size; i < total; i++)
			assert_int_equal(mem[i], 0xa5);
		if (size == 0)
			continue;
		assert_memory_equal(buf, full, kept);
		assert_int_equal(buf[kept], '\0');
	}
	free(mem);
}
