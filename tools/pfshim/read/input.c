/* SPDX-License-Identifier: MIT */
/*
 * input.c: files to parsed JSON objects, in list order, in parallel. The
 * parser (jsonread.c, then jansson) is most of `pfshim report`'s time, and each file
 * parses alone: workers take files i, i + W, i + 2W, ... into a ring of
 * RING batches, the caller takes batch i when it is ready and frees its
 * slot. Each slot has its own arena, so a worker never touches memory the
 * caller still reads. A file is read in pieces into a buffer: the objects
 * of a piece are framed (where the next top-level value ends), parsed, and
 * handed over at most BATCH_OBJECTS at a time; a file with more (JSON
 * Lines) is read on by the caller, batch after batch, in its slot. Memory
 * stays RING batches and buffers whatever the number of files or reports.
 */
#include "tools/pfshim/read/input.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/output/spool.h"	/* SPOOL_RS */
#include "tools/pfshim/read/jsonread.h"
#include "tools/pfshim/model/table.h"

#define RING 64
#define MAX_WORKERS 4
#define FILES_PER_WORKER 64	/* fewer files: not worth a thread */
#define BUFFER (64u << 10)	/* the first size of a reader's buffer; it doubles for a longer object */

/* A file being read: its unparsed bytes are buf[at, len); @line is buf[at]'s line. */
struct reader {
	int fd;			/* -1: a text given whole */
	bool own_fd, eof;
	size_t left;		/* a regular file's size at its opening, less what was read; SIZE_MAX: unknown */
	char *buf;
	size_t cap, at, len;
	int line;
	bool spool;		/* a record head was seen: a spool `pfshim run` did not split */
};

/*
 * The length of the top-level value at @p (not whitespace) when all of it
 * is in the @n bytes, else 0. An object or array ends where its brackets
 * balance outside strings; anything else (not a report, but jansson says
 * what it is) at the end of its line. Only the framing: jansson checks it.
 */
static size_t value_span(const char *p, size_t n)
{
	bool in_string = false;
	size_t depth = 0;

	if (*p != '{' && *p != '[') {
		const char *nl = memchr(p, '\n', n);

		return nl ? (size_t)(nl - p) : 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (in_string) {
			if (p[i] == '\\')
				i++;
			else if (p[i] == '"')
				in_string = false;
			continue;
		}
		switch (p[i]) {
		case '"':
			in_string = true;
			break;
		case '{':
		case '[':
			depth++;
			break;
		case '}':
		case ']':
			if (--depth == 0)
				return i + 1;
			break;
		}
	}
	return 0;
}

/* More of the file into @rd's buffer, until it is full or the file ends. Return: -1 on an error. */
static int reader_fill(struct batch *b, struct reader *rd)
{
	if (rd->at > 0) {
		memmove(rd->buf, rd->buf + rd->at, rd->len - rd->at);
		rd->len -= rd->at;
		rd->at = 0;
	}
	if (rd->len == rd->cap) {
		rd->cap = rd->cap ? 2 * rd->cap : BUFFER;
		rd->buf = xrealloc(rd->buf, rd->cap);
	}
	while (rd->len < rd->cap) {
		ssize_t n = read(rd->fd, rd->buf + rd->len, rd->cap - rd->len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			b->read_errno = errno;
			rd->eof = true;
			return -1;
		}
		if (n == 0) {
			rd->eof = true;
			break;
		}
		rd->len += (size_t)n;
		/*
		 * All of the size it had when opened: no read() to see the end (one
		 * system call a file). The shim appends a report in one write(2), so
		 * that size ends a report; one appended since is for the next reading.
		 */
		if (rd->left != SIZE_MAX && (rd->left -= (size_t)n) == 0) {
			rd->eof = true;
			break;
		}
	}
	return 0;
}

/*
 * The objects of @rd into @b, at most @limit (0: all), until the input
 * ends or the first malformed one. Return: whether there may be more.
 */
