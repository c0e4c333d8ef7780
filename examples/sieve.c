/* SPDX-License-Identifier: MIT */
/*
 * sieve [N]: count the primes below N (default 50,000,000) with a sieve of
 * Eratosthenes, one byte per number. A real program that takes page faults
 * (N bytes = N/4096 pages) and CPU time: what `make demo` runs under the shim.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 50000000;
	long count = 0;
	char *composite;

	if (n < 2)
		n = 2;
	composite = calloc((size_t)n, 1);
	if (!composite)
		return perror("calloc"), 1;
	for (long i = 2; i * i < n; i++)
		if (!composite[i])
			for (long j = i * i; j < n; j += i)
				composite[j] = 1;
	for (long i = 2; i < n; i++)
		count += !composite[i];
	printf("%ld primes below %ld\n", count, n);
	free(composite);
	return 0;
}
