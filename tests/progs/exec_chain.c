/* SPDX-License-Identifier: MIT */
/*
 * exec_chain HOW PROGRAM [ARGS...]: touch 500 pages, then replace the image
 * with PROGRAM through the exec function HOW (execve, execv, execvp, execvpe,
 * execl, execlp, execle, fexecve, execveat, vfork: vfork + execv in the child,
 * the parent waits and exits 0, fail: exec a missing file, then exit 3;
 * fail-exists: exec PROGRAM, a file that exists but cannot run (ENOEXEC,
 * EACCES), print the exec's errno name, then exit 3).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pages.h"

extern char **environ;

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "execve";
	char **rest = argv + 2;

	pages_touch(500);
	if (argc < 3 && strcmp(how, "fail") != 0)
		return 2;
	if (!strcmp(how, "execve"))
		execve(rest[0], rest, environ);
	else if (!strcmp(how, "execv"))
		execv(rest[0], rest);
	else if (!strcmp(how, "execvp"))
		execvp(rest[0], rest);
	else if (!strcmp(how, "execvpe"))
		execvpe(rest[0], rest, environ);
	else if (!strcmp(how, "execl"))
		execl(rest[0], rest[0], rest[1], (char *)NULL);
	else if (!strcmp(how, "execlp"))
		execlp(rest[0], rest[0], rest[1], (char *)NULL);
	else if (!strcmp(how, "execle"))
		execle(rest[0], rest[0], rest[1], (char *)NULL, environ);
	else if (!strcmp(how, "fexecve"))
		fexecve(open(rest[0], O_RDONLY | O_CLOEXEC), rest, environ);
	else if (!strcmp(how, "execveat"))
		execveat(AT_FDCWD, rest[0], rest, environ, 0);
	else if (!strcmp(how, "vfork")) {
		pid_t pid = vfork();

		if (pid == 0) {
			execv(rest[0], rest);
			_exit(127);
		}
		waitpid(pid, NULL, 0);
		return 0;
	} else if (!strcmp(how, "fail")) {
		execl("/nonexistent/program", "x", (char *)NULL);
		return 3;
	} else if (!strcmp(how, "fail-exists")) {
		execve(rest[0], rest, environ);
		printf("%s\n", errno == ENOEXEC ? "ENOEXEC" : errno == EACCES ? "EACCES" : "other");
		return 3;
	}
	perror("exec");
	return 1;
}
