/* SPDX-License-Identifier: MIT */
/*
 * group_split.h: split a planned group of per-thread events that the PMU
 * cannot hold at once into groups that it can, without knowing the PMU:
 * a caller-supplied trial open says which sizes fit.
 */
#ifndef PFSHIM_PRELOAD_COUNTERS_GROUP_SPLIT_H
#define PFSHIM_PRELOAD_COUNTERS_GROUP_SPLIT_H

/* Per-thread groups: region events [first, first + nr) of one totals group. */
struct group_spec {
	int first;
	int nr;
};

/*
 * Return: 0 when events [@first, @first + @nr) open as one group, -ENOSPC
 * when the PMU cannot hold them together (fastread_group_open's error), any
 * other negative errno when they cannot be opened at all.
 */
typedef int group_try_fn(int first, int nr, void *arg);

/*
 * group_plan_split - for each of @groups[0..*nr_groups-1] in order: while
 * @try says -ENOSPC and the group has more than one event, move its last
 * event into a new group right after it (tried in its turn). Events keep
 * their order; groups stay contiguous. Other errors leave a group as it is
 * (the thread's open then reports them). @max_groups bounds the array.
 *
 * Return: 0, or -E2BIG when splitting would need more than @max_groups
 * groups (the plan is then left split as far as it went).
 */
int group_plan_split(struct group_spec *groups, int *nr_groups, int max_groups,
		     group_try_fn *try, void *arg);

#endif