static bool reader_parse(struct batch *b, struct reader *rd, int limit)
{
	struct arena *was = arena_bind(&b->arena);
	bool more = false;

	for (;;) {
		json_error_t err;
		size_t span, used;
		bool plain;
		json_t *v;

		while (rd->at < rd->len && (rd->buf[rd->at] == ' ' || rd->buf[rd->at] == '\t' ||
					    rd->buf[rd->at] == '\r' || rd->buf[rd->at] == '\n'))
			rd->line += rd->buf[rd->at++] == '\n';
		if (rd->at < rd->len && rd->buf[rd->at] == SPOOL_RS) {
			/* A spool record's head (a spool `pfshim run` could not split): its report follows. */
			const char *nl = memchr(rd->buf + rd->at, '\n', rd->len - rd->at);

			if (nl) {
				rd->at = (size_t)(nl + 1 - rd->buf);
				rd->line++;
				rd->spool = true;
				continue;
			}
			if (!rd->eof) {
				if (reader_fill(b, rd) < 0)
					break;
				continue;
			}
		}
		if (rd->at == rd->len && rd->eof)
			break;
		if (limit && b->n == limit) {
			more = true;
			break;
		}
		/* the fast path finds the value's end itself; framing only when it cannot */
		used = 0;
		v = rd->at == rd->len ? NULL
		    : json_read_fast(rd->buf + rd->at, rd->len - rd->at, &used, &plain);
		if (!v) {
			span = rd->at == rd->len ? 0
			       : rd->eof ? rd->len - rd->at
					 : value_span(rd->buf + rd->at, rd->len - rd->at);
			if (!span) {	/* (rd->eof is false: there is a file to read) */
				if (reader_fill(b, rd) < 0)
					break;
				continue;
			}
			v = json_read(rd->buf + rd->at, span, &err, &plain);
			used = v ? (size_t)err.position : 0;
		}
		if (!v) {
			/* In a spool, a record cut short (its writer killed): on at the next one. */
			/* (after its first byte: a head cut before its newline starts with one) */
			const char *rs = rd->spool && rd->at + 1 < rd->len ?
					 memchr(rd->buf + rd->at + 1, SPOOL_RS, rd->len - rd->at - 1) :
					 NULL;

			if (rs || (rd->spool && rd->eof)) {
				b->torn++;
				rd->at = rs ? (size_t)(rs - rd->buf) : rd->len;
				continue;
			}
			if (rd->spool) {	/* its next record is further on */
				if (reader_fill(b, rd) < 0)
					break;
				continue;
			}
			snprintf(b->error, sizeof(b->error), "truncated or malformed JSON: line %d: %s",
				 rd->line + err.line - 1, err.text);
			break;
		}
		if (b->n == b->cap) {
			b->cap = b->cap ? 2 * b->cap : 8;
			b->object = xrealloc(b->object, (size_t)b->cap * sizeof(*b->object));
			b->plain = xrealloc(b->plain, (size_t)b->cap * sizeof(*b->plain));
		}
		b->plain[b->n] = plain;
		b->object[b->n++] = v;
		for (const char *p = rd->buf + rd->at, *end = p + used;
		     (p = memchr(p, '\n', (size_t)(end - p))); p++)
			rd->line++;
		rd->at += used;
	}
	arena_bind(was);
	return more;
}

void batch_parse(struct batch *b, const char *text, size_t len)
{
	struct reader rd = { .fd = -1, .eof = true, .buf = (char *)text, .len = len, .line = 1 };

	reader_parse(b, &rd, 0);	/* (the text is only read: eof is set, nothing is filled) */
}

/* The effective user, asked once (a system call a file was 4 % of the time over 10,000). */
static uid_t the_euid;

static void euid_init(void)
{
	the_euid = geteuid();
}

static uid_t euid(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, euid_init);
	return the_euid;
}

/*
 * @path opened as @rules say (input.h), or -1 with errno, or -2 with
 * b->refused set; *@size: a walked file's size (SIZE_MAX: not known).
 */
