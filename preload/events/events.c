/*
 * events.c: the driver of the parser. perf's event syntax ("cycles:u,
 * {instructions,branches},cpu/event=0x3c/,r01c2") becomes perf_event_attr
 * specifications in two phases: syntax.c yields one item at a time, and
 * each is resolved at once, by the first source that knows its name:
 * built-in names, then raw rNNNN (builtin.c), then sysfs (sysfs.c, read
 * only from the first name that is not built in), then libpfm4's vendor
 * names (pfm.c, loaded only by a name none of the others knows). Every
 * problem is one sentence through the caller's warn function (diag.c), and
 * the item is skipped, so one typo does not cost the whole measurement.
 */
#include "preload/events/events.h"
#include "preload/events/builtin.h"
#include "preload/events/diag.h"
#include "preload/events/pfm.h"
#include "preload/events/syntax.h"
#include "preload/events/sysfs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(((struct syntax_item *)0)->name) == sizeof(((struct event_spec *)0)->name),
	       "an item fits an event's name");

struct parser {
	struct event_list *out;
	struct diag diag;
	struct sysfs_names sysfs;
	struct pfm_names pfm;
	int dropped;		/* events beyond EVENTS_MAX */
	int first;		/* out->nr when the open group began */
	unsigned char mods[EVENTS_MAX];	/* SYNTAX_MOD_* each event was given */
};

/* perf semantics: naming some of u/k/h excludes the ones not named. */
static void mods_apply(struct event_spec *spec, unsigned mods)
{
	spec->attr.exclude_user = !(mods & SYNTAX_MOD_U);
	spec->attr.exclude_kernel = !(mods & SYNTAX_MOD_K);
	spec->attr.exclude_hv = !(mods & SYNTAX_MOD_H);
	spec->modifiers = true;
}

/* @name is known to no resolver; @pfm_err is what libpfm4 said (-ENOSYS: not loadable). */
static void name_unknown(struct parser *p, const char *name, const char *item, int pfm_err)
{
	struct suggest s;

	suggest_init(&s, name);
	if (!diag_quiet(&p->diag)) {
		event_builtin_names(suggest_consider, &s);
		sysfs_alias_names(&p->sysfs, suggest_consider, &s);
	}
	/* Without libpfm4 any unknown name may be a vendor one: say what to install,
	 * unless a close built-in or sysfs name makes a typo likelier. */
	if (pfm_err == -ENOSYS && !s.name[0]) {
		if (strcmp(name, item))
			diag_warn(&p->diag, "unknown event '%s' in '%s' (%s); the event is skipped",
				  name, item, pfm_names_why(&p->pfm));
		else
			diag_warn(&p->diag, "unknown event '%s' (%s); the event is skipped", name,
				  pfm_names_why(&p->pfm));
		return;
	}
	if (strcmp(name, item))
		diag_unknown(&p->diag, &s, "unknown event '%s' in '%s'", name, item);
	else
		diag_unknown(&p->diag, &s, "unknown event '%s'", name);
}

/* Does a resolver before libpfm4 know @name? Then "cycles:x" is a bad modifier. */
static bool name_known(struct parser *p, const char *name)
{
	struct event_builtin b;
	const char *why;
	uint64_t config;
	int err = event_builtin_lookup(name, &b, &why);

	return err != -ENOENT || !event_raw_parse(name, &config) ||
	       sysfs_alias_known(&p->sysfs, name);
}

/* A vendor name, or a known name with a bad modifier ("cycles:x"). */
static int vendor_resolve(struct parser *p, const struct syntax_item *it, struct event_spec *spec)
{
	int err;

	if (name_known(p, it->event)) {
		syntax_bad_modifier(&p->diag, it->name, it->tail);
		return -EINVAL;
	}
	err = pfm_resolve(&p->pfm, it->name, it->vendor, spec);
	if (err == -ENOENT || err == -ENOSYS)
		name_unknown(p, it->vendor, it->name, err);
	return err;
}

