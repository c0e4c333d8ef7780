/* SPDX-License-Identifier: MIT */
/*
 * input.h: turning inputs into parsed JSON objects. A file (or stdin, or a
 * text) becomes batches: the objects it holds in order, at most
 * BATCH_OBJECTS at a time, then why the rest could not be read, if it could
 * not. A file is read in pieces, never whole: a JSON Lines file of any size
 * is read in the memory of one batch and its longest object. A list of
 * files is parsed by a few threads ahead of the caller, who receives the
 * batches in list order, so that the combined result and every message are
 * those of one thread.
 */
#ifndef PFSHIM_TOOLS_INPUT_H
#define PFSHIM_TOOLS_INPUT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "tools/pfshim/read/arena.h"

struct batch {
	const char *path;	/* as named in messages */
	json_t **object;	/* nodes of @arena */
	bool *plain;		/* [n]: no string of object[i] holds a control byte */
	int n, cap;
	char error[300];	/* "" or why the rest was skipped: "truncated or malformed JSON: line 3: ..." */
	int read_errno;		/* the file could not be read: nothing else is set */
	int torn;		/* records of a spool cut short, skipped (preload/output/spool.h) */
	const char *refused;	/* or it was not read, for this reason */
	struct arena arena;
	struct reader *reader;	/* the file being read, and the buffer kept for the next one */
	bool more;		/* the file has more objects than this batch */
};

#define BATCH_OBJECTS 256

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

/*
 * batch_read - @path's (or, for NULL, stdin's) first batch of objects into
 * @b, @rules permitting; b->more is set when there is more. batch_next -
 * clear @b and read the next batch of the same file: false when there was
 * no more. A caller takes every batch of a file, or calls batch_clear().
 */
void batch_read(struct batch *b, const char *path, const struct input_rules *rules);
bool batch_next(struct batch *b);

/* batch_clear - forget the objects (their arena is reset) and close the file's rest. */
void batch_clear(struct batch *b);
/* batch_free - batch_clear, and free what @b keeps for the next file. */
void batch_free(struct batch *b);

/* input_stdin - the batches of stdin, each handed to @take (as input_files does). */
void input_stdin(void (*take)(void *ctx, struct batch *b), void *ctx);

/*
 * input_files - batch_read() each of @paths (@n of them, with @rules[i]), on up to 4 threads
 * when there are many, and hand each batch to @take in list order, on the
 * calling thread. @take must not keep the objects (arena_keep() copies one).
 */
void input_files(char *const *paths, const struct input_rules *rules, int n,
		 void (*take)(void *ctx, struct batch *b), void *ctx);

#endif