static int input_open(struct batch *b, const char *path, const struct input_rules *rules,
		      size_t *size)
{
	struct stat st;
	int fd;

	*size = SIZE_MAX;
	if (!rules || !rules->walked)
		return open(path, O_RDONLY | O_CLOEXEC);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode))
		b->refused = "not a regular file (replaced since the directory was read)";
	else if (!rules->any_owner && st.st_uid != euid())
		b->refused = "owned by another user (--any-owner reads such files)";
	if (b->refused) {
		close(fd);
		return -2;
	}
	if (st.st_size > 0)	/* (0: maybe a file that does not say its size) */
		*size = (size_t)st.st_size;
	return fd;
}

static void reader_close(struct batch *b)
{
	struct reader *rd = b->reader;

	if (rd && rd->fd >= 0 && rd->own_fd)
		close(rd->fd);
	if (rd)
		rd->fd = -1;
	b->more = false;
}

void batch_read(struct batch *b, const char *path, const struct input_rules *rules)
{
	size_t size = SIZE_MAX;
	int fd = path ? input_open(b, path, rules, &size) : STDIN_FILENO;
	struct reader *rd = b->reader;

	if (fd < 0) {
		if (fd == -1)
			b->read_errno = errno;
		return;
	}
	if (!rd) {
		rd = b->reader = xrealloc(NULL, sizeof(*rd));
		*rd = (struct reader){ 0 };
	}
	rd->fd = fd;
	rd->own_fd = path != NULL;
	rd->eof = false;
	rd->left = size;
	rd->at = rd->len = 0;
	rd->line = 1;
	b->more = reader_parse(b, rd, BATCH_OBJECTS);
	if (!b->more)
		reader_close(b);
}

/* The objects gone: their nodes are in the arena, whose reset frees them all. */
static void batch_forget(struct batch *b)
{
	arena_reset(&b->arena);
	b->n = 0;
	b->error[0] = '\0';
	b->read_errno = 0;
	b->refused = NULL;
}

bool batch_next(struct batch *b)
{
	if (!b->more)
		return false;
	batch_forget(b);
	b->more = reader_parse(b, b->reader, BATCH_OBJECTS);
	if (!b->more)
		reader_close(b);
	return true;
}

void batch_clear(struct batch *b)
{
	reader_close(b);
	batch_forget(b);
}

void batch_free(struct batch *b)
{
	batch_clear(b);
	free(b->object);
	free(b->plain);
	b->object = NULL;
	b->plain = NULL;
	b->n = b->cap = 0;
	arena_free_all(&b->arena);
	if (b->reader)
		free(b->reader->buf);
	free(b->reader);
	b->reader = NULL;
}

/* Every batch of the file @b was read from, to @take. */
static void take_all(struct batch *b, void (*take)(void *, struct batch *), void *ctx)
{
	take(ctx, b);
	while (batch_next(b))
		take(ctx, b);
	batch_clear(b);
}

void input_stdin(void (*take)(void *ctx, struct batch *b), void *ctx)
{
	struct batch b = { .path = "(stdin)" };

	batch_read(&b, NULL, NULL);
	take_all(&b, take, ctx);
	batch_free(&b);
}

struct ring {
	char *const *paths;
	const struct input_rules *rules;
	int n, workers;
	struct batch slot[RING];
	int ready[RING];	/* the file index a slot holds, parsed; -1: none */
	int next_take;		/* the file the caller takes next */
	/*
	 * Who sleeps, so that a wake-up goes only to one who waits for it:
	 * a broadcast at every file was 7 futex calls a file (strace -c).
	 */
	int caller_waits;	/* the file the caller sleeps for; -1: it does not */
	int workers_wait;	/* workers sleeping for a free slot */
	pthread_mutex_t lock;
	pthread_cond_t ready_cond, space_cond;
};

struct worker {
	struct ring *r;
	int first;
};

