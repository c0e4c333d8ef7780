/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h: what the libFuzzer targets share. An input is cut into fields at
 * NUL bytes, so a seed is readable (printf 'cpu/event=1/\0intel' > seed) and
 * the fuzzer can grow or shrink one field without moving the others.
 */
#ifndef PFSHIM_TESTS_FUZZ_H
#define PFSHIM_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct fuzz_fields {
	char *copy;		/* the input, NUL-terminated, owned */
	int nr;
	const char *field[16];
};

/*
 * fuzz_split - cut @data at NUL bytes into at most @max fields (the last one
 * keeps any further NULs cut off, as a C string would). Fields not present
 * are "". Free with fuzz_fields_free().
 */
static inline void fuzz_split(const uint8_t *data, size_t size, int max, struct fuzz_fields *f)
{
	char *p;

	if (max > 16)
		max = 16;
	f->copy = malloc(size + 1);
	if (!f->copy)
		abort();
	memcpy(f->copy, data, size);
	f->copy[size] = '\0';
	p = f->copy;
	f->nr = 0;
	for (int i = 0; i < max; i++) {
		f->field[i] = "";
		if (p <= f->copy + size) {
			f->field[i] = p;
			f->nr++;
			p += strlen(p) + 1;
		}
	}
}

static inline void fuzz_fields_free(struct fuzz_fields *f)
{
	free(f->copy);
}

/* Each field in its own exact-size heap block, so ASan sees a read past its end. */
static inline char *fuzz_exact(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = malloc(n);

	if (!p)
		abort();
	memcpy(p, s, n);
	return p;
}

#endif
