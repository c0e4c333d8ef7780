/* SPDX-License-Identifier: MIT */
/*
 * run.c: `pfshim run`. The command runs with the shim preloaded and every
 * process's report in one directory, while this process counts the whole
 * job itself as perf stat does (jobcount.h) and, with -I, reads its totals
 * at each interval; when the command ends, one summary of the job.
 * Settings that would make every process of the job complain (-e, a
 * misspelled PFSHIM_ name) are checked here first, once.
 */
#include "tools/pfshim/run/run.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>	/* memfd_create() */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "export/report.h"	/* REPORT_BOOT_ID_PATH */
#include "export/version.h"
#include "fastread/sysfile.h"
#include "preload/config.h"	/* config_interval_parse(): -I as PFSHIM_INTERVAL reads it */
#include "preload/counters/totals.h"	/* what run says when perf_event_open is refused */
#include "preload/events/pmu.h"	/* PMU_SYSFS_ROOT */
#include "preload/metrics/group.h"
#include "preload/metrics/named.h"	/* -M: the group read as the shim reads it */
#include "preload/output/ledger.h"	/* the reports' outcomes: LEDGER_FILE */
#include "preload/output/spool.h"	/* SPOOL_WAIT_MS */
#include "preload/output/trusted.h"	/* the directories the job writes into */
#include "tools/pfshim/run/handover.h"
#include "tools/pfshim/run/calibrate.h"
#include "tools/pfshim/run/claim.h"
#include "tools/pfshim/run/jobcount.h"
#include "tools/pfshim/run/spool.h"
#include "tools/pfshim/model/spread.h"
#include "tools/pfshim/read/read.h"
#include "tools/pfshim/view/view.h"

static const char usage_run[] =
"Usage: pfshim run [-e EVENTS] [-M GROUP] [-o DIR] [-k] [-I INTERVAL] [-r N] [--] COMMAND [ARGS...]\n"
"\n"
"Run COMMAND under libpfshim.so. pfshim run counts the whole job itself, as\n"
"perf stat does (the events on COMMAND's pid, inherited by every process it\n"
"makes, however each ends), and every process of the job (COMMAND, and all it\n"
"starts) writes its report as JSON into DIR, one file per process image\n"
"(HOST.rRANK.pPID.TIME.N.json, published whole); the job's count goes beside\n"
"them as DIR/pfshim-job.jsonl. When COMMAND exits, one summary goes to stderr:\n"
"  - the job's totals and elapsed time, as perf stat would print them,\n"
"  - per program: the number of process images and the sums of their reports,\n"
"  - in no row: the totals less the rows (each image's loading before the\n"
"    shim started, and its exit), and the processes that left no report,\n"
"  - where the reports are, for `pfshim report DIR` (with -o or --keep).\n"
"\n"
"Options:\n"
"  -e, --events EVENTS  events to count, perf syntax (PFSHIM_EVENTS); default:\n"
"                       the shim's default events\n"
"  -M, --metrics GROUP  a performance group (PFSHIM_GROUP): LIKWID's group name\n"
"                       for this CPU or a group file's path; or metrics by\n"
"                       name, a comma list (PFSHIM_METRICS: IPC, CPI,\n"
"                       CPUs-utilized, TopdownL1, ...: pfshim list --metrics);\n"
"                       their events are counted too and the metrics are in\n"
"                       every report (pfshim report --metrics DIR: the job's)\n"
"  -o, --output DIR     keep the reports in DIR (created, with its parents; it\n"
"                       must hold no reports yet, and no other pfshim run may\n"
"                       be writing its job there). Default: a new directory\n"
"                       $TMPDIR/pfshim-run.XXXXXX (/tmp without TMPDIR),\n"
"                       removed after the summary unless --keep.\n"
"  -k, --keep           keep the temporary directory (without -o, it is removed\n"
"                       after the summary)\n"
"  -I, --interval INTERVAL\n"
"                       every INTERVAL (500ms, 2s, 1m; a plain number is\n"
"                       milliseconds; at least 10ms) read the job's totals\n"
"                       and print each event's change on stderr, as perf\n"
"                       stat -I does; kept in DIR/pfshim-job.jsonl. Nothing\n"
"                       runs in the job for it. A series per process is\n"
"                       PFSHIM_INTERVAL's, set for the job (a thread in\n"
"                       each process: docs/usage.md).\n"
"  -r, --repeat N       run the job N times (as perf stat -r), each run's reports\n"
"                       in DIR/run-1 ... DIR/run-N, and print the mean of each\n"
"                       total with its noise, ( +- x.xx% ): the standard\n"
"                       deviation of the mean in percent of it, as perf stat\n"
"                       prints it. Compare two such directories' runs with\n"
"                       pfshim diff. Exit status: the last run's.\n"
"  -h, --help           this text\n"
"\n"
"COMMAND sees LD_PRELOAD (the shim, then any libraries already there),\n"
"PFSHIM_OUTPUT=DIR/, PFSHIM_FORMAT=json, PFSHIM_ON_FATAL=1 (unless set),\n"
"with -e PFSHIM_EVENTS and with -M PFSHIM_GROUP: the shim reads them, and the processes of the job\n"
"inherit them. SIGINT and SIGQUIT are the command's (pfshim\n"
"run ignores them while it waits); SIGTERM and SIGHUP sent to pfshim run are\n"
"passed on to the command, and the summary is still printed.\n"
"\n"
"COMMAND is counted from its exec, the dynamic loader included, as perf stat\n"
"counts: its counters are opened before the exec (enable_on_exec) and handed\n"
"to the shim in PFSHIM_ADOPT, not for a setuid/setgid or static COMMAND, nor\n"
"with PFSHIM_INTERVAL. PFSHIM_HANDOVER=0 turns that off; PFSHIM_HANDOVER=1\n"
"does it at every exec of the job.\n"
"\n"
"Events are checked before anything runs: a problem with -e is said once, as\n"
"the shim would say it, and pfshim run exits 2.\n"
"\n"
"Exit status: COMMAND's (when a signal ended it, pfshim run ends by the same\n"
"signal after the summary); 127 when it could not be started; 2 for a usage\n"
"error.\n";

