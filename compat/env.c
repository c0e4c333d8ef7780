/* SPDX-License-Identifier: MIT */
/*
 * env.c: what LIKWID's and PAPI's variables ask of pfshim, as the PFSHIM_*
 * variables that mean it, for libpfshim.so's configuration. Only the
 * preloaded libpfshim-compat.so holds this file: libpfshim.so alone never
 * reads LIKWID_EVENTS, PAPI_EVENTS or PAPI_OUTPUT_DIRECTORY, so a stray one
 * in a plain pfshim user's environment changes nothing. The contract
 * (pfshim_compat_v1_getenv) is in preload/config.h; docs/compat.md.
 *
 * It runs once, in libpfshim.so's constructor, before any thread of the
 * program: each answer is worked out the first time it is asked for, with
 * its one "pfshim:" line, and kept in static storage.
 */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "compat/event_names.h"
#include "preload/config.h"

#define API __attribute__((visibility("default")))

#define OUTPUT_SUBDIR "pfshim_output/"	/* PAPI's files go to papi_hl_output/ */
#define REST_MAX 512

/* One variable's answer, worked out once. */
struct answer {
	bool done;
	const char *value;
};

/*
 * LIKWID_EVENTS, else PAPI_EVENTS, as PFSHIM_EVENTS; NULL (pfshim's
 * defaults) when neither is set or nothing in it has a perf name. What
 * has none is named in one line, with what to write instead.
 */
/*
 * A LIKWID_EVENTS that names a performance group ("FLOPS_DP", as
 * likwid-perfctr -g takes it, or a group file's path) rather than
 * EVENT:COUNTER pairs: one word, no ':' or ','.
 */
static bool likwid_group_named(const char *list)
{
	return list && *list && !strpbrk(list, ":, ");
}

static const char *events_answer(config_getenv_fn get_env, events_warn_fn warn)
{
	static char events[2048];
	char rest[REST_MAX], line[REST_MAX + sizeof(events) + 256];
	const char *variable = "LIKWID_EVENTS", *list = get_env(variable);
	enum compat_events_syntax syntax = COMPAT_LIKWID;
	int nr;

	if (likwid_group_named(list))
		return NULL;	/* PFSHIM_GROUP's, and pfshim's default events beside it */
	if (!list || !*list) {
		variable = "PAPI_EVENTS";
		list = get_env(variable);
		syntax = COMPAT_PAPI;
	} else if (get_env("PAPI_EVENTS") && *get_env("PAPI_EVENTS")) {
		warn((void *)"PAPI_EVENTS", "not read: LIKWID_EVENTS is set too, and pfshim "
		     "counts one list of events (set PFSHIM_EVENTS to choose)");
	}
	if (!list || !*list)
		return NULL;
	nr = compat_events(syntax, list, events, sizeof(events), rest, sizeof(rest));
	if (*rest) {
		snprintf(line, sizeof(line), "no perf event for %s; counting %s. For those, set "
			 "PFSHIM_EVENTS to perf's names instead (see perf list; a raw event is "
			 "rUUEE or cpu/event=0xEE,umask=0xUU/)", rest,
			 nr ? events : "pfshim's defaults");
		warn((void *)variable, line);
	}
	return nr ? events : NULL;
}

/*
 * PAPI_OUTPUT_DIRECTORY as a directory of reports, as PAPI writes its own
 * files to $PAPI_OUTPUT_DIRECTORY/papi_hl_output/: DIR/pfshim_output/,
 * made when missing, one whole file per process that ran a region
 * (preload/output/dir.c), named rank_* as PAPI's.
 * A '%' in DIR is doubled: PFSHIM_OUTPUT is a template.
 */
static const char *output_answer(config_getenv_fn get_env, events_warn_fn warn)
{
	static char output[PATH_MAX];
	const char *dir = get_env("PAPI_OUTPUT_DIRECTORY");
	size_t n = 0;

	if (!dir || !*dir)
		return NULL;
	for (const char *p = dir; *p && n < sizeof(output) - 1; p++) {
		if (*p == '%')
			output[n++] = '%';
		output[n++] = *p;
	}
	if (n && output[n - 1] != '/')
		output[n++] = '/';
	if (n + strlen(OUTPUT_SUBDIR) >= sizeof(output) - 1) {
		if (warn)
			warn((void *)"PAPI_OUTPUT_DIRECTORY", "path too long; not used");
		return NULL;
	}
	strcpy(output + n, OUTPUT_SUBDIR);
	return output;
}

/*
 * pfshim_compat_v1_getenv - see preload/config.h. PFSHIM_EVENTS from
 * LIKWID_EVENTS or PAPI_EVENTS, or PFSHIM_GROUP from a LIKWID_EVENTS that
 * names a group; PFSHIM_OUTPUT from PAPI_OUTPUT_DIRECTORY, and then
 * PFSHIM_FORMAT papi (PAPI's own JSON, export/papi.c, for PAPI's
 * papi_hl_output_writer), unless the user set PFSHIM_OUTPUT. Anything
 * else: NULL.
 */
API const char *pfshim_compat_v1_getenv(const char *name, config_getenv_fn get_env,
					events_warn_fn warn)
{
	static struct answer events, output;

	if (strcmp(name, "PFSHIM_EVENTS") == 0) {
		if (!events.done)
			events = (struct answer){ true, events_answer(get_env, warn) };
		return events.value;
	}
	/* As for the events: PFSHIM_EVENTS set, LIKWID_EVENTS is not read at all. */
	if (strcmp(name, "PFSHIM_GROUP") == 0)
		return !get_env("PFSHIM_EVENTS") && likwid_group_named(get_env("LIKWID_EVENTS")) ?
			       get_env("LIKWID_EVENTS") : NULL;
	if (strcmp(name, "PFSHIM_OUTPUT") == 0 || strcmp(name, "PFSHIM_FORMAT") == 0) {
		if (!output.done)
			output = (struct answer){ true, output_answer(get_env, warn) };
		if (name[7] == 'F')
			return output.value && !get_env("PFSHIM_OUTPUT") ? "papi" : NULL;
		return output.value;
	}
	return NULL;
}
