/* SPDX-License-Identifier: MIT */
/*
 * proc_stat.h: the few fields of /proc/PID/stat the shim asks for, parsed
 * in one place. Async-signal-safe: no allocation, no stdio.
 */
#ifndef PFSHIM_PRELOAD_PROC_STAT_H
#define PFSHIM_PRELOAD_PROC_STAT_H

#include <stdint.h>

struct proc_stat {
	char state;		/* field 3: the thread-group leader's, 'Z' once it left */
	int ppid;		/* field 4 */
	long threads;		/* field 20: live threads, and a zombie leader */
	uint64_t start;		/* field 22: clock ticks since boot */
};

/*
 * proc_stat_parse - the fields of @text, one /proc/PID/stat line.
 *
 * Return: 0, or -EIO when @text is not such a line.
 */
int proc_stat_parse(const char *text, struct proc_stat *st);

/*
 * proc_stat_read - /proc/@pid/stat parsed; @pid 0 is /proc/self/stat, which
 * still answers when the thread-group leader has left (pthread_exit()).
 *
 * Return: 0, -errno of the open, or -EIO.
 */
int proc_stat_read(int pid, struct proc_stat *st);

#endif