/*
 * The shim pfshim run preloads: beside this program (build/), where make
 * install put it relative to this program (PFSHIM_LIBDIR_REL, "../lib/x86_64-linux-gnu"
 * for a Debian package: a copy unpacked elsewhere finds its own), in ../lib,
 * then at the LIBDIR compiled in (PFSHIM_LIBDIR). In each, the SONAME's file
 * first: an installed libpfshim.so is a development symlink, not always there.
 */
static int library_find(char *path, size_t size)
{
	static const char *const dirs[] = { "", "/" PFSHIM_LIBDIR_REL, "/../lib" };
	static const char *const names[] = { "/libpfshim.so.1", "/libpfshim.so" };
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash;

	if (n <= 0)
		return -1;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (!slash)
		return -1;
	*slash = '\0';
	for (size_t i = 0; i <= sizeof(dirs) / sizeof(dirs[0]); i++) {
		for (size_t j = 0; j < sizeof(names) / sizeof(names[0]); j++) {
			char candidate[PATH_MAX + 64];

			if (i < sizeof(dirs) / sizeof(dirs[0]))
				snprintf(candidate, sizeof(candidate), "%s%s%s", exe, dirs[i], names[j]);
			else
				snprintf(candidate, sizeof(candidate), "%s%s", PFSHIM_LIBDIR, names[j]);
			if (access(candidate, R_OK) == 0 && realpath(candidate, path) &&
			    strlen(path) < size)
				return 0;
		}
	}
	return -1;
}

/*
 * The directory @path, made where missing (0700, its parents too) when
 * @create, judged as the shim judges every directory it writes into
 * (preload/output/trusted.h: owned by this user or root all the way, a
 * link followed only where nobody else could have put it) and, when @own,
 * closed to every other user, sticky or not: the job's reports are read
 * from it, and in /tmp anyone could add one. @what names it in the line
 * that says a refusal. Return: 0, or -1 said on stderr.
 */
static int dir_judged(const char *what, const char *path, bool create, bool own)
{
	const char *why = NULL;
	struct stat st;
	int fd = trusted_dir_open(path, create, 0700, &st, &why);

	if (fd < 0) {
		fprintf(stderr, "pfshim run: %s %s: %s\n", what, path, why ? why : strerror(-fd));
		return -1;
	}
	close(fd);
	if (own && trusted_dir_shared(&st)) {
		fprintf(stderr, "pfshim run: %s %s: other users may write in it, and a report they put"
			" there would be counted: name a directory of your own (-o makes it, mode"
			" 0700)\n", what, path);
		return -1;
	}
	return 0;
}

static int dir_is_empty(const char *path)
{
	struct summary s;
	uint64_t reports;

	summary_init(&s, &(struct summary_options){ .quiet = true });
	summary_add_path(&s, path);
	reports = s.reports;
	summary_free(&s);
	return reports == 0;
}

/*
 * -o @out (@dir, its real path) claimed for this run (claim.h), for as long
 * as this process lives, and refused with one line when another live run
 * holds it, when it holds reports (decided under the claim: a run that
 * claimed it and wrote its reports since is seen), or when its claim's
 * file is not ours. Without @out, @dir is the new temporary directory:
 * claimed, never refused. A directory that takes no new file is not
 * claimed: no report can be written there either. Return: 0 or -1 (said).
 */
static int output_claim(const char *out, const char *dir)
{
	int dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC), holder = 0, fd;
	const char *why = NULL;

	if (dirfd < 0) {
		fprintf(stderr, "pfshim run: -o %s: %s\n", out ? out : dir, strerror(errno));
		return -1;
	}
	/* An earlier run's claim taken over without making a file in a directory refused below */
	fd = run_claim(dirfd, !out, &holder, &why);
	if (fd == -ENOENT && dir_is_empty(dir))
		fd = run_claim(dirfd, true, &holder, &why);
	close(dirfd);
	if (!out)
		return 0;
	if (fd == -EWOULDBLOCK) {
		char pid[32] = "";

		if (holder > 0)
			snprintf(pid, sizeof(pid), " (pid %d)", holder);
		fprintf(stderr, "pfshim run: -o %s: another pfshim run%s is writing its job there; "
			"choose a new directory\n", out, pid);
		return -1;
	}
	if (!dir_is_empty(dir)) {
		fprintf(stderr, "pfshim run: -o %s: holds reports already; choose a new directory\n", out);
		return -1;
	}
	if (fd == -EPERM) {
		fprintf(stderr, "pfshim run: -o %s: its " CLAIM_FILE ", which pfshim run locks while it "
			"writes there, is %s; choose a new directory\n", out, why);
		return -1;
	}
	return 0;	/* the claim's descriptor stays open until this process exits */
}

static char *command_line(char **argv)
{
	size_t len = 1;
	char *line;

	for (char **a = argv; *a; a++)
		len += strlen(*a) + 1;
	line = calloc(1, len);
	if (!line)
		return NULL;
	for (char **a = argv; *a; a++) {
		if (a != argv)
			strcat(line, " ");
		strcat(line, *a);
	}
	return line;
}

