/* SPDX-License-Identifier: MIT */
/*
 * events.c: the driver of the parser. perf's event syntax ("cycles:u,
 * {instructions,branches},cpu/event=0x3c/,r01c2") becomes perf_event_attr
 * specifications in two phases: syntax.c yields one item at a time, and
 * each is resolved at once, by the first source that knows its name:
 * built-in names, then raw rNNNN (builtin.c), then sysfs (sysfs.c, read
 * only from the first name that is not built in), then libpfm4's vendor
 * names (pfm.c, loaded only by a name none of the others knows). A
 * qualified name "a:b", b no modifier set, is a tracepoint of tracefs
 * (tracefs.c, "sched:sched_switch", a glob into one event per match) when
 * tracefs has subsystem a, else libpfm4's ("INST_RETIRED:ANY_P"); see
 * qualified_resolve(). On a machine of several core PMUs each generic
 * hardware or cache event then becomes one per core PMU and a sum
 * (core_pmus.c). Every problem is one sentence through the caller's
 * warn function (diag.c), and the item is skipped, so one typo does not
 * cost the whole measurement.
 */
#include "preload/events/events.h"
#include "preload/events/builtin.h"
#include "preload/events/core_pmus.h"
#include "preload/events/diag.h"
#include "preload/events/pfm.h"
#include "preload/events/pfm_answers.h"
#include "preload/events/syntax.h"
#include "preload/events/sysfs.h"
#include "preload/events/tracefs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

_Static_assert(sizeof(((struct syntax_item *)0)->name) == sizeof(((struct event_spec *)0)->name),
	       "an item fits an event's name");

struct parser {
	struct event_list *out;
	struct diag diag;
	struct sysfs_names sysfs;
	struct tracefs_names tracefs;
	struct pfm_names pfm;
	int dropped;		/* events beyond EVENTS_MAX */
	int first;		/* out->nr when the open group began */
	unsigned mods[EVENTS_MAX];	/* SYNTAX_MOD_* each event was given */
};

/*
 * perf's semantics (tools/perf/util/parse-events.c): naming some of u/k/h
 * excludes the ones not named; G alone counts the guest only, H alone the
 * host only, both (or neither) both. D pins, but the kernel refuses a pinned
 * group member (EINVAL, measured), so totals.c sets it on the group's leader
 * only. S changes nothing here: every group is read as a whole already. p and
 * P are for sampling: said once by the caller, never set.
 */
static void mods_apply(struct event_spec *spec, unsigned mods)
{
	if (mods & SYNTAX_MODS_PRIV) {
		spec->attr.exclude_user = !(mods & SYNTAX_MOD_U);
		spec->attr.exclude_kernel = !(mods & SYNTAX_MOD_K);
		spec->attr.exclude_hv = !(mods & SYNTAX_MOD_H);
		spec->modifiers = true;
	}
	/* Set both ways: a member's :G and its group's :H make G and H, so neither.
	 * Without G or H, libpfm4's own mg=/mh= stay. */
	if (mods & (SYNTAX_MOD_GUEST | SYNTAX_MOD_HOST)) {
		spec->attr.exclude_host = !(mods & SYNTAX_MOD_HOST);
		spec->attr.exclude_guest = !(mods & SYNTAX_MOD_GUEST);
	}
	spec->attr.exclude_idle = !!(mods & SYNTAX_MOD_IDLE);
	spec->attr.pinned = !!(mods & SYNTAX_MOD_PINNED);
	spec->attr.exclusive = !!(mods & SYNTAX_MOD_EXCL);
	spec->weak = !!(mods & SYNTAX_MOD_WEAK);
}

/* p, pp, ppp, P: precise_ip skids less on a sample; a count has no skid. */
static void mods_precise_note(struct parser *p, unsigned mods, const char *text,
			      const char *item)
{
	if (mods & SYNTAX_MOD_PRECISE)
		diag_warn(&p->diag, "modifier '%s' of %s%s%s is for sampling only (precise_ip): "
			  "counted without it", text, item ? "'" : "a group", item ? item : "",
			  item ? "'" : "");
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
	if ((pfm_err == -ENOSYS || (pfm_err == -ENOENT && pfm_names_cpu_unknown(&p->pfm))) &&
	    !s.name[0]) {
		const char *why = pfm_err == -ENOSYS ? pfm_names_why(&p->pfm) : PFM_CPU_UNKNOWN_WHY;

		if (strcmp(name, item))
			diag_warn(&p->diag, "unknown event '%s' in '%s' (%s); the event is skipped",
				  name, item, why);
		else
			diag_warn(&p->diag, "unknown event '%s' (%s); the event is skipped", name, why);
		return;
	}
	if (strcmp(name, item))
		diag_unknown(&p->diag, &s, "unknown event '%s' in '%s'", name, item);
	else
		diag_unknown(&p->diag, &s, "unknown event '%s'", name);
}

