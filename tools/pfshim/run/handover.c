/* SPDX-License-Identifier: MIT */
/*
 * handover.c: `pfshim run` opens the job's first counters itself, in the
 * child before exec, so that the command's count starts at its exec (the
 * dynamic loader's work included), and hands them to the shim through
 * PFSHIM_ADOPT. It does so only where a shim will be there to adopt them:
 * the descriptors are not close-on-exec, and in an image without the shim
 * they would stay open, counting it, for its whole life. There too it hands
 * the command what libpfm4 answered its own parse (PFSHIM_RESOLVED), so
 * that no process of the job loads libpfm4 again.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/config.h"
#include "preload/counters/handover.h"
#include "preload/events/pfm_answers.h"
#include "preload/fd.h"
#include "tools/pfshim/run/handover.h"

static struct counter_set handed, probe;
static struct event_list events;

static const char *env_real(const char *name)
{
	return getenv(name);
}

/* The shim says what is wrong with the events, once, in the command itself. */
static void quiet(void *ctx, const char *message)
{
	(void)ctx;
	(void)message;
}

const struct event_list *run_events(struct config *config)
{
	config_read(config, env_real, quiet);
	if (config->disabled)
		events.nr = 0;
	else
		events_parse(config->events, config->sysfs_root, config->tracefs_root, &events, quiet,
			     NULL);
	return &events;
}

bool run_counters_refused(void)
{
	struct config config;
	bool refused;

	if (run_events(&config)->nr == 0)
		return false;
	counters_open(&probe, &events);
	refused = counters_refused(&probe);
	if (refused)
		counters_close(&probe);
	return refused;
}

void run_probe_release(void)
{
	counters_close(&probe);
}

void run_answers_hand(void)
{
	size_t size = pfm_answers_size();
	char value[size + 1];

	if (size && pfm_answers_format(getpid(), value, sizeof(value)) > 0)
		setenv(PFM_ANSWERS_VAR, value, 1);
}

void run_handover_open(void)
{
	static char value[HANDOVER_MAX];
	const char *off = getenv("PFSHIM_HANDOVER");
	struct config config;

	/* This environment is the command's: its shim reads what we read here. */
	run_events(&config);
	run_answers_hand();
	/* PFSHIM_HANDOVER=0 turns off the hand-over of counters here too (docs/pfshim.md). */
	if (off && !strcmp(off, "0"))
		return;
	if (!config_adopts_handover(&config, &config) || !fd_room_away() || events.nr == 0)
		return;
	if (handover_open(&handed, &events, config.events, value, sizeof(value)) < 0 ||
	    setenv(HANDOVER_VAR, value, 1) < 0)
		run_handover_close();
}

void run_handover_close(void)
{
	counters_close(&handed);
	unsetenv(HANDOVER_VAR);
	run_answers_withdraw();
}

void run_answers_withdraw(void)
{
	unsetenv(PFM_ANSWERS_VAR);
}

bool run_handover_target_ok(const char *file)
{
	return handover_target_ok(file, getenv("PATH"));
}
