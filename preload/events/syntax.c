/* SPDX-License-Identifier: MIT */
/*
 * syntax.c: perf's event syntax, a cursor over the list (see syntax.h).
 * One pass, linear in the text's length, so a megabyte of garbage in
 * PFSHIM_EVENTS costs milliseconds. Pure: it reads only the text.
 */
#include "preload/events/syntax.h"

#include <errno.h>
#include <string.h>

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
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

int syntax_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int syntax_number(const char *s, uint64_t *value)
{
	uint64_t v = 0;
	int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
	unsigned base = hex ? 16 : 10;

	if (hex)
		s += 2;
	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		int d = syntax_hex_digit(*s);

		if (d < 0 || (unsigned)d >= base)
			return -EINVAL;
		if (v > (UINT64_MAX - (unsigned)d) / base)
			return -ERANGE;
		v = v * base + (unsigned)d;
	}
	*value = v;
	return 0;
}

/* ---- modifiers -------------------------------------------------------- */

static int mods_parse(const char *text, unsigned *mods)
{
	unsigned m = 0;
	int precise = 0;

	if (!*text)
		return -EINVAL;
	for (const char *s = text; *s; s++) {
		switch (*s) {
		case 'u': m |= SYNTAX_MOD_U; break;
		case 'k': m |= SYNTAX_MOD_K; break;
		case 'h': m |= SYNTAX_MOD_H; break;
		case 'G': m |= SYNTAX_MOD_GUEST; break;
		case 'H': m |= SYNTAX_MOD_HOST; break;
		case 'I': m |= SYNTAX_MOD_IDLE; break;
		case 'D': m |= SYNTAX_MOD_PINNED; break;
		case 'S': m |= SYNTAX_MOD_READ; break;
		case 'W': m |= SYNTAX_MOD_WEAK; break;
		case 'e': m |= SYNTAX_MOD_EXCL; break;
		case 'P': m |= SYNTAX_MOD_PRECISE; break;
		case 'p':
			/* perf: precise_ip is 0 to 3 */
			if (++precise > 3)
				return -EINVAL;
			m |= SYNTAX_MOD_PRECISE;
			break;
		default: return -EINVAL;
		}
	}
	*mods = m;
	return 0;
}

void syntax_mods_refuse(struct diag *d, const char *item, const char *text)
{
	diag_warn(d, "bad modifier '%s' in '%s': pfshim accepts " SYNTAX_MODS_ACCEPTED
		  " (e.g. 'cycles:u'); the event is skipped", text, item);
}

static int item_mods(struct syntax *s, const char *item, const char *text, unsigned *mods)
{
	if (!mods_parse(text, mods))
		return 0;
	syntax_mods_refuse(s->diag, item, text);
	return -EINVAL;
}

/* ---- one item --------------------------------------------------------- */

/* "pmu/terms/" with optional modifiers after the closing slash ("/u" or "/:u"). */
static int item_split_pmu(struct syntax *s, struct syntax_item *it)
{
	char *buf = it->cut;
	char *slash1 = strchr(buf, '/');
	char *slash2 = strchr(slash1 + 1, '/');
	char *rest;
	int has_colon;

	if (!slash2) {
		diag_warn(s->diag, "missing closing '/' in '%s' (write pmu/term=value,.../); the "
			  "event is skipped", it->name);
		return -EINVAL;
	}
	*slash1 = '\0';
	*slash2 = '\0';
	rest = slash2 + 1;
	has_colon = *rest == ':';
	rest += has_colon;
	if (!buf[0]) {
		diag_warn(s->diag, "missing PMU name before '/' in '%s'; the event is skipped",
			  it->name);
		return -EINVAL;
	}
	if (strchr(rest, '/')) {
		diag_warn(s->diag, "too many '/' in '%s' (write pmu/term=value,.../); the event is "
			  "skipped", it->name);
		return -EINVAL;
	}
	it->mods_at = it->name + (rest - buf);
	if ((*rest || has_colon) && item_mods(s, it->name, rest, &it->mods))
		return -EINVAL;
	it->pmu = buf;
	it->terms = slash1 + 1;
	return 0;
}

/*
 * "A:B[:...]" where B is no modifier set, @colon at the first ':' (cut
 * there). perf's lexer reads "a:b" as modifiers only when b is made of
 * modifier letters; the rest is a tracepoint ("sched:sched_switch"), a
 * vendor name ("INST_RETIRED:ANY_P", "skl::L1D:REPLACEMENT") or a known
 * name with a bad modifier ("cycles:x"), which only the resolvers can tell
 * apart (events.c). The item less a last ":mods" is it->qualified; when
 * that is two non-empty parts, they are it->subsys and it->tracepoint too.
 */
