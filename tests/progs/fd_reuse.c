/* SPDX-License-Identifier: MIT */
/*
 * fd_reuse: a host that takes descriptor numbers back, the way servers and
 * daemons do, then writes its own data files through them.
 *
 *   fd_reuse reopen DIR N   close every fd >= 3, open N files DIR/f.K, write
 *                           "file K\n" to each through its own descriptor
 *   fd_reuse dup2 FILE      dup2() FILE over every fd 3 .. RLIMIT_NOFILE-1,
 *                           then write "data\n" to it through fd 3
 *   fd_reuse stderr FILE    dup2() FILE over fd 2, write "data\n" to fd 2
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static int open_data(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0) {
		perror(path);
		exit(2);
	}
	return fd;
}

static void put(int fd, const char *text)
{
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		exit(3);
}

int main(int argc, char **argv)
{
	struct rlimit rl;

	if (argc == 4 && strcmp(argv[1], "reopen") == 0) {
		int n = atoi(argv[3]);
		char path[4096], line[32];

		getrlimit(RLIMIT_NOFILE, &rl);
		for (rlim_t fd = 3; fd < rl.rlim_cur; fd++)
			close((int)fd);
		for (int k = 0; k < n; k++) {
			snprintf(path, sizeof(path), "%s/f.%d", argv[2], k);
			snprintf(line, sizeof(line), "file %d\n", k);
			put(open_data(path), line);	/* left open, as a server keeps them */
		}
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "dup2") == 0) {
		int fd = open_data(argv[2]);

		getrlimit(RLIMIT_NOFILE, &rl);
		for (rlim_t k = 3; k < rl.rlim_cur; k++)
			if ((int)k != fd)
				dup2(fd, (int)k);
		put(3, "data\n");
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "stderr") == 0) {
		dup2(open_data(argv[2]), 2);
		put(2, "data\n");
		return 0;
	}
	fprintf(stderr, "usage: fd_reuse reopen DIR N | dup2 FILE | stderr FILE\n");
	return 2;
}
