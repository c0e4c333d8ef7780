/* SPDX-License-Identifier: MIT */
/*
 * fuzz_events.c: events_parse(), perf's event syntax (PFSHIM_EVENTS),
 * against the fake sysfs trees of tests/fixtures/sysfs and the fake tracefs
 * of tests/fixtures/tracefs. Input: one byte
 * choosing the tree (intel, amd, arm64, intel-hybrid, arm64-biglittle), then
 * the event text. Whatever the
 * text, the list that comes back is well formed (counts in range, names and
 * units NUL-terminated, groups that exist) and the warnings are few and
 * non-empty: one per problem up to the parser's cap, then one summary. On the
 * hybrid trees each sum lists parts that exist, come before it and carry a
 * core PMU's type in config's upper bits.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/events/events.h"
#include "preload/events/pfm.h"
#include "tests/fuzz/fuzz.h"

#ifndef FUZZ_SYSFS_FIXTURES
#define FUZZ_SYSFS_FIXTURES "tests/fixtures/sysfs"
#endif

static int nr_warnings;

static void count_warning(void *ctx, const char *message)
{
	(void)ctx;
	if (!message || !message[0] || strlen(message) > 4096)
		abort();
	nr_warnings++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const trees[] = { "intel", "amd", "arm64", "intel-hybrid",
					     "arm64-biglittle" };
	static struct event_list list;
	const char *base = getenv("PFSHIM_FUZZ_SYSFS");
	char root[4096], tracefs[4096];
	struct fuzz_fields f;
	char *text;
	int n;

	if (size < 1)
		return 0;
	snprintf(root, sizeof(root), "%s/%s", base ? base : FUZZ_SYSFS_FIXTURES,
		 trees[data[0] % 5]);
	fuzz_split(data + 1, size - 1, 1, &f);
	text = fuzz_exact(f.field[0]);
	/* libpfm4 is not ours to fuzz, and loading it costs milliseconds per
	 * parse: the vendor resolver is asked and answers "not installed", so the
	 * vendor split of syntax.c and the messages around it stay fuzzed. */
	pfm_library = NULL;
	nr_warnings = 0;

	/* The fake tracefs beside the fake sysfs trees: never the machine's. */
	snprintf(tracefs, sizeof(tracefs), "%s/../tracefs", base ? base : FUZZ_SYSFS_FIXTURES);
	n = events_parse(text, root, tracefs, &list, count_warning, NULL);

	if (n != list.nr || n < 0 || n > EVENTS_MAX || list.nr_groups < 0)
		abort();
	for (int i = 0; i < list.nr; i++) {
		const struct event_spec *ev = &list.ev[i];

		if (strnlen(ev->name, sizeof(ev->name)) >= sizeof(ev->name) ||
		    strnlen(ev->unit, sizeof(ev->unit)) >= sizeof(ev->unit))
			abort();
		if (ev->group < -1 || ev->group >= list.nr_groups)
			abort();
		if (!(ev->scale > 0))
			abort();
		if (ev->nr_parts < 0 || ev->nr_parts > EVENTS_CORE_PMUS_MAX ||
		    (ev->nr_parts && ev->pmu[0]))
			abort();
		for (int k = 0; k < ev->nr_parts; k++) {
			const struct event_spec *part = &list.ev[ev->parts[k] < 0 ? 0 : ev->parts[k]];

			if (ev->parts[k] < 0 || ev->parts[k] >= i || !part->pmu[0] ||
			    !(part->attr.config >> 32) || part->attr.type != ev->attr.type ||
			    (uint32_t)part->attr.config != (uint32_t)ev->attr.config)
				abort();
		}
		if (strnlen(ev->pmu, sizeof(ev->pmu)) >= sizeof(ev->pmu))
			abort();
	}
	if (nr_warnings > 16)
		abort();

	free(text);
	fuzz_fields_free(&f);
	return 0;
}