/* A name: built in, raw, an alias some PMU lists in sysfs, or libpfm4's, in that order. */
static int name_resolve(struct parser *p, const struct syntax_item *it, struct event_spec *spec)
{
	struct event_builtin b;
	const char *why = NULL;
	uint64_t config;
	int err;

	if (it->vendor)
		return vendor_resolve(p, it, spec);
	err = event_builtin_lookup(it->event, &b, &why);
	if (!err) {
		spec->attr.type = b.type;
		spec->attr.config = b.config;
		spec->scale = b.scale;
		spec->kind = b.kind;
		/* Not snprintf: the default events would fault in libc's printf code for it. */
		strncpy(spec->unit, b.unit, sizeof(spec->unit) - 1);
		return 0;
	}
	if (err == -EINVAL) {
		diag_warn(&p->diag, "unknown hardware-cache event '%s': that cache supports %s; "
			  "the event is skipped", it->event, why);
		return err;
	}
	if (!event_raw_parse(it->event, &config)) {
		spec->attr.type = PERF_TYPE_RAW;
		spec->attr.config = config;
		spec->kind = REPORT_KIND_RAW;
		return 0;
	}
	err = sysfs_resolve_alias(&p->sysfs, it->name, it->event, spec);
	if (err != -ENOENT)
		return err;
	err = pfm_resolve(&p->pfm, it->name, it->event, spec);
	if (err == -ENOENT || err == -ENOSYS)
		name_unknown(p, it->event, it->name, err);
	return err;
}

/* One item: split, resolved, and on success out->ev[out->nr++]. */
static void item_add(struct parser *p, struct syntax *s, struct syntax_item *it)
{
	struct event_list *out = p->out;
	struct event_spec *spec;
	int err;

	if (out->nr >= EVENTS_MAX) {
		p->dropped++;
		return;
	}
	if (syntax_item_split(s, it))
		return;
	spec = &out->ev[out->nr];
	memset(spec, 0, sizeof(*spec));
	memcpy(spec->name, it->name, it->len + 1);
	spec->attr.size = sizeof(spec->attr);
	spec->group = -1;
	spec->scale = 1.0;
	if (it->pmu)
		err = sysfs_resolve_pmu(&p->sysfs, it->name, it->pmu, it->terms, spec);
	else
		err = name_resolve(p, it, spec);
	if (err)
		return;
	if (it->mods)
		mods_apply(spec, it->mods);	/* libpfm4's u=/k=/h= too are overridden */
	p->mods[out->nr] = (unsigned char)it->mods;
	out->nr++;
}

/* "branches:k" in "{...}:u" becomes "branches:ku", as perf names it. */
static void group_rename(struct event_spec *spec, const char *mods_text, int had_mods)
{
	char name[EVENTS_NAME_MAX];
	int n = snprintf(name, sizeof(name), "%s%s%s", spec->name, had_mods ? "" : ":",
			 mods_text);

	if (n > 0 && n < EVENTS_NAME_MAX)
		memcpy(spec->name, name, (size_t)n + 1);
}

/* A '}': its members, if any survived, become group out->nr_groups. */
static void group_close(struct parser *p, const struct syntax_item *it)
{
	struct event_list *out = p->out;

	if (out->nr == p->first)
		return;	/* empty, or every member was bad and said so */
	for (int i = p->first; i < out->nr; i++) {
		out->ev[i].group = out->nr_groups;
		if (it->mods) {
			group_rename(&out->ev[i], it->mods_text, p->mods[i] != 0);
			p->mods[i] |= (unsigned char)it->mods;
			mods_apply(&out->ev[i], p->mods[i]);
		}
	}
	out->nr_groups++;
}

int events_parse(const char *text, const char *sysfs_root, struct event_list *out,
		 events_warn_fn warn, void *ctx)
{
	struct parser p = { .out = out, .diag = { .warn = warn, .ctx = ctx } };
	struct syntax s;
	struct syntax_item it;
	enum syntax_token t;

	/* Not all 18 KiB: item_add() clears each entry it fills, and none past nr is read. */
	memset(out, 0, offsetof(struct event_list, ev));
	sysfs_names_start(&p.sysfs, sysfs_root ? sysfs_root : PMU_SYSFS_ROOT, &p.diag);
	pfm_names_start(&p.pfm, &p.diag);
	syntax_start(&s, text, &p.diag);
	while ((t = syntax_next(&s, &it)) != SYNTAX_END) {
		switch (t) {
		case SYNTAX_ITEM:
			item_add(&p, &s, &it);
			break;
		case SYNTAX_GROUP_OPEN:
			p.first = out->nr;
			break;
		case SYNTAX_GROUP_CLOSE:
			group_close(&p, &it);
			break;
		case SYNTAX_GROUP_DROP:
			out->nr = p.first;
			break;
		case SYNTAX_END:
			break;
		}
	}
	if (p.dropped)
		diag_warn(&p.diag, "too many events: the first %d are kept and %d more are skipped "
			  "(the limit is %d)", EVENTS_MAX, p.dropped, EVENTS_MAX);
	diag_finish(&p.diag);
	sysfs_names_end(&p.sysfs);
	pfm_names_end(&p.pfm);
	return out->nr;
}