/* The command line as a summary's title says it: its control bytes as text, never to the terminal. */
static char *command_title(char **argv)
{
	char *line = command_line(argv), *shown;
	size_t len;

	if (!line || !(shown = summary_shown(line, strlen(line), &len)))
		return line;
	free(line);
	return shown;
}

/*
 * The summary in one write(2): stderr is unbuffered, and the text written to
 * it line by line took some 30 system calls (0.1 ms) of each `pfshim run`.
 * @title is freed.
 */
static void summary_print_run(const struct summary *s, char *title, const char *output)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem)
		mem = stderr;
	/* With -M (or a group in the environment): the job's metrics too, before where the reports are */
	summary_print_text(s, title, s->metric_sums ? NULL : output, mem);
	if (s->metric_sums) {
		metric_sums_print_text(s, mem);
		summary_print_where(output, mem);
	}
	if (mem != stderr && fclose(mem) == 0)
		fwrite(text, 1, len, stderr);
	free(text);
	free(title);
}

static volatile sig_atomic_t job_pid;

/*
 * SIGPIPE as the caller gave it, the command's again at its exec: the
 * runner ignores it, so that a summary written to a pipe nobody reads
 * (pfshim run ... 2>&1 | head) cannot kill it before it exits with the
 * command's status and removes its directory.
 */
static struct sigaction caller_pipe;

/* The buffers of this many CPUs wake the runner; past them it drains at the command's end. */
#define JOB_POLL_MAX 1024

/* TERM or HUP came to pfshim run: passed on to the job, and no calibration after it. */
static volatile sig_atomic_t job_stopped;

/* SIGTERM and SIGHUP to the runner end the job, not the runner: it still sums what the job did. */
static void job_forward(int sig)
{
	job_stopped = 1;
	if (job_pid > 0)
		kill(job_pid, sig);
}

/*
 * -I: the job's totals now, each event's change since the last as perf stat
 * -I prints it, on stderr in one write.
 */
static void job_interval_print(struct jobcount *jc)
{
	const struct jobcount_sample *now = jobcount_sample(jc);
	const struct jobcount_sample *last = jc->nr_samples > 1 ? now - 1 : NULL;
	char *text = NULL, v[48];
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem)
		return;
	if (!last)
		fprintf(mem, "#           time             counts unit events\n");
	for (int i = 0; i < jc->nr; i++) {
		const struct event_spec *e = jc->ev[i].spec;
		struct summary_event shown = { (char *)e->name, (char *)e->unit, e->scale ? e->scale : 1 };
		uint64_t was = 0, is;

		if (!jobcount_value(jc, now->value, i, &is) ||
		    (last && !jobcount_value(jc, last->value, i, &was)))
			snprintf(v, sizeof(v), "<not counted>");
		else
			summary_value_format(&shown, is > was ? is - was : 0, v, sizeof(v));
		fprintf(mem, "%15.9f %18s %-5s %s\n", (double)now->t_ns / 1e9, v, e->unit, e->name);
	}
	if (fclose(mem) == 0)
		fwrite(text, 1, len, stderr);
	free(text);
}

static uint64_t clock_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* poll(2)'s timeout until @next_ns: -1 without one, at least 1 ms, at most 50 ms without a pidfd. */
static int job_timeout(uint64_t next_ns, bool pidfd)
{
	uint64_t now = clock_ns();
	int ms = next_ns ? (next_ns > now ? (int)((next_ns - now + 999999) / 1000000) : 0) : -1;

	if (!pidfd && (ms < 0 || ms > 50))
		ms = 50;
	return ms;
}

/*
 * Wait for the command, taking the job's records as they come (a buffer
 * half full wakes us), and with @interval_ns the job's totals every
 * interval, until it has ended; -1 on a wait error.
 */
static int job_wait(pid_t pid, struct jobcount *jc, uint64_t interval_ns)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), status;
	uint64_t next = interval_ns ? clock_ns() + interval_ns : 0;
	struct pollfd fds[JOB_POLL_MAX];

	for (;;) {
		int n = jobcount_poll_fds(jc, fds, JOB_POLL_MAX - 1);
		pid_t done;

		fds[n++] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
		/* Without a pidfd (before Linux 5.3, or refused): a look every 50 ms. */
		poll(fds, (nfds_t)n, job_timeout(next, pidfd >= 0));
		jobcount_drain(jc);
		if (next && clock_ns() >= next) {
			job_interval_print(jc);
			/* A late wake-up skips the steps it missed, as perf stat -I does. */
			while (next <= clock_ns())
				next += interval_ns;
		}
		done = waitpid(pid, &status, WNOHANG);
		if (done == pid)
			break;
		if (done < 0 && errno != EINTR) {
			status = -1;
			break;
		}
	}
	if (pidfd >= 0)
		close(pidfd);
	return status;
}

/*
 * The job count kept in memory when it could not be written beside the
 * reports (a full disk): the summary reads it from there (/proc/self/fd/N).
 */
static int job_count_memfd = -1;

/* The last job_run()'s command could not be executed (said): no count, no summary. */
static bool job_exec_failed;

/*
 * The ledger of the reports' outcomes (preload/output/ledger.h), made in
 * @dir before the job with room reserved: a full disk still takes every
 * process's line. Without it (no inode left for it) the processes say
 * their own failures, as without pfshim run. Kept open, and read only
 * through that descriptor: a .pfshim-ledger this run did not make (another
 * user's in a shared directory, a FIFO) would name any of the job's
 * processes as having lost its report, with any error.
 */
static int ledger_fd = -1;

