/* SPDX-License-Identifier: MIT */
/*
 * main.c: the pfshim command: its commands and `pfshim report`. `pfshim run`
 * runs a command as one counted job (run.c); `pfshim report` combines
 * reports already written; `pfshim list` lists the events this machine can
 * count (list.c); `pfshim diff` compares two jobs (diff.c), `pfshim check`
 * holds reports to bounds (check.c). The manual is `pfshim --help`, pfshim.1 and
 * docs/pfshim.md.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <jansson.h>

#include "export/version.h"	/* pfshim --version: the version every report names */
#include "tools/pfshim/check.h"
#include "tools/pfshim/diff.h"
#include "tools/pfshim/list.h"
#include "tools/pfshim/model/metrics.h"
#include "tools/pfshim/run/calibrate.h"
#include "tools/pfshim/run/run.h"
#include "tools/pfshim/read/read.h"
#include "tools/pfshim/view/view.h"

/* make passes LIBDIR; built otherwise, the default install's. */
#ifndef PFSHIM_LIBDIR
#define PFSHIM_LIBDIR "/usr/local/lib"
#endif
#ifndef PFSHIM_LIBDIR_REL
#define PFSHIM_LIBDIR_REL "../lib"
#endif

static const char usage_main[] =
"Usage: pfshim COMMAND [OPTIONS] [ARGS]\n"
"\n"
"Count the performance events of a whole job (a build, a script, an MPI job)\n"
"with libpfshim.so, and combine the reports of its processes.\n"
"\n"
"Commands:\n"
"  run [-e EVENTS] [-M GROUP] [-o DIR] [-I INTERVAL | -r N] -- COMMAND [ARGS...]\n"
"        run COMMAND with libpfshim.so preloaded; every process it starts\n"
"        writes its report (JSON) into DIR; when COMMAND ends, print one summary\n"
"        on stderr: totals over all processes, then per program the number of\n"
"        images and the sums. Exits with COMMAND's status. -r N: N runs, each\n"
"        total's mean and noise ( +- x% ), as perf stat -r prints them.\n"
"  report [--by program|rank|host|process] [--tree] [--json|--csv] [--html FILE]\n"
"         [--metrics] [--events LIST] [--regions LIST] [FILE|DIR|-]...\n"
"        combine reports written earlier (files of one report or JSON Lines,\n"
"        directories read recursively, '-' for stdin): totals, per group,\n"
"        regions with their imbalance, interval series, the process tree.\n"
"  diff [--json] A B | A1 A2... -- B1 B2...\n"
"        compare two jobs (or repeated runs of each): per event of the totals,\n"
"        of each program and of each region, A's and B's values, the change,\n"
"        and whether it is beyond the noise of the repeats.\n"
"  check [--max BOUND]... [--min BOUND]... [FILE|DIR|-]...\n"
"        a regression gate: bounds such as 'region:solve instructions/call\n"
"        1.2e6' on the combined reports; exits 1 when one is broken.\n"
"  list [PATTERN]\n"
"        the events this machine has, as perf list shows them (built-in names,\n"
"        sysfs PMU events, tracepoints, libpfm4's vendor names), each marked\n"
"        available here or not, with what it counts. list --metrics: the\n"
"        performance groups (PFSHIM_GROUP, run -M) with their metrics.\n"
"  --version\n"
"        the version of pfshim, the one its reports name.\n"
"\n"
"Run `pfshim COMMAND --help` for each command's options, `man pfshim` for the\n"
"manual. Reports are described in docs/output.md; this command in\n"
"docs/pfshim.md.\n";

