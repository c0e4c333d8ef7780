/* SPDX-License-Identifier: MIT */
/*
 * first_fd: print the descriptor open() returns first, and the number of
 * descriptors below 10 that are open: what a program sees without a shim.
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	int low = 0;

	for (int fd = 0; fd < 10; fd++)
		low += fcntl(fd, F_GETFD) >= 0;
	printf("first=%d low=%d\n", open("/dev/null", O_RDONLY), low);
	return 0;
}
