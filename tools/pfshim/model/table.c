/* SPDX-License-Identifier: MIT */
/*
 * table.c: a hash index over the caller's arrays, and a list of distinct
 * strings on it. The index holds positions, not keys: each caller keeps its
 * records in its own array (groups, images, region cells) and says how to
 * compare, so one small table serves every lookup of `pfshim report`.
 */
#include "tools/pfshim/model/table.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "pfshim: out of memory\n");
		exit(1);
	}
	return p;
}

void *xgrow(void *p, size_t n, size_t size)
{
	if (n && (n & (n - 1)))	/* room up to the next power of two */
		return p;
	return xrealloc(p, (n ? 2 * n : 1) * size);
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xrealloc(NULL, n), s, n);
}

uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

uint64_t hash_string(uint64_t h, const char *s)
{
	return hash_bytes(h, s, strlen(s) + 1);
}

int table_find(const struct table_index *t, uint64_t hash, table_match_fn match, const void *ctx)
{
	if (!t->cap)
		return -1;
	for (size_t j = hash & (t->cap - 1);; j = (j + 1) & (t->cap - 1)) {
		if (!t->slots[j])
			return -1;
		if (match(ctx, t->slots[j] - 1))
			return t->slots[j] - 1;
	}
}

static void slot_put(int *slots, size_t cap, uint64_t hash, int pos)
{
	size_t j = hash & (cap - 1);

	while (slots[j])
		j = (j + 1) & (cap - 1);
	slots[j] = pos + 1;
}

void table_add(struct table_index *t, uint64_t hash, int pos,
	       uint64_t (*hash_of)(const void *ctx, int pos), const void *ctx)
{
	if ((t->n + 1) * 2 > t->cap) {	/* at most half full: probes stay short */
		size_t cap = t->cap ? t->cap * 2 : 64;
		int *slots = xrealloc(NULL, cap * sizeof(*slots));

		memset(slots, 0, cap * sizeof(*slots));
		for (size_t i = 0; i < t->cap; i++)
			if (t->slots[i])
				slot_put(slots, cap, hash_of(ctx, t->slots[i] - 1), t->slots[i] - 1);
		free(t->slots);
		t->slots = slots;
		t->cap = cap;
	}
	slot_put(t->slots, t->cap, hash, pos);
	t->n++;
}

void table_free(struct table_index *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

struct name_key {
	const struct names *s;
	const char *name;
};

static bool name_match(const void *ctx, int pos)
{
	const struct name_key *k = ctx;

	return strcmp(k->s->name[pos], k->name) == 0;
}

static uint64_t name_hash(const void *ctx, int pos)
{
	const struct names *s = ctx;

	return hash_string(HASH_SEED, s->name[pos]);
}

int names_find(const struct names *s, const char *name)
{
	struct name_key k = { s, name };

	return table_find(&s->index, hash_string(HASH_SEED, name), name_match, &k);
}

int names_add(struct names *s, const char *name)
{
	int i = names_find(s, name);

	if (i >= 0)
		return i;
	s->name = xrealloc(s->name, (size_t)(s->n + 1) * sizeof(*s->name));
	s->name[s->n] = xstrdup(name);
	table_add(&s->index, hash_string(HASH_SEED, name), s->n, name_hash, s);
	return s->n++;
}

void names_free(struct names *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->name[i]);
	free(s->name);
	table_free(&s->index);
	memset(s, 0, sizeof(*s));
}

void names_add_list(struct names *s, const char *list)
{
	char *copy = xstrdup(list), *save = NULL;

	for (char *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save))
		names_add(s, item);
	free(copy);
}

uint64_t table_key_at(const void *ctx, int pos)
{
	const struct table_key_probe *p = ctx;

	return *(const uint64_t *)((const char *)p->base + (size_t)pos * p->stride);
}

bool table_key_match(const void *ctx, int pos)
{
	return table_key_at(ctx, pos) == ((const struct table_key_probe *)ctx)->key;
}
