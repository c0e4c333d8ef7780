/* SPDX-License-Identifier: MIT */
/*
 * name.h: a LIKWID tag or PAPI region name as a pfshim region name. LIKWID
 * and PAPI take names of any length; pfshim's are shorter than 64 bytes.
 */
#ifndef PFSHIM_COMPAT_NAME_H
#define PFSHIM_COMPAT_NAME_H

#include <stdbool.h>
#include <stdint.h>

#define COMPAT_NAME_LEN 64	/* pfshim's limit (REGIONS_NAME_LEN), with the NUL */

/*
 * COMPAT_NAME_WORDS_UNCHECKED - on a function that runs compat_name_fits():
 * its words may hold bytes before the string and past its NUL, which a
 * sanitizer would take for an overflow. Empty in ordinary builds.
 */
/* Nonzero when word @v holds a zero byte; its lowest flag is the first one. */
static inline uint64_t compat_word_zero_bytes(uint64_t v)
{
	return (v - 0x0101010101010101ULL) & ~v & 0x8080808080808080ULL;
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define COMPAT_NAME_WORDS_UNCHECKED __attribute__((no_sanitize("address", "thread")))
#else
#define COMPAT_NAME_WORDS_UNCHECKED
#endif

/* compat_name_fits_words - compat_name_fits() in full: any alignment, any length. */
static inline COMPAT_NAME_WORDS_UNCHECKED bool compat_name_fits_words(const char *name)
{
	_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "a word's first byte is its low one");
	const uintptr_t at = (uintptr_t)name;
	const uint64_t *w = (const uint64_t *)(at & ~(uintptr_t)7);
	uint64_t v = *(const volatile uint64_t *)w | ((1ULL << (at & 7) * 8) - 1);
	uint64_t zero;

	/* The lowest byte flagged is the first NUL (flags above it may be false). */
	while (!(zero = compat_word_zero_bytes(v))) {
		if ((uintptr_t)++w >= at + COMPAT_NAME_LEN)
			return false;
		v = *(const volatile uint64_t *)w;
	}
	return (uintptr_t)w + (unsigned)__builtin_ctzll(zero) / 8 < at + COMPAT_NAME_LEN;
}

/*
 * compat_name_fits - is @name shorter than COMPAT_NAME_LEN, so that pfshim
 * takes it as it is? Read a word at a time in the caller's own code, as
 * pfshim's name cache compares names: every call of a LIKWID or PAPI_hl
 * region pays this, where strnlen() was a call into libc (~30 instructions
 * a call with its frame, on arm64 under QEMU). Each load is an aligned
 * 8-byte word holding a byte of the name, so none crosses into a page the
 * name does not touch; the bytes before the name are set non-zero, and the
 * words stop at the first that holds a NUL. The common case first: a name
 * at a multiple of 8 (a string literal on arm64, as pfshim's name cache
 * wants it) whose first word holds its NUL fits, with no mask and no
 * position to work out (8 instructions there, against 20).
 */
static inline COMPAT_NAME_WORDS_UNCHECKED bool compat_name_fits(const char *name)
{
	if (__builtin_expect(!((uintptr_t)name & 7), 1) &&
	    compat_word_zero_bytes(*(const volatile uint64_t *)name))
		return true;
	return compat_name_fits_words(name);
}

/* compat_region_name_long - compat_region_name() of a name that does not fit. */
const char *compat_region_name_long(const char *name, char buf[COMPAT_NAME_LEN]);

/*
 * compat_region_name - @name itself when pfshim takes it as it is (shorter
 * than COMPAT_NAME_LEN), else, in @buf, its first bytes (at most 54, cut at
 * a UTF-8 character's start), '~' and the 8 hex digits of a 32-bit FNV-1a
 * hash of the whole name: distinct long names stay distinct regions, and
 * the same long name is always the same region.
 */
static inline COMPAT_NAME_WORDS_UNCHECKED const char *compat_region_name(const char *name,
									  char buf[COMPAT_NAME_LEN])
{
	return __builtin_expect(compat_name_fits(name), 1) ? name : compat_region_name_long(name, buf);
}

#endif
