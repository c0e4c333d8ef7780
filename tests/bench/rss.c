/*
 * rss.c: where the shim's resident memory goes. ru_maxrss counts every page
 * mapped, including libc code the shim touches that the program did not (shared
 * with every process on the machine); /proc/PID/smaps_rollup of a program held
 * in main() after the constructor ran splits that from private memory.
 *
 *   rss RUNS :: LABEL [VAR=VALUE...] :: LABEL ...   (the held program is rss itself)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define MAX_VARIANTS 4

enum field { F_RSS, F_PRIVATE, F_ANON, F_SHIM, NR_FIELDS };

extern char **environ;

/* The held program: say "in main" on stdout, then wait for stdin to close. */
static int hold(void)
{
	char c;

	if (write(1, "m", 1) != 1)
		return 1;
	return read(0, &c, 1) < 0;
}

/* Sum of smaps fields of @pid: Rss, Private_Clean + Private_Dirty, Anonymous, and the Rss of libpfshim.so. */
static int smaps_read(pid_t pid, double *f)
{
	char path[64], line[512];
	int in_shim = 0;
	FILE *in;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	if (!(in = fopen(path, "r")))
		return -errno;
	memset(f, 0, NR_FIELDS * sizeof(*f));
	while (fgets(line, sizeof(line), in)) {
		unsigned long kib, start, end;

		if (sscanf(line, "%lx-%lx ", &start, &end) == 2)
			in_shim = strstr(line, "libpfshim.so") != NULL;
		else if (sscanf(line, "Rss: %lu", &kib) == 1) {
			f[F_RSS] += kib;
			if (in_shim)
				f[F_SHIM] += kib;
		} else if (sscanf(line, "Private_Clean: %lu", &kib) == 1 ||
			   sscanf(line, "Private_Dirty: %lu", &kib) == 1)
			f[F_PRIVATE] += kib;
		else if (sscanf(line, "Anonymous: %lu", &kib) == 1)
			f[F_ANON] += kib;
	}
	fclose(in);
	return 0;
}

/* One held run of this program with @assign added to the environment. */
static int held_run(char *self, char **assign, int nr_assign, double *f)
{
	int to_child[2], from_child[2], status, err;
	char c;
	pid_t pid;
	int devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (devnull < 0 || pipe(to_child) < 0 || pipe(from_child) < 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		char *argv[] = { self, "--hold", NULL };

		for (int i = 0; i < nr_assign; i++)
			putenv(assign[i]);
		dup2(to_child[0], 0);
		dup2(from_child[1], 1);
		dup2(devnull, 2);	/* the shim's report at exit */
		close(to_child[1]);
		close(from_child[0]);
		execve(self, argv, environ);
		_exit(127);
	}
	close(to_child[0]);
	close(from_child[1]);
	err = read(from_child[0], &c, 1) == 1 ? smaps_read(pid, f) : -EIO;
	close(to_child[1]);
	close(from_child[0]);
	close(devnull);
	waitpid(pid, &status, 0);
	return err;
}

int main(int argc, char **argv)
{
	char *label[MAX_VARIANTS], **assign[MAX_VARIANTS];
	int nr_assign[MAX_VARIANTS], nr = 0, runs;
	double med[MAX_VARIANTS][NR_FIELDS];

	if (argc == 2 && strcmp(argv[1], "--hold") == 0)
		return hold();
	if (argc < 4 || (runs = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: rss RUNS :: LABEL [VAR=VALUE...] :: ...\n");
		return 2;
	}
	for (int i = 2; i < argc && nr < MAX_VARIANTS; i++) {
		if (strcmp(argv[i], "::") != 0 || i + 1 >= argc)
			continue;
		label[nr] = argv[++i];
		assign[nr] = argv + i + 1;
		nr_assign[nr] = 0;
		while (i + 1 < argc && strcmp(argv[i + 1], "::") != 0) {
			nr_assign[nr]++;
			i++;
		}
		nr++;
	}
	for (int v = 0; v < nr; v++) {
		double (*f)[NR_FIELDS] = calloc((size_t)runs, sizeof(*f));
		double col[runs];

		for (int r = 0; r < runs; r++) {
			int err = held_run(argv[0], assign[v], nr_assign[v], f[r]);

			if (err < 0) {
				fprintf(stderr, "rss: %s: %s\n", label[v], strerror(-err));
				return 1;
			}
		}
		for (int k = 0; k < NR_FIELDS; k++) {
			for (int r = 0; r < runs; r++)
				col[r] = f[r][k];
			med[v][k] = bench_median(col, runs);
		}
		free(f);
	}
	printf("in main(), after the constructor (/proc/PID/smaps), median of %d runs, KiB\n\n", runs);
	printf("%-28s %8s %8s %8s %8s %10s\n", "variant", "Rss", "added", "Private", "added",
	       "shim .so");
	for (int v = 0; v < nr; v++)
		printf("%-28s %8.0f %8.0f %8.0f %8.0f %10.0f\n", label[v], med[v][F_RSS],
		       med[v][F_RSS] - med[0][F_RSS], med[v][F_PRIVATE],
		       med[v][F_PRIVATE] - med[0][F_PRIVATE], med[v][F_SHIM]);
	printf("(Private: pages no other process maps; the rest of the added Rss is shared\n"
	       " file pages, mostly libc code the shim calls that the program did not.)\n");
	return 0;
}
