/* SPDX-License-Identifier: MIT */
/*
 * dir.c: reports as files in a directory, one per process image
 * (PFSHIM_OUTPUT=DIR/ and the job directory of preload/output/job.c). A report is
 * written in full to an unnamed file (O_TMPFILE) and only then linked under
 * its name, so a reader, or a SIGKILL at any instant, never leaves half a
 * report behind. With PFSHIM_INTERVAL each image also keeps its series,
 * every report appended whole to NAME.series.EXT beside its file; interval
 * reports go there only. Async-signal-safe: system calls and export/buf.h
 * only.
 */
#include "preload/output/dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>	/* renameat() */
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "export/buf.h"
#include "preload/fd.h"
#include "preload/output/ledger.h"
#include "preload/output/spool.h"
#include "preload/output/trusted.h"
#include "preload/prefault.h"

/*
 * The file this image published first: its later reports replace it. An
 * image whose first reports are interval ones only reserves the name (its
 * series file is created, the file itself not yet linked).
 *
 * Threads' explicit reports run at once (process.c): one thread at a time
 * changes it, the one whose (pid << 32 | tid) is in @writer, with @seq odd
 * while it does (published_claim()); the others read it between two equal
 * even @seq, as a seqlock is read (published_find()), and wait for a change
 * in progress a millisecond at a time. Shared unguarded, the first reports
 * of two threads each published a file, and a name was read half-written.
 * No lock: a signal report may interrupt its own thread's change, and must
 * never wait for itself.
 */
static struct {
	_Atomic uint64_t writer;
	_Atomic uint32_t seq;
	int pid;
	bool linked;
	char name[NAME_MAX + 1];
	char dir[PATH_MAX];	/* its last byte stays '\0': a torn read still ends */
} published __attribute__((aligned(4096)));	/* what a report writes: one page (prefault) */

/* How long a report waits for another thread's change of `published`: a few linkat(2) make it. */
#define PUBLISHED_WAIT_MS 2000

/*
 * The unnamed file the report being written goes into, and its directory,
 * made before the report's last read of the counters (output_dir_reserve()):
 * making a file is most of what a report costs on ext4 (an inode allocated,
 * the group's bitmap searched past recently deleted inodes: 30 % of the CPU
 * time of a 200-process shell loop writing into /tmp, by perf record), and
 * it varies with the file system and its history. Made before that read, it
 * is in the share the report measures of itself (preload/share.h), not left
 * to the calibration, whose /bin/true wrote elsewhere and earlier.
 */
static struct {
	int fd;			/* the unnamed file, or -1 */
	ino_t file_ino;		/* ... this inode */
	dev_t dev;		/* ... made in this directory */
	ino_t ino;
	int dirfd;		/* the directory opened by path, or -1 */
	uint64_t dir_hash;	/* ... that path's (path_hash()) */
	/*
	 * Written by output_dir_prefault() alone: at every report, while
	 * another thread's report may be writing the fields above.
	 */
	unsigned char prefault;
} spare __attribute__((aligned(64))) = { .fd = -1, .dirfd = -1 };	/* in one page */
_Static_assert(sizeof(spare) <= 64, "the spare in one page: its prefault byte's");

/*
 * Whose the spare is: (pid << 32 | tid) of the thread whose report made it,
 * 0 when nobody's. Threads' explicit reports run at once (process.c,
 * series_next()): only the owner takes, closes or replaces the spare;
 * another thread's report opens its own at its write, as without one. A
 * fork child's copy (another pid) is not its own: left open, as it is.
 * In .data, beside the spare: in .bss it had a page of its own, before
 * published's, written by every report (prefault.h).
 */
static _Atomic uint64_t spare_owner PREFAULT_DATA;

/* FNV-1a of @path with its length: tells the reserved directory's path from another. */
static uint64_t path_hash(const char *path)
{
	uint64_t h = 0xcbf29ce484222325u;
	size_t n = 0;

	for (; path[n]; n++)
		h = (h ^ (unsigned char)path[n]) * 0x100000001b3u;
	return h ^ n;
}

