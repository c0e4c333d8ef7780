/* SPDX-License-Identifier: MIT */
/*
 * spool.c: the runner's spool (spool.h). The job's processes append whole
 * records; this side alone names the spool, drains it and makes the files,
 * after the job, so that making a file per process (60-800 us of CPU each
 * on ext4, 7-14 on tmpfs, measured in docs/pfshim.md) is not in what the
 * job counts. A record is believed only as far as its own framing goes:
 * any byte of it may be another writer's torn tail or a hostile program's.
 */
#include "tools/pfshim/run/spool.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "preload/output/spool.h"
#include "tools/pfshim/model/table.h"	/* xrealloc() */

/* One whole record: where its key, name and report are in the spool. */
struct record {
	const char *head, *key, *name, *body;
	size_t key_len, name_len, body_len;
	int seq;		/* the %n of its file once written, else -1 */
};

/* A report's name as the shim makes them: no '/', not hidden, ending ".0.json". */
static bool name_ok(const char *name, size_t n)
{
	static const char tail[] = ".0.json";

	if (n <= sizeof(tail) - 1 || n > NAME_MAX - 8 || name[0] == '.' ||
	    memcmp(name + n - (sizeof(tail) - 1), tail, sizeof(tail) - 1) != 0)
		return false;
	for (size_t i = 0; i < n; i++)
		if (name[i] == '/' || (unsigned char)name[i] < 0x20 || name[i] == 0x7f)
			return false;
	return true;
}

/* The field at *@p up to @stop (within @end): its start and length; *@p past the stop byte. */
static bool field(const char **p, const char *end, char stop, const char **at, size_t *len)
{
	const char *s = memchr(*p, stop, (size_t)(end - *p));

	if (!s || s == *p)
		return false;
	*at = *p;
	*len = (size_t)(s - *p);
	*p = s + 1;
	return true;
}

/* The record at @p (its SPOOL_RS) into @r, and where the next begins. Return: false when torn. */
static bool record_read(const char *p, const char *end, struct record *r, const char **next)
{
	const char *len_at, *q = p + 1, *head_end = end - q > NAME_MAX + 64 ? q + NAME_MAX + 64 : end;
	size_t len_len;
	uint64_t len = 0;

	if (!field(&q, head_end, ' ', &r->key, &r->key_len) ||
	    !field(&q, head_end, ' ', &r->name, &r->name_len) ||
	    !field(&q, head_end, '\n', &len_at, &len_len) || len_len > 19)
		return false;
	for (size_t i = 0; i < len_len; i++) {
		if (len_at[i] < '0' || len_at[i] > '9')
			return false;
		len = len * 10 + (uint64_t)(len_at[i] - '0');
	}
	for (size_t i = 0; i < r->key_len; i++)
		if ((r->key[i] < '0' || r->key[i] > '9') && r->key[i] != '.')
			return false;
	/* Its length lands on the next record or the end, and no record starts inside it. */
	if (!name_ok(r->name, r->name_len) || len == 0 || len > (uint64_t)(end - q) ||
	    (q + len < end && q[len] != SPOOL_RS) || memchr(q, SPOOL_RS, len))
		return false;
	r->head = p;
	r->seq = -1;
	r->body = q;
	r->body_len = len;
	*next = q + len;
	return true;
}

/* Records by key, then by place: an image's last is the last of its run. */
static int record_order(const void *a, const void *b)
{
	const struct record *x = a, *y = b;
	size_t n = x->key_len < y->key_len ? x->key_len : y->key_len;
	int c = memcmp(x->key, y->key, n);

	if (c == 0 && x->key_len != y->key_len)
		c = x->key_len < y->key_len ? -1 : 1;
	return c ? c : (x->body > y->body) - (x->body < y->body);
}

static bool same_image(const struct record *x, const struct record *y)
{
	return x->key_len == y->key_len && memcmp(x->key, y->key, x->key_len) == 0;
}

/* @r's report as a new file in @dirfd: its name, or with %n raised when one is there. Return: %n. */
static int file_write(int dirfd, const struct record *r)
{
	char name[NAME_MAX + 1];
	size_t stem = r->name_len - strlen("0.json");

	for (unsigned seq = 0; seq < 100000; seq++) {
		int fd;
		ssize_t done = 0;

		snprintf(name, sizeof(name), "%.*s%u.json", (int)stem, r->name, seq);
		fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && errno == EEXIST)
			continue;
		if (fd < 0)
			return -errno;
		for (size_t at = 0; at < r->body_len; at += (size_t)done) {
			done = write(fd, r->body + at, r->body_len - at);
			if (done < 0 && errno == EINTR)
				done = 0;
			else if (done <= 0)
				break;
		}
		if (done <= 0 && r->body_len) {
			int err = done < 0 ? errno : EIO;

			close(fd);
			unlinkat(dirfd, name, 0);	/* ours, half written */
			return -err;
		}
		if (close(fd) < 0) {
			int err = errno;

			unlinkat(dirfd, name, 0);
			return -err;
		}
		return (int)seq;
	}
	return -EEXIST;
}

