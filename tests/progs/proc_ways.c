/* SPDX-License-Identifier: MIT */
/*
 * proc_ways HOW: processes made and ended the ways a preload does not see.
 *   quick_exit      quick_exit(4)
 *   daemon FILE     daemon(1, 1); the child writes its pid to FILE, exits 0
 *   raw-fork        a child by syscall(SYS_fork), which exits 0; print
 *                   "child exited 0"
 *   clone           the same by clone() without CLONE_THREAD
 *   candidates      execlp() of two names found nowhere in PATH, then of
 *                   "true": one exec that runs
 *   clone-vm        the same by clone(CLONE_VM) without CLONE_THREAD: the
 *                   child shares our memory, and leaves by _exit(0)
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char stack[256 * 1024];

static int child_main(void *arg)
{
	(void)arg;
	exit(0);	/* through libc: destructors run, as a forked child's would */
}

/* A child sharing our memory must not run our destructors: _exit. */
static int child_vm_main(void *arg)
{
	(void)arg;
	_exit(0);
}

static int wait_child(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, __WALL) < 0)
		return 2;
	printf("child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";

	if (!strcmp(how, "quick_exit"))
		quick_exit(4);
	if (!strcmp(how, "daemon") && argc > 2) {
		FILE *f;

		if (daemon(1, 1) < 0)
			return 3;
		f = fopen(argv[2], "w");
		fprintf(f, "%d\n", getpid());
		fclose(f);
		return 0;
	}
	if (!strcmp(how, "candidates")) {
		execlp("pfshim-no-such-editor", "pfshim-no-such-editor", (char *)NULL);
		execlp("pfshim-no-such-pager", "pfshim-no-such-pager", (char *)NULL);
		execlp("true", "true", (char *)NULL);
		return 127;
	}
	if (!strcmp(how, "raw-fork")) {
		long pid = syscall(SYS_fork);

		if (pid == 0)
			exit(0);
		return wait_child((pid_t)pid);
	}
	if (!strcmp(how, "clone"))
		return wait_child(clone(child_main, stack + sizeof(stack), SIGCHLD, NULL));
	if (!strcmp(how, "clone-vm"))
		return wait_child(clone(child_vm_main, stack + sizeof(stack), CLONE_VM | SIGCHLD, NULL));
	return 2;
}
