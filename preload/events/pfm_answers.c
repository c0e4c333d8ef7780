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
#include <unistd.h>	/* environ */

#include "preload/events/spec.h"	/* EVENTS_NAME_MAX */

#define ANSWERS_VERSION 1

enum { EXCL_USER = 1, EXCL_KERNEL = 2, EXCL_HV = 4, EXCL_GUEST = 8, EXCL_HOST = 16 };

struct answer {
	char name[EVENTS_NAME_MAX];
	bool parsed;			/* asked by the parser, after the other resolvers */
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

/*
 * What else decides the answers: the LIBPFM_* variables, which libpfm4
 * reads itself, and the roots the parser reads sysfs and tracefs under (a
 * parsed answer says they knew no such name: pfm_answer_parsed()). A sum
 * of each one's FNV-1a, so that their order does not count (bash exports
 * its variables in an order of its own).
 */
static unsigned long long answers_env_hash(void)
{
	unsigned long long sum = 0;

	for (char **e = environ; e && *e; e++) {
		unsigned long long h = 0xcbf29ce484222325ull;

		if (strncmp(*e, "LIBPFM_", 7) && strncmp(*e, "PFSHIM_SYSFS_ROOT=", 18) &&
		    strncmp(*e, "PFSHIM_TRACEFS_ROOT=", 20))
			continue;
		for (const char *c = *e; *c; c++)
			h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
		sum += h;
	}
	return sum;
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
		pfm_answers_kept = 0;	/* another libpfm4 set-up: they no longer hold */
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
	a->excludes = (attr->exclude_user ? EXCL_USER : 0) |
		      (attr->exclude_kernel ? EXCL_KERNEL : 0) | (attr->exclude_hv ? EXCL_HV : 0) |
		      (attr->exclude_guest ? EXCL_GUEST : 0) | (attr->exclude_host ? EXCL_HOST : 0);
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

/*
 * The value is written by hand, not with snprintf(): an exec may be called
 * from a signal handler, or in a vfork()ed child, and this runs there.
 */
struct out {
	char *buf;
	size_t size, len;	/* len may pass size: what it would take */
};

static void put_char(struct out *o, char c)
{
	if (o->len < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void put_text(struct out *o, const char *text)
{
	while (*text)
		put_char(o, *text++);
}

static void put_number(struct out *o, unsigned long long v, unsigned base)
{
	char digits[24];
	int n = 0;

	do {
		digits[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (n)
		put_char(o, digits[--n]);
}

/* "LEN:TEXT", as counted() reads it. */
static void put_counted(struct out *o, const char *text)
{
	put_number(o, strlen(text), 10);
	put_char(o, ':');
	put_text(o, text);
}

/* The whole value into @o; o->len is its length. */
static void answers_put(struct out *o, pid_t pid)
{
	put_number(o, ANSWERS_VERSION, 10);
	put_char(o, ';');
	put_number(o, (unsigned long long)pid, 10);
	put_char(o, ';');
	put_number(o, answers.env, 16);
	put_char(o, ';');
	for (int i = 0; i < pfm_answers_kept; i++) {
		const struct answer *a = &answers.a[i];

		put_counted(o, a->name);
		if (a->parsed)
			put_char(o, '+');
		if (a->err == 0) {
			put_char(o, '=');
			put_number(o, a->type, 16);
			for (int c = 0; c < 3; c++) {
				put_char(o, ',');
				put_number(o, a->config[c], 16);
			}
			put_char(o, ',');
			put_number(o, a->excludes, 16);
		} else if (a->err == -ENOENT) {
			put_char(o, '?');
		} else {
			put_char(o, '!');
			put_counted(o, a->why);
		}
		put_char(o, ';');
	}
}

size_t pfm_answers_size(void)
{
	struct out o = { NULL, 0, 0 };

	if (!pfm_answers_kept)
		return 0;
	answers_put(&o, INT32_MAX);	/* the longest pid */
	return o.len + 1;
}

int pfm_answers_format(pid_t pid, char *buf, size_t size)
{
	struct out o = { buf, size, 0 };

	if (!pfm_answers_kept)
		return 0;
	answers_put(&o, pid);
	if (o.len >= size)
		return -1;
	buf[o.len] = '\0';
	return (int)o.len;
}

/* ---- reading a value ------------------------------------------------------ */

/* A number in @base up to one of @ends, at most @max, then past that end; false when none. */
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

/*
 * "LEN:TEXT" into @out (@size with its NUL); false when it is not one, or
 * holds a control byte: a reason is printed in a warning, and a name never
 * holds one (the parser refuses it).
 */
static bool counted(const char **p, char *out, size_t size)
{
	unsigned long long len;

	if (!number(p, 10, ":", size - 1, &len) || len == 0 || strnlen(*p, len) < len)
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)(*p)[i] < 0x20 || (*p)[i] == 0x7f)
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
		if (!number(p, 16, ",", UINT32_MAX, &v[0]) ||
		    !number(p, 16, ",", UINT64_MAX, &v[1]) ||
		    !number(p, 16, ",", UINT64_MAX, &v[2]) ||
		    !number(p, 16, ",", UINT64_MAX, &v[3]) ||
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
