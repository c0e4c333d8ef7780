/* SPDX-License-Identifier: MIT */
/*
 * group_split.c: split planned per-thread groups that the PMU cannot hold.
 * One event at a time off the end, as perf stat's users do by hand, so the
 * first group keeps as many events as fit and the order never changes.
 */
#include "preload/counters/group_split.h"

#include <errno.h>
#include <string.h>

/* Insert an empty group after @g; the caller fills it. */
static int group_insert_after(struct group_spec *groups, int *nr_groups, int max_groups, int g)
{
	if (*nr_groups >= max_groups)
		return -E2BIG;
	memmove(&groups[g + 2], &groups[g + 1], (size_t)(*nr_groups - g - 1) * sizeof(*groups));
	groups[g + 1] = (struct group_spec){ groups[g].first + groups[g].nr, 0 };
	(*nr_groups)++;
	return 0;
}

int group_plan_split(struct group_spec *groups, int *nr_groups, int max_groups,
		     group_try_fn *try, void *arg)
{
	for (int g = 0; g < *nr_groups; g++) {
		int moved = 0;

		while (groups[g].nr > 1 && try(groups[g].first, groups[g].nr, arg) == -ENOSPC) {
			groups[g].nr--;
			moved++;
		}
		if (moved == 0)
			continue;
		if (group_insert_after(groups, nr_groups, max_groups, g) < 0) {
			groups[g].nr += moved;
			return -E2BIG;
		}
		groups[g + 1].nr = moved;
	}
	return 0;
}
