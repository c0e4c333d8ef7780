/*
 * events.c: parses perf's event syntax ("cycles:u,{instructions,branches},
 * cpu/event=0x3c/,r01c2") into perf_event_attr specifications.
 * One pass over the text, linear in its length, so a megabyte of garbage in
 * PFSHIM_EVENTS costs milliseconds; every problem is one sentence through the
 * caller's warn function (at most WARN_MAX of them, then one summary) and the
 * item is skipped, so one typo does not cost the whole measurement.
 */
#include "preload/events/events.h"
#include "preload/events/builtin.h"
#include "preload/events/pmu.h"
#include "preload/events/pmu_catalog.h"
#include "preload/events/suggest.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WARN_MAX 8
#define MSG_MAX 512
#define EXCERPT_MAX 32
#define ALIAS_MAX 256
#define PMU_CACHE 4

#define MOD_U 1u
#define MOD_K 2u
#define MOD_H 4u

struct parser {
	const char *root;
	struct event_list *out;
	events_warn_fn warn;
	void *ctx;
	int warned;		/* messages passed to warn */
	int suppressed;		/* problems beyond WARN_MAX */
	int dropped;		/* events beyond EVENTS_MAX */
	unsigned char mods[EVENTS_MAX];	/* MOD_* each event was given */
	struct pmu_catalog cat;
	int nr_descs, next_desc;
	/* PMUs named so far, round robin: PMU_CACHE of them (23 KiB), allocated
	 * when the first PMU is named, so that a list of built-in names leaves
	 * no 23 KiB of zeroed stack resident. */
	struct pmu_desc *descs;
};

static int parser_quiet(const struct parser *p)
{
	return p->warned >= WARN_MAX;
}

__attribute__((format(printf, 2, 3)))
static void parser_warn(struct parser *p, const char *fmt, ...)
{
	char msg[MSG_MAX];
	va_list ap;

	if (parser_quiet(p)) {
		p->suppressed++;
		return;
	}
	p->warned++;
	if (!p->warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	p->warn(p->ctx, msg);
}

/* A printable, bounded copy of user text for a message. */
static const char *excerpt(char *buf, const char *s, size_t len)
{
	size_t n = len < EXCERPT_MAX ? len : EXCERPT_MAX;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		buf[i] = (c >= 0x20 && c < 0x7f && c != '\'') ? (char)c : '?';
	}
	strcpy(buf + n, len > n ? "..." : "");
	return buf;
}

/* The description of @pmu, read at most once per parse while it stays cached. */
static const struct pmu_desc *parser_pmu(struct parser *p, const char *pmu, int *err)
{
	struct pmu_desc *d;

	*err = 0;
	for (int i = 0; i < p->nr_descs; i++)
		if (!strcmp(p->descs[i].name, pmu))
			return &p->descs[i];
	if (!p->descs && !(p->descs = calloc(PMU_CACHE, sizeof(*p->descs)))) {
		*err = -ENOMEM;
		return NULL;
	}
	pmu_catalog_load(&p->cat, p->root);
	if (pmu_catalog_has_pmu(&p->cat, pmu) == 0) {
		*err = -ENOENT;
		return NULL;
	}
	d = &p->descs[p->next_desc];
	*err = pmu_desc_load(p->root, pmu, d);
	if (*err)
		return NULL;
	p->next_desc = (p->next_desc + 1) % PMU_CACHE;
	if (p->nr_descs < PMU_CACHE)
		p->nr_descs++;
	return d;
}

/* ---- modifiers -------------------------------------------------------- */

static int mods_parse(const char *text, unsigned *mods)
{
	unsigned m = 0;

	if (!*text)
		return -EINVAL;
	for (const char *s = text; *s; s++) {
		switch (*s) {
		case 'u': m |= MOD_U; break;
		case 'k': m |= MOD_K; break;
		case 'h': m |= MOD_H; break;
		default: return -EINVAL;
		}
	}
	*mods = m;
	return 0;
}

/* perf semantics: naming some of u/k/h excludes the ones not named. */
static void mods_apply(struct event_spec *spec, unsigned mods)
{
	spec->attr.exclude_user = !(mods & MOD_U);
	spec->attr.exclude_kernel = !(mods & MOD_K);
	spec->attr.exclude_hv = !(mods & MOD_H);
	spec->modifiers = true;
}

static int item_mods(struct parser *p, const char *item, const char *text, unsigned *mods)
{
	if (!mods_parse(text, mods))
		return 0;
	parser_warn(p, "bad modifier '%s' in '%s': pfshim accepts u, k and h "
		    "(e.g. 'cycles:u'); the event is skipped", text, item);
	return -EINVAL;
}

