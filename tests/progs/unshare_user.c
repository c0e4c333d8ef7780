/*
 * unshare_user MS [threaded]: sleep MS ms, unshare(CLONE_NEWUSER), print
 * its result ("unshare: 0" or "unshare: EINVAL" ...) and the number of
 * threads in /proc/self/task, sleep MS ms again. With "threaded", a thread
 * of its own runs across the call (the kernel refuses: EINVAL).
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 100;
	pthread_t t;
	int r;

	if (argc > 2 && strcmp(argv[2], "threaded") == 0 && pthread_create(&t, NULL, idle, NULL))
		return 1;
	sleep_ms(ms);
	r = unshare(CLONE_NEWUSER);
	printf("unshare: %s\n", r == 0 ? "0" : strerrorname_np(errno));
	/* one task less than before when only ours went: count it after the call */
	printf("tasks after: %d\n", tasks());
	fflush(stdout);
	sleep_ms(ms);
	return 0;
}
