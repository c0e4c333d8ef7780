/* SPDX-License-Identifier: MIT */
/*
 * test_syntax.c: preload/events/syntax.c, perf's event syntax alone: the
 * tokens of a list, the cut of an item, the terms and the numbers, and the
 * messages in text order. No sysfs tree: the syntax knows no name.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "preload/events/syntax.h"

/* The messages so far, each ending in '\n', in the order they came. */
static char log_text[2048];
static int log_nr;
static struct diag diag;

static void log_message(void *ctx, const char *message)
{
	size_t n = strlen(log_text);

	(void)ctx;
	snprintf(log_text + n, sizeof(log_text) - n, "%s\n", message);
	log_nr++;
}

static void log_reset(void)
{
	log_text[0] = '\0';
	log_nr = 0;
	diag = (struct diag){ .warn = log_message };
}

/* The tokens of @text as one line: "I(cycles)" an item, "{" "}" "}:u" "X" drop, "$" end. */
static const char *tokens(const char *text)
{
	static char out[1024];
	struct syntax s;
	struct syntax_item it;
	enum syntax_token t;
	size_t n = 0;

	log_reset();
	syntax_start(&s, text, &diag);
	out[0] = '\0';
	do {
		t = syntax_next(&s, &it);
		switch (t) {
		case SYNTAX_ITEM:
			n += (size_t)snprintf(out + n, sizeof(out) - n, "I(%.*s@%zu,g%d) ",
					      (int)it.len, it.text, it.offset, it.group);
			break;
		case SYNTAX_GROUP_OPEN:
			n += (size_t)snprintf(out + n, sizeof(out) - n, "{ ");
			break;
		case SYNTAX_GROUP_CLOSE:
			n += (size_t)snprintf(out + n, sizeof(out) - n, "}%s%s ",
					      it.mods ? ":" : "", it.mods_text);
			break;
		case SYNTAX_GROUP_DROP:
			n += (size_t)snprintf(out + n, sizeof(out) - n, "X ");
			break;
		case SYNTAX_END:
			n += (size_t)snprintf(out + n, sizeof(out) - n, "$");
			break;
		}
	} while (t != SYNTAX_END);
	return out;
}

static void test_list_tokens(void **state)
{
	(void)state;
	assert_string_equal(tokens("task-clock,{cycles,instructions}:u, cpu/event=1,umask=2/k"),
			    "I(task-clock@0,g-1) { I(cycles@12,g0) I(instructions@19,g0) }:u "
			    "I(cpu/event=1,umask=2/k@36,g-1) $");
	assert_int_equal(log_nr, 0);
	assert_string_equal(tokens("{a}{b} : k"), "{ I(a@1,g0) } { I(b@4,g1) }:k $");
	assert_int_equal(log_nr, 1);
	assert_string_equal(log_text, "missing ',' before '{b} : k' in the event list; read "
			    "as if it were there\n");
	assert_string_equal(tokens(""), "$");
	assert_string_equal(tokens(NULL), "$");
	assert_string_equal(tokens(" \t\n "), "$");
	assert_int_equal(log_nr, 0);
}

/* Every message of a bad list, verbatim and in the order of the text. */
static void test_messages_in_text_order(void **state)
{
	(void)state;
	assert_string_equal(tokens(",a,,{},b}{c,{d}},{e"),
			    "I(a@1,g-1) { } I(b@7,g-1) { I(c@10,g1) X { I(e@18,g2) X $");
	assert_int_equal(log_nr, 6);
	assert_string_equal(log_text,
		"empty item in the event list (two commas in a row, or a comma at the start or "
		"right after '{'); skipped\n"
		"empty item in the event list (two commas in a row, or a comma at the start or "
		"right after '{'); skipped\n"
		"empty group '{}' in the event list; it is skipped\n"
		"unbalanced '}' at offset 8 of the event list (no '{' before it); ignored\n"
		"nested '{' in the group '{c,{d}},{e': groups cannot contain groups; the whole "
		"group is skipped\n"
		"unbalanced '{': the group '{e' is never closed; its events are skipped\n");
}

