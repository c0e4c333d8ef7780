/* SPDX-License-Identifier: MIT */
/*
 * pmu.c: reads the sysfs description of a PMU (type, format/, events/).
 * Small files through sysfile_read() (fastread/sysfile.c), never through a FILE: this runs in
 * the preload constructor, before the program's own main(), and must leave
 * its stdio alone. Paths are joined by hand (path_join); walking a
 * directory takes opendir(), which allocates and frees before returning.
 */
#include "preload/events/pmu.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fastread/sysfile.h"

int pmu_name_valid(const char *name)
{
	size_t len = strlen(name);

	if (len == 0 || len >= PMU_NAME_MAX || name[0] == '.')
		return 0;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)name[i];

		if (c <= 0x20 || c >= 0x7f || c == '/')
			return 0;
	}
	return 1;
}

/* Append @s at *@at, before @end; false when it does not fit with its NUL. */
static bool path_put(char **at, const char *end, const char *s)
{
	size_t len = strlen(s);

	if ((size_t)(end - *at) <= len)
		return false;
	memcpy(*at, s, len + 1);
	*at += len;
	return true;
}

/*
 * root/pmu[/dir][/leaf][suffix]. Not snprintf(): every process with a generic
 * hardware event in its list reads a PMU's type at start (core_pmus.c), and
 * the printf machinery would add ~200 KiB of libc to its resident memory
 * (docs/performance.md "Memory").
 */
static int path_join(char *path, size_t size, const char *root, const char *pmu,
		     const char *dir, const char *leaf, const char *suffix)
{
	const char *end = path + size;
	char *at = path;

	if (!path_put(&at, end, root) || !path_put(&at, end, "/") || !path_put(&at, end, pmu) ||
	    (dir && (!path_put(&at, end, "/") || !path_put(&at, end, dir))) ||
	    (leaf && (!path_put(&at, end, "/") || !path_put(&at, end, leaf))) ||
	    (suffix && !path_put(&at, end, suffix)))
		return -ENAMETOOLONG;
	return 0;
}

static int leaf_read(const char *root, const char *pmu, const char *dir,
		     const char *leaf, const char *suffix, char *buf, size_t size)
{
	char path[PATH_MAX];
	int err;

	if (!pmu_name_valid(pmu) || (leaf && !pmu_name_valid(leaf)))
		return -ENOENT;
	err = path_join(path, sizeof(path), root, pmu, dir, leaf, suffix);
	if (err)
		return err;
	err = sysfile_read(path, buf, size);
	return err < 0 ? err : 0;
}

int pmu_type_read(const char *root, const char *pmu, uint32_t *type)
{
	char buf[32], *end;
	unsigned long v;
	int err = leaf_read(root, pmu, NULL, "type", NULL, buf, sizeof(buf));

	if (err)
		return err == -ENAMETOOLONG ? -EINVAL : err;
	errno = 0;
	v = strtoul(buf, &end, 10);
	if (errno || end == buf || *end || v > UINT32_MAX)
		return -EINVAL;
	*type = (uint32_t)v;
	return 0;
}

static int bit_parse(const char **s, unsigned *bit)
{
	unsigned v = 0;
	const char *p = *s;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (unsigned)(*p - '0');
		if (v > 63)
			return -EINVAL;
		p++;
	}
	*s = p;
	*bit = v;
	return 0;
}

static uint64_t bits_range(unsigned lo, unsigned hi)
{
	uint64_t top = hi == 63 ? ~0ULL : (1ULL << (hi + 1)) - 1;

	return top & ~((1ULL << lo) - 1);
}

int pmu_format_parse(const char *text, struct pmu_format *fmt)
{
	const char *p;
	uint64_t mask = 0;

	if (!strncmp(text, "config:", 7)) {
		fmt->field = PMU_FIELD_CONFIG;
		p = text + 7;
	} else if (!strncmp(text, "config1:", 8)) {
		fmt->field = PMU_FIELD_CONFIG1;
		p = text + 8;
	} else if (!strncmp(text, "config2:", 8)) {
		fmt->field = PMU_FIELD_CONFIG2;
		p = text + 8;
	} else {
		return -EINVAL;
	}
	for (;;) {
		unsigned lo, hi;

		if (bit_parse(&p, &lo))
			return -EINVAL;
		hi = lo;
		if (*p == '-') {
			p++;
			if (bit_parse(&p, &hi) || hi < lo)
				return -EINVAL;
		}
		mask |= bits_range(lo, hi);
		if (*p == '\0')
			break;
		if (*p++ != ',')
			return -EINVAL;
	}
	fmt->mask = mask;
	snprintf(fmt->spec, sizeof(fmt->spec), "%s", text);
	return 0;
}

int pmu_format_read(const char *root, const char *pmu, const char *term,
		    struct pmu_format *fmt)
{
	char buf[PMU_FORMAT_SPEC_MAX];
	int err = leaf_read(root, pmu, "format", term, NULL, buf, sizeof(buf));

	if (err)
		return err == -ENAMETOOLONG ? -EINVAL : err;
	return pmu_format_parse(buf, fmt);
}