/* ---- PMU terms -------------------------------------------------------- */

static int value_parse(const char *s, uint64_t *value)
{
	uint64_t v = 0;
	int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');

	if (hex)
		s += 2;
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (hex && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (hex && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return -EINVAL;
		if (v > (UINT64_MAX - d) / (hex ? 16 : 10))
			return -ERANGE;
		v = v * (hex ? 16 : 10) + d;
	}
	*value = v;
	return 0;
}

static void trim(char **s)
{
	char *b = *s, *e;

	while (*b == ' ')
		b++;
	e = b + strlen(b);
	while (e > b && e[-1] == ' ')
		*--e = '\0';
	*s = b;
}

struct pmu_ctx {
	struct parser *p;
	const char *item;
	const char *pmu;
	const struct pmu_desc *desc;
	struct event_spec *spec;
	const char *alias;	/* the events/ name used, for .scale/.unit */
};

static int pmu_terms_apply(struct pmu_ctx *pc, char *terms, int depth);

/* config=, config1=, config2= write the whole field, as in perf. */
static __u64 *pmu_whole_field(struct perf_event_attr *attr, const char *key)
{
	if (!strcmp(key, "config"))
		return &attr->config;
	if (!strcmp(key, "config1"))
		return &attr->config1;
	if (!strcmp(key, "config2"))
		return &attr->config2;
	return NULL;
}

static int pmu_value_parse(struct pmu_ctx *pc, const char *key, const char *val,
			   uint64_t *value)
{
	if (!value_parse(val, value))
		return 0;
	parser_warn(pc->p, "bad value '%s' for term '%s' in '%s' (write a decimal or 0x hex "
		    "number); the event is skipped", val, key, pc->item);
	return -EINVAL;
}

static void pmu_term_unknown(struct pmu_ctx *pc, const char *key, int has_value)
{
	struct parser *p = pc->p;
	struct suggest s;
	char hint[EVENTS_NAME_MAX + 32];

	suggest_init(&s, key);
	if (!parser_quiet(p)) {
		suggest_consider(&s, "config");
		suggest_consider(&s, "config1");
		suggest_consider(&s, "config2");
		for (int i = 0; i < pc->desc->nr_formats; i++)
			suggest_consider(&s, pc->desc->formats[i].term);
		if (!has_value)
			for (int i = 0; i < p->cat.nr_events; i++)
				if (!strcmp(p->cat.events[i].pmu, pc->pmu))
					suggest_consider(&s, p->cat.events[i].name);
	}
	if (has_value)
		parser_warn(p, "unknown format term '%s' for PMU '%s' in '%s'%s; the event is skipped",
			    key, pc->pmu, pc->item, suggest_text(&s, hint, sizeof(hint)));
	else
		parser_warn(p, "PMU '%s' has no event or term '%s' in '%s'%s; the event is skipped",
			    pc->pmu, key, pc->item, suggest_text(&s, hint, sizeof(hint)));
}

/* A bare word between the slashes names an alias in events/; its terms apply
 * in place, and may not name further aliases (depth 1). */
static int pmu_alias_apply(struct pmu_ctx *pc, const char *name)
{
	char alias[ALIAS_MAX];
	int err = -ENOENT;

	if (pmu_catalog_has_alias(&pc->p->cat, pc->pmu, name) != 0)
		err = pmu_alias_read(pc->p->root, pc->pmu, name, alias, sizeof(alias));

	if (err == -ENAMETOOLONG) {
		parser_warn(pc->p, "the sysfs alias %s/events/%s is longer than pfshim reads "
			    "(%d bytes); '%s' is skipped", pc->pmu, name, ALIAS_MAX - 1, pc->item);
		return err;
	}
	if (err) {
		pmu_term_unknown(pc, name, 0);
		return err;
	}
	pc->alias = name;
	return pmu_terms_apply(pc, alias, 1);
}

static int pmu_format_apply(struct pmu_ctx *pc, const char *key, const char *val,
			    const struct pmu_format *fmt)
{
	uint64_t value = 1;	/* perf: a term without a value ("inv") means 1 */
	int err;

	if (val && pmu_value_parse(pc, key, val, &value))
		return -EINVAL;
	err = pmu_format_deposit(fmt, value, &pc->spec->attr);
	if (err == -ERANGE)
		parser_warn(pc->p, "value %s of term '%s' is too wide for PMU '%s' (format %s holds "
			    "%d bits) in '%s'; the event is skipped", val ? val : "1", key,
			    pc->pmu, fmt->spec, pmu_format_width(fmt), pc->item);
	return err;
}

static int pmu_term_apply(struct pmu_ctx *pc, char *term, int depth)
{
	struct parser *p = pc->p;
	char *val = strchr(term, '=');
	const struct pmu_format *fmt;
	__u64 *whole;
	int err;

	if (val) {
		*val++ = '\0';
		trim(&term);
		trim(&val);
	}
	if (!*term || (val && !*val)) {
		parser_warn(p, "empty term in '%s' (write pmu/term=value,.../); the event is skipped",
			    pc->item);
		return -EINVAL;
	}
	whole = val ? pmu_whole_field(&pc->spec->attr, term) : NULL;
	if (whole) {
		uint64_t value;

		if (pmu_value_parse(pc, term, val, &value))
			return -EINVAL;
		*whole = value;
		return 0;
	}
	err = pmu_desc_format(pc->desc, term, &fmt);
	if (!err)
		return pmu_format_apply(pc, term, val, fmt);
	if (err != -ENOENT) {
		parser_warn(p, "PMU '%s' has a malformed format file for term '%s' (in %s); '%s' "
			    "is skipped", pc->pmu, term, p->root, pc->item);
		return err;
	}
	if (!val && depth == 0)
		return pmu_alias_apply(pc, term);
	pmu_term_unknown(pc, term, val != NULL);
	return -ENOENT;
}

static int pmu_terms_apply(struct pmu_ctx *pc, char *terms, int depth)
{
	char *save = NULL;
	char *term;
	size_t len = strlen(terms);

	if (len == 0 || terms[0] == ',' || terms[len - 1] == ',' || strstr(terms, ",,")) {
		parser_warn(pc->p, "empty term in '%s' (write pmu/term=value,.../); the event is "
			    "skipped", pc->item);
		return -EINVAL;
	}
	for (term = strtok_r(terms, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
		int err;

		trim(&term);
		err = pmu_term_apply(pc, term, depth);
		if (err)
			return err;
	}
	return 0;
}

static void pmu_unknown(struct parser *p, const char *pmu, const char *item)
{
	struct suggest s;
	char hint[EVENTS_NAME_MAX + 32];

	pmu_catalog_load(&p->cat, p->root);
	suggest_init(&s, pmu);
	if (!parser_quiet(p))
		for (int i = 0; i < p->cat.nr_pmus; i++)
			suggest_consider(&s, p->cat.pmus[i]);
	if (s.name[0])
		parser_warn(p, "unknown PMU '%s' in '%s'%s; the event is skipped", pmu, item,
			    suggest_text(&s, hint, sizeof(hint)));
	else
		parser_warn(p, "unknown PMU '%s' in '%s': no such directory in %s; the event "
			    "is skipped", pmu, item, p->root);
}

/* Resolve <pmu>/<terms>/ into @spec (type from sysfs, config bits from format/). */
static int pmu_resolve(struct parser *p, const char *item, const char *pmu, char *terms,
		       struct event_spec *spec)
{
	struct pmu_ctx pc = { .p = p, .item = item, .pmu = pmu, .spec = spec };
	int err;

	if (!pmu_name_valid(pmu)) {
		parser_warn(p, "bad PMU name '%s' in '%s'; the event is skipped", pmu, item);
		return -EINVAL;
	}
	pc.desc = parser_pmu(p, pmu, &err);
	if (err == -ENOENT) {
		pmu_unknown(p, pmu, item);
		return err;
	}
	if (err == -ENOMEM) {
		parser_warn(p, "no memory to describe PMU '%s'; '%s' is skipped", pmu, item);
		return err;
	}
	if (err) {
		parser_warn(p, "PMU '%s' has an unreadable type file in %s (%s); '%s' is skipped",
			    pmu, p->root, strerror(-err), item);
		return err;
	}
	spec->attr.type = pc.desc->type;
	err = pmu_terms_apply(&pc, terms, 0);
	if (err)
		return err;
	if (pc.alias)
		pmu_alias_display(p->root, pmu, pc.alias, &spec->scale, spec->unit,
				  sizeof(spec->unit));
	return 0;
}

/* "pmu/terms/" with optional modifiers after the closing slash ("/u" or "/:u"). */
static int item_parse_pmu(struct parser *p, char *buf, const char *item,
			  struct event_spec *spec, unsigned *mods)
{
	char *slash1 = strchr(buf, '/');
	char *slash2 = strchr(slash1 + 1, '/');
	char *rest;
	int has_colon;

	if (!slash2) {
		parser_warn(p, "missing closing '/' in '%s' (write pmu/term=value,.../); the "
			    "event is skipped", item);
		return -EINVAL;
	}
	*slash1 = '\0';
	*slash2 = '\0';
	rest = slash2 + 1;
	has_colon = *rest == ':';
	rest += has_colon;
	if (!buf[0]) {
		parser_warn(p, "missing PMU name before '/' in '%s'; the event is skipped", item);
		return -EINVAL;
	}
	if (strchr(rest, '/')) {
		parser_warn(p, "too many '/' in '%s' (write pmu/term=value,.../); the event is "
			    "skipped", item);
		return -EINVAL;
	}
	if ((*rest || has_colon) && item_mods(p, item, rest, mods))
		return -EINVAL;
	return pmu_resolve(p, item, buf, slash1 + 1, spec);
}

static int raw_parse(const char *name, uint64_t *config)
{
	size_t len = strlen(name);
	uint64_t v = 0;

	/* perf: 'r' then 1 to 16 hex digits, without 0x. */
	if (name[0] != 'r' || len < 2 || len > 17)
		return -ENOENT;
	for (size_t i = 1; i < len; i++) {
		char c = name[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			return -ENOENT;
		v = v << 4 | d;
	}
	*config = v;
	return 0;
}

static void name_unknown(struct parser *p, const char *name, const char *item)
{
	struct suggest s;
	char hint[EVENTS_NAME_MAX + 32];

	suggest_init(&s, name);
	if (!parser_quiet(p)) {
		event_builtin_names(suggest_consider, &s);
		for (int i = 0; i < p->cat.nr_events; i++)
			suggest_consider(&s, p->cat.events[i].name);
	}
	if (strcmp(name, item))
		parser_warn(p, "unknown event '%s' in '%s'%s; the event is skipped", name, item,
			    suggest_text(&s, hint, sizeof(hint)));
	else
		parser_warn(p, "unknown event '%s'%s; the event is skipped", name,
			    suggest_text(&s, hint, sizeof(hint)));
}

/* "name[:mods]": built-in name, raw rNNNN, or an alias some PMU lists in sysfs. */
static int item_parse_name(struct parser *p, char *buf, const char *item,
			   struct event_spec *spec, unsigned *mods)
{
	char *colon = strchr(buf, ':');
	struct event_builtin b;
	const char *why = NULL;
	const char *pmu;
	uint64_t config;
	int err;

	if (colon) {
		*colon = '\0';
		if (item_mods(p, item, colon + 1, mods))
			return -EINVAL;
	}
	if (!buf[0]) {
		parser_warn(p, "missing event name before ':' in '%s'; the event is skipped", item);
		return -EINVAL;
	}
	err = event_builtin_lookup(buf, &b, &why);
	if (!err) {
		spec->attr.type = b.type;
		spec->attr.config = b.config;
		spec->scale = b.scale;
		/* Not snprintf: the default events would fault in libc's printf code for it. */
		strncpy(spec->unit, b.unit, sizeof(spec->unit) - 1);
		return 0;
	}
	if (err == -EINVAL) {
		parser_warn(p, "unknown hardware-cache event '%s': that cache supports %s; the "
			    "event is skipped", buf, why);
		return err;
	}
	if (!raw_parse(buf, &config)) {
		spec->attr.type = PERF_TYPE_RAW;
		spec->attr.config = config;
		return 0;
	}
	pmu_catalog_load(&p->cat, p->root);
	pmu = pmu_catalog_find(&p->cat, buf);
	if (pmu) {
		char pmu_name[PMU_NAME_MAX], terms[EVENTS_NAME_MAX];

		snprintf(pmu_name, sizeof(pmu_name), "%s", pmu);
		snprintf(terms, sizeof(terms), "%s", buf);
		return pmu_resolve(p, item, pmu_name, terms, spec);
	}
	name_unknown(p, buf, item);
	return -ENOENT;
}

/* ---- items and the list ----------------------------------------------- */

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Parse one trimmed item; on success it becomes out->ev[out->nr++]. */
static void item_parse(struct parser *p, const char *text, size_t start, size_t len)
{
	struct event_list *out = p->out;
	const char *item = text + start;
	char buf[EVENTS_NAME_MAX], name[EVENTS_NAME_MAX], ex[EXCERPT_MAX + 4];
	struct event_spec *spec;
	unsigned mods = 0;
	int err;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)item[i];

		if (c < 0x20 || c >= 0x7f) {
			parser_warn(p, "non-printable byte 0x%02x at offset %zu of the event list "
				    "(in '%s'); the item is skipped", c, start + i,
				    excerpt(ex, item, len));
			return;
		}
	}
	if (len >= EVENTS_NAME_MAX) {
		parser_warn(p, "event '%s' is too long (%zu bytes, the limit is %d); the item is "
			    "skipped", excerpt(ex, item, len), len, EVENTS_NAME_MAX - 1);
		return;
	}
	if (out->nr >= EVENTS_MAX) {
		p->dropped++;
		return;
	}
	memcpy(name, item, len);
	name[len] = '\0';
	memcpy(buf, name, len + 1);
	spec = &out->ev[out->nr];
	memset(spec, 0, sizeof(*spec));
	memcpy(spec->name, name, len + 1);
	spec->attr.size = sizeof(spec->attr);
	spec->group = -1;
	spec->scale = 1.0;
	if (strchr(buf, '/'))
		err = item_parse_pmu(p, buf, name, spec, &mods);
	else
		err = item_parse_name(p, buf, name, spec, &mods);
	if (err)
		return;
	if (mods)
		mods_apply(spec, mods);
	p->mods[out->nr] = (unsigned char)mods;
	out->nr++;
}

/* Index just past an item: up to ',', '{' or '}' that is not between slashes. */
static size_t item_end(const char *text, size_t pos, size_t len)
{
	int in_terms = 0;

	for (; pos < len; pos++) {
		char c = text[pos];

		if (c == '/')
			in_terms = !in_terms;
		else if (!in_terms && (c == ',' || c == '{' || c == '}'))
			break;
	}
	return pos;
}

struct group_state {
	int open;
	int first;		/* out->nr when '{' was seen */
	size_t start;		/* offset of '{', for messages */
	int items;		/* items written inside, good or bad */
};

static void group_rename(struct event_spec *spec, const char *mods_text, int had_mods)
{
	char name[EVENTS_NAME_MAX];
	int n = snprintf(name, sizeof(name), "%s%s%s", spec->name, had_mods ? "" : ":",
			 mods_text);

	if (n > 0 && n < EVENTS_NAME_MAX)
		memcpy(spec->name, name, (size_t)n + 1);
}

/* Offset of the modifiers after a group's '}' ("{a,b}:u", "{a,b} : u"), or 0. */
static size_t group_mods_start(const char *text, size_t pos, size_t len)
{
	for (; pos < len && (is_space(text[pos]) || text[pos] == ':'); pos++) {
		if (text[pos] != ':')
			continue;
		for (pos++; pos < len && is_space(text[pos]); pos++)
			;
		return pos;
	}
	return 0;
}

/* After '}': optional ":mods" for every member, then the group gets its index. */
static size_t group_close(struct parser *p, struct group_state *g, const char *text,
			  size_t pos, size_t len)
{
	struct event_list *out = p->out;
	char mods_text[16] = "", ex[EXCERPT_MAX + 4], ex2[EXCERPT_MAX + 4];
	size_t mstart = group_mods_start(text, pos, len), group_len = pos - g->start;
	unsigned mods = 0;

	g->open = 0;
	if (mstart) {
		/* Whitespace is tolerated around items, so around a group's modifiers too. */
		for (pos = mstart; pos < len && text[pos] != ',' && text[pos] != '{' &&
		     text[pos] != '}' && !is_space(text[pos]); pos++)
			;
		if (pos - mstart < sizeof(mods_text)) {
			memcpy(mods_text, text + mstart, pos - mstart);
			mods_text[pos - mstart] = '\0';
		}
		if (pos - mstart >= sizeof(mods_text) || mods_parse(mods_text, &mods)) {
			parser_warn(p, "bad modifier '%s' after the group '%s': pfshim accepts u, k "
				    "and h (e.g. '{cycles,instructions}:u'); the group is skipped",
				    excerpt(ex, text + mstart, pos - mstart),
				    excerpt(ex2, text + g->start, group_len));
			out->nr = g->first;
			return pos;
		}
	}
	if (g->items == 0) {
		parser_warn(p, "empty group '{}' in the event list; it is skipped");
		return pos;
	}
	if (out->nr == g->first)
		return pos;	/* every member was bad and said so */
	for (int i = g->first; i < out->nr; i++) {
		out->ev[i].group = out->nr_groups;
		if (mods) {
			group_rename(&out->ev[i], mods_text, p->mods[i] != 0);
			p->mods[i] |= (unsigned char)mods;
			mods_apply(&out->ev[i], p->mods[i]);
		}
	}
	out->nr_groups++;
	return pos;
}

/* A '{' inside a group: skip to the brace that closes the outer one. */
static size_t group_skip_nested(struct parser *p, struct group_state *g, const char *text,
				size_t pos, size_t len)
{
	char ex[EXCERPT_MAX + 4];
	int depth = 2;	/* the group's own '{' and the nested one at @pos */

	parser_warn(p, "nested '{' in the group '%s': groups cannot contain groups; the "
		    "whole group is skipped", excerpt(ex, text + g->start, len - g->start));
	for (pos++; pos < len && depth > 0; pos++) {
		if (text[pos] == '{')
			depth++;
		else if (text[pos] == '}')
			depth--;
	}
	if (pos < len && text[pos] == ':')
		while (pos < len && text[pos] != ',')
			pos++;
	p->out->nr = g->first;
	g->open = 0;
	return pos;
}

static void list_parse(struct parser *p, const char *text)
{
	size_t len = strlen(text), pos = 0;
	struct group_state g = { 0 };
	int need_item = 0;	/* just after ',' */
	int after_value = 0;	/* just after an item or a '}' */
	int started = 0;
	int after_open = 0;	/* just after '{' */
	char ex[EXCERPT_MAX + 4];

	while (pos < len) {
		char c = text[pos];

		if (is_space(c)) {
			pos++;
			continue;
		}
		if (after_value && c != ',' && c != '}') {
			parser_warn(p, "missing ',' before '%s' in the event list; read as if "
				    "it were there", excerpt(ex, text + pos, len - pos));
		}
		after_value = 0;
		if (c == ',') {
			if (need_item || !started || after_open)
				parser_warn(p, "empty item in the event list (two commas in a row, or "
					    "a comma at the start or right after '{'); skipped");
			need_item = 1;
			started = 1;
			after_open = 0;
			pos++;
			continue;
		}
		started = 1;
		if (c == '{') {
			if (g.open) {
				pos = group_skip_nested(p, &g, text, pos, len);
				after_value = 1;
			} else {
				g = (struct group_state){ .open = 1, .first = p->out->nr,
							  .start = pos };
				after_open = 1;
				pos++;
			}
			need_item = 0;
			continue;
		}
		after_open = 0;
		if (c == '}') {
			if (need_item)
				parser_warn(p, "empty item before '}' in the event list; skipped");
			need_item = 0;
			if (!g.open) {
				parser_warn(p, "unbalanced '}' at offset %zu of the event list (no '{' "
					    "before it); ignored", pos);
				pos++;
				continue;
			}
			pos = group_close(p, &g, text, pos + 1, len);
			after_value = 1;
			continue;
		}
		{
			size_t end = item_end(text, pos, len), e = end;

			while (e > pos && is_space(text[e - 1]))
				e--;
			item_parse(p, text, pos, e - pos);
			if (g.open)
				g.items++;
			pos = end;
			need_item = 0;
			after_value = 1;
		}
	}
	if (need_item)
		parser_warn(p, "empty item at the end of the event list (a trailing ','); skipped");
	if (g.open) {
		parser_warn(p, "unbalanced '{': the group '%s' is never closed; its events are "
			    "skipped", excerpt(ex, text + g.start, len - g.start));
		p->out->nr = g.first;
	}
}

int events_parse(const char *text, const char *sysfs_root, struct event_list *out,
		 events_warn_fn warn, void *ctx)
{
	struct parser p = {
		.root = sysfs_root ? sysfs_root : PMU_SYSFS_ROOT,
		.out = out, .warn = warn, .ctx = ctx,
	};

	/* Not all 18 KiB: item_parse() clears each entry it fills, and none past nr is read. */
	memset(out, 0, offsetof(struct event_list, ev));
	if (text)
		list_parse(&p, text);
	if (p.dropped)
		parser_warn(&p, "too many events: the first %d are kept and %d more are skipped "
			    "(the limit is %d)", EVENTS_MAX, p.dropped, EVENTS_MAX);
	if (p.suppressed) {
		char msg[96];

		snprintf(msg, sizeof(msg), "... and %d more problems in the event list",
			 p.suppressed);
		if (warn)
			warn(ctx, msg);
	}
	pmu_catalog_free(&p.cat);
	free(p.descs);
	return out->nr;
}