static void item_split_qualified(struct syntax_item *it, char *colon)
{
	size_t first = (size_t)(colon - it->cut);
	char *last;

	memcpy(it->qualified_text, it->name, it->len + 1);
	it->qualified = it->qualified_text;
	it->tail = it->name + first + 1;
	last = strrchr(it->qualified_text, ':');
	if ((size_t)(last - it->qualified_text) > first && !mods_parse(last + 1, &it->mods)) {
		*last = '\0';
		it->cut[last - it->qualified_text] = '\0';
		it->mods_at = it->name + (last + 1 - it->qualified_text);
	} else {
		it->mods = 0;
	}
	if (colon[1] && !strchr(colon + 1, ':')) {
		it->subsys = it->cut;
		it->tracepoint = colon + 1;
	}
}

/* "name[:mods]", or a qualified name the resolvers judge. */
static int item_split_name(struct syntax *s, struct syntax_item *it)
{
	char *colon = strchr(it->cut, ':');

	if (colon) {
		*colon = '\0';
		if (mods_parse(colon + 1, &it->mods))
			item_split_qualified(it, colon);
		else
			it->mods_at = it->name + (colon + 1 - it->cut);
	}
	if (!it->cut[0]) {
		diag_warn(s->diag, "missing event name before ':' in '%s'; the event is skipped",
			  it->name);
		return -EINVAL;
	}
	it->event = it->cut;
	return 0;
}

int syntax_item_split(struct syntax *s, struct syntax_item *it)
{
	memcpy(it->name, it->text, it->len);
	it->name[it->len] = '\0';
	memcpy(it->cut, it->name, it->len + 1);
	it->event = it->pmu = it->qualified = it->tail = it->subsys = it->tracepoint = NULL;
	it->terms = NULL;
	it->mods = 0;
	it->mods_at = it->name + it->len;
	if (strchr(it->cut, '/'))
		return item_split_pmu(s, it);
	return item_split_name(s, it);
}

int syntax_terms_split(char *terms, const char *item, struct diag *d,
		       int (*fn)(void *arg, char *key, char *value), void *arg)
{
	char *save = NULL;
	char *term;
	size_t len = strlen(terms);

	if (len == 0 || terms[0] == ',' || terms[len - 1] == ',' || strstr(terms, ",,"))
		goto empty;
	for (term = strtok_r(terms, ",", &save); term; term = strtok_r(NULL, ",", &save)) {
		char *val;
		int err;

		trim(&term);
		val = strchr(term, '=');
		if (val) {
			*val++ = '\0';
			trim(&term);
			trim(&val);
		}
		if (!*term || (val && !*val))
			goto empty;
		err = fn(arg, term, val);
		if (err)
			return err;
	}
	return 0;
empty:
	diag_warn(d, "empty term in '%s' (write pmu/term=value,.../); the event is skipped", item);
	return -EINVAL;
}

/* ---- the list --------------------------------------------------------- */

void syntax_start(struct syntax *s, const char *text, struct diag *d)
{
	memset(s, 0, sizeof(*s));
	s->text = text ? text : "";
	s->len = strlen(s->text);
	s->diag = d;
	s->group_index = -1;
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

/* The item at s->pos, if it is one the resolvers may see; the cursor moves past it. */
static int item_take(struct syntax *s, struct syntax_item *it)
{
	size_t start = s->pos, end = item_end(s->text, start, s->len), e = end;
	const char *item = s->text + start;
	char ex[DIAG_EXCERPT_SIZE];
	size_t len;

	while (e > start && is_space(s->text[e - 1]))
		e--;
	len = e - start;
	s->pos = end;
	s->need_item = 0;
	s->after_value = 1;
	if (s->group_open)
		s->group_items++;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)item[i];

		if (c < 0x20 || c >= 0x7f) {
			diag_warn(s->diag, "non-printable byte 0x%02x at offset %zu of the event "
				  "list (in '%s'); the item is skipped", c, start + i,
				  diag_excerpt(ex, item, len));
			return 0;
		}
	}
	if (len >= EVENTS_NAME_MAX) {
		diag_warn(s->diag, "event '%s' is too long (%zu bytes, the limit is %d); the item "
			  "is skipped", diag_excerpt(ex, item, len), len, EVENTS_NAME_MAX - 1);
		return 0;
	}
	it->text = item;
	it->len = len;
	it->offset = start;
	it->group = s->group_open ? s->group_index : -1;
	return 1;
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

/* After '}' (s->pos is past it): the group's optional ":mods" for every member. */
static enum syntax_token group_close(struct syntax *s, struct syntax_item *it)
{
	const char *text = s->text;
	size_t len = s->len, pos = s->pos;
	size_t mstart = group_mods_start(text, pos, len), group_len = pos - s->group_start;
	char ex[DIAG_EXCERPT_SIZE], ex2[DIAG_EXCERPT_SIZE];