/*
 * The host name as a file name's first part: anyone who may call
 * sethostname() (root in a UTS namespace of their own) chooses it, so '/'
 * (a path), a leading '.' (a hidden file readers skip) and control bytes
 * become '_'.
 */
static void put_host(struct buf *b, const char *host)
{
	if (!host || !*host)
		host = "localhost";
	for (const char *h = host; *h; h++)
		buf_putc(b, *h == '/' || (unsigned char)*h < 0x20 || *h == 0x7f ||
				    (h == host && *h == '.') ? '_' : *h);
}

int output_dir_name(const struct output_names *names, char *name, size_t size)
{
	struct buf b;

	buf_init(&b, name, size);
	buf_puts(&b, names->prefix ? names->prefix : "");
	put_host(&b, names->host);
	buf_puts(&b, ".r");
	if (names->rank && *names->rank) {
		size_t n = strlen(names->rank);

		buf_pad(&b, '0', n < 6 ? 6 - n : 0);
		buf_puts(&b, names->rank);
	} else {
		buf_putc(&b, '-');
	}
	buf_puts(&b, ".p");
	buf_put_u64_width(&b, (uint64_t)names->pid, 7);
	buf_putc(&b, '.');
	output_put_time(&b, names->start_ns);
	buf_putc(&b, '.');
	buf_put_u64(&b, names->seq);
	buf_puts(&b, names->ext ? names->ext : "");
	return buf_finish(&b) < size ? 0 : -ENAMETOOLONG;
}

/*
 * (pid << 32 | tid): whose the spare is, and who changes `published`; five
 * times a report. The tid is kept per thread with the pid it was read in:
 * a thread's tid changes only where its pid does (a fork child's thread, a
 * vfork child on its parent's TLS), so getpid() alone tells a kept tid
 * from a stale one (a vfork child leaves its own in its parent's TLS:
 * the parent, resumed, sees another pid and reads its tid again).
 */
static __thread struct {
	uint32_t pid, tid;
} thread_ids __attribute__((tls_model("initial-exec")));	/* one variable: the model is per declarator */

static uint64_t thread_self(void)
{
	uint32_t pid = (uint32_t)getpid();

	if (pid != thread_ids.pid) {
		thread_ids.tid = (uint32_t)gettid();
		thread_ids.pid = pid;
	}
	return (uint64_t)pid << 32 | thread_ids.tid;
}

static void wait_a_ms(void)
{
	const struct timespec ms = { 0, 1000000 };

	nanosleep(&ms, NULL);
}

/*
 * Take `published` for a change by this thread. Another thread's change is
 * waited for, up to PUBLISHED_WAIT_MS; a fork child's copy of its parent's
 * claim is nobody's. Return: 0 (give it back with published_unclaim()),
 * -EDEADLK when this thread's own change is the one in progress (a signal
 * report interrupted it), -EBUSY after the wait.
 */
static int published_claim(void)
{
	uint64_t self = thread_self();

	for (int waited = 0;;) {
		uint64_t owner = 0;

		if (atomic_compare_exchange_strong(&published.writer, &owner, self))
			break;
		if (owner == self)
			return -EDEADLK;
		if (owner >> 32 != self >> 32) {
			/* the parent's, copied by fork(): nobody's here */
			if (atomic_compare_exchange_strong(&published.writer, &owner, self))
				break;
			continue;
		}
		if (waited++ >= PUBLISHED_WAIT_MS)
			return -EBUSY;
		wait_a_ms();
	}
	/* odd: readers retry (already odd in a child forked during its parent's change) */
	atomic_store(&published.seq, atomic_load(&published.seq) | 1);
	atomic_thread_fence(memory_order_release);
	return 0;
}

static void published_unclaim(void)
{
	atomic_store(&published.seq, atomic_load(&published.seq) + 1);
	atomic_store(&published.writer, 0);
}

/* `published` is @pid's in @dir (read under the claim, or between two equal seq). */
static bool published_is(int pid, const char *dir)
{
	return published.pid == pid && published.name[0] && strcmp(published.dir, dir) == 0;
}

