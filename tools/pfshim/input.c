/* SPDX-License-Identifier: MIT */
/*
 * input.c: files to parsed JSON objects, in list order, in parallel. The
 * parser (jansson) is two thirds of `pfshim report`'s time, and each file
 * parses alone: workers take files i, i + W, i + 2W, ... into a ring of
 * RING batches, the caller takes batch i when it is ready and frees its
 * slot. Each slot has its own arena, so a worker never touches memory the
 * caller still reads. Memory stays RING batches whatever the number of files.
 */
#include "tools/pfshim/input.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tools/pfshim/table.h"

#define RING 64
#define MAX_WORKERS 4
#define FILES_PER_WORKER 64	/* fewer files: not worth a thread */

void batch_parse(struct batch *b, const char *text, size_t len)
{
	struct arena *was = arena_bind(&b->arena);
	size_t at = 0;
	int line = 1;

	for (;;) {
		json_error_t err;
		json_t *v;

		while (at < len && (text[at] == ' ' || text[at] == '\t' || text[at] == '\r' ||
				    text[at] == '\n'))
			line += text[at++] == '\n';
		if (at >= len)
			break;
		v = json_loadb(text + at, len - at, JSON_DISABLE_EOF_CHECK, &err);
		if (!v) {
			snprintf(b->error, sizeof(b->error), "truncated or malformed JSON: line %d: %s",
				 line + err.line - 1, err.text);
			break;
		}
		if (b->n == b->cap) {
			b->cap = b->cap ? 2 * b->cap : 8;
			b->object = xrealloc(b->object, (size_t)b->cap * sizeof(*b->object));
		}
		b->object[b->n++] = v;
		for (const char *p = text + at, *end = text + at + (size_t)err.position;
		     (p = memchr(p, '\n', (size_t)(end - p))); p++)
			line++;
		at += (size_t)err.position;
	}
	arena_bind(was);
}

/* @path opened as @rules say (input.h), or -1 with errno, or -2 with b->refused set. */
static int input_open(struct batch *b, const char *path, const struct input_rules *rules)
{
	struct stat st;
	int fd;

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
	else if (!rules->any_owner && st.st_uid != geteuid())
		b->refused = "owned by another user (--any-owner reads such files)";
	if (b->refused) {
		close(fd);
		return -2;
	}
	return fd;
}

void batch_read(struct batch *b, const char *path, const struct input_rules *rules)
{
	int fd = path ? input_open(b, path, rules) : STDIN_FILENO;
	FILE *f = fd >= 0 ? (path ? fdopen(fd, "r") : stdin) : NULL;
	size_t len = 0, cap = 65536, n;
	char *text;

	if (!f) {
		if (fd == -1 || (fd >= 0 && path))
			b->read_errno = errno;
		if (fd >= 0 && path)
			close(fd);
		return;
	}
	text = xrealloc(NULL, cap);
	while ((n = fread(text + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap)
			text = xrealloc(text, cap *= 2);
	}
	if (ferror(f))
		b->read_errno = errno ? errno : EIO;
	else
		batch_parse(b, text, len);
	if (f != stdin)
		fclose(f);
	free(text);
}

void batch_clear(struct batch *b)
{
	struct arena *was = arena_bind(&b->arena);

	for (int i = 0; i < b->n; i++)
		json_decref(b->object[i]);
	arena_bind(was);
	arena_reset(&b->arena);
	b->n = 0;
	b->error[0] = '\0';
	b->read_errno = 0;
	b->refused = NULL;
}

struct ring {
	char *const *paths;
	const struct input_rules *rules;
	int n, workers;
	struct batch slot[RING];
	int ready[RING];	/* the file index a slot holds, parsed; -1: none */
	int next_take;		/* the file the caller takes next */
	pthread_mutex_t lock;
	pthread_cond_t changed;
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
		while (i - r->next_take >= RING)	/* its slot still holds file i - RING */
			pthread_cond_wait(&r->changed, &r->lock);
		pthread_mutex_unlock(&r->lock);
		b->path = r->paths[i];
		batch_read(b, r->paths[i], &r->rules[i]);
		pthread_mutex_lock(&r->lock);
		r->ready[i % RING] = i;
		pthread_cond_broadcast(&r->changed);
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
		take(ctx, &b);
		batch_clear(&b);
	}
	free(b.object);
	arena_free_all(&b.arena);
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
	pthread_cond_init(&r->changed, NULL);
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
		while (r->ready[i % RING] != i)
			pthread_cond_wait(&r->changed, &r->lock);
		pthread_mutex_unlock(&r->lock);
		take(ctx, b);
		batch_clear(b);
		pthread_mutex_lock(&r->lock);
		r->ready[i % RING] = -1;
		r->next_take = i + 1;
		pthread_cond_broadcast(&r->changed);
		pthread_mutex_unlock(&r->lock);
	}
	for (int t = 0; t < started; t++)
		pthread_join(thread[t], NULL);
	for (int s = 0; s < RING; s++) {
		free(r->slot[s].object);
		arena_free_all(&r->slot[s].arena);
	}
	pthread_mutex_destroy(&r->lock);
	pthread_cond_destroy(&r->changed);
	free(r);
}
