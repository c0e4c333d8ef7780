/* SPDX-License-Identifier: MIT */
/*
 * pfm_answers.h: what libpfm4 answered, kept for the next image. Loading
 * libpfm4 to ask it one name costs a process 7-14 ms of CPU and 300 page
 * faults (docs/performance.md, "Vendor names"); every process of a job
 * whose events name a vendor event, or a misspelt one (asked of libpfm4
 * too), would pay it again. So each answer is kept (pfm.c), and at each exec
 * into an image that will load the shim the exec's environment carries
 * them in PFSHIM_RESOLVED; that image asks libpfm4 only what they do not
 * say, and a name its parser asked libpfm4 for (after the built-in names,
 * sysfs and tracefs knew none such) goes to libpfm4's answer without
 * reading sysfs and tracefs again. The value holds for the process that
 * execs (the pid, which exec keeps, as PFSHIM_ADOPT's does) or its child,
 * under the same LIBPFM_* variables (LIBPFM_FORCE_PMU changes libpfm4's
 * answers) and PFSHIM_SYSFS_ROOT and PFSHIM_TRACEFS_ROOT; the shim that
 * reads it removes it from the environment. Nothing here allocates.
 */
#ifndef PFSHIM_PRELOAD_EVENTS_PFM_ANSWERS_H
#define PFSHIM_PRELOAD_EVENTS_PFM_ANSWERS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <linux/perf_event.h>

#define PFM_ANSWERS_VAR	"PFSHIM_RESOLVED"
#define PFM_ANSWERS_MAX	64	/* names kept; a name past them is asked again */
#define PFM_ANSWER_WHY_MAX 96	/* bytes of libpfm4's reason kept for a refused name */

/*
 * pfm_answer_find - libpfm4's answer for @name, if this process has it
 * under its present LIBPFM_* variables: 0 with @attr's type, config,
 * config1, config2 and exclude_* bits (the rest zero); -ENOENT (no such
 * event); -EINVAL with @why (libpfm4's reason). -ESRCH: not known here.
 */
int pfm_answer_find(const char *name, struct perf_event_attr *attr, const char **why);

/* pfm_answer_keep - keep libpfm4's answer @err (0, -ENOENT or -EINVAL, with
 * @attr or @why) for @name; any other, or a table that is full, keeps nothing. */
void pfm_answer_keep(const char *name, int err, const struct perf_event_attr *attr,
		     const char *why);

/*
 * pfm_answer_mark_parsed - @name's answer (kept or handed) was asked by the
 * event parser once built-in names, raw codes, sysfs and tracefs knew none
 * such (events.c): pfm_answer_parsed() is true for it from now on, here and
 * in the images it is handed to, under the same roots and variables.
 */
void pfm_answer_mark_parsed(const char *name);
bool pfm_answer_parsed(const char *name);

/* Forget every answer (unit tests, which change what libpfm4 is). */
void pfm_answers_clear(void);

/*
 * How many answers are kept: read at every exec, where only this word
 * is, not the table's pages nor this file's code (cold: layout.ld).
 */
extern int pfm_answers_kept;

/* The bytes pfm_answers_format() may need, its NUL included: 0 when none is kept. */
size_t pfm_answers_size(void);

/*
 * pfm_answers_format - the answers kept, for the image that @pid is about to
 * exec: "1;PID;HASH;" (HASH: of the LIBPFM_* variables and the roots) then
 * per name "LEN:NAME", "+" when the parser asked it, and
 * "=TYPE,CONFIG,CONFIG1,CONFIG2,EXCLUDES;" (hexadecimal), "?;" (no such
 * event) or "!LEN:WHY;". Return: the length, 0 when none is kept, -1 when
 * it does not fit @size.
 */
int pfm_answers_format(pid_t pid, char *buf, size_t size);

/*
 * pfm_answers_take - the answers @text gives, when it was written for @pid
 * under this process's LIBPFM_* variables and roots; kept as this
 * process's own.
 * Return: 0, or -EINVAL (another pid or variables, or not such a text):
 * nothing is taken.
 */
int pfm_answers_take(const char *text, pid_t pid);

#endif