/* The file file_write() made of @r, unmade. */
static void file_unwrite(int dirfd, struct record *r)
{
	char name[NAME_MAX + 1];

	snprintf(name, sizeof(name), "%.*s%d.json", (int)(r->name_len - strlen("0.json")), r->name,
		 r->seq);
	unlinkat(dirfd, name, 0);
	r->seq = -1;
}

/* The pid of a record's key ("PID.START"). */
static int record_pid(const struct record *r)
{
	int pid = 0;

	for (size_t i = 0; i < r->key_len && r->key[i] != '.' && pid < 100000000; i++)
		pid = pid * 10 + (r->key[i] - '0');
	return pid;
}

/*
 * @r, whose file could not be written (a full file system, most often), kept
 * as it was in a new spool of this host's, which `pfshim report` reads; room
 * its file could not have may still hold it, the old spool's freed.
 */
static int record_keep(int dirfd, const struct record *r)
{
	char name[NAME_MAX + 1], host[256] = "";
	size_t len = (size_t)(r->body + r->body_len - r->head);
	struct stat st;
	ssize_t done;
	int fd, err = 0;

	gethostname(host, sizeof(host) - 1);
	if (spool_name(name, sizeof(name), host) < 0)
		return -ENAMETOOLONG;
	fd = openat(dirfd, name, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
		    0600);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_nlink != 1) {
		close(fd);
		return -EPERM;
	}
	/* Cut short, it fails its length when read, as a writer's would. */
	done = write(fd, r->head, len);
	if (done != (ssize_t)len)
		err = done < 0 ? -errno : -ENOSPC;
	close(fd);
	return err;
}

void spool_split_buffer(int dirfd, const char *data, uint64_t n, struct spool_split_result *res,
			spool_lost_fn *lost, void *ctx)
{
	const char *p = data, *end = data + n;
	struct record *rec = NULL;
	size_t nr = 0, cap = 0;
	bool keeping = false;	/* a file refused: the rest into a spool */

	while (p < end) {
		struct record r;
		const char *next;

		if (*p != SPOOL_RS || !record_read(p, end, &r, &next)) {
			/* A torn record (or bytes that are none): on at the next record. */
			const char *rs = memchr(p + 1, SPOOL_RS, (size_t)(end - p - 1));

			res->torn++;
			p = rs ? rs : end;
			continue;
		}
		if (nr == cap) {
			cap = cap ? 2 * cap : 256;
			rec = xrealloc(rec, cap * sizeof(*rec));
		}
		rec[nr++] = r;
		p = next;
	}
	res->records += nr;
	qsort(rec, nr, sizeof(*rec), record_order);
	for (size_t i = 0; i < nr; i++) {
		int err;

		if (i + 1 < nr && same_image(&rec[i], &rec[i + 1]))
			continue;	/* a later record of the same image replaces it */
		err = keeping ? -ENOSPC : file_write(dirfd, &rec[i]);
		if (err >= 0) {
			rec[i].seq = err;
			res->files++;
			continue;
		}
		if (!keeping) {
			/*
			 * The directory full: the files made give their room back to
			 * one spool of every report, which packs them (no larger than
			 * the one read); one it cannot take stays a file.
			 */
			keeping = true;
			res->err = -err;
			for (size_t k = 0; k < i; k++) {
				if (rec[k].seq < 0)
					continue;
				file_unwrite(dirfd, &rec[k]);
				if (record_keep(dirfd, &rec[k]) == 0) {
					res->files--;
					res->kept++;
				} else {
					rec[k].seq = file_write(dirfd, &rec[k]);
					if (rec[k].seq < 0) {
						res->files--;
						res->lost++;
						if (lost)
							lost(ctx, record_pid(&rec[k]), -rec[k].seq);
					}
				}
			}
		}
		if (record_keep(dirfd, &rec[i]) == 0) {
			res->kept++;
			continue;
		}
		err = file_write(dirfd, &rec[i]);
		if (err >= 0) {
			res->files++;
			continue;
		}
		res->lost++;
		if (!res->err)
			res->err = -err;
		if (lost)
			lost(ctx, record_pid(&rec[i]), -err);
	}
	free(rec);
}

