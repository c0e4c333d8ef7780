/* SPDX-License-Identifier: MIT */
/*
 * identity.h: what a report says the process was started as, copied at
 * start: its argument vector, bounded, and its working directory.
 */
#ifndef PFSHIM_PRELOAD_IDENTITY_H
#define PFSHIM_PRELOAD_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>

/* The bounds of a report's argv: its text (each argument and its NUL) and its arguments. */
#define IDENTITY_ARGV_BYTES	4096
#define IDENTITY_ARGV_MAX	64
/* The longest working directory a report holds, its NUL included; a longer one is unknown. */
#define IDENTITY_CWD_BYTES	4096

/*
 * identity_argv_copy - copy @argc arguments of @argv into @text, each
 * NUL-terminated, one after the other: as many as IDENTITY_ARGV_MAX and
 * IDENTITY_ARGV_BYTES allow, the first that does not fit cut at a UTF-8
 * character boundary, and none after it (*@truncated then). A NULL @argv
 * (or a NULL in it, before @argc) ends the vector. No allocation: the
 * constructor calls it before anything else exists.
 *
 * Return: the bytes of @text used (at most IDENTITY_ARGV_BYTES); *@kept
 * the arguments copied.
 */
size_t identity_argv_copy(char *text, int argc, char *const *argv, int *kept, bool *truncated);

#endif
