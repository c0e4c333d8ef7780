/*
 * summary.h: a job's reports summed: totals over every report, and per
 * program the number of reports and the sums of each event. Built from
 * pfshim.report JSON (files, directories, JSON Lines, stdin) with jansson;
 * what is not a whole report is named on stderr and skipped.
 */
#ifndef PFSHIM_TOOLS_SUMMARY_H
#define PFSHIM_TOOLS_SUMMARY_H

#include <stdint.h>
#include <stdio.h>

/* One event, summed over reports where it was counted. */
struct summary_event {
	char *name;
	char *unit;		/* "msec" for the clocks, or "" */
	double scale;		/* display scale (1e-6 for the clocks) */
};

struct summary_sum {
	uint64_t value;		/* sum of "value" where counted */
	uint64_t counted;	/* reports where it was counted */
	uint64_t not_supported;	/* reports where it could not be opened */
};

struct summary_program {
	char *name;
	uint64_t reports;
	struct summary_sum *sums;	/* [summary.nr_events] */
};

struct summary {
	uint64_t reports;		/* whole pfshim.report objects read */
	uint64_t processes;		/* distinct (host, pid) among them */
	uint64_t skipped;		/* inputs named on stderr and skipped */
	int nr_events;
	struct summary_event *events;
	struct summary_sum *totals;	/* [nr_events] */
	int nr_programs;
	struct summary_program *programs;
	/* distinct (host, pid): a small open-addressing set */
	uint64_t *pid_set;
	size_t pid_cap;
};

void summary_init(struct summary *s);
void summary_free(struct summary *s);

/*
 * summary_add_path - read @path: a file of one report or JSON Lines, a
 * directory (recursively; names beginning with '.' are skipped: hidden
 * temporary files), or "-" for stdin. Return: 0, or -1 when @path itself
 * could not be read (said on stderr).
 */
int summary_add_path(struct summary *s, const char *path);

/*
 * summary_add_text - add @len bytes read from @path (named in messages): one
 * report or JSON Lines. Stops at the first malformed object, said on stderr;
 * a report of another schema or a newer version is named and skipped.
 */
void summary_add_text(struct summary *s, const char *path, const char *text, size_t len);

/* The three ways to print it (docs/pfshim.md). @title: the command, or NULL. */
void summary_print_text(const struct summary *s, const char *title, const char *where, FILE *out);
void summary_print_json(const struct summary *s, FILE *out);
void summary_print_csv(const struct summary *s, FILE *out);

#endif
