/* SPDX-License-Identifier: MIT */
/*
 * syntax.h: phase 1 of the parser, perf's event syntax without its names.
 *
 * A cursor over the text of PFSHIM_EVENTS that yields one token at a time:
 * an item ("cycles:u", "cpu/event=0x3c/u"), a group's '{', its '}' with the
 * group's modifiers, or "drop the group". Every syntax problem is a message
 * through the diag, in text order, and the cursor moves on. Nothing here
 * reads sysfs or knows a name: syntax_item_split() cuts an item into a name
 * or a PMU and terms, and the resolvers (builtin.c, sysfs.c, tracefs.c,
 * pfm.c) say what those mean. One item at a time, so that the driver resolves each before the
 * next is read: its messages stay in text order and memory stays one item.
 */
#ifndef PFSHIM_PRELOAD_EVENTS_SYNTAX_H
#define PFSHIM_PRELOAD_EVENTS_SYNTAX_H

#include <stddef.h>
#include <stdint.h>

#include "preload/events/diag.h"
#include "preload/events/spec.h"	/* EVENTS_NAME_MAX */

/* perf's modifiers (tools/perf/util/parse-events.l, "modifier_event"). */
#define SYNTAX_MOD_U 1u		/* u: user space */
#define SYNTAX_MOD_K 2u		/* k: kernel */
#define SYNTAX_MOD_H 4u		/* h: hypervisor */
#define SYNTAX_MODS_PRIV (SYNTAX_MOD_U | SYNTAX_MOD_K | SYNTAX_MOD_H)
#define SYNTAX_MOD_GUEST 8u	/* G: the guest only (exclude_host) */
#define SYNTAX_MOD_HOST 16u	/* H: the host only (exclude_guest) */
#define SYNTAX_MOD_IDLE 32u	/* I: not in the idle task (exclude_idle) */
#define SYNTAX_MOD_PINNED 64u	/* D: pinned on the PMU (the group's leader) */
#define SYNTAX_MOD_READ 128u	/* S: read as a group (perf's leader sampling) */
#define SYNTAX_MOD_WEAK 256u	/* W: a weak group: separate events if it cannot open */
#define SYNTAX_MOD_EXCL 512u	/* e: exclusive: nothing else on the PMU meanwhile */
#define SYNTAX_MOD_PRECISE 1024u /* p, pp, ppp, P: precise_ip, for sampling only */
#define SYNTAX_MODS_MAX 16	/* a group's modifier text, terminator included */
#define SYNTAX_MODS_ACCEPTED "u, k, h, G, H, I, D, S, W, e, p and P"

enum syntax_token {
	SYNTAX_END,		/* the text is consumed */
	SYNTAX_ITEM,		/* an item: text, len, offset, group */
	SYNTAX_GROUP_OPEN,	/* '{': the items up to the next close or drop are members */
	SYNTAX_GROUP_CLOSE,	/* '}' (and its ":mods"): mods, mods_text; maybe no member */
	SYNTAX_GROUP_DROP,	/* the open group is bad (nested, bad modifier, never closed):
				 * its members are skipped, and a message said why */
};

