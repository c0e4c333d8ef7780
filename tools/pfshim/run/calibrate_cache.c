/* SPDX-License-Identifier: MIT */
/*
 * calibrate_cache.c: pfshim run's calibration kept between runs
 * (calibrate.h), so that a short command does not pay its seconds of runs
 * each time: in ${XDG_CACHE_HOME:-$HOME/.cache}/pfshim/calibration.json,
 * {"entries": [...]}, the CACHE_ENTRIES calibrations used last, the latest
 * first (one taken from further down moves to the front), each valid for
 * one library file (device, inode, size, modification
 * time), one kernel, one host, one boot and one list of events: switching
 * between a few event lists calibrates each once. A rebuilt library,
 * another machine or a reboot calibrate anew. What is read is checked as
 * any input is (counts, the same events); a cache that cannot be read or
 * written is no error: the run calibrates.
 */
#include "tools/pfshim/run/calibrate.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "export/report.h"
#include "fastread/sysfile.h"

#define CACHE_NAME "calibration.json"
#define CACHE_ENTRIES 8		/* calibrations kept: event lists a user switches between */
#define CACHE_MAX 32768		/* bytes: an entry (3 events and the key) is about 1 KiB */

/* @fd is a directory of the effective user's that no one else may write in. */
static bool dir_ours(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	       !(st.st_mode & (S_IWGRP | S_IWOTH));
}