/*
 * The spool's first @size bytes into *@data (*@n of them, to free()), its
 * holes left out. Read, not mapped: a job's process that kept it open may
 * still shrink it (a mapped page past the new end is a SIGBUS of ours) or
 * grow it with holes (no record is in one), so what is held is at most what
 * was written. Return: 0 or -errno.
 */
static int spool_read(int fd, off_t size, char **data, size_t *n)
{
	size_t cap = 0;

	*data = NULL;
	*n = 0;
	for (off_t at = 0, end = 0; at < size; ) {
		ssize_t got;

		if (at == end) {
			at = lseek(fd, at, SEEK_DATA);
			end = at < 0 ? -1 : lseek(fd, at, SEEK_HOLE);
			if (at < 0 || end < 0)
				return at < 0 && errno == ENXIO ? 0 : -errno;	/* ENXIO: no more data */
			end = end < size ? end : size;
			if (at >= end)
				break;
		}
		if (*n + (size_t)(end - at) > cap) {
			char *more;

			cap = *n + (size_t)(end - at);
			more = realloc(*data, cap);
			if (!more)
				return -ENOMEM;
			*data = more;
		}
		got = pread(fd, *data + *n, (size_t)(end - at), at);
		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			break;		/* shrunk by another */
		*n += (size_t)got;
		at += got;
	}
	return 0;
}

void run_spool_split(int dirfd, int fd, struct spool_split_result *res, spool_lost_fn *lost,
		     void *ctx)
{
	char name[NAME_MAX + 1], host[256] = "";
	struct stat st, at;
	char *data;

	gethostname(host, sizeof(host) - 1);
	/* Closed to new writers by its name, if the name is still this spool's... */
	if (spool_name(name, sizeof(name), host) == 0 && fstat(fd, &st) == 0 &&
	    fstatat(dirfd, name, &at, AT_SYMLINK_NOFOLLOW) == 0 && at.st_dev == st.st_dev &&
	    at.st_ino == st.st_ino)
		unlinkat(dirfd, name, 0);
	/*
	 * ... then the writes begun before: each holds the lock shared (spool.c
	 * of the shim) for one writev. One held past SPOOL_WAIT_MS (a process
	 * stopped between its lock and its write) is not waited for: its record,
	 * if it comes, is not read.
	 */
	for (int ms = 0; flock(fd, LOCK_EX | LOCK_NB) < 0; ms++) {
		if ((errno != EWOULDBLOCK && errno != EINTR) || ms == SPOOL_WAIT_MS) {
			res->unwaited = true;
			break;
		}
		nanosleep(&(struct timespec){ 0, 1000000 }, NULL);
	}
	flock(fd, LOCK_UN);
	if (fstat(fd, &st) == 0 && st.st_size > 0) {
		size_t n;
		int err = spool_read(fd, st.st_size, &data, &n);

		if (err == 0) {
			/* Read: its room is the files' now (a full file system's last). */
			(void)!ftruncate(fd, 0);
			spool_split_buffer(dirfd, data, n, res, lost, ctx);
		} else {
			res->err = -err;
			res->lost++;
		}
		free(data);
	}
	close(fd);
}

/*
 * The runner's mark on its spool, for as long as its descriptor is open: an
 * open file description lock (fcntl(2)), which the writers' flock(2) locks
 * never meet. @type F_RDLCK to hold it, F_WRLCK to ask that no runner does.
 */
static int spool_mark(int fd, short type)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };

	return fcntl(fd, F_OFD_SETLK, &fl) < 0 ? -errno : 0;
}

/* A new spool at @name in @dirfd, marked ours: its descriptor, or -1. */
static int spool_new(int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);

	if (fd >= 0)
		spool_mark(fd, F_RDLCK);
	return fd;
}

int run_spool_create(int dirfd, struct spool_split_result *left)
{
	char name[NAME_MAX + 1], host[256] = "";
	struct stat st;
	int fd;

	gethostname(host, sizeof(host) - 1);
	if (spool_name(name, sizeof(name), host) < 0)
		return -1;
	fd = spool_new(dirfd, name);
	if (fd >= 0 || errno != EEXIST)
		return fd;
	/*
	 * An earlier runner's, ours, that it could not split: its reports are
	 * the directory's. One whose runner is alive (a second run into the
	 * same directory, which its claim refuses unless the claim's file was
	 * removed meanwhile: claim.h) is its runner's to split: this job's
	 * reports go there.
	 */
	fd = openat(dirfd, name, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_nlink != 1 || spool_mark(fd, F_WRLCK) < 0) {
		close(fd);
		return -1;
	}
	run_spool_split(dirfd, fd, left, NULL, NULL);
	return spool_new(dirfd, name);
}