struct syntax_item {
	/* SYNTAX_ITEM: printable, shorter than EVENTS_NAME_MAX, not terminated */
	const char *text;
	size_t len;
	size_t offset;		/* of text in the list */
	int group;		/* the n-th '{' of the list it is in (0-based), or -1 */
	/* SYNTAX_GROUP_CLOSE: the group's modifiers; syntax_item_split(): the item's */
	unsigned mods;		/* SYNTAX_MOD_*; 0 when none were written */
	char mods_text[SYNTAX_MODS_MAX];	/* a group's, as written ("u") */
	/* syntax_item_split() */
	char name[EVENTS_NAME_MAX];	/* the item, terminated: the event's name */
	char cut[EVENTS_NAME_MAX];	/* a copy of name that event, pmu and terms point into */
	const char *event;	/* "cycles" of "cycles:u"; of a qualified name (below)
				 * what precedes its first ':'; NULL for pmu/terms/ */
	/* A qualified name: what follows the first ':' is no modifier set. It is a
	 * tracepoint ("sched:sched_switch:u"), a vendor name ("INST_RETIRED:ANY_P:u",
	 * "skl::L1D:REPLACEMENT") or a bad modifier ("cycles:x"): only the
	 * resolvers can tell (events.c). Else all four are NULL. */
	const char *qualified;	/* "INST_RETIRED:ANY_P": the item less a last ":mods" */
	const char *tail;	/* "ANY_P:u": after the first ':', for "bad modifier" */
	const char *subsys;	/* "sched" of "sched:sched_switch[:mods]", when the
				 * qualified name is two non-empty parts; else NULL */
	const char *tracepoint;	/* "sched_switch" of it */
	char qualified_text[EVENTS_NAME_MAX];	/* what qualified points into */
	const char *mods_at;	/* in name: the modifiers' first letter ("" when none) */
	const char *pmu;	/* "cpu" of "cpu/event=1/u"; NULL for a name */
	char *terms;		/* "event=1" of it; writable, for syntax_terms_split() */
};

struct syntax {
	const char *text;
	size_t len, pos;
	struct diag *diag;
	/* Where the cursor stands in the grammar
	 *   list := [item | group] (',' [item | group])*     group := '{' list '}' [':' mods]
	 * The flags say what was just read, for the messages on what is missing. */
	int need_item;		/* just after ',': an item or a group must follow */
	int after_value;	/* just after an item or a '}': ',' or '}' must follow */
	int started;		/* anything but space read: a ',' now is no leading comma */
	int after_open;		/* just after '{': a ',' now is an empty first member */
	int done;		/* the end of the text was reported */
	/* The open group, if any */
	int group_open;
	int group_index;	/* of the open group, or of the last one */
	int group_items;	/* items inside it, good or bad */
	size_t group_start;	/* offset of its '{' */
};

/* Start reading @text (NULL reads as ""); messages go to @d. */
void syntax_start(struct syntax *s, const char *text, struct diag *d);

/* The next token of the list, filling @it's fields for that token. */
enum syntax_token syntax_next(struct syntax *s, struct syntax_item *it);

/*
 * syntax_item_split - cut the item @it (of SYNTAX_ITEM) into a name and its
 * modifiers ("cycles:u"), or a PMU, terms and modifiers ("cpu/event=1/u",
 * "cpu/event=1/:u"). As in perf, "a:b" is a name and modifiers when b is a
 * set of modifier letters; else it is a qualified name (@it->qualified, see
 * there), no error here: a tracepoint, a vendor name or a bad modifier.
 * Return: 0, or -EINVAL after a message (bad modifier of a name or a PMU
 * event, missing name, unbalanced '/').
 */
int syntax_item_split(struct syntax *s, struct syntax_item *it);

/*
 * syntax_terms_split - call @fn once per term of @terms ("event=0x3c, umask=1,
 * edge", written in place), with the key and the value (NULL for a bare
 * term), both trimmed. Used on an item's terms and on the text of a sysfs
 * alias. An empty term is a message naming @item. Return: 0, -EINVAL after
 * that message, or the first error of @fn (which then stops the split).
 */
int syntax_terms_split(char *terms, const char *item, struct diag *d,
		       int (*fn)(void *arg, char *key, char *value), void *arg);

/* "bad modifier '@text' in '@item': ..."; the one wording of it. */
void syntax_mods_refuse(struct diag *d, const char *item, const char *text);

/* A term's value: decimal, or hex after 0x. 0, -EINVAL, or -ERANGE (over 64 bits). */
int syntax_number(const char *s, uint64_t *value);

/* The value of hex digit @c, or -1. */
int syntax_hex_digit(char c);

#endif
