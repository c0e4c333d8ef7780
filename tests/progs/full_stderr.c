/* SPDX-License-Identifier: MIT */
/*
 * full_stderr: make stderr non-blocking (the file description is shared
 * with whoever else writes it: the shim's duplicate too), fill it until the
 * pipe says EAGAIN, print how many bytes went in on stdout, exit 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	char chunk[4096];
	long total = 0;
	ssize_t n;

	memset(chunk, '\n', sizeof(chunk));
	fcntl(2, F_SETFL, fcntl(2, F_GETFL) | O_NONBLOCK);
	while ((n = write(2, chunk, sizeof(chunk))) > 0 || (n < 0 && errno == EINTR))
		total += n > 0 ? n : 0;
	printf("%ld %s\n", total, n < 0 && errno == EAGAIN ? "EAGAIN" : "other");
	return 0;
}
