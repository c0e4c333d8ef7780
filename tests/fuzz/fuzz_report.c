/* SPDX-License-Identifier: MIT */
/*
 * fuzz_report.c: the reader of `pfshim report` (tools/pfshim/summary.c,
 * combine.c) on any text: one report or JSON Lines, malformed, truncated,
 * foreign or of another schema, with regions, interval reports and ppids
 * that make cycles. Whatever it reads it must name or combine, and every
 * printer (text with the tree, JSON, CSV, HTML) must run on what it
 * combined, under each grouping, without a crash or a leak. (What it says of
 * a skipped input goes to stderr, into the run's log.)
 */
#include <stdint.h>
#include <stdio.h>

#include "tools/pfshim/summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null_out;
	struct summary_options opt = { .images = true, .tree = true };
	struct summary s;

	if (!null_out)
		null_out = fopen("/dev/null", "w");
	/* the first byte picks the grouping, so that each is explored */
	opt.by = size ? (enum summary_by)(data[0] % 4) : BY_PROGRAM;
	summary_init(&s, &opt);
	summary_add_text(&s, "fuzz", (const char *)data, size);
	summary_finish(&s);
	summary_print_text(&s, "fuzz", "nowhere", null_out);
	summary_print_json(&s, null_out);
	summary_print_csv(&s, null_out);
	summary_print_html(&s, "fuzz", null_out);
	summary_free(&s);
	return 0;
}
