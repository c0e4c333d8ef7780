/* SPDX-License-Identifier: MIT */
/*
 * config.c: PFSHIM_* environment variables -> struct config. Every malformed
 * value gets one warning and its default, never a failure: the shim lives in
 * someone else's process, and a typo must not stop their program.
 */
#include "preload/config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>

#include "export/names.h"
#include "preload/events/suggest.h"

static int parse_number(const char *text, long min, long max)
{
	char *end;
	long n;

	if (*text < '0' || *text > '9')
		return -EINVAL;
	errno = 0;
	n = strtol(text, &end, 10);
	if (errno || *end || n < min || n > max)
		return -EINVAL;
	return (int)n;
}

/*
 * Why @signo cannot carry a report, or NULL when it can. The report
 * signal keeps its default action after the report (report_signal.c), so
 * a handler of ours must change nothing else: the defaults that ignore or
 * stop would let it interrupt calls no signal interrupts without the shim
 * (signal(7): sleep(), poll(), epoll_wait() return EINTR after a handler,
 * SA_RESTART or not).
 */
const char *config_signal_refusal(int signo)
{
	switch (signo) {
	case SIGKILL: case SIGSTOP:
		return "cannot be caught";
	case SIGSEGV: case SIGBUS: case SIGFPE: case SIGILL: case SIGTRAP: case SIGABRT:
		return "comes from a fault or abort(), which a handler that returns only "
		       "repeats (PFSHIM_ON_FATAL=1 reports such deaths)";
	case SIGCHLD: case SIGCONT: case SIGURG: case SIGWINCH:
		return "is ignored by default, and a handler would make sleep(), poll() and "
		       "the like return EINTR on it, as nothing does without the shim";
	case SIGTSTP: case SIGTTIN: case SIGTTOU:
		return "stops the process by default, and a handler would make sleep(), poll() "
		       "and the like return EINTR when it continues, as nothing does without "
		       "the shim";
	}
	return NULL;
}

/* Any signal's number, 1 to NSIG - 1, from any spelling; -EINVAL if none. */
static int signal_parse_any(const char *text)
{
	int signo = -EINVAL;

	if (strncasecmp(text, "SIG", 3) == 0)
		text += 3;
	if (*text >= '0' && *text <= '9') {
		signo = parse_number(text, 1, NSIG - 1);
	} else if (strncasecmp(text, "RTMIN", 5) == 0) {
		int n = text[5] == '+' ? parse_number(text + 6, 0, SIGRTMAX - SIGRTMIN) :
			text[5] ? -EINVAL : 0;

		signo = n < 0 ? n : SIGRTMIN + n;
	} else if (strncasecmp(text, "RTMAX", 5) == 0) {
		int n = text[5] == '-' ? parse_number(text + 6, 0, SIGRTMAX - SIGRTMIN) :
			text[5] ? -EINVAL : 0;

		signo = n < 0 ? n : SIGRTMAX - n;
	} else {
		signo = signal_number(text);	/* names from export/names.c's table */
	}
	return signo > 0 && signo < NSIG ? signo : -EINVAL;
}

int config_signal_parse(const char *text)
{
	int signo = signal_parse_any(text);

	return signo > 0 && !config_signal_refusal(signo) ? signo : -EINVAL;
}

/* Names are taken in any case: JSON, Json and json are one format. */
static void read_format(struct config *c, const char *value, events_warn_fn warn)
{
	if (strcasecmp(value, "text") == 0)
		c->format = FORMAT_TEXT;
	else if (strcasecmp(value, "csv") == 0)
		c->format = FORMAT_CSV;
	else if (strcasecmp(value, "json") == 0)
		c->format = FORMAT_JSON;
	else if (strcasecmp(value, "openmetrics") == 0)
		c->format = FORMAT_OPENMETRICS;
	else if (strcasecmp(value, "prometheus") == 0)
		c->format = FORMAT_PROMETHEUS;
	else if (strcasecmp(value, "papi") == 0)
		c->format = FORMAT_PAPI;
	else
		warn((void *)"PFSHIM_FORMAT",
		     "expected text, csv, json, openmetrics, prometheus or papi; using text");
}

/* stderr and stdout in any case (STDERR is not a file named STDERR); anything else is a path. */
static void read_output(struct config *c, const char *value, events_warn_fn warn)
{
	if (!*value) {
		warn((void *)"PFSHIM_OUTPUT", "empty; writing to stderr");
	} else if (strlen(value) >= sizeof(c->output)) {
		warn((void *)"PFSHIM_OUTPUT", "path too long; writing to stderr");
	} else if (strcasecmp(value, "stderr") == 0 || strcasecmp(value, "stdout") == 0) {
		strcpy(c->output, strcasecmp(value, "stderr") == 0 ? "stderr" : "stdout");
	} else {
		strcpy(c->output, value);
	}
}

