/* SPDX-License-Identifier: MIT */
/*
 * startup.c: what running a whole process under a variant costs in wall time
 * and peak RSS, measured side by side: fork + execve + wait4 per run, timed with
 * CLOCK_MONOTONIC, variants interleaved round by round so drift hits them all.
 *
 *   startup WARM COLD IDLE_MS GOAL_MS GOAL_RATIO GOAL_KIB \
 *           :: LABEL [VAR=VALUE...] /abs/program [ARG...] :: LABEL ...
 *
 * The first variant is the baseline, the second the one under test (its goals
 * are checked), the third the competitor it must beat; any further ones are
 * context (warm only). Cold runs exist because the
 * first per-task perf_event_open after ~1 s idle costs 5-20 ms
 * (docs/kernel-notes.md "The first open after idle is slow"): warm and cold
 * are different figures.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define MAX_VARIANTS 8
#define WARMUP_ROUNDS 10
#define COLD_VARIANTS 3	/* baseline, under test, competitor */

extern char **environ;

struct variant {
	const char *label;
	char **argv;
	char **envp;
	double *warm_ms;
	double *cold_ms;
	double *rss_kib;
};

static int devnull = -1;

/* One run: the wall time from before fork to after wait4, and the child's ru_maxrss. */
static int variant_run(const struct variant *v, double *ms, double *kib)
{
	struct rusage ru;
	int status;
	uint64_t t0 = bench_now_ns();
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		dup2(devnull, 1);
		dup2(devnull, 2);
		execve(v->argv[0], v->argv, v->envp);
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0)
		return -errno;
	*ms = (double)(bench_now_ns() - t0) / 1e6;
	if (kib)
		*kib = (double)ru.ru_maxrss;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "startup: '%s' (%s) failed: status 0x%x\n", v->label, v->argv[0],
			status);
		return -ECHILD;
	}
	return 0;
}

/* environ, with each VAR=VALUE of the variant replacing (or adding) VAR. */
static char **envp_build(char **assign, int nr_assign)
{
	int n = 0, k = 0;
	char **envp;

	while (environ[n])
		n++;
	envp = calloc((size_t)(n + nr_assign + 1), sizeof(*envp));
	if (!envp)
		return NULL;
	for (int i = 0; i < n; i++) {
		int replaced = 0;

		for (int a = 0; a < nr_assign; a++) {
			size_t len = (size_t)(strchr(assign[a], '=') - assign[a]) + 1;

			replaced |= strncmp(environ[i], assign[a], len) == 0;
		}
		if (!replaced)
			envp[k++] = environ[i];
	}
	for (int a = 0; a < nr_assign; a++)
		envp[k++] = assign[a];
	return envp;
}

/* Split argv at "::" into variants: LABEL [VAR=VALUE...] /PROGRAM [ARG...]. */
static int variants_parse(char **argv, struct variant *v, int runs, int cold)
{
	int nr = 0, more = *argv && strcmp(*argv, "::") == 0;

	while (more) {
		char **body = argv + 1, **next = body;
		int nr_assign = 0;

		while (*next && strcmp(*next, "::") != 0)
			next++;
		more = *next != NULL;
		*next = NULL;	/* ends this variant's argv in place */
		if (nr == MAX_VARIANTS || !body[0])
			return -EINVAL;
		v[nr].label = body[0];
		while (body[1 + nr_assign] && body[1 + nr_assign][0] != '/' &&
		       strchr(body[1 + nr_assign], '='))
			nr_assign++;
		v[nr].argv = body + 1 + nr_assign;
		if (!v[nr].argv[0])
			return -EINVAL;
		v[nr].envp = envp_build(body + 1, nr_assign);
		v[nr].warm_ms = calloc((size_t)runs, sizeof(double));
		v[nr].rss_kib = calloc((size_t)runs, sizeof(double));
		v[nr].cold_ms = calloc((size_t)(cold > 0 ? cold : 1), sizeof(double));
		if (!v[nr].envp || !v[nr].warm_ms || !v[nr].rss_kib || !v[nr].cold_ms)
			return -ENOMEM;
		nr++;
		argv = next;
	}
	return nr;
}

/* Rounds of one run per variant, the starting variant rotating each round. */
static int measure_warm(struct variant *v, int nr, int runs)
{
	double ms, kib;
	int err;

	for (int r = -WARMUP_ROUNDS; r < runs; r++) {
		for (int k = 0; k < nr; k++) {
			int i = (k + (r < 0 ? 0 : r)) % nr;

			err = variant_run(&v[i], &ms, &kib);
			if (err < 0)
				return err;
			if (r >= 0) {
				v[i].warm_ms[r] = ms;
				v[i].rss_kib[r] = kib;
			}
		}
	}
	return 0;
}