static void test_group_modifiers(void **state)
{
	(void)state;
	assert_string_equal(tokens("{a,b} : uk ,c"), "{ I(a@1,g0) I(b@3,g0) }:uk I(c@12,g-1) $");
	assert_string_equal(tokens("{a,b}:q,c"), "{ I(a@1,g0) I(b@3,g0) X I(c@8,g-1) $");
	assert_int_equal(log_nr, 1);
	assert_string_equal(log_text, "bad modifier 'q' after the group '{a,b}': pfshim "
			    "accepts u, k, h, G, H, I, D, S, W, e, p and P (e.g. "
			    "'{cycles,instructions}:u'); the group is skipped\n");
	assert_string_equal(tokens("{a,b}:W,c"), "{ I(a@1,g0) I(b@3,g0) }:W I(c@8,g-1) $");
	assert_int_equal(log_nr, 0);
	assert_string_equal(tokens("{a,}"), "{ I(a@1,g0) } $");
	assert_string_equal(log_text, "empty item before '}' in the event list; skipped\n");
	assert_string_equal(tokens("a,"), "I(a@0,g-1) $");
	assert_string_equal(log_text, "empty item at the end of the event list (a trailing "
			    "','); skipped\n");
}

/* Commas between slashes belong to the item; bad bytes and long items are skipped here. */
static void test_items(void **state)
{
	char text[200];
	(void)state;

	assert_string_equal(tokens("cpu/a=1,b/u,x"), "I(cpu/a=1,b/u@0,g-1) I(x@12,g-1) $");
	assert_string_equal(tokens("a,b\x01,c"), "I(a@0,g-1) I(c@5,g-1) $");
	assert_string_equal(log_text, "non-printable byte 0x01 at offset 3 of the event list "
			    "(in 'b?'); the item is skipped\n");
	memset(text, 'z', 150);
	strcpy(text + 150, ",y");
	assert_string_equal(tokens(text), "I(y@151,g-1) $");
	assert_string_equal(log_text, "event 'zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz...' is too long "
			    "(150 bytes, the limit is 127); the item is skipped\n");
}

/* Split the single item of @text; its return value. */
static int split(const char *text, struct syntax_item *it)
{
	struct syntax s;

	log_reset();
	syntax_start(&s, text, &diag);
	assert_int_equal(syntax_next(&s, it), SYNTAX_ITEM);
	return syntax_item_split(&s, it);
}

