/*
 * config.h: what the environment asks of the shim (PFSHIM_*), read once in the
 * constructor. The first stage of the data flow: environment -> configuration.
 */
#ifndef PFSHIM_PRELOAD_CONFIG_H
#define PFSHIM_PRELOAD_CONFIG_H

#include <stdbool.h>
#include <limits.h>

#include "preload/events.h"

#define CONFIG_SYSFS_DEFAULT "/sys/bus/event_source/devices"

enum config_format { FORMAT_TEXT, FORMAT_CSV, FORMAT_JSON };

struct config {
	bool disabled;			/* PFSHIM_DISABLE=1, or secure */
	bool secure;			/* secure-execution mode (AT_SECURE): inert */
	const char *events;		/* PFSHIM_EVENTS, or EVENTS_DEFAULT */
	enum config_format format;	/* PFSHIM_FORMAT */
	char output[PATH_MAX];		/* PFSHIM_OUTPUT: "stderr", "stdout" or a template */
	int signal;			/* PFSHIM_SIGNAL, 0 when off */
	const char *sysfs_root;		/* PFSHIM_SYSFS_ROOT (tests), or CONFIG_SYSFS_DEFAULT */
};

typedef const char *(*config_getenv_fn)(const char *name);

/*
 * config_read - fill @c from the variables @get_env returns. A malformed value
 * is reported through @warn (ctx = the variable's name) and its default used.
 */
void config_read(struct config *c, config_getenv_fn get_env, events_warn_fn warn);

/*
 * config_read_secure - config_read() with getauxval(AT_SECURE) given as
 * @secure: when true the shim is inert (disabled, nothing read from the
 * environment), whatever PFSHIM_* say.
 */
void config_read_secure(struct config *c, config_getenv_fn get_env, events_warn_fn warn,
			bool secure);

/* config_signal_parse - "USR1", "SIGUSR1", "10", "RTMIN+2" -> number; -EINVAL if none. */
int config_signal_parse(const char *text);

#endif
