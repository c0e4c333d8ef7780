/* SPDX-License-Identifier: MIT */
/*
 * calibrate_cache.c: pfshim run's calibration kept between runs
 * (calibrate.h), so that a short command does not pay 15 runs of
 * /bin/true each time: in ${XDG_CACHE_HOME:-$HOME/.cache}/pfshim/
 * calibration.json, one object, valid for one library file (device, inode,
 * size, modification time), one kernel, one host and one list of events.
 * A rebuilt library, another machine or other events calibrate anew. What
 * is read is checked as any input is (counts, the same events); a cache that
 * cannot be read or written is no error: the run calibrates.
 */
#include "tools/pfshim/calibrate.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#define CACHE_NAME "calibration.json"

/* The cache's directory, made (0700) when @make; false when there is none. */
static bool cache_dir(char *dir, size_t size, bool make)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;

	if (xdg && *xdg == '/')
		n = snprintf(dir, size, "%s/pfshim", xdg);
	else if (home && *home == '/')
		n = snprintf(dir, size, "%s/.cache/pfshim", home);
	else
		return false;
	if (n < 0 || (size_t)n >= size)
		return false;
	if (make) {
		char *slash = strrchr(dir, '/');

		*slash = '\0';
		mkdir(dir, 0700);	/* $HOME/.cache: may exist */
		*slash = '/';
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			return false;
	}
	return true;
}

/* What the calibration is valid for, as one string; false when the library cannot be named. */
static bool cache_key(const struct calibration *c, const struct jobcount *j, const char *lib,
		      char *key, size_t size)
{
	char path[PATH_MAX];
	size_t n = strcspn(lib ? lib : "", " :");
	struct utsname uts;
	struct stat st;
	int len;

	if (!n || n >= sizeof(path))
		return false;
	memcpy(path, lib, n);
	path[n] = '\0';
	if (stat(path, &st) < 0 || uname(&uts) < 0)
		return false;
	len = snprintf(key, size, "lib %ju:%ju:%jd:%jd.%09ld kernel %s %s host %s events",
		       (uintmax_t)st.st_dev, (uintmax_t)st.st_ino, (intmax_t)st.st_size,
		       (intmax_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, uts.release, uts.version,
		       uts.nodename);
	for (int k = 0; k < c->nr && len > 0 && (size_t)len < size; k++)
		len += snprintf(key + len, size - (size_t)len, " %s",
				j->ev[c->ev[k].job_event].spec->name);
	return len > 0 && (size_t)len < size;
}

static bool count_of(json_t *o, const char *name, uint64_t *out)
{
	json_t *v = json_object_get(o, name);

	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return false;
	*out = (uint64_t)json_integer_value(v);
	return true;
}

bool calibrate_cache_load(struct calibration *c, const struct jobcount *j, const char *lib)
{
	char dir[PATH_MAX], path[PATH_MAX + 32], key[1024];
	json_t *o, *events, *e;
	bool ok;

	if (!cache_key(c, j, lib, key, sizeof(key)) || !cache_dir(dir, sizeof(dir), false))
		return false;
	snprintf(path, sizeof(path), "%s/" CACHE_NAME, dir);
	o = json_load_file(path, 0, NULL);
	events = json_object_get(json_object_get(o, "calibration"), "events");
	ok = json_is_string(json_object_get(o, "key")) &&
	     !strcmp(json_string_value(json_object_get(o, "key")), key) &&
	     json_is_array(events) && json_array_size(events) == (size_t)c->nr &&
	     count_of(json_object_get(o, "calibration"), "cost_ns", &c->cost_ns);
	for (int k = 0; ok && k < c->nr; k++) {
		struct calibrate_event *ev = &c->ev[k];

		e = json_array_get(events, (size_t)k);
		ok = json_is_string(json_object_get(e, "share")) &&
		     !strcmp(json_string_value(json_object_get(e, "share")), ev->share) &&
		     count_of(e, "bare", &ev->bare) && count_of(e, "off", &ev->off) &&
		     count_of(e, "preloaded", &ev->preloaded) &&
		     count_of(e, "in_process", &ev->in_process) && count_of(e, "setup", &ev->setup);
	}
	json_decref(o);
	c->cached = ok;
	return ok;
}

void calibrate_cache_save(const struct calibration *c, const struct jobcount *j, const char *lib)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 32], path[PATH_MAX + 32], key[1024];
	json_t *o;
	FILE *f;
	int fd;

	if (!cache_key(c, j, lib, key, sizeof(key)) || !cache_dir(dir, sizeof(dir), true))
		return;
	snprintf(tmp, sizeof(tmp), "%s/.calibration.XXXXXX", dir);
	snprintf(path, sizeof(path), "%s/" CACHE_NAME, dir);
	fd = mkstemp(tmp);
	if (fd < 0)
		return;
	f = fdopen(fd, "w");
	o = json_pack("{s:s, s:o}", "key", key, "calibration", calibrate_json(c, j));
	if (!f || !o || json_dumpf(o, f, JSON_COMPACT) < 0 || fclose(f) != 0 ||
	    rename(tmp, path) < 0) {
		if (!f)
			close(fd);
		unlink(tmp);
	}
	json_decref(o);
}