int pmu_format_width(const struct pmu_format *fmt)
{
	return __builtin_popcountll(fmt->mask);
}

static __u64 *attr_field(struct perf_event_attr *attr, enum pmu_field field)
{
	switch (field) {
	case PMU_FIELD_CONFIG1:
		return &attr->config1;
	case PMU_FIELD_CONFIG2:
		return &attr->config2;
	default:
		return &attr->config;
	}
}

int pmu_format_deposit(const struct pmu_format *fmt, uint64_t value,
		       struct perf_event_attr *attr)
{
	uint64_t placed = 0, rest = value;
	int width = pmu_format_width(fmt);
	__u64 *field = attr_field(attr, fmt->field);

	if (width < 64 && (value >> width))
		return -ERANGE;
	for (int bit = 0; bit < 64 && rest; bit++) {
		if (!(fmt->mask & (1ULL << bit)))
			continue;
		if (rest & 1)
			placed |= 1ULL << bit;
		rest >>= 1;
	}
	*field = (*field & ~fmt->mask) | placed;
	return 0;
}

int pmu_alias_read(const char *root, const char *pmu, const char *event,
		   char *terms, size_t size)
{
	return leaf_read(root, pmu, "events", event, NULL, terms, size);
}

int pmu_alias_display(const char *root, const char *pmu, const char *event,
		      double *scale, char *unit, size_t unit_size)
{
	char buf[64], *end;

	if (!leaf_read(root, pmu, "events", event, ".scale", buf, sizeof(buf))) {
		double v = strtod(buf, &end);

		if (end != buf && *end == '\0' && v > 0)
			*scale = v;
	}
	if (!leaf_read(root, pmu, "events", event, ".unit", buf, sizeof(buf)))
		snprintf(unit, unit_size, "%s", buf);
	return 0;
}

static int dir_walk(const char *path, const char *pmu, int want_dirs,
		    pmu_name_fn fn, void *ctx)
{
	DIR *dir = opendir(path);
	struct dirent *de;
	int ret = 0;

	if (!dir)
		return -errno;
	while (!ret && (de = readdir(dir))) {
		const char *name = de->d_name;
		const char *dot = strrchr(name, '.');

		if (!pmu_name_valid(name))
			continue;
		/* events/ holds <name>.scale, .unit, .per-pkg, .snapshot beside the aliases. */
		if (!want_dirs && dot && (!strcmp(dot, ".scale") || !strcmp(dot, ".unit") ||
					  !strcmp(dot, ".per-pkg") || !strcmp(dot, ".snapshot")))
			continue;
		ret = fn(ctx, want_dirs ? name : pmu, name);
	}
	closedir(dir);
	return ret;
}

int pmu_list(const char *root, pmu_name_fn fn, void *ctx)
{
	return dir_walk(root, NULL, 1, fn, ctx);
}

static int pmu_subdir_list(const char *root, const char *pmu, const char *sub,
			   pmu_name_fn fn, void *ctx)
{
	char path[PATH_MAX];
	int err;

	if (!pmu_name_valid(pmu))
		return -ENOENT;
	err = path_join(path, sizeof(path), root, pmu, sub, NULL, NULL);
	if (err)
		return err;
	return dir_walk(path, pmu, 0, fn, ctx);
}

int pmu_events_list(const char *root, const char *pmu, pmu_name_fn fn, void *ctx)
{
	return pmu_subdir_list(root, pmu, "events", fn, ctx);
}

int pmu_formats_list(const char *root, const char *pmu, pmu_name_fn fn, void *ctx)
{
	return pmu_subdir_list(root, pmu, "format", fn, ctx);
}

static int desc_add_format(void *ctx, const char *pmu, const char *term)
{
	struct pmu_desc *desc = ctx;
	(void)pmu;

	if (desc->nr_formats >= PMU_FORMATS_MAX || strlen(term) >= PMU_TERM_MAX)
		return 0;
	snprintf(desc->formats[desc->nr_formats].term, PMU_TERM_MAX, "%s", term);
	desc->nr_formats++;
	return 0;
}

int pmu_desc_load(const char *root, const char *pmu, struct pmu_desc *desc)
{
	int err;

	memset(desc, 0, sizeof(*desc));
	err = pmu_type_read(root, pmu, &desc->type);
	if (err == -ENOTDIR)
		err = -ENOENT;
	if (err)
		return err;
	snprintf(desc->name, sizeof(desc->name), "%s", pmu);
	/* A PMU without format/ (software, tracepoint) simply has no terms. */
	pmu_formats_list(root, pmu, desc_add_format, desc);
	for (int i = 0; i < desc->nr_formats; i++) {
		err = pmu_format_read(root, pmu, desc->formats[i].term, &desc->formats[i].fmt);
		desc->formats[i].err = err ? -EINVAL : 0;
	}
	return 0;
}

int pmu_desc_format(const struct pmu_desc *desc, const char *term,
		    const struct pmu_format **fmt)
{
	for (int i = 0; i < desc->nr_formats; i++) {
		if (strcmp(desc->formats[i].term, term))
			continue;
		*fmt = &desc->formats[i].fmt;
		return desc->formats[i].err;
	}
	return -ENOENT;
}