/* Does a resolver before tracefs and libpfm4 know @name? Then "cycles:x" is a bad modifier. */
static bool name_known(struct parser *p, const char *name)
{
	struct event_builtin b;
	const char *why;
	uint64_t config;
	int err = event_builtin_lookup(name, &b, &why);

	return err != -ENOENT || !event_raw_parse(name, &config) ||
	       sysfs_alias_known(&p->sysfs, name);
}

struct case_match {
	const char *name;
	char found[64];
};

static void case_consider(void *ctx, const char *name)
{
	struct case_match *m = ctx;

	if (!m->found[0] && !strcasecmp(name, m->name) && strlen(name) < sizeof(m->found))
		strcpy(m->found, name);
}

/*
 * A generic event's name in another case ("TASK-CLOCK"): perf's parser
 * refuses it, and so does the shim, though libpfm4 would take it: counted,
 * it was reported under that name, without the clock's unit, and summed
 * apart from task-clock by pfshim report. Return: whether @name is one (said).
 */
static bool name_other_case(struct parser *p, const char *name)
{
	struct case_match m = { name, "" };

	event_builtin_names(case_consider, &m);
	if (!m.found[0])
		return false;
	diag_warn(&p->diag, "unknown event '%s' (perf's event names are case-sensitive: did you "
		  "mean '%s'?); the event is skipped", name, m.found);
	return true;
}

/* A name: built in, raw, an alias some PMU lists in sysfs, or libpfm4's, in that order. */
static int name_resolve(struct parser *p, const struct syntax_item *it, struct event_spec *spec)
{
	struct event_builtin b;
	const char *why = NULL;
	uint64_t config;
	int err = event_builtin_lookup(it->event, &b, &why);

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
	/* The image before ours found sysfs knows no such name (pfm_answers.h): not read again. */
	if (!pfm_answer_parsed(it->event)) {
		err = sysfs_resolve_alias(&p->sysfs, it->name, it->event, spec);
		if (err != -ENOENT)
			return err;
		if (name_other_case(p, it->event))
			return -ENOENT;
	}
	err = pfm_resolve(&p->pfm, it->name, it->event, spec);
	if (err == -ENOENT || err == -ENOSYS)
		name_unknown(p, it->event, it->name, err);
	return err;
}

/* A new entry for @it at out->ev[out->nr], not yet counted in nr; NULL when full. */
static struct event_spec *spec_start(struct parser *p, const struct syntax_item *it)
{
	struct event_list *out = p->out;
	struct event_spec *spec;

	if (out->nr >= EVENTS_MAX) {
		p->dropped++;
		return NULL;
	}
	spec = &out->ev[out->nr];
	memset(spec, 0, sizeof(*spec));
	memcpy(spec->name, it->name, it->len + 1);
	spec->attr.size = sizeof(spec->attr);
	spec->group = -1;
	spec->scale = 1.0;
	return spec;
}

/* The resolved @spec (out->ev[out->nr]) with its modifiers joins the list. */
static void spec_add(struct parser *p, struct event_spec *spec, unsigned mods)
{
	if (mods)
		mods_apply(spec, mods);	/* libpfm4's u=/k=/h= too are overridden */
	p->mods[p->out->nr] = mods;
	p->out->nr++;
}

struct tracepoint_add {
	struct parser *p;
	const struct syntax_item *it;
};

/* tracefs_add_fn: one tracepoint, named "subsys:name" plus the item's modifiers. */
static void tracepoint_add(void *ctx, const char *subsys, const char *name, uint64_t id)
{
	struct tracepoint_add *ta = ctx;
	struct event_spec *spec = spec_start(ta->p, ta->it);
	const char *mods = ta->it->mods_at;
	int n;

	if (!spec)
		return;
	n = snprintf(spec->name, sizeof(spec->name), "%s:%s%s%s", subsys, name, *mods ? ":" : "",
		     mods);
	if (n < 0 || n >= (int)sizeof(spec->name))
		return;	/* a tracefs name longer than an item: not kept */
	spec->attr.type = PERF_TYPE_TRACEPOINT;
	spec->attr.config = id;
	spec->kind = REPORT_KIND_TRACEPOINT;
	spec_add(ta->p, spec, ta->it->mods);
}

/*
 * "a:b..." where tracefs has subsystem a: the tracepoint a:b (a glob: every
 * match), else "sched:sched_switch:x" has a bad modifier and "sched::u" no
 * tracepoint's name.
 */
static void tracepoint_resolve(struct parser *p, const struct syntax_item *it)
{
	struct tracepoint_add ta = { p, it };
	const char *rest = strchr(it->tail, ':');

	if (it->subsys)
		tracefs_resolve(&p->tracefs, it->name, it->subsys, it->tracepoint, tracepoint_add,
				&ta);
	else if (it->tail[0] && it->tail[0] != ':' && rest)
		syntax_mods_refuse(&p->diag, it->name, rest + 1);
	else
		diag_warn(&p->diag, "missing tracepoint name after ':' in '%s'; the event is "
			  "skipped", it->name);
}

