/* SPDX-License-Identifier: MIT */
/*
 * rss.c: where the shim's resident memory goes. ru_maxrss counts every page
 * mapped, including libc code the shim touches that the program did not (shared
 * with every process on the machine); /proc/PID/smaps_rollup of a program held
 * in main() after the constructor ran splits that from private memory.
 * With --exit PROGRAM, each variant also runs PROGRAM to its end: its exact
 * peak (VmHWM of /proc/PID/status at the ptrace exit stop, after the exit
 * report) beside the ru_maxrss wait4 gives for the same run. Since Linux 6.2
 * the RSS counters are per-CPU and fold into the total in batches (32 pages
 * per CPU here); ru_maxrss reads the folded total, measured here up to ~150
 * KiB off either way for /bin/true, while VmHWM in /proc/PID/status sums
 * them exactly (it matched the sum of /proc/PID/smaps to the page).
 *
 *   rss RUNS [--exit /abs/PROGRAM GOAL_KIB] :: LABEL [VAR=VALUE...] :: LABEL ...
 *   (the held program is rss itself; the goal: the second variant adds less
 *   than GOAL_KIB to the first's peak at exit)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
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

/* VmHWM of @pid in KiB, or a negative errno. */
static double hwm_read(pid_t pid)
{
	char path[64], line[256];
	double kib = -ENOENT;
	FILE *in;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if (!(in = fopen(path, "r")))
		return -errno;
	while (fgets(line, sizeof(line), in))
		if (sscanf(line, "VmHWM: %lf", &kib) == 1)
			break;
	fclose(in);
	return kib;
}

/*
 * One run of @program to its end with @assign added to the environment: its
 * peak RSS read at the ptrace exit stop (the shim's report is written by
 * then; the mm is not yet released), and ru_maxrss from wait4.
 */
static int exit_run(char *program, char **assign, int nr_assign, double *hwm, double *maxrss)
{
	int status = 0, devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	struct rusage ru = { 0 };
	pid_t pid;

	if (devnull < 0)
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		char *argv[] = { program, NULL };

		for (int i = 0; i < nr_assign; i++)
			putenv(assign[i]);
		dup2(devnull, 1);
		dup2(devnull, 2);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execve(program, argv, environ);
		_exit(127);
	}
	close(devnull);
	*hwm = -EIO;
	/* Stopped at the exec (SIGTRAP), then at the exit event; anything else passes through. */
	while (wait4(pid, &status, 0, &ru) == pid && WIFSTOPPED(status)) {
		int sig = WSTOPSIG(status);

		if (status >> 8 == (SIGTRAP | PTRACE_EVENT_EXIT << 8))
			*hwm = hwm_read(pid);
		if (sig == SIGTRAP) {
			ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_TRACEEXIT);
			sig = 0;
		}
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
	}
	*maxrss = (double)ru.ru_maxrss;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -ECHILD;
	return *hwm < 0 ? (int)*hwm : 0;
}

/* Median peak at the exit of @program per variant, interleaved, beside ru_maxrss. */
static int exit_table(char *program, double goal_kib, int runs, int nr, char **label,
		      char ***assign, int *nr_assign)
{
	double hwm[MAX_VARIANTS][runs], maxrss[MAX_VARIANTS][runs], med[MAX_VARIANTS][2];

	for (int r = 0; r < runs; r++) {
		for (int v = 0; v < nr; v++) {
			int err = exit_run(program, assign[v], nr_assign[v], &hwm[v][r],
					   &maxrss[v][r]);

			if (err < 0) {
				fprintf(stderr, "rss: %s: %s: %s\n", label[v], program,
					err == -ECHILD ? "did not exit with status 0" :
					strerror(-err));
				return -1;
			}
		}
	}
	for (int v = 0; v < nr; v++) {
		med[v][0] = bench_median(hwm[v], runs);
		med[v][1] = bench_median(maxrss[v], runs);
	}
	printf("\npeak RSS of %s at its exit (VmHWM at a ptrace exit stop, after the report),\n"
	       "median of %d interleaved runs, KiB; ru_maxrss of the same runs beside it\n\n",
	       program, runs);
	printf("%-28s %8s %8s %10s %8s\n", "variant", "VmHWM", "added", "ru_maxrss", "added");
	for (int v = 0; v < nr; v++)
		printf("%-28s %8.0f %8.0f %10.0f %8.0f\n", label[v], med[v][0],
		       med[v][0] - med[0][0], med[v][1], med[v][1] - med[0][1]);
	printf("(ru_maxrss reads per-CPU RSS counters folded in batches: off by up to ~150 KiB\n"
	       " either way here; VmHWM is exact.)\n");
	if (nr > 1)
		printf("\ngoal: %s adds < %.0f KiB peak RSS (VmHWM at exit): %s (%.0f KiB)\n",
		       label[1], goal_kib, med[1][0] - med[0][0] < goal_kib ? "MET" : "NOT MET",
		       med[1][0] - med[0][0]);
	return 0;
}

int main(int argc, char **argv)
{
	char *label[MAX_VARIANTS], **assign[MAX_VARIANTS];
	int nr_assign[MAX_VARIANTS], nr = 0, runs;
	double med[MAX_VARIANTS][NR_FIELDS];
	char *exit_program = NULL;
	double goal_kib = 0;
	int first = 2;

	if (argc == 2 && strcmp(argv[1], "--hold") == 0)
		return hold();
	if (argc > 4 && strcmp(argv[2], "--exit") == 0) {
		exit_program = argv[3];
		goal_kib = atof(argv[4]);
		first = 5;
	}
	if (argc < first + 2 || (runs = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: rss RUNS [--exit /abs/PROGRAM GOAL_KIB] :: LABEL "
			"[VAR=VALUE...] :: ...\n");
		return 2;
	}
	for (int i = first; i < argc && nr < MAX_VARIANTS; i++) {
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
	/* A machine that forbids ptrace still gets the tables above. */
	if (exit_program &&
	    exit_table(exit_program, goal_kib, runs, nr, label, assign, nr_assign) < 0)
		printf("\npeak RSS at exit: not measured (see the message above)\n");
	return 0;
}
