/* SPDX-License-Identifier: MIT */
/*
 * small_stack_thread SIGNO: start a thread with the smallest stack pthreads
 * allows (PTHREAD_STACK_MIN, 16 KiB on x86_64 and arm64), block SIGNO in
 * main so that the thread is the one to take it, send it, print "after".
 * A report handler that needed more stack than that would fault.
 */
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *wait_a_little(void *arg)
{
	(void)arg;
	for (int i = 0; i < 50; i++)
		usleep(10000);
	return NULL;
}

int main(int argc, char **argv)
{
	int signo = argc > 1 ? atoi(argv[1]) : SIGUSR1;
	pthread_attr_t attr;
	pthread_t t;
	sigset_t set;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN);
	if (pthread_create(&t, &attr, wait_a_little, NULL) != 0)
		return 1;
	sigemptyset(&set);
	sigaddset(&set, signo);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	usleep(100000);
	kill(getpid(), signo);
	pthread_join(t, NULL);
	printf("after\n");
	return 0;
}
