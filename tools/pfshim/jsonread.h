/* SPDX-License-Identifier: MIT */
/*
 * jsonread.h: a fast path in front of jansson's parser for the JSON that
 * reports are: ASCII, few escapes. jansson's lexer takes each byte through
 * a function pointer and was three quarters of `pfshim report`'s time; this
 * one walks the text and builds the same jansson tree. It accepts only what
 * it is sure of and hands anything else (non-ASCII, \u escapes, numbers out
 * of range, deep nesting, every error) to jansson, whose result and
 * messages then stand: what it accepts, jansson parses to an equal tree
 * (checked by fuzz_report on every input).
 */
#ifndef PFSHIM_TOOLS_JSONREAD_H
#define PFSHIM_TOOLS_JSONREAD_H

#include <jansson.h>
#include <stddef.h>

/*
 * json_read - the object or array at @text (after any whitespace) as
 * json_loadb(@text, @len, JSON_DISABLE_EOF_CHECK, @err) gives it, nodes
 * from jansson's allocator. Return: the value, with err->position the bytes
 * it took (as jansson sets it), or NULL with @err set by jansson.
 */
json_t *json_read(const char *text, size_t len, json_error_t *err);

/* json_read_fast - the fast path alone: NULL where json_read() would ask jansson. */
json_t *json_read_fast(const char *text, size_t len, size_t *used);

#endif
