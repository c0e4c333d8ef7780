/* SPDX-License-Identifier: MIT */
/*
 * job.c: one command's process tree is one job. The root (the process the
 * user started, and the images it execs: same pid) reports on its stderr;
 * every descendant writes its report, JSON, into the job directory and
 * nothing on its streams, where scripts read `$(cc -c t.c 2>&1)` as data.
 *
 * How a process learns its place without a variable the host could see:
 * every process of a job leaves a crumb, a symbolic link in the private
 * runtime directory ($XDG_RUNTIME_DIR/pfshim, else /dev/shm/pfshim-UID: 0700,
 * ours, not a link) named p<pid>.<start> (start: /proc/PID/stat field 22,
 * so a reused pid never matches) whose target is the role and the job
 * directory ("R/path" or "D/path"). A new image looks for its own crumb
 * first (it is an exec of a job's process), then its parent's (a new
 * descendant: fork, vfork, posix_spawn alike); with neither it is a root.
 * The crumb goes at exit; the root sweeps those of processes that died
 * without one (SIGKILL, an exec into a static program).
 *
 * job_write() and job_finish() are async-signal-safe: system calls and
 * export/buf.h only.
 */
#include "preload/output/job.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "export/buf.h"
#include "preload/output/dir.h"
#include "preload/prefault.h"
#include "preload/warn.h"

#define CRUMB_ROOT	'R'
#define CRUMB_DESCENDANT 'D'

/*
 * Read by every process (job_role()): with the other statics written at
 * start, apart from the 12 KiB below (prefault.h).
 */
static enum job_role job_role_now PREFAULT_DATA;

static struct {
	char base[PATH_MAX - 64];	/* the private runtime directory */
	char dir[PATH_MAX];		/* the job directory, with a final '/' */
	char crumb[PATH_MAX];		/* ours, removed at exit; "" when none */
	int crumb_pid;
	const char *problem;		/* why the root keeps no job directory */
} job;

/* Fields 4 (ppid) and 22 (start time, clock ticks since boot) of /proc/PID/stat. */
static int proc_stat_read(int pid, int *ppid, uint64_t *start)
{
	char path[64], text[1024];
	const char *p;
	struct buf b;
	ssize_t n;
	int fd, field;

	buf_init(&b, path, sizeof(path));
	buf_puts(&b, "/proc/");
	if (pid)
		buf_put_u64(&b, (uint64_t)pid);
	else
		buf_puts(&b, "self");
	buf_puts(&b, "/stat");
	buf_finish(&b);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	text[n] = '\0';
	p = strrchr(text, ')');		/* comm may hold spaces and parentheses */
	if (!p)
		return -EIO;
	*ppid = 0;
	*start = 0;
	for (field = 2; *p && field < 22; p++) {
		if (*p == ' ')
			field++;
		else if (field == 4 && *p >= '0' && *p <= '9')
			*ppid = *ppid * 10 + (*p - '0');
		if (field == 22)
			break;
	}
	for (p++; *p >= '0' && *p <= '9'; p++)
		*start = *start * 10 + (uint64_t)(*p - '0');
	return field == 22 ? 0 : -EIO;
}

static void crumb_path(int pid, uint64_t start, char *path, size_t size)
{
	struct buf b;

	buf_init(&b, path, size);
	buf_puts(&b, job.base);
	buf_puts(&b, "/p");
	buf_put_u64(&b, (uint64_t)pid);
	buf_putc(&b, '.');
	buf_put_u64(&b, start);
	buf_finish(&b);
}

/* A crumb's role and job directory; 0, or -ENOENT when there is none. */
static int crumb_read(const char *path, char *role)
{
	char target[PATH_MAX];
	ssize_t n = readlink(path, target, sizeof(target) - 1);

	if (n < 3 || (target[0] != CRUMB_ROOT && target[0] != CRUMB_DESCENDANT) ||
	    target[1] != '/')
		return -ENOENT;
	target[n] = '\0';
	*role = target[0];
	memcpy(job.dir, target + 1, (size_t)n);
	return 0;
}

static void crumb_write(int pid, uint64_t start, char role)
{
	char target[PATH_MAX + 1];
	size_t n = strlen(job.dir);

	target[0] = role;
	memcpy(target + 1, job.dir, n + 1);
	crumb_path(pid, start, job.crumb, sizeof(job.crumb));
	if (symlink(target, job.crumb) < 0 && errno == EEXIST) {
		/* a stale crumb of a pid and tick we now own: replace it */
		unlink(job.crumb);
		symlink(target, job.crumb);
	}
	job.crumb_pid = pid;
}

/*
 * A place for the runtime directory: NULL when it is usable, else why not;
 * *absent when it could not be made (a stale $XDG_RUNTIME_DIR, no /dev/shm,
 * a read-only file system): then the next place is tried. One that exists
 * but is not a directory (a link), not ours, or open to others is refused,
 * never passed over: in a shared /dev/shm or /tmp someone else may have
 * made it first, and the root must say so.
 */
