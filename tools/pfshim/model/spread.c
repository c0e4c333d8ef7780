/* SPDX-License-Identifier: MIT */
/*
 * spread.c: mean, min, max and perf stat -r's standard deviation of the
 * mean over repeats; whether two sets of repeats lie apart.
 */
#include <math.h>

#include "tools/pfshim/model/spread.h"

void spread_of(const double *x, int n, struct spread *sp)
{
	double sum = 0, squares = 0;

	*sp = (struct spread){ .n = n };
	if (n <= 0)
		return;
	sp->min = sp->max = x[0];
	for (int i = 0; i < n; i++) {
		sum += x[i];
		if (x[i] < sp->min)
			sp->min = x[i];
		if (x[i] > sp->max)
			sp->max = x[i];
	}
	sp->mean = sum / n;
	if (n < 2)
		return;
	/* two passes: the squares of the deviations, not of the values (no cancellation) */
	for (int i = 0; i < n; i++)
		squares += (x[i] - sp->mean) * (x[i] - sp->mean);
	sp->stddev = sqrt(squares / (n - 1) / n);
}

bool spread_apart(const struct spread *a, const struct spread *b)
{
	if (a->n < 1 || b->n < 1 || (a->n < 2 && b->n < 2))
		return false;
	return a->max < b->min || b->max < a->min;
}

double spread_percent(const struct spread *sp)
{
	return sp->mean != 0 ? 100.0 * sp->stddev / fabs(sp->mean) : 0;
}
