/* SPDX-License-Identifier: MIT */
/*
 * unshare_user MS [threaded|setns]: sleep MS ms, unshare(CLONE_NEWUSER),
 * print its result ("unshare: 0" or "unshare: EINVAL" ...) and the number
 * of threads in /proc/self/task, sleep MS ms again. With "threaded", a
 * thread of its own runs across the call (the kernel refuses: EINVAL).
 * With "setns", setns(fd, 0) instead, into the user namespace of a child
 * that made one (nstype 0: the shim must find out what the fd is); status 1
 * when the host refuses that child its namespace.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	while (nanosleep(&ts, &ts))
		;
}

static void *idle(void *arg)
{
	(void)arg;
	sleep_ms(1000000);
	return NULL;
}

static int tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

/*
 * A child in a user namespace of its own, for setns(); its ns fd, or -1 with
 * the child gone. Where the host refuses the child a user namespace (a
 * chroot: EPERM; user.max_user_namespaces=0: ENOSPC) it says so and exits:
 * the parent, holding no write end of the pipe, reads the end of file, and
 * waits 10 s at most whatever happens.
 */
static int child_user_ns(pid_t *child)
{
	struct pollfd in = { .events = POLLIN };
	char path[64], c;
	int p[2], fd = -1;

	if (pipe(p) < 0 || (*child = fork()) < 0)
		return -1;
	if (*child == 0) {
		close(p[0]);
		if (unshare(CLONE_NEWUSER) < 0) {
			fprintf(stderr, "unshare_user: the child's unshare: %s\n", strerrorname_np(errno));
			_exit(1);
		}
		write(p[1], "x", 1);
		pause();
		_exit(0);
	}
	close(p[1]);
	in.fd = p[0];
	if (poll(&in, 1, 10000) == 1 && read(p[0], &c, 1) == 1) {
		snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)*child);
		fd = open(path, O_RDONLY | O_CLOEXEC);
	}
	close(p[0]);
	if (fd < 0) {
		kill(*child, SIGKILL);
		waitpid(*child, NULL, 0);
	}
	return fd;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 100;
	pthread_t t;
	int r;

	if (argc > 2 && strcmp(argv[2], "threaded") == 0 && pthread_create(&t, NULL, idle, NULL))
		return 1;
	if (argc > 2 && strcmp(argv[2], "setns") == 0) {
		pid_t child;
		int fd = child_user_ns(&child);

		if (fd < 0)
			return 1;
		sleep_ms(ms);
		r = setns(fd, 0);
		printf("setns: %s\n", r == 0 ? "0" : strerrorname_np(errno));
		kill(child, SIGKILL);
	} else {
		sleep_ms(ms);
		r = unshare(CLONE_NEWUSER);
		printf("unshare: %s\n", r == 0 ? "0" : strerrorname_np(errno));
	}
	/* one task less than before when only ours went: count it after the call */
	printf("tasks after: %d\n", tasks());
	fflush(stdout);
	sleep_ms(ms);
	return 0;
}
