/* SPDX-License-Identifier: MIT */
/*
 * pipe_turn.h: a report written to a pipe or FIFO that other processes
 * write too arrives whole: above PIPE_BUF, the shim's writers of one pipe
 * take turns. Async-signal-safe.
 */
#ifndef PFSHIM_PRELOAD_OUTPUT_PIPE_TURN_H
#define PFSHIM_PRELOAD_OUTPUT_PIPE_TURN_H

#include <stdbool.h>
#include <stddef.h>

/*
 * pipe_turn_write - fd_write_bounded(@fd, @buf, @len, @wait_ms, @error),
 * in this process's turn when @fd is a pipe or FIFO and @len is above
 * PIPE_BUF: a POSIX record lock on the pipe, which every shim process
 * writing to it takes (pipe_turn.c says why not flock). The turn is waited
 * for as long as the pipe moves (its unread bytes change), and for at most
 * @wait_ms in which nothing moved: then the report is written all the same
 * and *@missed is set, for the caller to say so. Anything else (a regular
 * file, a tty, a short report, a pipe that cannot be locked) is written as
 * fd_write_bounded() writes it.
 * Return: as fd_write_bounded().
 */
size_t pipe_turn_write(int fd, const char *buf, size_t len, int wait_ms, int *error,
		       bool *missed);

/*
 * pipe_turn_take, pipe_turn_give - the turn alone, around other writes (and
 * for tests: a process that holds it). Take waits as pipe_turn_write() does.
 * Return: (take) 0 taken; -EAGAIN not taken after @wait_ms in which the pipe
 * did not move; another negative errno when @fd cannot be locked.
 */
int pipe_turn_take(int fd, int wait_ms);
void pipe_turn_give(int fd);

#endif