static void test_item_split(void **state)
{
	static const struct {
		const char *text, *message;
	} bad[] = {
		{ ":u", "missing event name before ':' in ':u'; the event is skipped\n" },
		{ "cpu/event=1", "missing closing '/' in 'cpu/event=1' (write pmu/term=value,.../); "
				 "the event is skipped\n" },
		{ "/event=1/", "missing PMU name before '/' in '/event=1/'; the event is skipped\n" },
		{ "cpu/a/b/", "too many '/' in 'cpu/a/b/' (write pmu/term=value,.../); the event is "
			      "skipped\n" },
		{ "cpu/a/:", "bad modifier '' in 'cpu/a/:': pfshim accepts u, k, h, G, H, I, D, "
			     "S, W, e, p and P (e.g. 'cycles:u'); the event is skipped\n" },
	};
	struct syntax_item it;
	(void)state;

	assert_int_equal(split("cycles:uk", &it), 0);
	assert_string_equal(it.name, "cycles:uk");
	assert_string_equal(it.event, "cycles");
	assert_null(it.pmu);
	assert_int_equal(it.mods, SYNTAX_MOD_U | SYNTAX_MOD_K);
	assert_int_equal(split("cpu/event=1,umask=2/:h", &it), 0);
	assert_null(it.event);
	assert_string_equal(it.pmu, "cpu");
	assert_string_equal(it.terms, "event=1,umask=2");
	assert_int_equal(it.mods, SYNTAX_MOD_H);
	assert_int_equal(split("mem-loads", &it), 0);
	assert_int_equal(it.mods, 0);
	assert_null(it.qualified);
	assert_int_equal(log_nr, 0);

	/* perf's every modifier letter, and as many p as precise_ip has levels. */
	assert_int_equal(split("cycles:ukhGHIDSWeppp", &it), 0);
	assert_null(it.qualified);
	assert_string_equal(it.event, "cycles");
	assert_string_equal(it.mods_at, "ukhGHIDSWeppp");
	assert_int_equal(it.mods, SYNTAX_MODS_PRIV | SYNTAX_MOD_GUEST | SYNTAX_MOD_HOST |
			 SYNTAX_MOD_IDLE | SYNTAX_MOD_PINNED | SYNTAX_MOD_READ |
			 SYNTAX_MOD_WEAK | SYNTAX_MOD_EXCL | SYNTAX_MOD_PRECISE);
	assert_int_equal(split("cycles:P", &it), 0);
	assert_int_equal(it.mods, SYNTAX_MOD_PRECISE);
	assert_int_equal(log_nr, 0);

	/* No modifier set after the first ':': a qualified name. A tracepoint, a
	 * vendor name or a bad modifier, which only the resolvers can tell apart
	 * (test_events.c, test_pfm.c); two parts are a subsystem and a name too. */
	assert_int_equal(split("sched:sched_switch", &it), 0);
	assert_string_equal(it.qualified, "sched:sched_switch");
	assert_string_equal(it.event, "sched");
	assert_string_equal(it.subsys, "sched");
	assert_string_equal(it.tracepoint, "sched_switch");
	assert_int_equal(it.mods, 0);
	assert_string_equal(it.mods_at, "");
	assert_int_equal(split("sched:sched_switch:uD", &it), 0);
	assert_string_equal(it.qualified, "sched:sched_switch");
	assert_string_equal(it.subsys, "sched");
	assert_string_equal(it.tracepoint, "sched_switch");
	assert_string_equal(it.tail, "sched_switch:uD");
	assert_int_equal(it.mods, SYNTAX_MOD_U | SYNTAX_MOD_PINNED);
	assert_string_equal(it.mods_at, "uD");
	assert_int_equal(split("block:*", &it), 0);
	assert_string_equal(it.subsys, "block");
	assert_string_equal(it.tracepoint, "*");
	assert_int_equal(split("cycles:pppp", &it), 0);	/* 4 p: no modifiers, so a name */
	assert_string_equal(it.qualified, "cycles:pppp");
	assert_string_equal(it.tail, "pppp");
	assert_int_equal(split("cycles:x", &it), 0);	/* the driver knows 'cycles' */
	assert_string_equal(it.event, "cycles");
	assert_string_equal(it.qualified, "cycles:x");
	assert_string_equal(it.tail, "x");
	assert_int_equal(it.mods, 0);
	assert_int_equal(split("INST_RETIRED:ANY_P:uk", &it), 0);
	assert_string_equal(it.event, "INST_RETIRED");
	assert_string_equal(it.qualified, "INST_RETIRED:ANY_P");
	assert_string_equal(it.subsys, "INST_RETIRED");
	assert_string_equal(it.tracepoint, "ANY_P");
	assert_string_equal(it.tail, "ANY_P:uk");
	assert_string_equal(it.mods_at, "uk");
	assert_int_equal(it.mods, SYNTAX_MOD_U | SYNTAX_MOD_K);
	/* More than two parts, or an empty one: no tracepoint's shape */
	assert_int_equal(split("skl::L1D:REPLACEMENT", &it), 0);
	assert_string_equal(it.event, "skl");
	assert_string_equal(it.qualified, "skl::L1D:REPLACEMENT");
	assert_null(it.subsys);
	assert_int_equal(it.mods, 0);
	assert_int_equal(split("sched:sched_switch:x", &it), 0);	/* the driver knows 'sched' */
	assert_string_equal(it.qualified, "sched:sched_switch:x");
	assert_null(it.subsys);
	assert_int_equal(split("sched::u", &it), 0);
	assert_string_equal(it.qualified, "sched:");
	assert_null(it.subsys);
	assert_int_equal(it.mods, SYNTAX_MOD_U);
	assert_int_equal(split("cycles:", &it), 0);
	assert_string_equal(it.tail, "");
	assert_null(it.subsys);
	assert_int_equal(log_nr, 0);

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(split(bad[i].text, &it), -EINVAL);
		assert_string_equal(log_text, bad[i].message);
	}
}

