/* SPDX-License-Identifier: MIT */
/*
 * spread.h: the mean and the noise of a few repeats of one measure (runs of
 * a job, or the images of one program), for `pfshim diff` and `pfshim run
 * -r`. The standard deviation is perf stat -r's: that of the mean.
 */
#ifndef PFSHIM_TOOLS_SPREAD_H
#define PFSHIM_TOOLS_SPREAD_H

#include <stdbool.h>

struct spread {
	int n;			/* repeats */
	double mean, min, max;
	double stddev;		/* of the mean: sqrt(sum((x - mean)^2) / (n - 1) / n); 0 for n < 2 */
};

/* spread_of - the spread of @n values at @x (n == 0: all zero). */
void spread_of(const double *x, int n, struct spread *sp);

/*
 * spread_apart - whether @a and @b differ beyond their noise: at least one
 * has repeats, and their min..max ranges do not overlap. With one value on
 * each side no noise is known: false.
 */
bool spread_apart(const struct spread *a, const struct spread *b);

/* spread_percent - the stddev in percent of the mean (0 when the mean is 0). */
double spread_percent(const struct spread *sp);

#endif
