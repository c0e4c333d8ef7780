/* SPDX-License-Identifier: MIT */
/*
 * exec_small_stack KIB PROGRAM [ARGS...]: a thread whose stack is KIB KiB
 * (16: PTHREAD_STACK_MIN on x86_64 and arm64) execs PROGRAM, searched in
 * PATH (execvp). An exec that needed more stack than a thread can have
 * would fault; a failed one prints its errno and exits 127.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *exec_it(void *arg)
{
	char **argv = arg;

	execvp(argv[0], argv);
	fprintf(stderr, "exec_small_stack: %s: %s\n", argv[0], strerror(errno));
	exit(127);
}

int main(int argc, char **argv)
{
	pthread_attr_t attr;
	pthread_t t;

	if (argc < 3)
		return 2;
	pthread_attr_init(&attr);
	if (pthread_attr_setstacksize(&attr, (size_t)atoi(argv[1]) * 1024) != 0 ||
	    pthread_create(&t, &attr, exec_it, argv + 2) != 0)
		return 2;
	pthread_join(t, NULL);
	return 3;	/* never: the exec replaced us */
}