/* Under the claim. */
static void published_set(int pid, const char *dir, const char *name, bool linked)
{
	published.pid = pid;
	published.linked = linked;
	memcpy(published.name, name, strlen(name) + 1);
	memcpy(published.dir, dir, strlen(dir) + 1);
}

/*
 * Whether @pid's image published (or reserved) a name in @dir: 1, with the
 * name in @name (NAME_MAX + 1 bytes) and whether it is linked in *@linked;
 * 0 when not; -EDEADLK or -EBUSY as published_claim() while a change is in
 * progress.
 */
static int published_find(int pid, const char *dir, char *name, bool *linked)
{
	uint64_t self = thread_self();

	for (int waited = 0;;) {
		uint32_t seq = atomic_load(&published.seq);
		uint64_t owner;
		bool found;

		if (!(seq & 1)) {
			found = published_is(pid, dir);
			if (found) {
				memcpy(name, published.name, sizeof(published.name));
				*linked = published.linked;
			}
			atomic_thread_fence(memory_order_acquire);
			if (atomic_load(&published.seq) == seq)
				return found;
			continue;	/* changed while read */
		}
		owner = atomic_load(&published.writer);
		if (owner >> 32 != self >> 32)
			return 0;	/* a change copied by fork(): the parent's image, not ours */
		if (owner == self)
			return -EDEADLK;
		if (waited++ >= PUBLISHED_WAIT_MS)
			return -EBUSY;
		wait_a_ms();
	}
}

static bool spare_ours(void)
{
	return atomic_load(&spare_owner) == thread_self();
}

/* The spare for this thread's report, unless another thread of this process holds it. */
static bool spare_claim(void)
{
	uint64_t self = thread_self(), owner = 0;

	while (!atomic_compare_exchange_strong(&spare_owner, &owner, self)) {
		if (owner == self)
			return true;
		if (owner >> 32 == self >> 32)
			return false;
		/* a fork child's copy of its parent's: its descriptors left to the exec */
		spare.fd = spare.dirfd = -1;
	}
	return true;
}

/*
 * @fd is still what was reserved: another thread of the program may have
 * closed it, and the number may hold a file of the program's now.
 */
static bool spare_is(int fd, dev_t dev, ino_t ino, bool unnamed)
{
	struct stat st;

	return fd_stat(fd, &st) == 0 && st.st_dev == dev && st.st_ino == ino &&
	       (!unnamed || (S_ISREG(st.st_mode) && st.st_nlink == 0));
}

/* The unnamed file reserved in the directory @dirfd, taken over by the caller; else -1. */
static int spare_take(int dirfd)
{
	struct stat st;
	int fd;

	/* Owner first: another thread's report writes the spare while it holds it. */
	if (!spare_ours() || (fd = spare.fd) < 0)
		return -1;
	spare.fd = -1;
	if (!spare_is(fd, spare.dev, spare.file_ino, true))
		return -1;	/* not ours any more: left alone */
	if (fd_stat(dirfd, &st) == 0 && st.st_dev == spare.dev && st.st_ino == spare.ino)
		return fd;
	close(fd);
	return -1;
}

/* The directory output_dir_reserve() opened at the path @dir, taken over by the caller; else -1. */
static int spare_dir_take(const char *dir)
{
	int dirfd;

	if (!spare_ours() || (dirfd = spare.dirfd) < 0)
		return -1;
	spare.dirfd = -1;
	if (!spare_is(dirfd, spare.dev, spare.ino, false))
		return -1;
	if (spare.dir_hash == path_hash(dir))
		return dirfd;
	close(dirfd);
	return -1;
}

int output_dir_reserve_at(int dirfd)
{
	int saved_errno = errno, err = 0;
	struct stat st;

	output_dir_release();
	if (!spare_claim())
		return -EBUSY;
	if (fd_stat(dirfd, &st) < 0) {
		err = -errno;
		atomic_store(&spare_owner, 0);
		errno = saved_errno;
		return err;
	}
	spare.dev = st.st_dev;
	spare.ino = st.st_ino;
	spare.fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	if (spare.fd < 0) {
		err = -errno;	/* no O_TMPFILE: the named way, at the write */
	} else if (fd_stat(spare.fd, &st) == 0) {
		spare.file_ino = st.st_ino;
	} else {
		err = -errno;
		close(spare.fd);
		spare.fd = -1;
	}
	errno = saved_errno;
	return err;
}

