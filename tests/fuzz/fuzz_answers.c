/* SPDX-License-Identifier: MIT */
/*
 * fuzz_answers.c: pfm_answers_take(), the PFSHIM_RESOLVED value a shim
 * reads from its environment (preload/events/pfm_answers.h). Input: the
 * entries, after a header "1;PID;HASH;" for this process that the target
 * writes itself (so that the fuzzer reaches the entries), or, when the
 * input starts with '#', the whole value as it is. Whatever it is, a value
 * is taken whole or not at all, and one taken comes back out of
 * pfm_answers_format() as the same answers, within pfm_answers_size().
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload/events/pfm_answers.h"
#include "tests/fuzz/fuzz.h"

/* This process's header: the hash of its LIBPFM_* variables, as format() writes it. */
static void header(char *buf, size_t size)
{
	struct perf_event_attr a = { .size = sizeof(a) };
	char text[256];

	pfm_answers_clear();
	pfm_answer_keep("x", 0, &a, NULL);
	if (pfm_answers_format(4242, text, sizeof(text)) <= 0)
		abort();
	*strchr(strchr(strchr(text, ';') + 1, ';') + 1, ';') = '\0';
	snprintf(buf, size, "%s;", text);
	pfm_answers_clear();
}

/* Each of @nr names found as it was before the round trip. */
static void same_answers(int nr, const char names[][160], const int *err,
			 const struct perf_event_attr *attr)
{
	for (int i = 0; i < nr; i++) {
		struct perf_event_attr got;
		const char *why;

		if (pfm_answer_find(names[i], &got, &why) != err[i] ||
		    (!err[i] && memcmp(&got, &attr[i], sizeof(got))))
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char head[64], names[PFM_ANSWERS_MAX][160];
	static int err[PFM_ANSWERS_MAX];
	static struct perf_event_attr attr[PFM_ANSWERS_MAX];
	struct fuzz_fields f;
	char *value, *out;
	size_t out_size;
	int nr = 0, len;

	if (!head[0])
		header(head, sizeof(head));
	fuzz_split(data, size, 1, &f);
	value = malloc(strlen(head) + strlen(f.field[0]) + 1);
	if (!value)
		abort();
	if (f.field[0][0] == '#')
		strcpy(value, f.field[0] + 1);
	else
		strcat(strcpy(value, head), f.field[0]);
	pfm_answers_clear();
	if (pfm_answers_take(value, 4242) < 0) {
		if (pfm_answers_kept != 0)
			abort();	/* nothing taken */
		goto out;
	}
	if (pfm_answers_kept == 0)
		goto out;	/* a header alone: nothing to hand on */
	/* What was taken, by the names the value gave (each entry's "LEN:NAME"). */
	for (const char *p = value; (p = strchr(p, ';')) && nr < PFM_ANSWERS_MAX; ) {
		char *end;
		unsigned long n = strtoul(++p, &end, 10);
		const char *why;

		if (end == p || *end != ':' || n == 0 || n >= sizeof(names[0]) ||
		    strnlen(end + 1, n) < n)
			continue;
		memcpy(names[nr], end + 1, n);
		names[nr][n] = '\0';
		err[nr] = pfm_answer_find(names[nr], &attr[nr], &why);
		if (err[nr] == -ESRCH)
			continue;	/* a ';' inside a name or a reason, not an entry */
		nr++;
	}
	out_size = pfm_answers_size();
	out = malloc(out_size);
	if (!out)
		abort();
	len = pfm_answers_format(4242, out, out_size);
	if (len <= 0 || (size_t)len >= out_size)
		abort();
	pfm_answers_clear();
	if (pfm_answers_take(out, 4242) != 0)
		abort();
	same_answers(nr, names, err, attr);
	free(out);
out:
	free(value);
	fuzz_fields_free(&f);
	return 0;
}
