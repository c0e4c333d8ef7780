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
#include <stdbool.h>
#include <stddef.h>

/*
 * json_read - the object or array at @text (after any whitespace) as
 * json_loadb(@text, @len, JSON_DISABLE_EOF_CHECK, @err) gives it, nodes
 * from jansson's allocator. Return: the value, with err->position the bytes
 * it took (as jansson sets it), or NULL with @err set by jansson. *@plain:
 * no string of it holds a control byte (the fast path saw every one).
 */
json_t *json_read(const char *text, size_t len, json_error_t *err, bool *plain);

/*
 * json_read_fast - the fast path alone: NULL where json_read() would ask
 * jansson, or where the value is cut short at @len (read more, or frame it).
 */
json_t *json_read_fast(const char *text, size_t len, size_t *used, bool *plain);

#endif
