/* SPDX-License-Identifier: MIT */
/*
 * input.h: turning inputs into parsed JSON objects. A file (or stdin, or a
 * text) becomes a batch: the objects it holds in order, then why the rest
 * could not be read, if it could not. A list of files is parsed by a few
 * threads ahead of the caller, who receives the batches in list order, so
 * that the combined result and every message are those of one thread.
 */
#ifndef PFSHIM_TOOLS_INPUT_H
#define PFSHIM_TOOLS_INPUT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "tools/pfshim/arena.h"

struct batch {
	const char *path;	/* as named in messages */
	json_t **object;	/* nodes of @arena */
	int n, cap;
	char error[300];	/* "" or why the rest was skipped: "truncated or malformed JSON: line 3: ..." */
	int read_errno;		/* the file could not be read: nothing else is set */
	const char *refused;	/* or it was not read, for this reason */
	struct arena arena;
};

/* batch_parse - the JSON objects of @text into @b (in @b's arena), until the first malformed one. */
void batch_parse(struct batch *b, const char *text, size_t len);

/*
 * How a file found in a directory walk is opened: never through a symbolic
 * link (O_NOFOLLOW), never blocking (a FIFO planted there), and only when
 * it is a regular file of the effective user's, unless @any_owner.
 * A file named on the command line is opened as it is named.
 */
struct input_rules {
	bool walked;
	bool any_owner;
};

/* batch_read - @path's (or, for NULL, stdin's) objects into @b, @rules permitting. */
void batch_read(struct batch *b, const char *path, const struct input_rules *rules);

/* batch_clear - free the objects (binding @b's arena to do so) and reset the arena. */
void batch_clear(struct batch *b);

/*
 * input_files - batch_read() each of @paths (@n of them, with @rules[i]), on up to 4 threads
 * when there are many, and hand each batch to @take in list order, on the
 * calling thread. @take must not keep the objects (arena_keep() copies one).
 */
void input_files(char *const *paths, const struct input_rules *rules, int n,
		 void (*take)(void *ctx, struct batch *b), void *ctx);

#endif
