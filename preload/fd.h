/*
 * fd.h: the shim's descriptors and writes, kept out of the host program's
 * way: high numbers, and no SIGPIPE when a reader has gone.
 */
#ifndef PFSHIM_PRELOAD_FD_H
#define PFSHIM_PRELOAD_FD_H

#include <stdbool.h>
#include <stddef.h>

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

/* fd_room_away - whether fd_move_away() can place a descriptor at all. */
bool fd_room_away(void);

/* fd_dup_high - a close-on-exec duplicate of @fd in the band, or -1. */
int fd_dup_high(int fd);

/*
 * fd_write_all - write @buf whole to @fd, across EINTR and short writes,
 * giving up silently on any other error. A pipe whose reader has gone
 * (EPIPE) must not raise SIGPIPE: its default action would kill the host
 * with status 141 for a report it never asked for. Async-signal-safe;
 * errno and the thread's signal mask are preserved.
 */
void fd_write_all(int fd, const char *buf, size_t len);

#endif