struct seen {
	int nr;
	char text[256];
};

static int term_record(void *arg, char *key, char *value)
{
	struct seen *s = arg;
	size_t n = strlen(s->text);

	snprintf(s->text + n, sizeof(s->text) - n, "[%s=%s]", key, value ? value : "-");
	return ++s->nr == 3 ? -E2BIG : 0;	/* the third term stops the split */
}

static int terms(const char *text, struct seen *seen)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "%s", text);
	memset(seen, 0, sizeof(*seen));
	log_reset();
	return syntax_terms_split(buf, "item", &diag, term_record, seen);
}

static void test_terms_split(void **state)
{
	static const char *const empty[] = { "", ",a", "a,", "a,,b", "a, ,b", "a=", "=1" };
	struct seen seen;
	(void)state;

	assert_int_equal(terms(" event = 0x3c , edge", &seen), 0);
	assert_string_equal(seen.text, "[event=0x3c][edge=-]");
	assert_int_equal(terms("a=1,b,c,d", &seen), -E2BIG);
	assert_string_equal(seen.text, "[a=1][b=-][c=-]");
	assert_int_equal(log_nr, 0);
	for (size_t i = 0; i < sizeof(empty) / sizeof(empty[0]); i++) {
		assert_int_equal(terms(empty[i], &seen), -EINVAL);
		assert_int_equal(log_nr, 1);
		assert_string_equal(log_text, "empty term in 'item' (write "
				    "pmu/term=value,.../); the event is skipped\n");
	}
	/* the terms before an empty one were already handed over */
	assert_int_equal(terms("a=1, =2", &seen), -EINVAL);
	assert_string_equal(seen.text, "[a=1]");
}

static void test_numbers(void **state)
{
	uint64_t v;
	(void)state;

	assert_int_equal(syntax_number("0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(syntax_number("255", &v), 0);
	assert_int_equal(v, 255);
	assert_int_equal(syntax_number("0xfF", &v), 0);
	assert_int_equal(v, 255);
	assert_int_equal(syntax_number("18446744073709551615", &v), 0);
	assert_int_equal(v, UINT64_MAX);
	assert_int_equal(syntax_number("0xffffffffffffffff", &v), 0);
	assert_int_equal(v, UINT64_MAX);
	assert_int_equal(syntax_number("18446744073709551616", &v), -ERANGE);
	assert_int_equal(syntax_number("0x10000000000000000", &v), -ERANGE);
	assert_int_equal(syntax_number("0x", &v), -EINVAL);
	assert_int_equal(syntax_number("", &v), -EINVAL);
	assert_int_equal(syntax_number("12a", &v), -EINVAL);
	assert_int_equal(syntax_number("0xg", &v), -EINVAL);
	assert_int_equal(syntax_hex_digit('7'), 7);
	assert_int_equal(syntax_hex_digit('B'), 11);
	assert_int_equal(syntax_hex_digit('x'), -1);
}

/* The budget of diag.c: eight messages, then one summary of the rest. */
static void test_budget(void **state)
{
	char text[128] = "";
	(void)state;

	for (int i = 0; i < 12; i++)	/* 12 commas: 12 empty items, and a trailing ',' */
		strcat(text, ",");
	tokens(text);
	assert_int_equal(log_nr, 8);
	diag_finish(&diag);
	assert_int_equal(log_nr, 9);
	assert_non_null(strstr(log_text, "skipped\n... and 5 more problems in the event list\n"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_tokens),
		cmocka_unit_test(test_messages_in_text_order),
		cmocka_unit_test(test_group_modifiers),
		cmocka_unit_test(test_items),
		cmocka_unit_test(test_item_split),
		cmocka_unit_test(test_terms_split),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_budget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
