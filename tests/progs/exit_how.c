/* SPDX-License-Identifier: MIT */
/*
 * exit_how HOW [CODE]: print "out" on stdout, then end the way HOW says:
 * return, exit, _exit, _Exit (with CODE), signal (raise CODE, default SIGTERM),
 * thread-exit (a second thread calls exit(CODE) while main waits),
 * exit-then-_exit (main calls exit(CODE); 100 ms later, while the exit
 * report may still be writing, a second thread calls _exit(CODE)),
 * failed-exec-then-_exit (main execs a file that is no program, /dev/null:
 * EACCES; a missing one takes no exec report; 100 ms later, while the
 * exec report may still be writing, a second thread calls _exit(CODE)).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int code;

static void *exit_from_thread(void *arg)
{
	(void)arg;
	exit(code);
}

static void *underscore_exit_later(void *arg)
{
	(void)arg;
	usleep(100000);
	_exit(code);
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "return";
	pthread_t t;

	code = argc > 2 ? atoi(argv[2]) : 0;
	printf("out\n");
	fflush(stdout);
	if (!strcmp(how, "exit"))
		exit(code);
	if (!strcmp(how, "_exit"))
		_exit(code);
	if (!strcmp(how, "_Exit"))
		_Exit(code);
	if (!strcmp(how, "signal"))
		raise(code ? code : SIGTERM);
	if (!strcmp(how, "thread-exit")) {
		pthread_create(&t, NULL, exit_from_thread, NULL);
		pause();
	}
	if (!strcmp(how, "exit-then-_exit")) {
		pthread_create(&t, NULL, underscore_exit_later, NULL);
		exit(code);
	}
	if (!strcmp(how, "failed-exec-then-_exit")) {
		char *args[] = { "missing", NULL };

		pthread_create(&t, NULL, underscore_exit_later, NULL);
		execv("/dev/null", args);
		pause();
	}
	return code;
}