/* Each run preceded by @idle_ms of nothing, so that no per-task event exists. */
static int measure_cold(struct variant *v, int nr, int cold, int idle_ms)
{
	int err;

	if (nr > COLD_VARIANTS)
		nr = COLD_VARIANTS;
	for (int r = 0; r < cold; r++) {
		for (int k = 0; k < nr; k++) {
			int i = (k + r) % nr;

			usleep((useconds_t)idle_ms * 1000);
			err = variant_run(&v[i], &v[i].cold_ms[r], NULL);
			if (err < 0)
				return err;
		}
	}
	return 0;
}

static const char *verdict(int met)
{
	return met ? "MET" : "NOT MET";
}

int main(int argc, char **argv)
{
	struct variant v[MAX_VARIANTS];
	double warm[MAX_VARIANTS], cold[MAX_VARIANTS], rss[MAX_VARIANTS];
	int runs, nr_cold, idle_ms, nr, err;
	double goal_ms, goal_ratio, goal_kib;

	if (argc < 8) {
		fprintf(stderr, "usage: startup WARM COLD IDLE_MS GOAL_MS GOAL_RATIO GOAL_KIB "
				":: LABEL [VAR=VALUE...] /PROGRAM [ARG...] :: ...\n");
		return 2;
	}
	runs = atoi(argv[1]);
	nr_cold = atoi(argv[2]);
	idle_ms = atoi(argv[3]);
	goal_ms = atof(argv[4]);
	goal_ratio = atof(argv[5]);
	goal_kib = atof(argv[6]);
	nr = runs < 1 || nr_cold < 0 ? -EINVAL : variants_parse(argv + 7, v, runs, nr_cold);
	if (nr < 2) {
		fprintf(stderr, "startup: need WARM >= 1, COLD >= 0 and at least two variants\n");
		return 2;
	}
	devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
	err = measure_warm(v, nr, runs);
	if (!err && nr_cold > 0)
		err = measure_cold(v, nr, nr_cold, idle_ms);
	if (err < 0)
		return 1;

	for (int i = 0; i < nr; i++) {
		warm[i] = bench_median(v[i].warm_ms, runs);
		cold[i] = bench_median(v[i].cold_ms, nr_cold);
		rss[i] = bench_median(v[i].rss_kib, runs);
	}

	printf("warm: median of %d runs per variant after %d warm-up rounds, interleaved\n",
	       runs, WARMUP_ROUNDS);
	if (nr_cold > 0)
		printf("cold: median of %d runs per variant, each after %d ms idle (first open after idle)\n",
		       nr_cold, idle_ms);
	printf("\n");
	printf("%-28s %8s %9s %7s %10s | %8s %9s\n", "variant", "warm ms", "added ms", "x base",
	       "x shim add", "cold ms", "added ms");
	for (int i = 0; i < nr; i++) {
		double added = warm[i] - warm[0], shim_added = warm[1] - warm[0];
		char rel[16] = "-", cold_ms[16] = "-", cold_added[16] = "-";

		if (i > 0 && shim_added > 0)
			snprintf(rel, sizeof(rel), "%.1f", added / shim_added);
		if (i < COLD_VARIANTS && nr_cold > 0) {
			snprintf(cold_ms, sizeof(cold_ms), "%.3f", cold[i]);
			snprintf(cold_added, sizeof(cold_added), "%.3f", cold[i] - cold[0]);
		}
		printf("%-28s %8.3f %9.3f %7.2f %10s | %8s %9s\n", v[i].label, warm[i], added,
		       warm[i] / warm[0], rel, cold_ms, cold_added);
	}
	printf("\n");
	if (nr >= COLD_VARIANTS) {
		double shim_added = warm[1] - warm[0], other = warm[2] - warm[0];
		double ratio = shim_added > 0 ? other / shim_added : 0.0;

		printf("overhead ratio (warm): %s adds %.1fx what %s adds\n", v[2].label, ratio,
		       v[1].label);
		if (nr_cold > 0 && cold[1] > cold[0])
			printf("overhead ratio (cold): %.1fx\n", (cold[2] - cold[0]) / (cold[1] - cold[0]));
		printf("goal: the shim adds >= %.0fx less than %s (warm): %s (%.1fx)\n", goal_ratio,
		       v[2].label, verdict(ratio >= goal_ratio), ratio);
	}
	printf("goal: the shim adds < %.2f ms warm: %s (%.3f ms)\n", goal_ms,
	       verdict(warm[1] - warm[0] < goal_ms), warm[1] - warm[0]);
	printf("\n== 2. Resident memory: peak RSS (ru_maxrss from wait4), median of the warm runs\n\n");
	printf("%-26s %10s %10s\n", "variant", "peak KiB", "added KiB");
	for (int i = 0; i < nr; i++)
		printf("%-26s %10.0f %10.0f\n", v[i].label, rss[i], rss[i] - rss[0]);
	printf("(wait4 reports the largest of the child and what it waited for: for a tool\n"
	       " that runs the program, its own RSS.)\n\n");
	printf("goal: shim adds < %.0f KiB: %s (%.0f KiB)\n", goal_kib,
	       verdict(rss[1] - rss[0] < goal_kib), rss[1] - rss[0]);
	return 0;
}
