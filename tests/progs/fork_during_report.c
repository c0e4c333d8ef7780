/* SPDX-License-Identifier: MIT */
/*
 * fork_during_report DIR N [exec]: one thread calls pfshim_report() without
 * a pause while the main thread forks N children one after the other. Each
 * child, first thing (with exec: first thing after exec'ing this program as
 * "fork_during_report --count DIR"), counts its descriptors that lead into
 * DIR (the directory itself, or a file made there, such as the unnamed
 * "DIR/#123 (deleted)"): copies of those a report was holding at the fork.
 * It exits with that count. Prints "forks N holding K descriptors D most M":
 * K children held any, D in all, M at most in one.
 */
#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pfshim.h"

static atomic_bool done;

static void *reporter(void *arg)
{
	(void)arg;
	while (!atomic_load(&done))
		pfshim_report();
	return NULL;
}

/* Descriptors of this process whose target is @dir or inside it. */
static int held_in(const char *dir)
{
	size_t n = strlen(dir);
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int held = 0;

	if (!d)
		return 255;
	while ((e = readdir(d))) {
		char link[300], target[PATH_MAX];
		ssize_t len;

		if (e->d_name[0] == '.')
			continue;
		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		len = readlink(link, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (strncmp(target, dir, n) == 0 && (target[n] == '\0' || target[n] == '/'))
			held++;
	}
	closedir(d);
	return held;
}

int main(int argc, char **argv)
{
	char dir[PATH_MAX];
	int forks = argc > 2 ? atoi(argv[2]) : 100, holding = 0, held = 0, most = 0;
	bool exec = argc > 3 && strcmp(argv[3], "exec") == 0;
	pthread_t t;

	if (argc == 3 && strcmp(argv[1], "--count") == 0)
		return held_in(argv[2]);
	if (argc < 3 || !realpath(argv[1], dir) || forks < 1)
		return 2;
	pthread_create(&t, NULL, reporter, NULL);
	for (int i = 0; i < forks; i++) {
		int status;
		pid_t pid = fork();

		if (pid == 0 && exec)
			execl("/proc/self/exe", argv[0], "--count", dir, (char *)NULL);
		if (pid == 0)
			_exit(exec ? 127 : held_in(dir));
		if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			return 1;
		holding += WEXITSTATUS(status) > 0;
		held += WEXITSTATUS(status);
		most = WEXITSTATUS(status) > most ? WEXITSTATUS(status) : most;
	}
	atomic_store(&done, true);
	pthread_join(t, NULL);
	printf("forks %d holding %d descriptors %d most %d\n", forks, holding, held, most);
	return 0;
}