static const char *base_check(bool *absent)
{
	struct stat st;

	*absent = false;
	if (lstat(job.base, &st) < 0) {
		if (errno != ENOENT || mkdir(job.base, 0700) < 0 || lstat(job.base, &st) < 0) {
			*absent = true;
			return strerrorname_np(errno) ?: "cannot create it";
		}
	}
	if (!S_ISDIR(st.st_mode))
		return "it is not a directory";
	if (st.st_uid != geteuid())
		return "it belongs to another user";
	if (st.st_mode & 077)
		return "others may write or read it (mode is not 0700)";
	return NULL;
}

/*
 * The runtime directory, in job.base: $XDG_RUNTIME_DIR/pfshim, else
 * /dev/shm/pfshim-UID, else /tmp/pfshim-UID. A tmpfs first: each process
 * makes and removes a crumb, and a symlink(2) costs ~5x more on ext4
 * (measured, docs/performance.md). Created 0700.
 */
static const char *base_ready(config_getenv_fn get_env)
{
	const char *xdg = get_env("XDG_RUNTIME_DIR");
	const char *const places[] = { xdg && xdg[0] == '/' ? xdg : NULL, "/dev/shm", "/tmp" };
	const char *why = "no place for it";

	for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
		struct buf b;
		bool absent;

		if (!places[i])
			continue;
		buf_init(&b, job.base, sizeof(job.base));
		buf_puts(&b, places[i]);
		if (i == 0) {
			buf_puts(&b, "/pfshim");
		} else {
			buf_puts(&b, "/pfshim-");
			buf_put_u64(&b, (uint64_t)geteuid());
		}
		if (buf_finish(&b) >= sizeof(job.base)) {
			why = "its path is too long";
			continue;
		}
		why = base_check(&absent);
		if (!why || !absent)
			return why;
	}
	return why;
}

/* Only when the runtime directory is unusable: does the parent run pfshim too? */
static bool parent_has_shim(int ppid)
{
	static const char mark[] = "libpfshim";
	char path[64], text[4096 + sizeof(mark)];
	size_t keep = 0;
	struct buf b;
	bool found = false;
	int fd;

	buf_init(&b, path, sizeof(path));
	buf_puts(&b, "/proc/");
	buf_put_u64(&b, (uint64_t)ppid);
	buf_puts(&b, "/maps");
	buf_finish(&b);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	for (;;) {
		ssize_t n = read(fd, text + keep, sizeof(text) - 1 - keep);

		if (n <= 0)
			break;
		text[keep + (size_t)n] = '\0';
		if (strstr(text, mark)) {
			found = true;
			break;
		}
		keep = keep + (size_t)n < sizeof(mark) ? keep + (size_t)n : sizeof(mark) - 1;
		memmove(text, text + strlen(text) - keep, keep);
	}
	close(fd);
	return found;
}

static void job_dir_name(int pid, uint64_t start_ns)
{
	struct buf b;

	buf_init(&b, job.dir, sizeof(job.dir));
	buf_puts(&b, job.base);
	buf_puts(&b, "/job-");
	output_put_time(&b, start_ns);
	buf_putc(&b, '-');
	buf_put_u64(&b, (uint64_t)pid);
	buf_putc(&b, '/');
	buf_finish(&b);
}

static void role_set(enum job_role role)
{
	job_role_now = role;
	if (role == JOB_DESCENDANT || role == JOB_DROPPED)
		warn_mute();
}

void job_start(config_getenv_fn get_env, uint64_t start_ns)
{
	const char *value = get_env("PFSHIM_DISABLE");
	int pid = getpid(), ppid;
	uint64_t start, parent_start;
	char path[PATH_MAX], role;

	/*
	 * Without a job (secure execution, PFSHIM_OUTPUT, PFSHIM_DISABLE) the
	 * role is all that is read: every reader asks it first. The 12 KiB of
	 * the job are cleared only for a job: a memset() of them all cost each
	 * process 4 page faults (docs/performance.md, "Counted from the exec").
	 */
	job_role_now = JOB_NONE;
	/*
	 * Secure execution (setuid...): the environment, XDG_RUNTIME_DIR included,
	 * is the invoking user's, and a root process must make no directory or
	 * link where it points; the shim stays inert then (config.c).
	 */
	if (getauxval(AT_SECURE))
		return;
	if ((value && *value && strcmp(value, "0") != 0) || get_env("PFSHIM_OUTPUT"))
		return;
	memset(&job, 0, sizeof(job));
	if (proc_stat_read(0, &ppid, &start) < 0) {
		job_role_now = JOB_ROOT;
		job.problem = "/proc is not readable";
		return;
	}
	job.problem = base_ready(get_env);
	if (job.problem) {
		role_set(parent_has_shim(ppid) ? JOB_DROPPED : JOB_ROOT);
		return;
	}
	crumb_path(pid, start, path, sizeof(path));
	if (crumb_read(path, &role) == 0) {		/* an exec: the same place */
		memcpy(job.crumb, path, sizeof(path));
		job.crumb_pid = pid;
		role_set(role == CRUMB_ROOT ? JOB_ROOT : JOB_DESCENDANT);
		return;
	}
	if (proc_stat_read(ppid, &(int){ 0 }, &parent_start) == 0) {
		crumb_path(ppid, parent_start, path, sizeof(path));
		if (crumb_read(path, &role) == 0) {
			role_set(JOB_DESCENDANT);
			crumb_write(pid, start, CRUMB_DESCENDANT);
			return;
		}
	}
	role_set(JOB_ROOT);
	job_dir_name(pid, start_ns);
	crumb_write(pid, start, CRUMB_ROOT);
}

