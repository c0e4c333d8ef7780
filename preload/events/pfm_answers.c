/* SPDX-License-Identifier: MIT */
/*
 * pfm_answers.c: libpfm4's answers, kept and handed to the next image (see
 * pfm_answers.h). Written only while events are parsed (the constructor,
 * or a tool), read at each exec; a value from the environment is checked
 * whole before any of it is taken.
 */
#include "preload/events/pfm_answers.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "preload/events/spec.h"	/* EVENTS_NAME_MAX */

#define ANSWERS_VERSION 1

enum { EXCL_USER = 1, EXCL_KERNEL = 2, EXCL_HV = 4, EXCL_GUEST = 8, EXCL_HOST = 16 };

struct answer {
	char name[EVENTS_NAME_MAX];
	bool parsed;			/* asked by the event parser, after every other resolver */
	int err;			/* 0, -ENOENT or -EINVAL */
	uint32_t type;
	uint64_t config[3];		/* config, config1, config2 */
	unsigned excludes;		/* EXCL_* */
	char why[PFM_ANSWER_WHY_MAX];	/* -EINVAL: libpfm4's reason */
};

static struct {
	unsigned long long env;		/* answers_env_hash() when they were given */
	struct answer a[PFM_ANSWERS_MAX];
} answers;

int pfm_answers_kept;

extern char **environ;

/*
 * FNV-1a over the LIBPFM_* variables, which change libpfm4's answers, and
 * the roots the parser reads sysfs and tracefs under (a parsed answer says
 * they knew no such name: pfm_answer_parsed()), in their order.
 */
static unsigned long long answers_env_hash(void)
{
	unsigned long long h = 0xcbf29ce484222325ull;

	for (char **e = environ; e && *e; e++) {
		if (strncmp(*e, "LIBPFM_", 7) && strncmp(*e, "PFSHIM_SYSFS_ROOT=", 18) &&
		    strncmp(*e, "PFSHIM_TRACEFS_ROOT=", 20))
			continue;
		for (const char *c = *e; *c; c++)
			h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
		h = (h ^ '\n') * 0x100000001b3ull;
	}
	return h;
}

static struct answer *answer_lookup(const char *name)
{
	for (int i = 0; i < pfm_answers_kept; i++)
		if (!strcmp(answers.a[i].name, name))
			return &answers.a[i];
	return NULL;
}

/* @name's answer, if any holds here. */
static struct answer *answer_holding(const char *name)
{
	return pfm_answers_kept && answers.env == answers_env_hash() ? answer_lookup(name) : NULL;
}

int pfm_answer_find(const char *name, struct perf_event_attr *attr, const char **why)
{
	const struct answer *a = answer_holding(name);

	*why = NULL;
	if (!a)
		return -ESRCH;
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	if (a->err == -EINVAL)
		*why = a->why;
	if (a->err)
		return a->err;
	attr->type = a->type;
	attr->config = a->config[0];
	attr->config1 = a->config[1];
	attr->config2 = a->config[2];
	attr->exclude_user = !!(a->excludes & EXCL_USER);
	attr->exclude_kernel = !!(a->excludes & EXCL_KERNEL);
	attr->exclude_hv = !!(a->excludes & EXCL_HV);
	attr->exclude_guest = !!(a->excludes & EXCL_GUEST);
	attr->exclude_host = !!(a->excludes & EXCL_HOST);
	return 0;
}

void pfm_answer_keep(const char *name, int err, const struct perf_event_attr *attr,
		     const char *why)
{
	unsigned long long env = answers_env_hash();
	struct answer *a;

	if (err != 0 && err != -ENOENT && err != -EINVAL)
		return;
	if (pfm_answers_kept && answers.env != env)
		pfm_answers_kept = 0;	/* another libpfm4 configuration: those no longer hold */
	answers.env = env;
	if (strlen(name) >= sizeof(a->name) || answer_lookup(name) ||
	    pfm_answers_kept >= PFM_ANSWERS_MAX)
		return;
	a = &answers.a[pfm_answers_kept++];
	memset(a, 0, sizeof(*a));
	strcpy(a->name, name);
	a->err = err;
	if (err == -EINVAL && why)
		snprintf(a->why, sizeof(a->why), "%s", why);
	if (err)
		return;
	a->type = attr->type;
	a->config[0] = attr->config;
	a->config[1] = attr->config1;
	a->config[2] = attr->config2;
	a->excludes = (attr->exclude_user ? EXCL_USER : 0) | (attr->exclude_kernel ? EXCL_KERNEL : 0) |
		      (attr->exclude_hv ? EXCL_HV : 0) | (attr->exclude_guest ? EXCL_GUEST : 0) |
		      (attr->exclude_host ? EXCL_HOST : 0);
}

void pfm_answer_mark_parsed(const char *name)
{
	struct answer *a = answer_holding(name);

	if (a)
		a->parsed = true;
}

bool pfm_answer_parsed(const char *name)
{
	const struct answer *a = answer_holding(name);

	return a && a->parsed;
}

void pfm_answers_clear(void)
{
	pfm_answers_kept = 0;
}