void output_dir_release(void)
{
	uint64_t owner = atomic_load(&spare_owner), self;

	if (owner == 0)
		return;	/* no system call: nothing reserved */
	self = thread_self();
	if (owner == self) {
		if (spare.fd >= 0 && spare_is(spare.fd, spare.dev, spare.file_ino, true))
			close(spare.fd);
		if (spare.dirfd >= 0 && spare_is(spare.dirfd, spare.dev, spare.ino, false))
			close(spare.dirfd);
	} else if (owner >> 32 == self >> 32) {
		return;	/* another thread's report's */
	}
	/* ours, or a fork child's copy of its parent's (left open: see spare_owner) */
	spare.fd = spare.dirfd = -1;
	atomic_compare_exchange_strong(&spare_owner, &owner, 0);
}

/* The text in a file of its own, not yet in the directory (O_TMPFILE), or named @tmp. */
static int text_write(int dirfd, const char *tmp, bool *named, const char *buf, size_t len)
{
	int fd = spare_take(dirfd), err;

	if (fd < 0)
		fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
	*named = false;
	if (fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)) {
		*named = true;
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	}
	if (fd < 0)
		return -errno;
	/* Past RLIMIT_FSIZE: EFBIG, and no SIGXFSZ to kill the host (fd.c). */
	fd_write_bounded(fd, buf, len, 0, &err);
	if (err) {	/* ENOSPC, EDQUOT, EFBIG: never publish a short report */
		close(fd);
		if (*named)
			unlinkat(dirfd, tmp, 0);
		return -err;
	}
	return fd;
}

/*
 * Give the unnamed file @fd (or the file named @tmp) the name @name; EEXIST
 * if taken. By /proc/thread-self/fd/, not /proc/self/fd/: the report may be
 * written by the last thread of a process whose main left by pthread_exit(),
 * and a zombie leader's fd/ is gone (ENOENT). thread-self is Linux 3.17;
 * the shim needs 5.13.
 */
static int text_link(int dirfd, int fd, bool named, const char *tmp, const char *name)
{
	char proc[64];
	struct buf b;

	if (named)
		return linkat(dirfd, tmp, dirfd, name, 0) < 0 ? -errno : 0;
	buf_init(&b, proc, sizeof(proc));
	buf_puts(&b, "/proc/thread-self/fd/");
	buf_put_u64(&b, (uint64_t)fd);
	buf_finish(&b);
	return linkat(AT_FDCWD, proc, dirfd, name, AT_SYMLINK_FOLLOW) < 0 ? -errno : 0;
}

/* The directory, made with its parents when missing, every step judged (trusted.c). */
static int dir_open(const char *dir, mode_t mode, const char **why)
{
	struct stat st;

	return trusted_dir_open(dir, true, mode, &st, why);
}

/*
 * The text linked under a new name: @name (NAME_MAX + 1 bytes) when
 * @reserved (its series reserved it), else, or if taken, the first free one,
 * left in @name.
 */
static int publish_new(int dirfd, int fd, bool named, const char *tmp,
		       const struct output_names *names, bool reserved, char *name)
{
	struct output_names n = *names;

	if (reserved) {
		int err = text_link(dirfd, fd, named, tmp, name);

		if (err != -EEXIST)
			return err;
	}
	for (n.seq = 0; n.seq < OUTPUT_SEQ_MAX; n.seq++) {
		int err = output_dir_name(&n, name, NAME_MAX + 1);

		if (err == 0)
			err = text_link(dirfd, fd, named, tmp, name);
		if (err != -EEXIST)
			return err;
	}
	return -EEXIST;
}

/*
 * Put the text (@fd, or the file named @tmp) in place of @name: linked
 * beside it under the hidden ".NAME.TID.tmp", then renamed over it, so that
 * @name always holds one whole report. The hidden name is this thread's:
 * shared, another thread's report replacing the same file at once removed
 * it or held it (ENOENT, EEXIST: 50 to 90 of markers_report_race 16 200's
 * 3,201 reports lost). rename(2) replaces the entry, never what a symbolic
 * link there points to.
 */
