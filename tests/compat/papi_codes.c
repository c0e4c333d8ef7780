/* SPDX-License-Identifier: MIT */
/*
 * papi_codes CALL...: PAPI's high-level calls in the order given, each
 * printed with its return code, on one line: b:NAME begin, r:NAME read,
 * e:NAME end, s stop ("b:" is the empty name). tests/e2e/compat.bats runs
 * the same sequence on the real libpapi and under libpfshim-compat.so and
 * compares the lines.
 */
#include <papi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *call = argv[i], *name = call[0] && call[1] == ':' ? call + 2 : "";
		int rc;

		switch (call[0]) {
		case 'b': rc = PAPI_hl_region_begin(name); break;
		case 'r': rc = PAPI_hl_read(name); break;
		case 'e': rc = PAPI_hl_region_end(name); break;
		case 's': rc = PAPI_hl_stop(); break;
		default:
			fprintf(stderr, "papi_codes: %s: expected b:NAME, r:NAME, e:NAME or s\n", call);
			return 2;
		}
		printf("%s%s=%d", i > 1 ? " " : "", call, rc);
	}
	printf("\n");
	return 0;
}
