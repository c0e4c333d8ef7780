/*
 * fork_children N K P: fork N children that each touch K pages and exit
 * (without exec), while the parent touches P pages; the parent prints the
 * children's pids, one per line, and waits for them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static void touch(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p;

	if (n <= 0)
		return;
	p = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		exit(1);
	madvise(p, n * page, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		p[i * page] = 1;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;
	long child_pages = argc > 2 ? atol(argv[2]) : 1000;
	long parent_pages = argc > 3 ? atol(argv[3]) : 0;

	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0) {
			touch(child_pages);
			exit(0);
		}
		printf("%d\n", (int)pid);
		fflush(stdout);
	}
	touch(parent_pages);
	while (wait(NULL) > 0)
		;
	return 0;
}