static void ledger_create(const char *dir)
{
	char path[PATH_MAX + 32];
	struct stat st;

	if (ledger_fd >= 0)	/* an earlier run's (-r) */
		close(ledger_fd);
	snprintf(path, sizeof(path), "%s/" LEDGER_FILE, dir);
	ledger_fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	/* An earlier job's, of ours, in a directory with no report: its pids are others' now. */
	if (ledger_fd < 0 && errno == EEXIST && lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_uid == geteuid() && st.st_nlink == 1 && unlink(path) == 0)
		ledger_fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (ledger_fd < 0)
		return;
	/* As much room as the disk has, down to one page: lines past it may be lost, no more */
	for (off_t room = LEDGER_RESERVE; room >= 4096; room /= 4)
		if (fallocate(ledger_fd, FALLOC_FL_KEEP_SIZE, 0, room) == 0 || errno != ENOSPC)
			break;
}

/*
 * The spool (spool.h), made in @dir beside the ledger before the job, kept
 * open, split after it by that descriptor alone. Without it (a directory
 * that takes no new file) each process writes its own file.
 */
static int spool_fd = -1;

/* What the spool's splitting could not do, said once: nothing when all went well. */
static void spool_say(const struct spool_split_result *r, const char *dir, bool earlier)
{
	if (earlier && r->files)
		fprintf(stderr, "pfshim run: %s held the spool of an earlier run that was killed: "
			"its %llu reports are written as files there\n", dir,
			(unsigned long long)r->files);
	if (r->unwaited)
		fprintf(stderr, "pfshim run: a process held the reports' spool in %s for %d ms; "
			"a report it writes now is not read\n", dir, SPOOL_WAIT_MS);
	if (r->torn)
		fprintf(stderr, "pfshim run: %llu report%s cut short in the spool and dropped "
			"(a process killed while writing it, or one past its file size limit, "
			"which then wrote a file of its own)\n", (unsigned long long)r->torn,
			r->torn == 1 ? " was" : "s were");
	if (r->kept)
		fprintf(stderr, "pfshim run: %llu report%s kept in the spool %s/" SPOOL_PREFIX
			"*, which pfshim report reads: %s refused %s (%s)\n",
			(unsigned long long)r->kept, r->kept == 1 ? " is" : "s are", dir, dir,
			r->kept == 1 ? "its file" : "their files", strerrorname_np(r->err) ?: "error");
	if (r->lost && (earlier || ledger_fd < 0))	/* else the summary names each (ledger) */
		fprintf(stderr, "pfshim run: cannot write %llu report%s into %s (%s): lost\n",
			(unsigned long long)r->lost, r->lost == 1 ? "" : "s", dir,
			strerrorname_np(r->err) ?: "error");
}

static void spool_create(const char *dir)
{
	struct spool_split_result left = { 0 };
	int dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (spool_fd >= 0)	/* an earlier run's (-r) */
		close(spool_fd);
	spool_fd = dirfd >= 0 ? run_spool_create(dirfd, &left) : -1;
	spool_say(&left, dir, true);
	if (dirfd >= 0)
		close(dirfd);
}

/* A spooled report whose file could not be made: the ledger names it, as a process would. */
static void spool_lost(void *ctx, int pid, int err)
{
	(void)ctx;
	if (ledger_fd >= 0 && lseek(ledger_fd, 0, SEEK_END) >= 0)
		dprintf(ledger_fd, "%d %d\n", pid, err);
}

/* The job's reports from the spool into their files, before anything reads the directory. */
static void spool_split(const char *dir)
{
	struct spool_split_result r = { 0 };
	int dirfd;

	if (spool_fd < 0)
		return;
	dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0) {
		close(spool_fd);
	} else {
		run_spool_split(dirfd, spool_fd, &r, spool_lost, NULL);
		close(dirfd);
	}
	spool_fd = -1;
	spool_say(&r, dir, false);
}

/* Each process's last line of the ledger this run made, into @jc; the ledger stays for pfshim report. */
static void ledger_take(struct jobcount *jc)
{
	int fd = ledger_fd;
	FILE *f;

	ledger_fd = -1;
	if (fd < 0)
		return;
	f = lseek(fd, 0, SEEK_SET) == 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		close(fd);
		return;
	}
	jobcount_ledger_read(jc, f);
	fclose(f);
}

/* The kernel's count of the job, beside its reports in @dir (pfshim.job, docs/output.md). */
static void job_count_write(struct jobcount *jc, char **argv, int status, const char *dir)
{
	struct calibration cal;
	char path[PATH_MAX + 32], *command = command_line(argv);
	json_t *calibration;
	bool kept = false;
	int fd, err;
	FILE *f;

	if (job_count_memfd >= 0)	/* an earlier run's (-r) */
		close(job_count_memfd);
	job_count_memfd = -1;
	ledger_take(jc);
	snprintf(path, sizeof(path), "%s/" JOBCOUNT_FILE, dir);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	err = f ? 0 : errno;
	/*
	 * After the job, so that it starts no later; the preload is the job's
	 * own (LD_PRELOAD). Told to stop, before or during it, only a kept
	 * calibration: seconds of runs are not what TERM asked for.
	 */
	run_answers_hand();	/* its processes take what the job's took */
	calibrate(&cal, jc, getenv("LD_PRELOAD"), &job_stopped);
	run_answers_withdraw();
	calibration = calibrate_json(&cal, jc);
	if (f) {
		err = jobcount_write(jc, command ? command : argv[0], status, json_incref(calibration),
				     f) < 0 ? (errno ? errno : EIO) : 0;
		if (fclose(f) != 0 && !err)
			err = errno ? errno : EIO;
	} else if (fd >= 0) {
		close(fd);
	}
	if (!err) {
		json_decref(calibration);
		free(command);
		return;
	}
	if (fd >= 0)	/* ours, half written; never a file that was there (EEXIST) */
		unlink(path);
	/* Kept in memory: the summary still has the kernel's totals and every process. */
	job_count_memfd = memfd_create("pfshim-job.jsonl", MFD_CLOEXEC);
	f = job_count_memfd >= 0 ? fdopen(dup(job_count_memfd), "w") : NULL;
	if (f) {
		kept = jobcount_write(jc, command ? command : argv[0], status, calibration, f) == 0;
		kept = fclose(f) == 0 && kept;
	} else {
		json_decref(calibration);
	}
	if (kept) {
		fprintf(stderr, "pfshim run: cannot write %s (%s): `pfshim report` on the directory "
			"will have the reports' sums only\n", path, strerrorname_np(err) ?: "error");
	} else {
		fprintf(stderr, "pfshim run: %s: %s; the totals are the reports' sums only\n", path,
			strerror(err));
		if (job_count_memfd >= 0)
			close(job_count_memfd);
		job_count_memfd = -1;
	}
	free(command);
}