int config_output_absolute(char *out, size_t size, const char *output, const char *cwd)
{
	size_t n = 0;

	if (output[0] == '/' || !strcmp(output, "stderr") || !strcmp(output, "stdout"))
		return 0;
	for (const char *p = cwd; *p; p++) {
		if (n + 2 >= size)
			return -ENAMETOOLONG;
		if (*p == '%')
			out[n++] = '%';
		out[n++] = *p;
	}
	if (n == 0 || out[n - 1] != '/')
		out[n++] = '/';
	if (n + strlen(output) >= size)
		return -ENAMETOOLONG;
	strcpy(out + n, output);
	return 1;
}

static bool same_text(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

bool config_adopts_handover(const struct config *next, const struct config *ours)
{
	/* A metric group's events are added at start-up (preload/metrics/group.h): none handed. */
	return !next->disabled && !next->interval_ns && !next->group && !ours->group &&
	       !next->metrics && !ours->metrics &&
	       same_text(next->events, ours->events) &&
	       same_text(next->sysfs_root, ours->sysfs_root) &&
	       same_text(next->tracefs_root, ours->tracefs_root);
}

/* Every PFSHIM_* variable the shim reads, for config_names_check(). */
static const char *const known_names[] = { CONFIG_VARIABLES };

void config_names_check(char *const *env, events_warn_fn warn)
{
	for (; env && *env; env++) {
		const char *eq = strchr(*env, '=');
		size_t len = eq ? (size_t)(eq - *env) : strlen(*env);
		char name[EVENTS_NAME_MAX], why[EVENTS_NAME_MAX + 96], hint[EVENTS_NAME_MAX + 32];
		struct suggest sg;
		bool known = false;

		if (strncmp(*env, "PFSHIM_", 7) != 0 || len >= sizeof(name))
			continue;
		memcpy(name, *env, len);
		name[len] = '\0';
		for (size_t i = 0; i < sizeof(known_names) / sizeof(known_names[0]); i++)
			known |= strcmp(name, known_names[i]) == 0;
		/* The suggestions only for a name not known: their code is cold (layout.ld). */
		if (known)
			continue;
		suggest_init(&sg, name);
		for (size_t i = 0; i < sizeof(known_names) / sizeof(known_names[0]); i++)
			suggest_consider(&sg, known_names[i]);
		snprintf(why, sizeof(why), "not a pfshim variable%s; ignored",
			 suggest_text(&sg, hint, sizeof(hint)));
		warn(name, why);
	}
}

/* The first rank variable set to digits; a malformed one is passed over. */
static void read_rank(struct config *c, config_getenv_fn get_env)
{
	static const char *const names[] = { CONFIG_RANK_VARIABLES };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *value = get_env(names[i]);
		size_t n = value ? strspn(value, "0123456789") : 0;

		if (n > 0 && !value[n] && n < sizeof(c->rank)) {
			memcpy(c->rank, value, n + 1);
			return;
		}
	}
}

static void read_signal(struct config *c, const char *value, events_warn_fn warn)
{
	int signo = signal_parse_any(value);
	const char *refusal = signo > 0 ? config_signal_refusal(signo) : NULL;
	const char *name = signo > 0 ? signal_name(signo) : NULL;
	char message[256];

	if (signo < 0) {
		warn((void *)"PFSHIM_SIGNAL", "not a signal (use a name like USR1, a number, or "
		     "RTMIN+n); ignored");
	} else if (refusal) {
		if (name)
			snprintf(message, sizeof(message), "%s %s; ignored", name, refusal);
		else
			snprintf(message, sizeof(message), "signal %d %s; ignored", signo, refusal);
		warn((void *)"PFSHIM_SIGNAL", message);
	} else {
		c->signal = signo;
	}
}

/* A variable that is 0 or 1; anything else is said, and off. */
static bool read_switch(const char *name, const char *value, events_warn_fn warn)
{
	if (strcmp(value, "1") == 0)
		return true;
	if (strcmp(value, "0") != 0)
		warn((void *)name, "expected 0 or 1; off");
	return false;
}

int64_t config_interval_parse(const char *text)
{
	static const struct { const char *suffix; uint64_t ns; } units[] = {
		{ "", 1000000u }, { "ms", 1000000u }, { "s", 1000000000u }, { "m", 60000000000u },
	};
	uint64_t n = 0;
	const char *p = text;

	/* Digits by hand: strtol would take a sign, blanks and "0x". */
	for (; *p >= '0' && *p <= '9'; p++) {
		if (n > CONFIG_INTERVAL_MAX_NS)
			return -ERANGE;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	if (p == text)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(p, units[i].suffix) != 0)
			continue;
		if (n > CONFIG_INTERVAL_MAX_NS / units[i].ns)
			return -ERANGE;
		n *= units[i].ns;
		return n < CONFIG_INTERVAL_MIN_NS || n > CONFIG_INTERVAL_MAX_NS ? -ERANGE : (int64_t)n;
	}
	return -EINVAL;
}