static const char usage_report[] =
"Usage: pfshim report [OPTIONS] [FILE|DIR|-]...\n"
"\n"
"Combine pfshim reports (JSON, PFSHIM_FORMAT=json, schema versions 1 to 4):\n"
"files holding one report or JSON Lines, directories (read recursively; names\n"
"beginning with '.' are skipped), and '-' for stdin (the default with no\n"
"argument). An input that is not a whole report (malformed, truncated, another\n"
"schema, a newer version) is named on stderr and skipped; the others are\n"
"combined.\n"
"\n"
"A process image (host, pid namespace, pid, start time) can leave several\n"
"reports: interval ones, signal ones, pfshim_report()'s, then its exit or exec\n"
"one. Its counts only grow, so only its LAST report (the exit or exec one, else\n"
"the highest seq, else the latest) counts towards the sums; the others feed the\n"
"interval series only. The same report read twice counts once.\n"
"\n"
"Grouping and filters:\n"
"  -b, --by GROUP       rows and chart bars per GROUP: program (default, the\n"
"                       program's name), rank (the launcher's rank; '-' for\n"
"                       none), host, or process (HOST:PID, HOST:PID/NS in a\n"
"                       container; the images of an exec chain together)\n"
"  -e, --events LIST    only these events (comma list, as the reports name them)\n"
"  -r, --regions LIST   only these regions (comma list)\n"
"                       A name in LIST that no report has is said on stderr\n"
"                       (\"--events: no report has 'X'; left out\"); the rest is\n"
"                       printed and the exit status does not change.\n"
"  -A, --any-owner      read the files of other users found in directories too\n"
"                       (by default: named on stderr and skipped; a file named\n"
"                       on the command line is read whoever owns it). Below a\n"
"                       directory no symbolic link is followed and only\n"
"                       regular files are read.\n"
"  -t, --tree           also the process tree: images by pid and ppid, exec\n"
"                       chains marked '>', children under the image that forked\n"
"                       them, each line ending with the image's arguments\n"
"                       (keeps one record per image: memory grows with the\n"
"                       number of images)\n"
"\n"
"Output (stdout):\n"
"  (default)            text: totals; one row per group; regions (sum, min,\n"
"                       max, mean over the groups, imbalance = max/mean, per\n"
"                       thread min..max, calls, misuse); the region tree\n"
"                       (per path: calls, inclusive, exclusive, % of total);\n"
"                       the interval series summed over groups; the tree\n"
"                       with --tree\n"
"  -M, --metrics        the metrics of PFSHIM_GROUP instead of the counts (text,\n"
"                       --json: schema \"pfshim.metrics\" version 1, --csv): for\n"
"                       the job, each group and each region, each metric's\n"
"                       events summed over the images, then its formula computed\n"
"                       once (never a mean of ratios); an image that did not\n"
"                       count them is named (docs/metrics.md)\n"
"  --json               one JSON object, schema \"pfshim.summary\" version 4\n"
"  --csv                CSV tables, each with its header, separated by an empty\n"
"                       line: events (scope,GROUP,reports,images,event,...),\n"
"                       then regions, then the series, when there are any\n"
"  --html FILE          also write one self-contained HTML page (inline SVG\n"
"                       charts, no script, nothing fetched) to FILE; '-': the\n"
"                       page on stdout instead of the text, JSON or CSV\n"
"  --title TEXT         the job's name on the text summary and the page\n"
"                       (default on the page: argv[0] of the first process)\n"
"  -h, --help           this text\n"
"\n"
"Values are the sums of each counted image's \"value\" (scaled counts); an event\n"
"counted nowhere is <not counted>, <not supported> when some image could not\n"
"open it, or <closed by program> when the program closed its counters (null in\n"
"JSON, empty in CSV). docs/pfshim.md has the schemas.\n"
"\n"
"Strings from reports are shown, never acted on: control bytes as \\xHH in every\n"
"view, HTML escaped in the page, a CSV cell that a spreadsheet would take for a\n"
"formula (=, +, -, @ first) behind a '. Sums saturate at 2^63-1.\n"
"\n"
"Exit status: 0 when at least one report or job count was read, 1 when none\n"
"was, 2 for a usage error, or a page or stdout that could not be written.\n";

/* The page into @path ("-": stdout); -1 when it could not be written (said). */
static int summary_html_write(const struct summary *s, const char *path, const char *title)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");

	if (f) {
		summary_print_html(s, title, f);
		if (f == stdout ? fflush(f) == 0 && !ferror(f) : fclose(f) == 0)
			return 0;
	}
	fprintf(stderr, "pfshim report: --html %s: %s\n", path, strerror(errno));
	return -1;
}

static int by_parse(const char *arg, enum summary_by *by)
{
	for (enum summary_by b = BY_PROGRAM; b <= BY_PROCESS; b++)
		if (strcmp(arg, summary_by_name(b)) == 0) {
			*by = b;
			return 0;
		}
	return -1;
}