void job_restart_in_child(void)
{
	int pid = getpid(), ppid;
	uint64_t start;

	if (job_role_now == JOB_NONE)
		return;
	if (job_role_now == JOB_ROOT)
		role_set(job.problem ? JOB_DROPPED : JOB_DESCENDANT);
	job.crumb[0] = '\0';
	if (job_role_now == JOB_DESCENDANT && proc_stat_read(0, &ppid, &start) == 0)
		crumb_write(pid, start, CRUMB_DESCENDANT);
}

enum job_role job_role(void)
{
	return job_role_now;
}

void job_write(const struct output_names *names, const char *buf, size_t len)
{
	if (job_role_now == JOB_DESCENDANT)
		output_dir_write_mode(job.dir, names, 0700, buf, len);
}

/* The reports in the job directory (names ending in ".json"); -1 without one. */
static int reports_count(void)
{
	char entries[4096];
	int fd = open(job.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), count = 0;
	long n;

	if (fd < 0)
		return -1;
	while ((n = syscall(SYS_getdents64, fd, entries, sizeof(entries))) > 0) {
		for (long at = 0; at < n;) {
			const char *name = entries + at + 19;	/* struct linux_dirent64's d_name */
			size_t len = strlen(name);

			if (name[0] != '.' && len > 5 && strcmp(name + len - 5, ".json") == 0)
				count++;
			at += *(unsigned short *)(entries + at + 16);	/* d_reclen */
		}
	}
	close(fd);
	return count;
}

/* p<pid>.<start> of a process that is gone, or whose pid is someone else's now. */
static bool crumb_stale(const char *name)
{
	uint64_t pid = 0, start = 0, now;
	const char *p = name + 1;
	int ppid;

	if (name[0] != 'p')
		return false;
	for (; *p >= '0' && *p <= '9'; p++)
		pid = pid * 10 + (uint64_t)(*p - '0');
	if (*p++ != '.' || pid == 0 || pid > INT_MAX)
		return false;
	for (; *p >= '0' && *p <= '9'; p++)
		start = start * 10 + (uint64_t)(*p - '0');
	if (*p)
		return false;
	return proc_stat_read((int)pid, &ppid, &now) == -ENOENT || now != start;
}

static void crumbs_sweep(void)
{
	char entries[4096];
	int fd = open(job.base, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n;

	if (fd < 0)
		return;
	while ((n = syscall(SYS_getdents64, fd, entries, sizeof(entries))) > 0) {
		for (long at = 0; at < n;) {
			const char *name = entries + at + 19;

			if (crumb_stale(name))
				unlinkat(fd, name, 0);
			at += *(unsigned short *)(entries + at + 16);
		}
	}
	close(fd);
}

/* The root's word at exit; false when no descendant wrote a report. */
static bool root_note(void)
{
	char count[24];
	struct buf b;
	int n;

	if (job.problem) {
		warn_line("no job directory (", job.base, ": ", job.problem,
			  "): the reports of descendant processes were dropped; "
			  "set PFSHIM_OUTPUT to keep them", NULL);
		return false;
	}
	n = reports_count();
	if (n < 0)
		return false;
	buf_init(&b, count, sizeof(count));
	buf_put_u64(&b, (uint64_t)n);
	buf_finish(&b);
	/* reports, not processes: a fork+exec leaves one per image */
	warn_line(count, n == 1 ? " report of a descendant process in " :
				   " reports of descendant processes in ",
		  job.dir, " (see: pfshim report ", job.dir, ")", NULL);
	return true;
}

void job_finish(enum report_reason reason)
{
	if (job_role_now == JOB_NONE || reason != REPORT_EXIT)
		return;
	if (job.crumb[0] && job.crumb_pid == getpid())
		unlink(job.crumb);
	/* A job with descendants may have left crumbs; a lone program has not. */
	if (job_role_now == JOB_ROOT && root_note())
		crumbs_sweep();
}
