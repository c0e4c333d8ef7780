/* SPDX-License-Identifier: MIT */
/*
 * markers.h: the marker API of pfshim.h inside the shim: each thread's own
 * counter groups, read from user space where the PMU allows, feeding its
 * region table; and the regions section of a report.
 */
#ifndef PFSHIM_PRELOAD_MARKERS_MARKERS_H
#define PFSHIM_PRELOAD_MARKERS_MARKERS_H

#include <stdbool.h>
#include <stddef.h>

#include "export/report.h"
#include "preload/markers/host.h"

/*
 * markers_start - the process counts: the marker API may set up (lazily, on
 * the first marker call). Called once, from the constructor, after the totals
 * opened; @host is copied, what it points to must live as long as the image.
 * Without it every pfshim_v1_* call returns PFSHIM_INACTIVE.
 */
void markers_start(const struct markers_host *host);

/* The regions of one report and the memory they were built in. */
struct markers_report {
	struct report_regions regions;
	void *work;
	size_t work_size;
};

/*
 * markers_report_build - the regions of every thread, listed per thread
 * (exited threads first) and totalled over threads. @final (exit, exec):
 * regions still open count as unclosed. Async-signal-safe and lock-free: a
 * table being written, or a thread being retired, is left out with a note.
 * Return: @m's regions, or NULL when the program never used the marker API.
 */
const struct report_regions *markers_report_build(struct markers_report *m, bool final);

/* markers_report_release - free what markers_report_build() mapped. */
void markers_report_release(struct markers_report *m);

/*
 * markers_restart_in_child - after fork(): the parent's threads and their
 * counters are not ours. Close their fds, forget their tables (the child's
 * first marker call sets up again). Region names and handles stay valid.
 */
void markers_restart_in_child(void);

#endif