	s->group_open = 0;
	s->after_value = 1;
	it->mods = 0;
	it->mods_text[0] = '\0';
	if (mstart) {
		/* Whitespace is tolerated around items, so around a group's modifiers too. */
		for (pos = mstart; pos < len && text[pos] != ',' && text[pos] != '{' &&
		     text[pos] != '}' && !is_space(text[pos]); pos++)
			;
		s->pos = pos;
		if (pos - mstart < sizeof(it->mods_text)) {
			memcpy(it->mods_text, text + mstart, pos - mstart);
			it->mods_text[pos - mstart] = '\0';
		}
		if (pos - mstart >= sizeof(it->mods_text) || mods_parse(it->mods_text, &it->mods)) {
			diag_warn(s->diag, "bad modifier '%s' after the group '%s': pfshim accepts "
				  SYNTAX_MODS_ACCEPTED " (e.g. '{cycles,instructions}:u'); the "
				  "group is skipped",
				  diag_excerpt(ex, text + mstart, pos - mstart),
				  diag_excerpt(ex2, text + s->group_start, group_len));
			return SYNTAX_GROUP_DROP;
		}
	}
	if (s->group_items == 0)
		diag_warn(s->diag, "empty group '{}' in the event list; it is skipped");
	return SYNTAX_GROUP_CLOSE;
}

/* A '{' inside a group: skip to the brace that closes the outer one. */
static enum syntax_token group_skip_nested(struct syntax *s)
{
	const char *text = s->text;
	size_t len = s->len, pos = s->pos;
	char ex[DIAG_EXCERPT_SIZE];
	int depth = 2;	/* the group's own '{' and the nested one at pos */

	diag_warn(s->diag, "nested '{' in the group '%s': groups cannot contain groups; the "
		  "whole group is skipped", diag_excerpt(ex, text + s->group_start,
							 len - s->group_start));
	for (pos++; pos < len && depth > 0; pos++) {
		if (text[pos] == '{')
			depth++;
		else if (text[pos] == '}')
			depth--;
	}
	if (pos < len && text[pos] == ':')
		while (pos < len && text[pos] != ',')
			pos++;
	s->pos = pos;
	s->group_open = 0;
	s->after_value = 1;
	s->need_item = 0;
	return SYNTAX_GROUP_DROP;
}

/* The end of the text: what is still missing, said once. */
static enum syntax_token list_end(struct syntax *s)
{
	char ex[DIAG_EXCERPT_SIZE];

	if (s->done)
		return SYNTAX_END;
	s->done = 1;
	if (s->need_item)
		diag_warn(s->diag, "empty item at the end of the event list (a trailing ','); "
			  "skipped");
	if (!s->group_open)
		return SYNTAX_END;
	diag_warn(s->diag, "unbalanced '{': the group '%s' is never closed; its events are "
		  "skipped", diag_excerpt(ex, s->text + s->group_start, s->len - s->group_start));
	s->group_open = 0;
	return SYNTAX_GROUP_DROP;
}

enum syntax_token syntax_next(struct syntax *s, struct syntax_item *it)
{
	char ex[DIAG_EXCERPT_SIZE];

	while (s->pos < s->len) {
		char c = s->text[s->pos];

		if (is_space(c)) {
			s->pos++;
			continue;
		}
		if (s->after_value && c != ',' && c != '}')
			diag_warn(s->diag, "missing ',' before '%s' in the event list; read as if "
				  "it were there", diag_excerpt(ex, s->text + s->pos,
								s->len - s->pos));
		s->after_value = 0;
		if (c == ',') {
			if (s->need_item || !s->started || s->after_open)
				diag_warn(s->diag, "empty item in the event list (two commas in a "
					  "row, or a comma at the start or right after '{'); skipped");
			s->need_item = 1;
			s->started = 1;
			s->after_open = 0;
			s->pos++;
			continue;
		}
		s->started = 1;
		if (c == '{') {
			if (s->group_open)
				return group_skip_nested(s);
			s->group_open = 1;
			s->group_index++;
			s->group_items = 0;
			s->group_start = s->pos;
			s->after_open = 1;
			s->need_item = 0;
			s->pos++;
			return SYNTAX_GROUP_OPEN;
		}
		s->after_open = 0;
		if (c == '}') {
			if (s->need_item)
				diag_warn(s->diag, "empty item before '}' in the event list; skipped");
			s->need_item = 0;
			if (!s->group_open) {
				diag_warn(s->diag, "unbalanced '}' at offset %zu of the event list (no "
					  "'{' before it); ignored", s->pos);
				s->pos++;
				continue;
			}
			s->pos++;
			return group_close(s, it);
		}
		if (item_take(s, it))
			return SYNTAX_ITEM;
	}
	return list_end(s);
}