static void *worker_run(void *arg)
{
	struct worker *w = arg;
	struct ring *r = w->r;

	for (int i = w->first; i < r->n; i += r->workers) {
		struct batch *b = &r->slot[i % RING];

		pthread_mutex_lock(&r->lock);
		while (i - r->next_take >= RING) {	/* its slot still holds file i - RING */
			r->workers_wait++;
			pthread_cond_wait(&r->space_cond, &r->lock);
			r->workers_wait--;
		}
		pthread_mutex_unlock(&r->lock);
		b->path = r->paths[i];
		batch_read(b, r->paths[i], &r->rules[i]);
		pthread_mutex_lock(&r->lock);
		r->ready[i % RING] = i;
		if (r->caller_waits == i)
			pthread_cond_signal(&r->ready_cond);
		pthread_mutex_unlock(&r->lock);
	}
	return NULL;
}

static int workers_for(int n)
{
	long cpus;
	int w = n / FILES_PER_WORKER;

	if (w < 2)	/* no sysconf(): it reads /sys, three system calls of every `pfshim run` */
		return w;
	cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (w > MAX_WORKERS)
		w = MAX_WORKERS;
	if (cpus > 0 && w > cpus)
		w = (int)cpus;
	return w;
}

static void files_in_order(char *const *paths, const struct input_rules *rules, int n,
			   void (*take)(void *, struct batch *), void *ctx)
{
	struct batch b = { 0 };

	for (int i = 0; i < n; i++) {
		b.path = paths[i];
		batch_read(&b, paths[i], &rules[i]);
		take_all(&b, take, ctx);
	}
	batch_free(&b);
}

void input_files(char *const *paths, const struct input_rules *rules, int n,
		 void (*take)(void *ctx, struct batch *b), void *ctx)
{
	struct ring *r;
	struct worker w[MAX_WORKERS];
	pthread_t thread[MAX_WORKERS];
	int workers = workers_for(n), started = 0;

	if (workers < 2) {
		files_in_order(paths, rules, n, take, ctx);
		return;
	}
	r = xrealloc(NULL, sizeof(*r));
	memset(r, 0, sizeof(*r));
	r->paths = paths;
	r->rules = rules;
	r->n = n;
	r->workers = workers;
	for (int s = 0; s < RING; s++)
		r->ready[s] = -1;
	pthread_mutex_init(&r->lock, NULL);
	r->caller_waits = -1;
	pthread_cond_init(&r->ready_cond, NULL);
	pthread_cond_init(&r->space_cond, NULL);
	for (int t = 0; t < workers; t++) {
		w[t] = (struct worker){ r, t };
		if (pthread_create(&thread[t], NULL, worker_run, &w[t]) != 0)
			break;
		started++;
	}
	for (int i = 0; i < n; i++) {
		struct batch *b = &r->slot[i % RING];

		if (i % workers >= started) {	/* its worker could not start: read it here */
			b->path = paths[i];	/* (its slot is free: we took file i - RING) */
			batch_read(b, paths[i], &rules[i]);
			r->ready[i % RING] = i;
		}
		pthread_mutex_lock(&r->lock);
		while (r->ready[i % RING] != i) {
			r->caller_waits = i;
			pthread_cond_wait(&r->ready_cond, &r->lock);
		}
		r->caller_waits = -1;
		pthread_mutex_unlock(&r->lock);
		take_all(b, take, ctx);
		pthread_mutex_lock(&r->lock);
		r->ready[i % RING] = -1;
		r->next_take = i + 1;
		if (r->workers_wait)
			pthread_cond_broadcast(&r->space_cond);
		pthread_mutex_unlock(&r->lock);
	}
	for (int t = 0; t < started; t++)
		pthread_join(thread[t], NULL);
	for (int s = 0; s < RING; s++)
		batch_free(&r->slot[s]);
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->ready_cond);
	pthread_cond_destroy(&r->space_cond);
	free(r);
}
