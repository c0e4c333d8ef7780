/* SPDX-License-Identifier: MIT */
/*
 * fd.h: the shim's descriptors and writes, kept out of the host program's
 * way: high numbers, no SIGPIPE or SIGXFSZ when a write fails, a bounded
 * wait on a full non-blocking pipe, and the standard streams written only
 * while they are provably still the ones the program started with; and the
 * shim's working memory, mapped anonymously, never the program's malloc().
 */
#ifndef PFSHIM_PRELOAD_FD_H
#define PFSHIM_PRELOAD_FD_H

#include <stdbool.h>
#include <sys/stat.h>
#include <stddef.h>
#include <sys/types.h>

/* How long a write waits in all for a full non-blocking pipe or tty to take bytes. */
#define FD_WRITE_WAIT_MS 2000

/*
 * fd_limits_hold - read RLIMIT_NOFILE once for the calling thread's moves
 * that follow, until fd_limits_release(): from a moment that runs none of
 * the program's code (the constructor, a fork child's restart).
 */
void fd_limits_hold(void);
void fd_limits_release(void);

/*
 * fd_band - the numbers the shim's descriptors may take: [*lo, *hi), the
 * top quarter of min(RLIMIT_NOFILE, 1024). Return: the band's size, or 0
 * when the limit is too low to spare any (then *lo and *hi are unset).
 */
int fd_band(int *lo, int *hi);

/*
 * fd_move_high - move @fd into the band, close-on-exec. @fd is closed
 * either way: no shim descriptor is ever left below the band.
 * Return: the new descriptor, or -1 when the band has no room (or none).
 */
int fd_move_high(int fd);

/*
 * fd_move_away - move @fd (closed either way) above the soft RLIMIT_NOFILE,
 * where it costs the program nothing, when the limit is at most 1024 and the
 * hard limit leaves room (the soft limit is raised for the one F_DUPFD and
 * put back: call it only while no other thread can run, as the constructor
 * and a fork child); else into the band as fd_move_high().
 * Return: the new descriptor, or -1.
 */
int fd_move_away(int fd);

/*
 * fd_dup_away - a close-on-exec duplicate of @fd where fd_move_away() would
 * put it (@fd stays open), or -1. From a single-threaded moment only.
 */
int fd_dup_away(int fd);

/*
 * fd_map_zeroed - an anonymous private mapping of @size bytes (zeroed), or
 * NULL: mmap(2) outside the program's heap, async-signal-safe.
 */
void *fd_map_zeroed(size_t size);

/*
 * fd_away_first - the number fd_move_away() gives when it is free: the soft
 * limit, or the band's first. A child with its parent's limits computes its
 * parent's (jobfd.c). Return: it, or -1 when there is no room at all.
 */
int fd_away_first(void);

/* fd_room_away - whether fd_move_away() can place a descriptor at all. */
bool fd_room_away(void);

/* fd_dup_high - a close-on-exec duplicate of @fd in the band, or -1. */
int fd_dup_high(int fd);

/*
 * fd_stat - fstat(@fd), with the "" the kernel reads from the shim's own
 * constants: glibc's fstat() is fstatat(fd, "", st, AT_EMPTY_PATH) with
 * that "" in libc's .rodata, which a small program never reads. Its page
 * fault maps up to 64 KiB of it (fault-around): resident in every process,
 * and a fault after a report's read (handover.bats counted it).
 * Return: 0, or -1 with errno set, as fstat().
 */
int fd_stat(int fd, struct stat *st);

/*
 * fd_write_bounded - write @buf whole to @fd, across EINTR and short
 * writes; on EAGAIN (a non-blocking pipe or tty that is full) wait with
 * poll() for at most @wait_ms in all. A write that fails must not signal
 * the host: SIGPIPE (a reader gone) and SIGXFSZ (past RLIMIT_FSIZE) would
 * kill it for a report it never asked for; both are blocked around the
 * write and a pending one it raised is taken back. Async-signal-safe;
 * errno and the thread's signal mask are preserved.
 * Return: bytes written (== @len on success); *@error gets the errno of a
 * failure (EAGAIN when the wait ran out), 0 on success. @error may be NULL.
 */
size_t fd_write_bounded(int fd, const char *buf, size_t len, int wait_ms, int *error);

/*
 * fd_writev_once - one writev(2) of @iov (@n parts) to @fd, retried only
 * when interrupted before it wrote anything: a record appended whole or
 * cut short, never continued after another writer's. No SIGPIPE or SIGXFSZ
 * reaches the host, as for fd_write_bounded(). Async-signal-safe; errno
 * preserved. Return: what writev() returned; *@error its errno, or 0.
 */
struct iovec;
ssize_t fd_writev_once(int fd, const struct iovec *iov, int n, int *error);

/* fd_write_all - fd_write_bounded() with FD_WRITE_WAIT_MS, giving up silently. */
void fd_write_all(int fd, const char *buf, size_t len);

/*
 * What a standard stream was when the shim started, so that nothing is
 * written to it once the host has closed the number and reused it for a
 * file of its own. @dup is a high duplicate (or -1), @state says whether
 * the stream was open at all.
 */
struct fd_stream {
	int fd;			/* 1 or 2 */
	int dup;		/* the high duplicate, or -1 */
	enum { FD_STREAM_UNKNOWN, FD_STREAM_OPEN, FD_STREAM_CLOSED } state;
	dev_t dev;
	ino_t ino;
	dev_t rdev;
	int accmode;		/* O_ACCMODE bits of the file description */
	mode_t mode;		/* its type: may a failed write signal (sandbox.h)? */
};

/*
 * fd_stream_record - record what @fd (1 or 2) is now, and when @dup_it a
 * duplicate of it out of the program's way (fd_dup_away(): the constructor
 * is single-threaded). Return: the duplicate, -1 without one, or
 * FD_STREAM_WAS_CLOSED when @fd was closed at start.
 */
#define FD_STREAM_WAS_CLOSED (-2)
int fd_stream_record(int fd, bool dup_it);

/*
 * fd_stream_target - the descriptor a write to standard stream @fd may use
 * now: the duplicate while it is still the same open file, else @fd itself
 * while it is, else -1 (nothing provably ours: the write is dropped).
 * Before fd_stream_record(), @fd itself. Async-signal-safe.
 */
int fd_stream_target(int fd);

/*
 * fd_same_file - is @fd still the file of @s (device, inode, rdev, access
 * mode)? Exposed for the unit tests. Async-signal-safe.
 */
bool fd_same_file(const struct fd_stream *s, int fd);

/*
 * fd_stream_keep - take the high duplicate of stream @fd (1 or 2) now, if
 * there is none and the stream is still the one recorded: called before the
 * program's seccomp filter, after which fd_stream_target() trusts the
 * duplicate alone (no fstat, no fcntl: sandbox.h).
 */
void fd_stream_keep(int fd);

/*
 * fd_stream_release - close the high duplicates: the shim writes nothing more
 * on the standard streams (a process it stays out of, process.c).
 */
void fd_stream_release(void);

/* fd_stream_forget - back to "before fd_stream_record()" (unit tests). */
void fd_stream_forget(void);

#endif
