/* SPDX-License-Identifier: MIT */
/*
 * fastread/scale.c: extrapolate a multiplexed count to its enabled time,
 * value * enabled / running, exactly and without 64-bit overflow
 * (docs/kernel-notes.md "The mmap page": running == 0 is "not counted",
 * never a divisor).
 */
#include <errno.h>

#include "fastread/internal.h"

/* 64 x 64 -> 128 from 32-bit halves, then 128 / 64 by binary long division. */
int fastread_mul_div_portable(uint64_t a, uint64_t b, uint64_t c, uint64_t *out)
{
	uint64_t a_lo = a & 0xffffffffu, a_hi = a >> 32;
	uint64_t b_lo = b & 0xffffffffu, b_hi = b >> 32;
	uint64_t ll = a_lo * b_lo, lh = a_lo * b_hi, hl = a_hi * b_lo, hh = a_hi * b_hi;
	uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
	uint64_t lo = (mid << 32) | (ll & 0xffffffffu);
	uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
	uint64_t rem = 0, quot = 0;
	int i, carry;

	if (hi >= c) {		/* the quotient would not fit in 64 bits */
		*out = UINT64_MAX;
		return -EOVERFLOW;
	}
	rem = hi;
	for (i = 63; i >= 0; i--) {
		carry = rem >> 63;
		rem = (rem << 1) | ((lo >> i) & 1);
		if (carry || rem >= c) {
			rem -= c;
			quot |= UINT64_C(1) << i;
		}
	}
	*out = quot;
	return 0;
}

int fastread_mul_div(uint64_t a, uint64_t b, uint64_t c, uint64_t *out)
{
#ifdef __SIZEOF_INT128__
	unsigned __int128 q = (unsigned __int128)a * b / c;

	if (q > UINT64_MAX) {
		*out = UINT64_MAX;
		return -EOVERFLOW;
	}
	*out = (uint64_t)q;
	return 0;
#else
	return fastread_mul_div_portable(a, b, c, out);
#endif
}

/*
 * Equal times come first: the counter ran all its enabled time, so the count
 * is exact, even over a span of 0 ns. fastread returns the page's times
 * unchanged while they are equal (internal.h, fastread_times_stale()), so two reads between
 * two page updates differ by 0 and 0: that is an exact count, not "never ran".
 */
int fastread_scale(const struct fastread_count *c, uint64_t *out)
{
	if (c->running == c->enabled) {
		*out = c->value;
		return 0;
	}
	if (c->running == 0) {
		*out = 0;
		return -ENODATA;
	}
	return fastread_mul_div(c->value, c->enabled, c->running, out);
}