static void read_interval(struct config *c, const char *value, events_warn_fn warn)
{
	int64_t ns;

	if (strcmp(value, "0") == 0)	/* off, as when unset */
		return;
	ns = config_interval_parse(value);
	if (ns == -ERANGE)
		warn((void *)"PFSHIM_INTERVAL", "out of range (10ms to 1 day, e.g. 100ms, 2s, 1m); "
		     "no interval reports");
	else if (ns < 0)
		warn((void *)"PFSHIM_INTERVAL", "expected a duration such as 500ms, 2s or 1m "
		     "(a plain number is milliseconds); no interval reports");
	else
		c->interval_ns = (uint64_t)ns;
}

/*
 * Secure-execution mode (AT_SECURE: setuid, setgid, file capabilities): the
 * environment belongs to the user who started a program that runs with
 * more rights than theirs. Any PFSHIM_* that names a file would let them
 * make it create or append to files they may not touch, so the shim does
 * nothing at all, as with PFSHIM_DISABLE, and says nothing (the program's
 * stderr is not ours to write in either). docs/security.md, class 1.
 */
void config_read_secure(struct config *c, config_getenv_fn get_env, events_warn_fn warn,
			bool secure)
{
	const char *value;

	memset(c, 0, sizeof(*c));
	strcpy(c->output, "stderr");
	c->events = EVENTS_DEFAULT;
	c->sysfs_root = CONFIG_SYSFS_DEFAULT;

	if (secure) {
		c->disabled = true;
		c->secure = true;
		return;
	}
	value = get_env("PFSHIM_DISABLE");
	if (value && *value && strcmp(value, "0") != 0) {
		c->disabled = true;
		return;
	}
	if ((value = get_env("PFSHIM_EVENTS")) && *value)
		c->events = value;
	else if (value)	/* set but empty: not "count nothing", which would switch the shim off */
		warn((void *)"PFSHIM_EVENTS", "empty; counting the default events");
	if ((value = get_env("PFSHIM_GROUP")) && *value)
		c->group = value;
	if ((value = get_env("PFSHIM_METRICS")) && *value)
		c->metrics = value;
	if ((value = get_env("PFSHIM_FORMAT")))
		read_format(c, value, warn);
	if ((value = get_env("PFSHIM_OUTPUT"))) {
		c->output_explicit = true;
		read_output(c, value, warn);
	}
	/*
	 * A directory of reports is for pfshim report, which reads JSON: its
	 * default, as a job directory's (README's mpirun -x PFSHIM_OUTPUT=DIR/).
	 */
	if (!get_env("PFSHIM_FORMAT") && c->output[0] && c->output[strlen(c->output) - 1] == '/')
		c->format = FORMAT_JSON;
	read_rank(c, get_env);
	scheduler_job_read(&c->job, get_env);
	if ((value = get_env("PFSHIM_SIGNAL")) && *value)
		read_signal(c, value, warn);
	if ((value = get_env("PFSHIM_ON_FATAL")) && *value)
		c->on_fatal = read_switch("PFSHIM_ON_FATAL", value, warn);
	if ((value = get_env("PFSHIM_HANDOVER")) && *value)
		c->handover = read_switch("PFSHIM_HANDOVER", value, warn);
	if ((value = get_env("PFSHIM_RUN")) && *value)
		c->run_job = read_switch("PFSHIM_RUN", value, warn);
	if ((value = get_env("PFSHIM_COMPENSATE")) && *value)
		c->compensate = read_switch("PFSHIM_COMPENSATE", value, warn);
	if ((value = get_env("PFSHIM_PROMETHEUS_KEEP")) && *value)
		c->prometheus_keep = read_switch("PFSHIM_PROMETHEUS_KEEP", value, warn);
	if ((value = get_env("PFSHIM_INTERVAL")) && *value)
		read_interval(c, value, warn);
	if ((value = get_env("PFSHIM_SYSFS_ROOT")) && *value)
		c->sysfs_root = value;
	if ((value = get_env("PFSHIM_TRACEFS_ROOT")) && *value)
		c->tracefs_root = value;
}

void config_read(struct config *c, config_getenv_fn get_env, events_warn_fn warn)
{
	config_read_secure(c, get_env, warn, getauxval(AT_SECURE) != 0);
}