/*
 * Run the command under the shim, counted as a whole by the kernel
 * (jobcount.h): the child waits on a pipe until its events are open on its
 * pid, so that they start at its exec. Return: its wait status, -1 when it
 * could not be started (said).
 */
static int job_run(char **argv, const char *dir, uint64_t interval_ns)
{
	struct sigaction ignore = { .sa_handler = SIG_IGN }, forward = { .sa_handler = job_forward };
	struct sigaction old_int, old_quit, old_term, old_hup;
	struct config config;
	struct jobcount jc;
	int go[2], failed[2], status, err;
	ssize_t n;
	pid_t pid;

	job_exec_failed = false;
	/* go: the child may exec; failed: its exec's errno, or EOF at the exec (close-on-exec) */
	if (pipe2(go, O_CLOEXEC) < 0) {
		fprintf(stderr, "pfshim run: pipe: %s\n", strerror(errno));
		return -1;
	}
	if (pipe2(failed, O_CLOEXEC) < 0) {
		fprintf(stderr, "pfshim run: pipe: %s\n", strerror(errno));
		close(go[0]);
		close(go[1]);
		return -1;
	}
	/* As time(1) does: ^C and ^\ are the command's to handle; we wait for it. */
	sigemptyset(&ignore.sa_mask);
	sigaction(SIGINT, &ignore, &old_int);
	sigaction(SIGQUIT, &ignore, &old_quit);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		char go_on;

		run_probe_release();
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		sigaction(SIGPIPE, &caller_pipe, NULL);
		close(go[1]);
		close(failed[0]);
		while (read(go[0], &go_on, 1) < 0 && errno == EINTR)
			;
		/* Counting from the exec itself: docs/pfshim.md "Counting from the exec". */
		if (run_handover_target_ok(argv[0]))
			run_handover_open();
		execvp(argv[0], argv);
		err = errno;
		run_handover_close();
		fprintf(stderr, "pfshim run: %s: %s\n", argv[0], strerror(err));
		/* Unsaid (a failed write), the parent takes the 127 for the command's own. */
		n = write(failed[1], &err, sizeof(err));
		(void)n;
		_exit(127);
	}
	close(go[0]);
	close(failed[1]);
	if (pid < 0) {
		run_probe_release();
		fprintf(stderr, "pfshim run: fork: %s\n", strerror(errno));
		close(go[1]);
		close(failed[0]);
		return -1;
	}
	job_pid = pid;
	sigemptyset(&forward.sa_mask);
	sigaction(SIGTERM, &forward, &old_term);
	sigaction(SIGHUP, &forward, &old_hup);
	jobcount_open(&jc, pid, run_events(&config));
	run_probe_release();	/* the job count's events hold the static keys now */
	close(go[1]);
	status = job_wait(pid, &jc, interval_ns);
	job_pid = 0;	/* reaped: a TERM from now on must not reach whatever takes its number */
	/* The child is gone: its exec's errno, or EOF if it exec'd. */
	do
		n = read(failed[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	job_exec_failed = n == (ssize_t)sizeof(err);
	close(failed[0]);
	jobcount_finish(&jc);
	spool_split(dir);
	/* A command that never ran has nothing to count, and no calibration to wait for. */
	if (status != -1 && !job_exec_failed)
		job_count_write(&jc, argv, status, dir);
	jobcount_close(&jc);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	if (status == -1)
		fprintf(stderr, "pfshim run: waitpid: %s\n", strerror(errno));
	return status;
}

/*
 * -e's problems, said by the shim's own parser, once, before anything runs;
 * without the parser's last clause ("; the event is skipped", "; its events
 * are skipped", ...): the shim goes on without the event, pfshim run stops.
 */
static void events_complain(void *ctx, const char *message)
{
	static const char skipped[] = " skipped";
	const char *last = strrchr(message, ';');
	size_t n = strlen(message);

	if (last && n > sizeof(skipped) - 1 && !strcmp(message + n - (sizeof(skipped) - 1), skipped))
		n = (size_t)(last - message);
	(*(int *)ctx)++;
	/* "too many events: the first 64 are kept and 6 more are skipped (the limit is 64)" */
	if (!strncmp(message, "too many events", 15))
		fprintf(stderr, "pfshim run: -e: too many events (the limit is %d)\n", EVENTS_MAX);
	else
		fprintf(stderr, "pfshim run: -e: %.*s\n", (int)n, message);
}

static int events_check(const char *text)
{
	static struct event_list list;	/* large: not on the stack */
	int problems = 0;

	const char *sysfs = getenv("PFSHIM_SYSFS_ROOT"), *tracefs = getenv("PFSHIM_TRACEFS_ROOT");

	/* The roots the shim will read, as config_read() takes them (tests point them at fakes). */
	events_parse(text, sysfs && *sysfs ? sysfs : CONFIG_SYSFS_DEFAULT,
		     tracefs && *tracefs ? tracefs : NULL, &list, events_complain, &problems);
	return problems ? -1 : 0;
}

/*
 * -M: the group read as the shim will read it (preload/metrics/group.h),
 * and its events parsed with @events': a group this CPU has no directory
 * for, a file that is not a group, or events the parser refuses stop the
 * run here, once, rather than in every process of the job.
 */
/* @names less TopdownL1, in place: what the job's processes are given when it cannot be had. */
static void without_topdown(char *names)
{
	char *out = names;

	for (const char *p = names; *p;) {
		size_t len = strcspn(p, ",");

		if (len && !(len == 9 && !strncmp(p, "TopdownL1", 9))) {
			if (out != names)
				*out++ = ',';
			memmove(out, p, len);
			out += len;
		}
		p += len + (p[len] == ',');
	}
	*out = '\0';
}

static int group_check(char *group, const char *events)
{
	static struct metric_group mg;	/* large: not on the stack */
	char why[512], note[768] = "";
	const char *counted = events ? events : EVENTS_DEFAULT;
	const char *sysfs = getenv("PFSHIM_SYSFS_ROOT");	/* the shim's, as it will read it */
	const struct metric_request q = { group, NULL, METRIC_GROUP_ROOT, "/proc/cpuinfo",
					  sysfs && *sysfs ? sysfs : PMU_SYSFS_ROOT, counted,
					  "/sys/devices/system/cpu" };
	int ret;

	if ((metric_named_all(group) ?
	     metric_group_open_named(&q, &mg, why, sizeof(why), note, sizeof(note)) :
	     metric_group_open(group, METRIC_GROUP_ROOT, "/proc/cpuinfo", counted, &mg, why,
			       sizeof(why))) < 0) {
		fprintf(stderr, "pfshim run: -M %s: %s%s%s\n", group, note, *note ? "; " : "", why);
		return -1;
	}
	if (*note) {	/* TopdownL1 where LIKWID has no TMA group: the others go on, said once */
		fprintf(stderr, "pfshim run: -M %s: %s\n", group, note);
		without_topdown(group);
	}
	ret = *mg.events_text ? events_check(mg.events_text) : 0;
	metric_group_free(&mg);
	return ret;
}

/* PFSHIM_* names no part of pfshim reads: said once here, rather than by every process of the job. */
static int names_unknown;

static void names_complain(void *name, const char *message)
{
	static const char ignored[] = "; ignored";	/* by the shim; here the job does not start */
	size_t n = strlen(message);

	if (n > sizeof(ignored) - 1 && !strcmp(message + n - (sizeof(ignored) - 1), ignored))
		n -= sizeof(ignored) - 1;
	names_unknown++;
	fprintf(stderr, "pfshim run: %s: %.*s\n", (const char *)name, (int)n, message);
}

static int names_check(void)
{
	config_names_check(environ, names_complain);
	return names_unknown ? -1 : 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/*
 * The temporary directory made for the job, and all the job wrote in it. It
 * is ours (mkdtemp, 0700): nobody else could have put anything there; links
 * are removed, never followed.
 */
static int dir_remove(const char *dir)
{
	return nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * The job in @dir read into @s: its reports and its count, from memory when
 * the directory could not take it (job_count_write()).
 */
static void summary_add_job(struct summary *s, const char *dir)
{
	char memfd[64];

	summary_add_path(s, dir);
	if (job_count_memfd < 0)
		return;
	snprintf(memfd, sizeof(memfd), "/proc/self/fd/%d", job_count_memfd);
	summary_add_path(s, memfd);
}

/*
 * The command's end as the runner's own: a command killed by a signal
 * kills the runner by the same one, as perf stat does, so that a calling
 * shell sees the signal (a loop of pfshim runs stops at ^C as a loop of
 * the commands would), never leaving a core of the runner's.
 */
static int end_as_command(int status)
{
	struct rlimit no_core = { 0, 0 };
	sigset_t set;
	int sig;

	if (!WIFSIGNALED(status))
		return WEXITSTATUS(status);
	sig = WTERMSIG(status);
	fflush(NULL);
	setrlimit(RLIMIT_CORE, &no_core);
	signal(sig, SIG_DFL);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	raise(sig);
	return 128 + sig;	/* a signal that does not end a process by default */
}

/*
 * A process of the job may have outlived the command (no exit record, or the
 * kernel lost records or could not name the processes), and would write its
 * report into the job's temporary directory when it ends: the directory is
 * kept (and named), not removed under it.
 */
static bool dir_outlived;

/*
 * One run of the job into @dir, then its summary (@shown: where it says the
 * reports are, or NULL; a temporary directory a process outlived the
 * command in is named). Return: its wait status, -1 when it could not start.
 */
static int run_once(char **argv, const char *dir, uint64_t interval_ns, bool refused, const char *shown)
{
	char kept[PATH_MAX + 2];
	int status;
	struct summary s;

	if (!refused) {
		ledger_create(dir);
		spool_create(dir);
	}
	status = job_run(argv, dir, interval_ns);
	if (status < 0 || job_exec_failed)
		return status;
	if (refused) {
		fputs("pfshim run: no counters: " COUNTERS_REFUSED_WHY "; the command ran as without "
		      "pfshim. " COUNTERS_REFUSED_FIX "\n", stderr);
		return status;
	}
	/* The job's own directory: a process that dropped privileges left its report as that user. */
	summary_init(&s, &(struct summary_options){ .any_owner = true, .metrics = true });
	summary_add_job(&s, dir);
	summary_finish(&s);
	if (!shown && s.job && s.job->running_maybe) {
		snprintf(kept, sizeof(kept), "%s/", dir);
		shown = kept;
		dir_outlived = true;
	}
	summary_print_run(&s, command_title(argv), shown);
	summary_free(&s);
	return status;
}

/* An event's total in one run: the kernel's count of the job, else the reports' sum. */
static bool run_total(const struct summary *s, const char *name, double *v)
{
	for (int i = 0; i < s->nr_events; i++) {
		const struct summary_sum *sum = s->job ? &s->job->total_sums[i] : &s->totals[i];

		if (strcmp(s->events[i].name, name) == 0 && sum->counted) {
			*v = (double)sum->value;
			return true;
		}
	}
	return false;
}

/* -r: each event's mean over the runs and its noise, as perf stat -r prints them, in one write. */
static void runs_print(const struct summary *runs, int n, char *title, const char *dir, bool kept)
{
	const struct summary *first = &runs[0];
	double *x = xrealloc(NULL, (size_t)n * sizeof(*x));
	char *text = NULL, v[48];
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem)
		mem = stderr;
	fprintf(mem, "\n pfshim: Performance counter stats for '%s' (%d runs):\n\n", title, n);
	for (int i = 0; i < first->nr_events; i++) {
		const struct summary_event *e = &first->events[i];
		struct spread sp;
		int counted = 0;

		for (int k = 0; k < n; k++)
			counted += run_total(&runs[k], e->name, &x[counted]);
		spread_of(x, counted, &sp);
		if (!counted)
			snprintf(v, sizeof(v), "<not counted>");
		else
			summary_mean_format(e, sp.mean, v, sizeof(v));
		fprintf(mem, " %18s %-5s %-24s", v, e->unit, e->name);
		if (counted)
			fprintf(mem, " ( +- %5.2f%% )", spread_percent(&sp));
		if (counted && counted < n)
			fprintf(mem, " (counted in %d of %d runs)", counted, n);
		fputc('\n', mem);
	}
	if (kept)
		fprintf(mem, "\n pfshim: the reports are in %s/run-1 ... run-%d (pfshim report, pfshim diff)%s\n",
			dir, n, dir_outlived ? "; processes still running when a run ended report there"
					       " when they end" : "");
	if (mem != stderr && fclose(mem) == 0)
		fwrite(text, 1, len, stderr);
	free(text);
	free(x);
	free(title);
}

/*
 * -r N: the job N times, each into @dir/run-K, then the totals' means and
 * noise. Return: the last run's wait status, -1 when one could not start.
 */
static int runs_repeat(char **argv, const char *dir, int n, bool refused, bool kept)
{
	struct summary *runs = xrealloc(NULL, (size_t)n * sizeof(*runs));
	char sub[PATH_MAX + 32];
	int status = 0, done = 0;

	for (int k = 1; k <= n; k++) {
		snprintf(sub, sizeof(sub), "%s/run-%d", dir, k);
		if (mkdir(sub, 0700) < 0) {
			fprintf(stderr, "pfshim run: %s: %s\n", sub, strerror(errno));
			status = -1;
			break;
		}
		/* each run's reports beside its own job count: what pfshim report and diff read */
		setenv("PFSHIM_OUTPUT", strcat(sub, "/"), 1);
		sub[strlen(sub) - 1] = '\0';
		if (!refused) {
			ledger_create(sub);
			spool_create(sub);
		}
		status = job_run(argv, sub, 0);
		if (status < 0 || job_exec_failed)
			break;
		if (job_stopped)	/* this run is summarized; no more */
			n = k;
		if (refused)
			continue;
		summary_init(&runs[done], &(struct summary_options){ .any_owner = true });
		summary_add_job(&runs[done], sub);
		summary_finish(&runs[done]);
		if (runs[done].job && runs[done].job->running_maybe)
			dir_outlived = true;
		done++;
	}
	if (refused && status >= 0)
		fputs("pfshim run: no counters: " COUNTERS_REFUSED_WHY "; the command ran as without "
		      "pfshim. " COUNTERS_REFUSED_FIX "\n", stderr);
	else if (status >= 0 && done)
		runs_print(runs, done, command_title(argv), dir, kept || dir_outlived);
	for (int k = 0; k < done; k++)
		summary_free(&runs[k]);
	free(runs);
	return status;
}
/*
 * PFSHIM_RUN_MACHINE, "BOOT_ID HOST": this machine's boot and host name, so
 * that an image of the job on this host under this name takes its boot_id
 * from here instead of reading it (preload/process.c, boot_id_take()).
 * Unset where either is unknown: each image then reads its own.
 */
static void machine_say(void)
{
	char boot_id[40], value[40 + sizeof(((struct utsname *)0)->nodename)];
	struct utsname uts;

	if (sysfile_read(REPORT_BOOT_ID_PATH, boot_id, sizeof(boot_id)) <= 0 || uname(&uts) < 0) {
		unsetenv("PFSHIM_RUN_MACHINE");
		return;
	}
	snprintf(value, sizeof(value), "%s %s", boot_id, uts.nodename);
	setenv("PFSHIM_RUN_MACHINE", value, 1);
}


int cmd_run(int argc, char **argv)
{
	static const struct option options[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "metrics", required_argument, NULL, 'M' },
		{ "output", required_argument, NULL, 'o' },
		{ "interval", required_argument, NULL, 'I' },
		{ "keep", no_argument, NULL, 'k' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *interval = NULL;
	uint64_t interval_ns = 0;
	bool keep = false;
	long repeat = 1;
	char *end;
	char lib[PATH_MAX], dir[PATH_MAX], *preload, output[PATH_MAX + 1];
	const char *events = NULL, *out = NULL, *old;
	char *group = NULL;	/* -M: TopdownL1 taken out of it where it cannot be had */
	bool refused;
	int c, status;

	while ((c = getopt_long(argc, argv, "+e:M:o:I:kr:h", options, NULL)) != -1) {
		switch (c) {
		case 'e': events = optarg; break;
		case 'M': group = optarg; break;
		case 'o': out = optarg; break;
		case 'I': interval = optarg; break;
		case 'k': keep = true; break;
		case 'r':
			repeat = strtol(optarg, &end, 10);
			if (*optarg && !*end && repeat >= 1 && repeat <= 10000)
				break;
			fprintf(stderr, "pfshim run: -r %s: not a number of runs from 1 to 10000\n", optarg);
			return 2;
		case 'h': fputs(usage_run, stdout); return 0;
		default: fputs(usage_run, stderr); return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "pfshim run: no command to run\n\n%s", usage_run);
		return 2;
	}
	if (interval && config_interval_parse(interval) < 0) {
		fprintf(stderr, "pfshim run: -I %s: %s\n", interval,
			config_interval_parse(interval) == -ERANGE ?
				"out of range (10ms to 1 day)" :
				"not a duration (500ms, 2s, 1m; a plain number is milliseconds)");
		return 2;
	}
	if (interval && repeat > 1) {
		fprintf(stderr, "pfshim run: -I and -r: give one (an interval series of one run)\n");
		return 2;
	}
	if (interval)
		interval_ns = (uint64_t)config_interval_parse(interval);
	if ((events && events_check(events) < 0) || (group && group_check(group, events) < 0) ||
	    names_check() < 0)
		return 2;
	if (library_find(lib, sizeof(lib)) < 0) {
		fprintf(stderr, "pfshim run: libpfshim.so.1 is neither beside this program, nor in %s%s "
			"from it, nor in %s\n", PFSHIM_LIBDIR_REL,
			strcmp(PFSHIM_LIBDIR_REL, "../lib") ? " or ../lib" : "", PFSHIM_LIBDIR);
		return 2;
	}
	if (out) {
		if (strlen(out) + 2 > sizeof(dir) || dir_judged("-o", out, true, true) < 0)
			return 2;
		if (!realpath(out, dir)) {
			fprintf(stderr, "pfshim run: -o %s: %s\n", out, strerror(errno));
			return 2;
		}
		if (output_claim(out, dir) < 0)
			return 2;
	} else {
		const char *tmp = getenv("TMPDIR");

		tmp = tmp && *tmp == '/' ? tmp : "/tmp";
		/* Shared (/tmp) is fine here: mkdtemp()'s directory is ours, and others cannot rename it */
		if (dir_judged("TMPDIR", tmp, false, false) < 0)
			return 2;
		snprintf(dir, sizeof(dir), "%s/pfshim-run.XXXXXX", tmp);
		if (!mkdtemp(dir)) {
			fprintf(stderr, "pfshim run: cannot create %s: %s\n", dir, strerror(errno));
			return 2;
		}
		output_claim(NULL, dir);
	}
	old = getenv("LD_PRELOAD");
	/* The libraries already there kept whole, however long the list */
	if (asprintf(&preload, "%s%s%s", lib, old && *old ? " " : "", old ? old : "") < 0) {
		fputs("pfshim run: out of memory\n", stderr);
		return 2;
	}
	snprintf(output, sizeof(output), "%s/", dir);
	setenv("LD_PRELOAD", preload, 1);
	free(preload);
	setenv("PFSHIM_OUTPUT", output, 1);
	setenv("PFSHIM_FORMAT", "json", 1);
	setenv("PFSHIM_RUN", "1", 1);	/* a report this job's processes lose is ours to name */
	machine_say();
	if (events)
		setenv("PFSHIM_EVENTS", events, 1);
	if (group)
		setenv(metric_named_all(group) ? "PFSHIM_METRICS" : "PFSHIM_GROUP", group, 1);
	/*
	 * Refused here, so in the command too: it runs as without the shim, and
	 * no process says so. Asked only where the hand-over would open counters
	 * before the exec anyway: for an image without the shim (setuid, static)
	 * none is opened at all.
	 */
	refused = run_handover_target_ok(argv[optind]) && run_counters_refused();
	if (refused)
		setenv("PFSHIM_DISABLE", "1", 1);

	/* Caught only in this process: every process of the job may take a report now. */
	setenv("PFSHIM_ON_FATAL", "1", 0);
	sigaction(SIGPIPE, &(struct sigaction){ .sa_handler = SIG_IGN }, &caller_pipe);
	if (repeat > 1)
		status = runs_repeat(argv + optind, dir, repeat, refused, out || keep);
	else
		status = run_once(argv + optind, dir, interval_ns, refused, out || keep ? output : NULL);
	if (status < 0)
		return 2;
	if (!out && !keep && !dir_outlived && dir_remove(dir) < 0)
		fprintf(stderr, "pfshim run: cannot remove %s: %s\n", dir, strerror(errno));
	return end_as_command(status);
}

