/* SPDX-License-Identifier: MIT */
/*
 * write_fork W F: write(2) one byte to /dev/null W times, then fork F
 * children that _exit(0) at once, and wait for them: exactly W
 * syscalls:sys_enter_write and F sched:sched_process_fork of its own.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int writes = argc > 1 ? atoi(argv[1]) : 10;
	int forks = argc > 2 ? atoi(argv[2]) : 0;
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return 1;
	for (int i = 0; i < writes; i++)
		if (write(fd, "x", 1) != 1)
			return 1;
	for (int i = 0; i < forks; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0)
			_exit(0);
	}
	while (wait(NULL) > 0)
		;
	return 0;
}