/* Is "a:b" tracefs's: a subsystem it has, or a glob (libpfm4 has none)? */
static bool tracefs_first(struct parser *p, const struct syntax_item *it)
{
	if (it->subsys && (strpbrk(it->subsys, "*?[") || strpbrk(it->tracepoint, "*?[")))
		return true;
	return tracefs_has_subsys(&p->tracefs, it->event);
}

/* Written as tracefs writes its names, in lower case ("sched:sched_switch");
 * the vendors' tables write theirs in capitals ("INST_RETIRED:ANY_P"). */
static bool lower_case(const char *name)
{
	for (; *name; name++) {
		if (*name >= 'A' && *name <= 'Z')
			return false;
	}
	return true;
}

/*
 * A qualified name "a:b[:...]", b no modifier set (syntax.h), perf's
 * "a:b" being a tracepoint and libpfm4's a vendor name:
 *   1. a is a built-in, raw or sysfs name: a bad modifier ("cycles:x");
 *   2. tracefs has subsystem a, or "a:b" is a glob: a tracepoint (tracefs
 *      first, so no tracepoint ever loads libpfm4);
 *   3. else libpfm4's ("INST_RETIRED:ANY_P", "skl::L1D:REPLACEMENT");
 *   4. neither knows it: the message is for what it looks like. A
 *      lower-case "subsys:name" is a tracepoint, and tracefs says why it has
 *      none (not mounted, not readable, no such subsystem: did you mean);
 *      any other is an unknown event, with libpfm4's install hint when
 *      libpfm4 is missing.
 */
static void qualified_resolve(struct parser *p, const struct syntax_item *it)
{
	struct event_spec *spec;
	int err;

	/* Asked of libpfm4 by the image before ours (pfm_answers.h): 1 and 2 held there. */
	if (!pfm_answer_parsed(it->qualified)) {
		if (name_known(p, it->event)) {
			syntax_mods_refuse(&p->diag, it->name, it->tail);
			return;
		}
		if (tracefs_first(p, it)) {
			tracepoint_resolve(p, it);
			return;
		}
	}
	spec = spec_start(p, it);
	err = pfm_resolve(&p->pfm, it->name, it->qualified, spec);
	if (!err)
		spec_add(p, spec, it->mods);
	else if (err != -ENOENT && err != -ENOSYS)
		return;	/* libpfm4 knows the event, and said what is wrong with it */
	else if (it->subsys && lower_case(it->qualified))
		tracepoint_resolve(p, it);
	else
		name_unknown(p, it->qualified, it->name, err);
}

/* One item: split, resolved, and on success out->ev[out->nr++] (a glob: several). */
static void item_add(struct parser *p, struct syntax *s, struct syntax_item *it)
{
	struct event_spec *spec;
	int err;

	if (p->out->nr >= EVENTS_MAX) {
		p->dropped++;
		return;
	}
	if (syntax_item_split(s, it))
		return;
	mods_precise_note(p, it->mods, it->mods_at, it->name);
	if (it->qualified) {
		qualified_resolve(p, it);
		return;
	}
	spec = spec_start(p, it);
	if (it->pmu && !core_pmus_resolve(p->sysfs.root, it->pmu, it->terms, spec))
		err = 0;
	else if (it->pmu)
		err = sysfs_resolve_pmu(&p->sysfs, it->name, it->pmu, it->terms, spec);
	else
		err = name_resolve(p, it, spec);
	if (!err)
		spec_add(p, spec, it->mods);
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
	mods_precise_note(p, it->mods, it->mods_text, NULL);
	for (int i = p->first; i < out->nr; i++) {
		out->ev[i].group = out->nr_groups;
		if (it->mods) {
			if (!out->ev[i].named)
				group_rename(&out->ev[i], it->mods_text, p->mods[i] != 0);
			p->mods[i] |= it->mods;
			mods_apply(&out->ev[i], p->mods[i]);
		}
	}
	out->nr_groups++;
}

int events_parse(const char *text, const char *sysfs_root, const char *tracefs_root,
		 struct event_list *out, events_warn_fn warn, void *ctx)
{
	struct parser p = { .out = out, .diag = { .warn = warn, .ctx = ctx } };
	struct syntax s;
	struct syntax_item it;
	enum syntax_token t;

	/* Not all 18 KiB: item_add() clears each entry it fills, and none past nr is read. */
	memset(out, 0, offsetof(struct event_list, ev));
	sysfs_names_start(&p.sysfs, sysfs_root ? sysfs_root : PMU_SYSFS_ROOT, &p.diag);
	tracefs_names_start(&p.tracefs, tracefs_root, &p.diag);
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
	/* The one place a resolved generic event becomes its attrs per core PMU. */
	p.dropped += core_pmus_expand(p.sysfs.root, out);
	if (p.dropped)
		diag_warn(&p.diag, "too many events: the first %d are kept and %d more are skipped "
			  "(the limit is %d)", EVENTS_MAX, p.dropped, EVENTS_MAX);
	diag_finish(&p.diag);
	sysfs_names_end(&p.sysfs);
	tracefs_names_end(&p.tracefs);
	pfm_names_end(&p.pfm);
	return out->nr;
}