static int cmd_report(int argc, char **argv)
{
	static const struct option options[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "csv", no_argument, NULL, 'c' },
		{ "html", required_argument, NULL, 'H' },
		{ "title", required_argument, NULL, 'T' },
		{ "by", required_argument, NULL, 'b' },
		{ "events", required_argument, NULL, 'e' },
		{ "regions", required_argument, NULL, 'r' },
		{ "tree", no_argument, NULL, 't' },
		{ "any-owner", no_argument, NULL, 'A' },
		{ "metrics", no_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	enum { TEXT, JSON, CSV } format = TEXT;
	unsigned formats = 0;
	struct summary_options opt = { .by = BY_PROGRAM };
	const char *html = NULL, *title = NULL;
	bool metrics = false;	/* the view; opt.metrics: the sums (the page has them too) */
	struct summary s;
	int c, ret;
	bool nothing, nothing_said = false;

	while ((c = getopt_long(argc, argv, "b:e:r:tAMh", options, NULL)) != -1) {
		/* repeated --by: the last one wins; --json with --csv is a mistake (below) */
		switch (c) {
		case 'j': formats |= 1u << JSON; format = JSON; break;
		case 'c': formats |= 1u << CSV; format = CSV; break;
		case 'H': html = optarg; opt.images = opt.metrics = true; break;
		case 'T': title = optarg; break;
		case 't': opt.images = opt.tree = true; break;
		case 'A': opt.any_owner = true; break;
		case 'M': metrics = opt.metrics = true; break;
		case 'e': names_add_list(&opt.events, optarg); break;
		case 'r': names_add_list(&opt.regions, optarg); break;
		case 'b':
			if (by_parse(optarg, &opt.by) == 0)
				break;
			fprintf(stderr, "pfshim report: --by %s: not one of program, rank, host, process\n",
				optarg);
			return 2;
		case 'h': fputs(usage_report, stdout); return 0;
		default: fputs(usage_report, stderr); return 2;
		}
	}
	if (formats == (1u << JSON | 1u << CSV)) {
		fputs("pfshim report: --json and --csv: one output format at a time\n", stderr);
		return 2;
	}
	summary_init(&s, &opt);
	if (optind >= argc)
		summary_add_path(&s, "-");
	for (int i = optind; i < argc; i++)
		summary_add_path(&s, argv[i]);
	summary_finish(&s);
	/* a page or a table of nothing would read as a job that did nothing */
	nothing = !s.reports && !s.job;
	if (html && nothing) {
		fprintf(stderr, "pfshim: no reports: --html %s not written\n", html);
		html = NULL;
		nothing_said = true;
	}
	if (html && summary_html_write(&s, html, title) < 0) {
		summary_free(&s);
		return 2;
	}
	if (html && strcmp(html, "-") == 0)
		;	/* the page is the output */
	else if (metrics && format == JSON)
		metric_sums_print_json(&s, stdout);
	else if (metrics && format == CSV)
		metric_sums_print_csv(&s, stdout);
	else if (metrics)
		metric_sums_print_text(&s, stdout);
	else if (format == JSON)
		summary_print_json(&s, stdout);
	else if (format == CSV)
		summary_print_csv(&s, stdout);
	else if (nothing && s.skipped) {
		if (!nothing_said)
			fprintf(stderr, "pfshim report: no reports read; %" PRIu64 " %s skipped "
				"(named above)\n", s.skipped, s.skipped == 1 ? "input" : "inputs");
	}
	else
		summary_print_text(&s, title, NULL, stdout);
	ret = s.reports || s.job ? 0 : 1;
	if (html && strcmp(html, "-") == 0)
		;	/* said by summary_html_write() */
	else if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "pfshim report: stdout: %s\n", strerror(errno ? errno : EIO));
		ret = 2;
	}
	summary_free(&s);
	return ret;
}

/*
 * jansson's hash seed, from one getrandom(): left to itself, jansson opens,
 * reads and closes /dev/urandom at the first object it parses (three
 * system calls of each `pfshim run`). Without getrandom(), jansson's own.
 */
static void json_seed(void)
{
	size_t seed;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) == (ssize_t)sizeof(seed) && seed)
		json_object_seed(seed);
}

static char command_name[32];

int main(int argc, char **argv)
{
	json_seed();
	if (argc < 2) {
		fputs(usage_main, stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		fputs(usage_main, stdout);
		return 0;
	}
	/* pfshim --version, and pfshim COMMAND --version: the same answer */
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0 ||
	    (argc == 3 && strcmp(argv[2], "--version") == 0 &&
	     (!strcmp(argv[1], "run") || !strcmp(argv[1], "report") || !strcmp(argv[1], "list") ||
	      !strcmp(argv[1], "diff") || !strcmp(argv[1], "check")))) {
		printf("pfshim %s\n", pfshim_version);
		return 0;
	}
	/* getopt names the program by argv[0]: "pfshim run: invalid option -- 'x'" */
	if (strlen(argv[1]) < sizeof(command_name) - 7) {
		snprintf(command_name, sizeof(command_name), "pfshim %s", argv[1]);
		if (!strcmp(argv[1], "run") || !strcmp(argv[1], "report") || !strcmp(argv[1], "list") ||
		    !strcmp(argv[1], "diff") || !strcmp(argv[1], "check"))
			argv[1] = command_name;
	}
	if (strcmp(argv[1], "pfshim run") == 0)
		return cmd_run(argc - 1, argv + 1);
	/* pfshim run's calibration runs the command itself: not a command for a person */
	if (strcmp(argv[1], CALIBRATE_CHILD) == 0)
		return calibrate_child(argc - 1, argv + 1);
	if (strcmp(argv[1], "pfshim report") == 0)
		return cmd_report(argc - 1, argv + 1);
	if (strcmp(argv[1], "pfshim diff") == 0)
		return cmd_diff(argc - 1, argv + 1);
	if (strcmp(argv[1], "pfshim check") == 0)
		return cmd_check(argc - 1, argv + 1);
	if (strcmp(argv[1], "pfshim list") == 0)
		return cmd_list(argc - 1, argv + 1);
	fprintf(stderr, "pfshim: unknown command '%s'\n\n%s", argv[1], usage_main);
	return 2;
}
