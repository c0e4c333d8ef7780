/* SPDX-License-Identifier: MIT */
/*
 * fuzz_signal.c: config_signal_parse() (PFSHIM_SIGNAL) on any text. It must
 * return -EINVAL or a signal a report can ride on, never read past the NUL.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>

#include "preload/config.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_fields f;
	char *text;
	int signo;

	fuzz_split(data, size, 1, &f);
	text = fuzz_exact(f.field[0]);
	signo = config_signal_parse(text);
	if (signo != -EINVAL && (signo <= 0 || signo >= NSIG || config_signal_refusal(signo)))
		abort();
	free(text);
	fuzz_fields_free(&f);
	return 0;
}
