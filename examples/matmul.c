/* SPDX-License-Identifier: MIT */
/*
 * matmul [N]: multiply two N x N matrices (default 400) and check the
 * product, with one marker region per phase: "init", "multiply", "check".
 * Run it under the shim (`make demo-matmul`) to see what each phase costs;
 * without the shim it runs the same, and the markers do nothing.
 *
 * The entries are small integers, so every product and sum is exact in a
 * double and the check can compare with ==.
 */
#include <stdio.h>
#include <stdlib.h>

#include <pfshim.h>

static double *matrix_new(long n)
{
	double *m = malloc((size_t)(n * n) * sizeof(*m));

	if (!m) {
		perror("malloc");
		exit(1);
	}
	return m;
}

static void init(double *a, double *b, long n)
{
	for (long i = 0; i < n; i++)
		for (long j = 0; j < n; j++) {
			a[i * n + j] = (double)((i + j) % 7);
			b[i * n + j] = (double)((i * j) % 5);
		}
}

/* i-k-j order: the inner loop walks b and c row by row. */
static void multiply(const double *a, const double *b, double *c, long n)
{
	for (long i = 0; i < n * n; i++)
		c[i] = 0;
	for (long i = 0; i < n; i++)
		for (long k = 0; k < n; k++) {
			double aik = a[i * n + k];

			for (long j = 0; j < n; j++)
				c[i * n + j] += aik * b[k * n + j];
		}
}

/* Row sums: sum_j c[i][j] = sum_k a[i][k] * (sum_j b[k][j]). Return: rows that differ. */
static long check(const double *a, const double *b, const double *c, long n)
{
	double *b_row_sum = matrix_new(n);
	long wrong = 0;

	for (long k = 0; k < n; k++) {
		b_row_sum[k] = 0;
		for (long j = 0; j < n; j++)
			b_row_sum[k] += b[k * n + j];
	}
	for (long i = 0; i < n; i++) {
		double want = 0, got = 0;

		for (long k = 0; k < n; k++)
			want += a[i * n + k] * b_row_sum[k];
		for (long j = 0; j < n; j++)
			got += c[i * n + j];
		wrong += got != want;
	}
	free(b_row_sum);
	return wrong;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 400, wrong;
	pfshim_region_t r_init = pfshim_region("init");
	pfshim_region_t r_multiply = pfshim_region("multiply");
	pfshim_region_t r_check = pfshim_region("check");
	double *a, *b, *c;

	if (n < 1)
		n = 1;
	a = matrix_new(n);
	b = matrix_new(n);
	c = matrix_new(n);

	pfshim_begin(r_init);
	init(a, b, n);
	pfshim_end(r_init);

	pfshim_begin(r_multiply);
	multiply(a, b, c, n);
	pfshim_end(r_multiply);

	pfshim_begin(r_check);
	wrong = check(a, b, c, n);
	pfshim_end(r_check);

	printf("matmul %ld x %ld: %s (markers %s)\n", n, n, wrong ? "WRONG" : "checked",
	       pfshim_active() ? "on" : "off: run under libpfshim.so to see them");
	free(a);
	free(b);
	free(c);
	return wrong != 0;
}