static int rename_over(int dirfd, int fd, bool named, const char *tmp, const char *name)
{
	char hidden[NAME_MAX + 1];
	struct buf b;
	int err;

	if (named)
		return renameat(dirfd, tmp, dirfd, name) < 0 ? -errno : 0;
	buf_init(&b, hidden, sizeof(hidden));
	buf_putc(&b, '.');
	buf_puts(&b, name);
	buf_putc(&b, '.');
	buf_put_u64(&b, (uint64_t)gettid());
	buf_puts(&b, ".tmp");
	if (buf_finish(&b) >= sizeof(hidden))
		return -ENAMETOOLONG;
	unlinkat(dirfd, hidden, 0);
	err = text_link(dirfd, fd, false, NULL, hidden);
	if (err == 0 && renameat(dirfd, hidden, dirfd, name) < 0) {
		err = -errno;
		unlinkat(dirfd, hidden, 0);
	}
	return err;
}

/* ".pfshim.PID.TID.tmp": the text's name where the file system has no O_TMPFILE. */
static void tmp_name(char *tmp, size_t size, int pid)
{
	struct buf b;

	buf_init(&b, tmp, size);
	buf_puts(&b, ".pfshim.");
	buf_put_u64(&b, (uint64_t)pid);
	buf_putc(&b, '.');
	buf_put_u64(&b, (uint64_t)syscall(SYS_gettid));
	buf_puts(&b, ".tmp");
	buf_finish(&b);
}

int output_replace_at(int dirfd, const char *name, const char *buf, size_t len)
{
	int saved_errno = errno;
	char tmp[64];
	bool named;
	int fd, err;

	tmp_name(tmp, sizeof(tmp), getpid());
	fd = text_write(dirfd, tmp, &named, buf, len);
	if (fd < 0) {
		errno = saved_errno;
		return fd;
	}
	err = rename_over(dirfd, fd, named, tmp, name);
	if (named && err < 0)
		unlinkat(dirfd, tmp, 0);
	close(fd);
	errno = saved_errno;
	return err;
}

int output_dir_series_name(const char *name, const char *ext, char *series, size_t size)
{
	size_t n = strlen(name), e = ext ? strlen(ext) : 0;
	struct buf b;

	if (e > n || strcmp(name + n - e, ext ? ext : "") != 0)
		e = 0;
	buf_init(&b, series, size);
	buf_putn(&b, name, n - e);
	buf_puts(&b, ".series");
	buf_puts(&b, e == 0 ? "" : strcmp(ext, ".json") == 0 ? ".jsonl" : ext);
	return buf_finish(&b) < size ? 0 : -ENAMETOOLONG;
}

/*
 * The series file: appended, never replaced, one write(2) per report
 * (O_APPEND: writers never overwrite each other). A short write (a full
 * disk) is the only way to leave a last line without its newline. In a
 * sticky directory others share, its name is predictable: a FIFO planted
 * there must not block the open (O_NONBLOCK), and only a regular file of
 * our own with no other name is written (trusted_file_ours()), whoever
 * else's file, FIFO or hard link holds the name.
 */
static int series_append(int dirfd, const char *name, const char *ext, const char *buf,
			 size_t len, const char **why)
{
	char series[NAME_MAX + 1];
	struct stat st;
	ssize_t n;
	int fd, err = output_dir_series_name(name, ext, series, sizeof(series));

	if (err < 0)
		return err;
	fd = openat(dirfd, series,
		    O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
		    0644);
	if (fd < 0)
		return -errno;
	err = trusted_file_ours(fd, &st, why);
	if (err == 0) {
		do
			n = write(fd, buf, len);
		while (n < 0 && errno == EINTR);
		err = n < 0 ? -errno : (size_t)n < len ? -ENOSPC : 0;
	}
	close(fd);
	return err;
}

/*
 * The first interval report of an image: a name N, into @name (NAME_MAX + 1
 * bytes), that neither the image's file nor its series has, the series
 * created O_EXCL to hold it. The file itself is linked under that name by
 * the image's first other report.
 */