/* @name under the directory @at (or the path @name itself), opened, made (0700) when @make. */
static int dir_open_at(int at, const char *name, bool make)
{
	int flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	int fd = openat(at, name, flags);

	if (fd < 0 && errno == ENOENT && make && mkdirat(at, name, 0700) == 0)
		fd = openat(at, name, flags);
	if (fd >= 0 && !dir_ours(fd)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * The cache's directory, opened: ${XDG_CACHE_HOME:-$HOME/.cache}/pfshim,
 * both the effective user's own and closed to other writers, the last
 * links not followed; made (0700) when @make. Root run with another user's
 * HOME (sudo -E) finds that user's directories, not its own, and has no
 * cache: it calibrates. -1: no cache.
 */
static int cache_dir_open(bool make)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char base[PATH_MAX];
	int n, top, dir;

	if (xdg && *xdg == '/')
		n = snprintf(base, sizeof(base), "%s", xdg);
	else if (home && *home == '/')
		n = snprintf(base, sizeof(base), "%s/.cache", home);
	else
		return -1;
	if (n < 0 || (size_t)n >= sizeof(base))
		return -1;
	top = dir_open_at(AT_FDCWD, base, make);
	if (top < 0)
		return -1;
	dir = dir_open_at(top, "pfshim", make);
	close(top);
	return dir;
}

/*
 * What the calibration is valid for, as one string; false when the library
 * cannot be named. The boot's id too: a virtual machine booted again may
 * run on another host's CPU, at other prices.
 */
static bool cache_key(const struct calibration *c, const struct jobcount *j, const char *lib,
		      char *key, size_t size)
{
	char path[PATH_MAX], boot[64];
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
	if (sysfile_read(REPORT_BOOT_ID_PATH, boot, sizeof(boot)) <= 0)
		strcpy(boot, "-");
	len = snprintf(key, size,
		       "lib %ju:%ju:%jd:%jd.%09ld kernel %s %s host %s boot %s method %d events",
		       (uintmax_t)st.st_dev, (uintmax_t)st.st_ino, (intmax_t)st.st_size,
		       (intmax_t)st.st_mtim.tv_sec, st.st_mtim.tv_nsec, uts.release, uts.version,
		       uts.nodename, boot, CALIBRATE_METHOD);
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

/*
 * The cache file at @fd, read whole, then parsed: jansson's json_loadfd()
 * makes a read(2) of each byte (866 of them, 0.4 ms of the 4.7 ms of CPU a
 * `pfshim run -- /bin/true` took). NULL when it is larger than any cache
 * this writes, or not JSON.
 */
static json_t *cache_parse(int fd)
{
	char text[CACHE_MAX];
	int len = sysfile_read_fd(fd, text, sizeof(text));

	return len < 0 ? NULL : json_loadb(text, (size_t)len, 0, NULL);
}

/* The entry of @key in @entries, or NULL. */
static json_t *cache_entry(json_t *entries, const char *key)
{
	size_t i;
	json_t *o;

	json_array_foreach(entries, i, o)
		if (!strcmp(json_string_value(json_object_get(o, "key")), key))
			return o;
	return NULL;
}

/*
 * The cache's entries in the directory @dir, in its order (an array, empty
 * when there is no cache of the user's own): objects with a key, each key
 * once, at most CACHE_ENTRIES; a cache of one object (before entries) is
 * one entry.
 */
static json_t *cache_entries(int dir)
{
	int fd = openat(dir, CACHE_NAME, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	json_t *o = NULL, *listed, *entries = json_array(), *e;
	size_t i;

	if (fd >= 0) {
		struct stat st;

		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
			o = cache_parse(fd);
		close(fd);
	}
	listed = json_object_get(o, "entries");
	if (!json_is_array(listed) && json_is_string(json_object_get(o, "key")))
		json_array_append(entries, o);
	json_array_foreach(listed, i, e)
		if (json_array_size(entries) < CACHE_ENTRIES &&
		    json_is_string(json_object_get(e, "key")) &&
		    !cache_entry(entries, json_string_value(json_object_get(e, "key"))))
			json_array_append(entries, e);
	json_decref(o);
	return entries;
}

/*
 * @first, then @entries' others, as many as are kept, into the cache in
 * @dir: written aside and renamed over, in the directory judged, so that a
 * reader never sees half. Two runs writing at once: the last one's stands.
 */
static void cache_write(int dir, json_t *first, json_t *entries)
{
	json_t *out = json_array(), *e, *o;
	char tmp[64];
	size_t i;
	FILE *f;
	int fd;
	bool ok;

	json_array_append(out, first);
	json_array_foreach(entries, i, e)
		if (json_array_size(out) < CACHE_ENTRIES && e != first &&
		    strcmp(json_string_value(json_object_get(e, "key")),
			   json_string_value(json_object_get(first, "key"))))
			json_array_append(out, e);
	snprintf(tmp, sizeof(tmp), ".calibration.%d", (int)getpid());
	fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		json_decref(out);
		return;
	}
	f = fdopen(fd, "w");
	o = json_pack("{s:o}", "entries", out);
	ok = f && o && json_dumpf(o, f, JSON_COMPACT) == 0;
	if (f)
		ok = fclose(f) == 0 && ok;
	else
		close(fd);
	if (!ok || renameat(dir, tmp, dir, CACHE_NAME) < 0)
		unlinkat(dir, tmp, 0);
	json_decref(o);
}

bool calibrate_cache_load(struct calibration *c, const struct jobcount *j, const char *lib)
{
	char key[1024];
	json_t *entries, *o, *events, *e;
	int dir;
	bool ok;

	if (!cache_key(c, j, lib, key, sizeof(key)) || (dir = cache_dir_open(false)) < 0)
		return false;
	entries = cache_entries(dir);
	o = cache_entry(entries, key);
	events = json_object_get(json_object_get(o, "calibration"), "events");
	ok = o && json_is_array(events) && json_array_size(events) == (size_t)c->nr &&
	     count_of(json_object_get(o, "calibration"), "cost_ns", &c->cost_ns);
	for (int k = 0; ok && k < c->nr; k++) {
		struct calibrate_event *ev = &c->ev[k];

		e = json_array_get(events, (size_t)k);
		ok = json_is_string(json_object_get(e, "share")) &&
		     !strcmp(json_string_value(json_object_get(e, "share")), ev->share) &&
		     count_of(e, "bare", &ev->bare) && count_of(e, "off", &ev->off) &&
		     count_of(e, "preloaded", &ev->preloaded) &&
		     count_of(e, "in_process", &ev->in_process) && count_of(e, "setup", &ev->setup) &&
		     count_of(e, "per_exec", &ev->per_exec);
		/* the per-unit prices are a part: a calibration that could not measure them has none */
		if (ok && k == 0)
			c->per_unit = json_object_get(e, "per_fork") != NULL;
		if (ok && c->per_unit)
			ok = count_of(e, "per_1000_faults", &ev->per_1000_faults) &&
			     count_of(e, "per_fork", &ev->per_fork);
	}
	c->cpu_whole = ok && json_is_string(json_object_get(json_object_get(o, "calibration"),
							    "task_clock")) &&
		       !strcmp(json_string_value(json_object_get(json_object_get(o, "calibration"),
								 "task_clock")), "process");
	/* Used now: to the front, where no other list's calibration pushes it out first */
	if (ok && o != json_array_get(entries, 0))
		cache_write(dir, o, entries);
	close(dir);
	json_decref(entries);
	c->cached = ok;
	return ok;
}

void calibrate_cache_save(const struct calibration *c, const struct jobcount *j, const char *lib)
{
	char key[1024];
	json_t *entries, *first;
	int dir;

	if (!cache_key(c, j, lib, key, sizeof(key)) || (dir = cache_dir_open(true)) < 0)
		return;
	entries = cache_entries(dir);
	first = json_pack("{s:s, s:o}", "key", key, "calibration", calibrate_json(c, j));
	if (first)
		cache_write(dir, first, entries);
	json_decref(first);
	json_decref(entries);
	close(dir);
}
