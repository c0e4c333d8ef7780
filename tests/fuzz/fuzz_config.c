/* SPDX-License-Identifier: MIT */
/*
 * fuzz_config.c: config_read() on a fuzzed environment. The input is an
 * environment block, NAME=VALUE fields cut at NUL bytes; the getenv the
 * reader is given looks names up in it, so any variable the reader asks for
 * (today's PFSHIM_* and those added later) gets fuzzed values once the seeds
 * or the fuzzer's comparison tracing name it. Whatever it reads, the result
 * is a usable configuration: a format it knows, a NUL-terminated output,
 * no signal a report cannot ride on, and a bounded number of warnings.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "preload/config.h"
#include "tests/fuzz/fuzz.h"

#define FIELDS 16

static char *env[FIELDS];
static int nr_env, nr_warnings;

static const char *fuzz_getenv(const char *name)
{
	size_t len = strlen(name);

	for (int i = 0; i < nr_env; i++)
		if (strncmp(env[i], name, len) == 0 && env[i][len] == '=')
			return env[i] + len + 1;
	return NULL;
}

static void count_warning(void *ctx, const char *message)
{
	(void)ctx;
	if (!message || strlen(message) == 0)
		abort();
	nr_warnings++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_fields f;
	struct config c;

	fuzz_split(data, size, FIELDS, &f);
	nr_env = 0;
	for (int i = 0; i < f.nr; i++)
		env[nr_env++] = fuzz_exact(f.field[i]);
	nr_warnings = 0;

	config_read(&c, fuzz_getenv, count_warning);

	if (c.format != FORMAT_TEXT && c.format != FORMAT_CSV && c.format != FORMAT_JSON &&
	    c.format != FORMAT_OPENMETRICS && c.format != FORMAT_PROMETHEUS && c.format != FORMAT_PAPI)
		abort();
	if (strnlen(c.output, sizeof(c.output)) >= sizeof(c.output) || !c.output[0])
		abort();
	if (c.signal < 0 || c.signal >= NSIG || c.signal == SIGKILL || c.signal == SIGSTOP)
		abort();
	if (!c.events || !c.sysfs_root)
		abort();
	if (nr_warnings > 64)		/* one per variable, never a loop of them */
		abort();

	for (int i = 0; i < nr_env; i++)
		free(env[i]);
	fuzz_fields_free(&f);
	return 0;
}
