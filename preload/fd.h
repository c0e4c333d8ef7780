/*
 * fd.h: the shim's descriptors, kept out of the host program's way.
 */
#ifndef PFSHIM_PRELOAD_FD_H
#define PFSHIM_PRELOAD_FD_H

/*
 * fd_move_high - move @fd (closing it) to a high number, close-on-exec.
 * Return: the new descriptor, or @fd itself when there is no room up there.
 */
int fd_move_high(int fd);

/* fd_dup_high - a close-on-exec duplicate of @fd at a high number, or -1. */
int fd_dup_high(int fd);

#endif
