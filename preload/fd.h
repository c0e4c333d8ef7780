/*
 * fd.h: the shim's descriptors and writes, kept out of the host program's
 * way: high numbers, and no SIGPIPE when a reader has gone.
 */
#ifndef PFSHIM_PRELOAD_FD_H
#define PFSHIM_PRELOAD_FD_H

#include <stddef.h>

/*
 * fd_move_high - move @fd (closing it) to a high number, close-on-exec.
 * Return: the new descriptor, or @fd itself when there is no room up there.
 */
int fd_move_high(int fd);

/*
 * fd_move_up - move @fd (closing it) to the lowest free number >= @floor,
 * close-on-exec. Return: the new descriptor, or @fd itself when that fails
 * (@floor past the soft limit, no free number).
 */
int fd_move_up(int fd, int floor);

/* fd_dup_high - a close-on-exec duplicate of @fd at a high number, or -1. */
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
