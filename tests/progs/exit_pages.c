/* SPDX-License-Identifier: MIT */
/*
 * exit_pages.c: which pages of a library are resident when a program ends.
 * Runs PROGRAM under ptrace and, at its exit stop (the shim's exit report
 * written, the memory not yet released), prints each resident page of the
 * mappings of the file whose name ends in LIB, as its offset from the
 * library's load address in hex, one a line (host-safety.bats). With -f,
 * the processes PROGRAM makes are followed too, and each that maps LIB
 * prints its pages at its exit (a job's descendants).
 *
 *   exit_pages [-f] LIB PROGRAM [ARG...]
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

static int ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), m = strlen(end);

	return n >= m && strcmp(s + n - m, end) == 0;
}

static int pages_print(pid_t pid, const char *lib)
{
	char path[64], line[512];
	unsigned long base = 0;
	int pagemap, found = 0;
	FILE *maps;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	if (!(maps = fopen(path, "r")))
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/pagemap", (int)pid);
	if ((pagemap = open(path, O_RDONLY)) < 0) {
		fclose(maps);
		return 1;
	}
	while (found >= 0 && fgets(line, sizeof(line), maps)) {
		unsigned long start, end, offset;
		char name[256] = "";

		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %255s", &start, &end, &offset, name) < 3 ||
		    !ends_with(name, lib))
			continue;
		if (!found++)
			base = start - offset;
		for (unsigned long a = start; a < end; a += 4096) {
			uint64_t entry = 0;

			if (pread(pagemap, &entry, sizeof(entry), (off_t)(a / 4096 * 8)) != 8) {
				found = -1;
				break;
			}
			if (entry >> 63)
				printf("%lx\n", a - base);
		}
	}
	fclose(maps);
	close(pagemap);
	return found <= 0;
}

/* Has @pid stopped before? Each followed child's first stop is the SIGSTOP of its attaching. */
static bool seen(pid_t pid)
{
	static pid_t pids[4096];
	static int n;

	for (int i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	if (n < (int)(sizeof(pids) / sizeof(pids[0])))
		pids[n++] = pid;
	return false;
}

int main(int argc, char **argv)
{
	int follow = argc > 1 && strcmp(argv[1], "-f") == 0;
	long options = PTRACE_O_TRACEEXIT;
	int status, err = 1, printed = 0;
	pid_t pid, top;

	argv += follow;
	argc -= follow;
	if (argc < 3) {
		fprintf(stderr, "usage: exit_pages [-f] LIB PROGRAM [ARG...]\n");
		return 2;
	}
	/* Processes, not threads: a thread's exit stop would print its process's pages again. */
	if (follow)
		options |= PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK;
	top = fork();
	if (top == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execvp(argv[2], argv + 2);
		_exit(127);
	}
	/* Each traced process: its exec's SIGTRAP (the first), an event, or a signal to pass on. */
	while ((pid = waitpid(-1, &status, __WALL)) > 0) {
		int sig;

		if (!WIFSTOPPED(status)) {
			if (pid == top)
				break;
			continue;
		}
		sig = WSTOPSIG(status);
		if (status >> 8 == (SIGTRAP | PTRACE_EVENT_EXIT << 8)) {
			if (!follow)
				err = pages_print(pid, argv[1]);
			else if (pages_print(pid, argv[1]) == 0)
				printed++;
		}
		if (sig == SIGTRAP) {
			ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)options);
			sig = 0;
		} else if (follow && sig == SIGSTOP && pid != top && !seen(pid)) {
			sig = 0;	/* a new child's first stop */
		}
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
	}
	if (follow)
		err = !printed;
	return err || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}