size_t pfm_answers_size(void)
{
	/* Header: version, pid and hash; an entry: its name, its length's digits,
	 * and the longer of five hexadecimal fields and a reason. */
	size_t size = pfm_answers_kept ? 64 : 0;

	for (int i = 0; i < pfm_answers_kept; i++)
		size += strlen(answers.a[i].name) + 8 + 3 * 17 + 16 + PFM_ANSWER_WHY_MAX;
	return size;
}

int pfm_answers_format(pid_t pid, char *buf, size_t size)
{
	size_t len = 0;
	int n;

	if (!pfm_answers_kept)
		return 0;
	n = snprintf(buf, size, "%d;%d;%llx;", ANSWERS_VERSION, (int)pid, answers.env);
	for (int i = 0; n >= 0 && (size_t)n < size - len && i < pfm_answers_kept; i++) {
		const struct answer *a = &answers.a[i];

		len += (size_t)n;
		n = snprintf(buf + len, size - len, "%zu:%s%s", strlen(a->name), a->name,
			     a->parsed ? "+" : "");
		if (n < 0 || (size_t)n >= size - len)
			break;
		len += (size_t)n;
		if (a->err == 0)
			n = snprintf(buf + len, size - len, "=%x,%llx,%llx,%llx,%x;", a->type,
				     (unsigned long long)a->config[0],
				     (unsigned long long)a->config[1],
				     (unsigned long long)a->config[2], a->excludes);
		else if (a->err == -ENOENT)
			n = snprintf(buf + len, size - len, "?;");
		else
			n = snprintf(buf + len, size - len, "!%zu:%s;", strlen(a->why), a->why);
	}
	if (n < 0 || (size_t)n >= size - len)
		return -1;
	return (int)(len + (size_t)n);
}

/* ---- reading a value ------------------------------------------------------ */

/* A number in @base up to @end (one of @ends), at most @max; false when it is not one. */
static bool number(const char **p, int base, const char *ends, unsigned long long max,
		   unsigned long long *out)
{
	const char *c = *p;
	unsigned long long v = 0;
	int d;

	for (; *c && !strchr(ends, *c); c++) {
		if (*c >= '0' && *c <= '9')
			d = *c - '0';
		else if (base == 16 && *c >= 'a' && *c <= 'f')
			d = *c - 'a' + 10;
		else
			return false;
		if (v > (max - (unsigned long long)d) / (unsigned long long)base)
			return false;
		v = v * (unsigned long long)base + (unsigned long long)d;
	}
	if (c == *p || !*c)
		return false;
	*out = v;
	*p = c + 1;		/* past its end */
	return true;
}

/* "LEN:TEXT" into @out (@size with its NUL); false when it is not one. */
static bool counted(const char **p, char *out, size_t size)
{
	unsigned long long len;

	if (!number(p, 10, ":", size - 1, &len) || len == 0 || strnlen(*p, len) < len)
		return false;
	if (out) {
		memcpy(out, *p, len);
		out[len] = '\0';
	}
	*p += len;
	return true;
}

/* One entry at *@p into @a (NULL: only checked). */
static bool entry_read(const char **p, struct answer *a)
{
	struct answer scratch;
	unsigned long long v[5];

	if (!a)
		a = &scratch;
	memset(a, 0, sizeof(*a));
	if (!counted(p, a->name, sizeof(a->name)))
		return false;
	a->parsed = **p == '+';
	*p += a->parsed;
	switch (*(*p)++) {
	case '=':
		if (!number(p, 16, ",", UINT32_MAX, &v[0]) || !number(p, 16, ",", UINT64_MAX, &v[1]) ||
		    !number(p, 16, ",", UINT64_MAX, &v[2]) || !number(p, 16, ",", UINT64_MAX, &v[3]) ||
		    !number(p, 16, ";", EXCL_USER | EXCL_KERNEL | EXCL_HV | EXCL_GUEST | EXCL_HOST,
			    &v[4]))
			return false;
		a->type = (uint32_t)v[0];
		a->config[0] = v[1];
		a->config[1] = v[2];
		a->config[2] = v[3];
		a->excludes = (unsigned)v[4];
		return true;
	case '?':
		a->err = -ENOENT;
		return *(*p)++ == ';';
	case '!':
		a->err = -EINVAL;
		return counted(p, a->why, sizeof(a->why)) && *(*p)++ == ';';
	default:
		return false;
	}
}

/* The entries of @text after its header into the table (@keep), or only checked. */
static bool entries_read(const char *p, bool keep)
{
	int nr = 0;

	for (; *p; nr++) {
		if (nr >= PFM_ANSWERS_MAX || !entry_read(&p, keep ? &answers.a[nr] : NULL))
			return false;
	}
	if (keep)
		pfm_answers_kept = nr;
	return true;
}

int pfm_answers_take(const char *text, pid_t pid)
{
	unsigned long long version, from, env;
	const char *p = text;

	if (!p || !number(&p, 10, ";", 1000, &version) || version != ANSWERS_VERSION ||
	    !number(&p, 10, ";", INT32_MAX, &from) || from != (unsigned long long)pid ||
	    !number(&p, 16, ";", UINT64_MAX, &env) || env != answers_env_hash() ||
	    !entries_read(p, false))
		return -EINVAL;
	answers.env = env;
	entries_read(p, true);
	return 0;
}