static int series_reserve(int dirfd, const struct output_names *names, char *name)
{
	char series[NAME_MAX + 1];
	struct output_names n = *names;
	struct stat st;

	for (n.seq = 0; n.seq < OUTPUT_SEQ_MAX; n.seq++) {
		int fd, err = output_dir_name(&n, name, NAME_MAX + 1);

		if (err == 0)
			err = output_dir_series_name(name, n.ext, series, sizeof(series));
		if (err < 0)
			return err;
		if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		fd = openat(dirfd, series, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0) {
			close(fd);
			return 0;
		}
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}

/*
 * An interval report (@names->series_only): appended to the image's series,
 * and nothing else. Replacing the image's file at every interval would cost
 * a file system's create, rename and delete each time (0.8 ms of CPU on
 * ext4 in the build VM, against ~0.07 ms for the whole report otherwise):
 * the file holds the image's other reports, its final one at the end.
 */
static int series_only_write(int dirfd, const char *dir, const struct output_names *names,
			     int found, char *name, const char *buf, size_t len, const char **why)
{
	int err = 0;

	if (found < 0)
		return found;
	if (!found) {
		if ((err = published_claim()) < 0)
			return err;
		if (published_is(names->pid, dir))	/* another thread's report's, meanwhile */
			memcpy(name, published.name, sizeof(published.name));
		else if ((err = series_reserve(dirfd, names, name)) == 0)
			published_set(names->pid, dir, name, false);
		published_unclaim();
	}
	if (err == 0)
		err = series_append(dirfd, name, names->ext, buf, len, why);
	return err;
}

/* How publish() put a report in place. */
enum publish_way {
	PUBLISH_REPLACED,	/* renamed over the image's file (rename_over()) */
	PUBLISH_LINKED,		/* linked as the image's file, its first */
	PUBLISH_APART,		/* linked as a file of its own: `published` was not ours to change */
};

/*
 * Put the text (@fd, or the file named @tmp) in place: over the image's
 * file when @found (published_find()) says it is linked, else under the
 * claim, as the image's first file, or over the file another thread's report
 * published meanwhile. Without the claim (-EDEADLK: this thread's own
 * change was interrupted, by the signal report calling; -EBUSY) the report
 * is linked apart under the next free N, never recorded: nothing is lost,
 * and later reports still replace the image's one file. @name: NAME_MAX + 1
 * bytes, published_find()'s name in, the name used out.
 */
static int publish(int dirfd, const char *dir, int fd, bool named, const char *tmp,
		   const struct output_names *names, int found, bool linked, char *name,
		   enum publish_way *way)
{
	int err;

	*way = PUBLISH_REPLACED;
	if (found > 0 && linked)
		return rename_over(dirfd, fd, named, tmp, name);
	err = found < 0 ? found : published_claim();
	if (err < 0) {
		*way = PUBLISH_APART;
		return publish_new(dirfd, fd, named, tmp, names, false, name);
	}
	found = published_is(names->pid, dir);	/* another thread's report's, meanwhile */
	if (found) {
		memcpy(name, published.name, sizeof(published.name));
		linked = published.linked;
	}
	if (found && linked) {
		published_unclaim();
		return rename_over(dirfd, fd, named, tmp, name);
	}
	*way = PUBLISH_LINKED;
	err = publish_new(dirfd, fd, named, tmp, names, found, name);
	if (err == 0)
		published_set(names->pid, dir, name, true);
	published_unclaim();
	return err;
}

int output_dir_write_at(int dirfd, const char *dir, const struct output_names *names,
			const char *buf, size_t len, const char **why)
{
	int saved_errno = errno;
	char tmp[64], name[NAME_MAX + 1];
	enum publish_way way;
	bool named, linked = false;
	int fd, err, found;

	*why = NULL;
	if (strlen(dir) >= sizeof(published.dir))
		return -ENAMETOOLONG;
	found = published_find(names->pid, dir, name, &linked);
	if (names->series_only) {
		err = series_only_write(dirfd, dir, names, found, name, buf, len, why);
		errno = saved_errno;
		return err;
	}
	tmp_name(tmp, sizeof(tmp), names->pid);
	fd = text_write(dirfd, tmp, &named, buf, len);
	if (fd < 0) {
		errno = saved_errno;
		return fd;
	}
	err = publish(dirfd, dir, fd, named, tmp, names, found, linked, name, &way);
	if (named && (err < 0 || way != PUBLISH_REPLACED))
		unlinkat(dirfd, tmp, 0);
	/* One apart is not in the image's series: its name is not known here. */
	if (err == 0 && names->series && way != PUBLISH_APART)
		err = series_append(dirfd, name, names->ext, buf, len, why);
	close(fd);
	errno = saved_errno;
	return err;
}

int output_dir_reserve(const char *dir, mode_t mode)
{
	int saved_errno = errno, dirfd, err;
	const char *why;

	output_dir_release();
	dirfd = dir_open(dir, mode, &why);
	if (dirfd < 0) {
		errno = saved_errno;
		return dirfd;
	}
	err = output_dir_reserve_at(dirfd);
	if (spare_ours()) {
		spare.dirfd = dirfd;
		spare.dir_hash = path_hash(dir);
	} else {
		close(dirfd);
	}
	errno = saved_errno;
	return err;
}

/* output_dir_write_mode(), and with @noted the outcome in the directory's ledger (ledger.h). */
static int dir_write(const char *dir, const struct output_names *names, mode_t mode,
		     const char *buf, size_t len, const char **why, bool *noted)
{
	int saved_errno = errno;
	int dirfd = spare_dir_take(dir), err;

	*why = NULL;
	if (dirfd < 0)
		dirfd = dir_open(dir, mode, why);
	if (dirfd < 0) {
		errno = saved_errno;
		return dirfd;
	}
	/* Else (no spool, or one closed or cut short) a file of its own, as without one. */
	if (!names->spool || spool_append(dirfd, names, buf, len) < 0)
		err = output_dir_write_at(dirfd, dir, names, buf, len, why);
	else
		err = 0;
	/* An interval report's fate is its image's final one's. */
	if (noted && !names->series_only)
		*noted = ledger_note(dirfd, names->pid, err);
	close(dirfd);
	errno = saved_errno;
	return err;
}

int output_dir_write_mode(const char *dir, const struct output_names *names, mode_t mode,
			  const char *buf, size_t len, const char **why)
{
	return dir_write(dir, names, mode, buf, len, why, NULL);
}

int output_dir_write_noted(const char *dir, const struct output_names *names, const char *buf,
			   size_t len, const char **why, bool *noted)
{
	*noted = false;
	return dir_write(dir, names, names->private_dir ? 0700 : 0755, buf, len, why, noted);
}

int output_dir_remove(const char *dir, const struct output_names *names)
{
	int saved_errno = errno, dirfd, err;
	char name[NAME_MAX + 1];
	bool linked = false;
	const char *why;
	struct stat st;

	err = published_find(names->pid, dir, name, &linked);
	if (err <= 0 || !linked)
		return err;
	/* Reached and judged as for a write, never created: it holds the file. */
	dirfd = trusted_dir_open(dir, false, 0, &st, &why);
	if (dirfd < 0) {
		errno = saved_errno;
		return dirfd;
	}
	err = published_claim();
	if (err == 0) {
		if (published_is(names->pid, dir) && published.linked) {
			if (unlinkat(dirfd, published.name, 0) < 0 && errno != ENOENT)
				err = -errno;
			/* A failed exec goes on: its next report publishes a new file. */
			published.linked = false;
			published.name[0] = '\0';
		}
		published_unclaim();
	}
	close(dirfd);
	errno = saved_errno;
	return err;
}

void output_dir_prefault(void)
{
	/* The page of its claim, pid, linked, name and the directory's first 3.8 KiB. */
	if (!prefault_populate(&published, 4096))	/* one system call, not its fault */
		prefault_write(&published, 4096);
	prefault_write(&spare.prefault, 1);
}

int output_dir_write(const char *dir, const struct output_names *names, const char *buf,
		     size_t len, const char **why)
{
	return output_dir_write_mode(dir, names, 0755, buf, len, why);
}
