/* SPDX-License-Identifier: MIT */
/*
 * exec_forking HOW PROGRAM [ARGS...]: a second thread makes children in a
 * loop (HOW fork: fork(), and the child looks at its descriptors; spawn:
 * posix_spawn() of `exec_forking count`, as system() and popen() do) while
 * the main thread execs PROGRAM: the children made in the window before the
 * exec see what the exec'ing thread holds then.
 * exec_forking count: print "leaked N" when this process holds N > 0 perf
 * event descriptors without close-on-exec (what a hand-over leaves open; a
 * shim's own counters are close-on-exec), nothing otherwise.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static const char *how;
static atomic_int made;

static int leaked(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[300], link[64];
	int n = 0;

	while (d && (e = readdir(d))) {
		int fd = atoi(e->d_name);
		ssize_t len;

		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		len = readlink(path, link, sizeof(link) - 1);
		if (len <= 0 || e->d_name[0] == '.')
			continue;
		link[len] = '\0';
		if (!strcmp(link, "anon_inode:[perf_event]") && !(fcntl(fd, F_GETFD) & FD_CLOEXEC))
			n++;
	}
	if (d)
		closedir(d);
	return n;
}

static void count(void)
{
	int n = leaked();

	if (n > 0)
		printf("leaked %d\n", n);
	fflush(stdout);
}

static void *children(void *arg)
{
	char *argv[] = { "exec_forking", "count", NULL };

	(void)arg;
	for (;;) {
		pid_t pid;

		if (!strcmp(how, "spawn")) {
			if (posix_spawn(&pid, "/proc/self/exe", NULL, NULL, argv, environ) != 0)
				pid = -1;
		} else if ((pid = fork()) == 0) {
			count();
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
		atomic_fetch_add(&made, 1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	if (argc == 2 && !strcmp(argv[1], "count")) {
		count();
		return 0;
	}
	if (argc < 3)
		return 2;
	how = argv[1];
	if (pthread_create(&t, NULL, children, NULL) != 0)
		return 1;
	while (atomic_load(&made) < 1)
		;
	execvp(argv[2], argv + 2);
	perror("exec");
	return 1;
}
