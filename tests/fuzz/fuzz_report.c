/*
 * fuzz_report.c: the reader of `pfshim report` (tools/pfshim/summary.c) on
 * any text: one report or JSON Lines, malformed, truncated, foreign or of
 * another schema. Whatever it reads it must name or sum, and all three
 * printers must run on what it summed, without a crash or a leak. (What it
 * says of a skipped input goes to stderr, into the run's log.)
 */
#include <stdint.h>
#include <stdio.h>

#include "tools/pfshim/summary.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null_out;
	struct summary s;

	if (!null_out)
		null_out = fopen("/dev/null", "w");
	summary_init(&s);
	summary_add_text(&s, "fuzz", (const char *)data, size);
	summary_print_text(&s, "fuzz", "nowhere", null_out);
	summary_print_json(&s, null_out);
	summary_print_csv(&s, null_out);
	summary_free(&s);
	return 0;
}
