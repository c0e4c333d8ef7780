/* SPDX-License-Identifier: MIT */
/*
 * job.c: one command's process tree is one job. The root (the process the
 * user started, and the images it execs: same pid) reports on its stderr;
 * every descendant writes its report, JSON, into the job directory and
 * nothing on its streams, where scripts read `$(cc -c t.c 2>&1)` as data.
 *
 * How a process learns its place without a variable the host could see:
 * every process of a job holds the job directory open (jobfd.c), and a new
 * image (fork, vfork, posix_spawn, an exec of a descendant) that finds it
 * among its parent's descriptors is a descendant: no name is looked up in
 * any directory others may write in, and only the root looks in the shared
 * /dev/shm at all. The fallback is the crumbs: a process of a job that
 * starts a child or a new image (job_crumb_ensure(): the calls the shim
 * interposes) first leaves a symbolic link in the private runtime directory
 * (runtime.c: ours, 0700, reached by trusted.c) named p<pid>.<start> (start:
 * /proc/PID/stat field 22, so a reused pid never matches) whose target is the
 * role and the job directory's name ("R/job-..." or "D/job-...": a name in
 * that same directory, never a path). A new image with no parent's descriptor looks
 * for its own crumb (an exec of the root, or of an orphan), then its
 * parent's (a parent that closed every descriptor, or is not dumpable).
 * With none it is a root, unless its parent runs
 * the shim as a job's process would (same user, no PFSHIM_OUTPUT, not
 * disabled): then the job's storage failed it (removed, full, out of
 * inodes) and it is a descendant that drops its report, silent, rather
 * than a root that would speak on streams a script reads.
 * The crumb goes at exit; the root sweeps those of processes that died
 * without removing it (SIGKILL, an exec into a static program, or into an
 * image that found its parent's descriptor and so never looked for it).
 *
 * job_write() and job_finish() are async-signal-safe: system calls and
 * export/buf.h only.
 */
#include "preload/output/job.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "export/buf.h"
#include "preload/fd.h"
#include "preload/output/dir.h"
#include "preload/output/jobdir.h"
#include "preload/output/jobfd.h"
#include "preload/output/runtime.h"
#include "preload/prefault.h"
#include "preload/proc_stat.h"
#include "preload/sandbox.h"
#include "preload/warn.h"

#define CRUMB_ROOT	'R'
#define CRUMB_DESCENDANT 'D'
#define CRUMB_ROOT_MUTE	'M'	/* a root whose images say nothing more (job_root_has_spoken) */
#define JOB_NAME_MAX	64

/*
 * Read by every process (job_role()): with the other statics written at
 * start, apart from the 8 KiB below (prefault.h).
 */
static enum job_role job_role_now PREFAULT_DATA;

/*
 * The short fields first, the two paths last: every process writes the
 * fields and the start of each path, which then share 2 pages, not 3
 * (job_start() clears the fields, everything before base, and no more).
 */
static struct {
	char name[JOB_NAME_MAX];	/* its name in base: job-TIME-PID */
	char crumb[JOB_NAME_MAX];	/* ours, a name in base, removed at exit; "" when none */
	struct jobfd fd;		/* the job directory, held open: our children's way to it */
	int crumb_pid;
	int pid;			/* whose image this memory is (a vfork child's: its parent's) */
	bool muted;			/* a root whose images say nothing more: its crumb says so */
	const char *problem;		/* why the root keeps no job directory */
	const char *squatted;		/* why base is not the usual pfshim-UID */
	bool counted;			/* this image's byte is in the ledger */
	bool over;			/* ... past the cap: it reports nothing */
	uint64_t cap;			/* PFSHIM_JOB_MAX */
	uint64_t expire;		/* PFSHIM_JOB_EXPIRE, seconds */
	uint64_t start_s;		/* this image's start, CLOCK_REALTIME seconds */
	char base[PATH_MAX - 64];	/* the private runtime directory */
	char dir[PATH_MAX];		/* the job directory, with a final '/' */
} job;

/*
 * A descendant that could not report (no crumb to find, no room) leaves a
 * mark that needs no room: the runtime directory's access time set to now
 * with this many nanoseconds, which no clock update gives but by chance.
 * A root that ends after a mark made since it started says reports were
 * lost (any of this user's jobs running then may have lost them).
 */
#define LOST_MARK_NSEC 999999937L

/* Fields 4 (ppid) and 22 (start time, clock ticks since boot) of /proc/PID/stat. */
static int proc_ancestry_read(int pid, int *ppid, uint64_t *start)
{
	struct proc_stat st;
	int err = proc_stat_read(pid, &st);

	*ppid = st.ppid;
	*start = st.start;
	return err;
}

static void crumb_name(int pid, uint64_t start, char *name, size_t size)
{
	struct buf b;

	buf_init(&b, name, size);
	buf_putc(&b, 'p');
	buf_put_u64(&b, (uint64_t)pid);
	buf_putc(&b, '.');
	buf_put_u64(&b, start);
	buf_finish(&b);
}

/* job.dir from job.base and job.name. */
static void job_dir_set(void)
{
	struct buf b;

	buf_init(&b, job.dir, sizeof(job.dir));
	buf_puts(&b, job.base);
	buf_putc(&b, '/');
	buf_puts(&b, job.name);
	buf_putc(&b, '/');
	buf_finish(&b);
}

/*
 * The job directory job.name in @base_fd, made (0700) with @create, held in
 * job.fd when there is room for a descriptor (below a limit of 256 there
 * is none: the children find the job by the crumbs).
 */
static int job_open(int base_fd, bool create)
{
	int fd, err;

	if (create && mkdirat(base_fd, job.name, 0700) < 0 && errno != EEXIST)
		return -errno;
	fd = openat(base_fd, job.name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = jobfd_keep(&job.fd, fd);
	return err == -EMFILE ? 0 : err;
}

/*
 * job.base and job.name from job.dir ("BASE/job-NAME/"), as the parent's
 * descriptor named it. Return: 0, or -ENAMETOOLONG.
 */
static int job_names_from_dir(void)
{
	size_t len = strlen(job.dir), cut;

	job.dir[len - 1] = '\0';
	cut = (size_t)(strrchr(job.dir, '/') - job.dir);
	job.dir[len - 1] = '/';
	if (cut >= sizeof(job.base) || len - cut - 2 >= sizeof(job.name))
		return -ENAMETOOLONG;
	memcpy(job.base, job.dir, cut);
	job.base[cut] = '\0';
	memcpy(job.name, job.dir + cut + 1, len - cut - 2);
	job.name[len - cut - 2] = '\0';
	return 0;
}

/*
 * The runtime directory, for our crumb and the mark of a lost report: as
 * the job directory's "..", else by its name.
 */
static int base_open(void)
{
	int fd = jobfd_base(&job.fd);

	return fd >= 0 || !job.base[0] ? fd : runtime_open(job.base);
}

/*
 * A crumb's role and job directory; 0, or -ENOENT when there is none (or
 * what is there is no crumb: a target that is not "R/job-NAME").
 */
static int crumb_read(int base_fd, const char *name, char *role)
{
	char target[JOB_NAME_MAX + 2];
	ssize_t n = readlinkat(base_fd, name, target, sizeof(target) - 1);

	if (n < 6 || !strchr((char[]){ CRUMB_ROOT, CRUMB_DESCENDANT, CRUMB_ROOT_MUTE, 0 }, target[0]) ||
	    target[1] != '/' || strncmp(target + 2, "job-", 4) != 0)
		return -ENOENT;
	target[n] = '\0';
	if (strchr(target + 2, '/') || strcmp(target + 2, "job-.") == 0)
		return -ENOENT;
	*role = target[0];
	memcpy(job.name, target + 2, (size_t)n - 1);
	job_dir_set();
	return 0;
}

/* job.crumb made, or replaced, with @role. Return: 0 or a negative errno (ENOSPC). */
static int crumb_link(int base_fd, char role)
{
	char target[JOB_NAME_MAX + 2];
	size_t n = strlen(job.name);
	int err;

	target[0] = role;
	target[1] = '/';
	memcpy(target + 2, job.name, n + 1);
	if (symlinkat(target, base_fd, job.crumb) == 0)
		return 0;
	if (errno == EEXIST) {
		/* a stale crumb of a pid and tick we now own, or our own of another role */
		unlinkat(base_fd, job.crumb, 0);
		if (symlinkat(target, base_fd, job.crumb) == 0)
			return 0;
	}
	err = -errno;
	job.crumb[0] = '\0';
	return err;
}

/* Our crumb, for our children to find. Return: 0 or a negative errno (ENOSPC). */
static int crumb_write(int base_fd, int pid, uint64_t start, char role)
{
	crumb_name(pid, start, job.crumb, sizeof(job.crumb));
	job.crumb_pid = pid;
	return crumb_link(base_fd, role);
}

/*
 * Stream /proc/PID/FILE through @text (whose first @have bytes are kept
 * before it) and find @needle; *@after: the bytes that follow it in the
 * buffer, at least @follow of them unless the file ends first. Return: the
 * match (in @text), or NULL.
 */
static const char *proc_find(int pid, const char *file, const char *needle, size_t len,
			     size_t follow, char *text, size_t size, size_t have, size_t *after)
{
	const char *hit = NULL;
	char path[64];
	struct buf b;
	int fd;

	buf_init(&b, path, sizeof(path));
	buf_puts(&b, "/proc/");
	buf_put_u64(&b, (uint64_t)pid);
	buf_putc(&b, '/');
	buf_puts(&b, file);
	buf_finish(&b);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t n = read(fd, text + have, size - have);
		bool end = n <= 0;

		have += n > 0 ? (size_t)n : 0;
		hit = memmem(text, have, needle, len);
		if (hit && (end || (size_t)(text + have - hit) >= len + follow))
			break;
		if (end) {
			hit = NULL;
			break;
		}
		/* keep what may be the start of a match, or the match itself */
		size_t keep = hit ? (size_t)(text + have - hit) : have < len ? have : len;

		memmove(text, text + have - keep, keep);
		have = keep;
	}
	close(fd);
	if (hit)
		*after = (size_t)(text + have - hit) - len;
	return hit;
}

/* The parent's environment sets @var ("\0NAME="): to anything, or with @real, to neither "" nor "0". */
static bool parent_env_sets(int ppid, const char *var, size_t len, bool real)
{
	char text[4096];
	size_t after;
	const char *hit;

	text[0] = '\0';		/* the first variable has no NUL before it */
	hit = proc_find(ppid, "environ", var, len, 2, text, sizeof(text), 1, &after);
	if (!hit || !real)
		return hit != NULL;
	hit += len;
	return after > 0 && hit[0] != '\0' && !(hit[0] == '0' && (after < 2 || hit[1] == '\0'));
}

/* The parent's real and effective uids (/proc/PID/status); false when unreadable. */
static bool parent_uids(int ppid, uint64_t *ruid, uint64_t *euid)
{
	static const char mark[] = "\nUid:\t";
	char text[2048];
	size_t after;
	const char *p = proc_find(ppid, "status", mark, sizeof(mark) - 1, 32, text, sizeof(text),
				  0, &after);

	if (!p)
		return false;
	*ruid = *euid = 0;
	for (p += sizeof(mark) - 1; *p >= '0' && *p <= '9'; p++)
		*ruid = *ruid * 10 + (uint64_t)(*p - '0');
	for (p += *p == '\t'; *p >= '0' && *p <= '9'; p++)
		*euid = *euid * 10 + (uint64_t)(*p - '0');
	return true;
}

/*
 * No crumb of ours or of the parent: is the parent a process of a job all
 * the same, whose storage failed it (the runtime directory removed, full,
 * out of inodes)? It is when it runs the shim as a job's process does: the
 * same effective user (a job's crumbs are in that user's runtime
 * directory), not in secure execution (real and effective uids alike), not
 * set apart by PFSHIM_OUTPUT or PFSHIM_DISABLE. Then this process is a
 * descendant that cannot report, not a root that would speak.
 */
static bool parent_in_job(int ppid)
{
	static const char mark[] = "libpfshim";
	static const char output[] = "\0PFSHIM_OUTPUT=", disable[] = "\0PFSHIM_DISABLE=";
	char text[4096];
	uint64_t ruid, euid;
	size_t after;

	if (!proc_find(ppid, "maps", mark, sizeof(mark) - 1, 0, text, sizeof(text), 0, &after))
		return false;
	if (!parent_uids(ppid, &ruid, &euid) || euid != geteuid() || ruid != euid)
		return false;
	return !parent_env_sets(ppid, output, sizeof(output) - 1, false) &&
	       !parent_env_sets(ppid, disable, sizeof(disable) - 1, true);
}

static void job_name_set(int pid, uint64_t start_ns)
{
	struct buf b;

	buf_init(&b, job.name, sizeof(job.name));
	buf_puts(&b, "job-");
	output_put_time(&b, start_ns);
	buf_putc(&b, '-');
	buf_put_u64(&b, (uint64_t)pid);
	buf_finish(&b);
	job_dir_set();
}

static void role_set(enum job_role role)
{
	job_role_now = role;
	if (role == JOB_DESCENDANT || role == JOB_DROPPED)
		warn_mute();
}

/* A count or a duration ("12h", "7d", "30m", "90s", plain seconds) from the environment. */
static uint64_t env_number(config_getenv_fn get_env, const char *name, uint64_t fallback,
			   bool duration)
{
	const char *value = get_env(name), *p;
	uint64_t n = 0;

	if (!value || !*value)
		return fallback;
	for (p = value; *p >= '0' && *p <= '9' && n < UINT64_MAX / 100; p++)
		n = n * 10 + (uint64_t)(*p - '0');
	if (p == value)
		return fallback;
	if (duration && *p)
		n *= *p == 'd' ? 86400 : *p == 'h' ? 3600 : *p == 'm' ? 60 : 1;
	return *p && (!duration || p[1] || !strchr("dhms", *p)) ? fallback : n;
}

void job_start(config_getenv_fn get_env, uint64_t start_ns)
{
	const char *value = get_env("PFSHIM_DISABLE");
	int pid = getpid(), ppid, base_fd;
	uint64_t start, parent_start;
	char name[JOB_NAME_MAX], role;

	/*
	 * Without a job (secure execution, PFSHIM_OUTPUT, PFSHIM_DISABLE) the
	 * role is all that is read: every reader asks it first. The job's
	 * fields are cleared only for a job, and its two paths (8 KiB) by their
	 * first byte: a memset() of them all cost each process 4 page faults,
	 * then a descendant 3 where the paths' starts it writes take 2
	 * (docs/performance.md, "CPU per child process").
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
	/* Its fields and the paths' starts, in one system call rather than 2 faults (prefault.h). */
	prefault_populate(&job, offsetof(__typeof__(job), dir) + 256);
	memset(&job, 0, offsetof(__typeof__(job), base));
	job.base[0] = job.dir[0] = '\0';
	job.fd.fd = -1;
	job.start_s = start_ns / 1000000000u;
	job.cap = env_number(get_env, "PFSHIM_JOB_MAX", JOBDIR_MAX_DEFAULT, false);
	job.expire = env_number(get_env, "PFSHIM_JOB_EXPIRE", JOBDIR_EXPIRE_DEFAULT, true);
	job.pid = pid;
	/*
	 * A parent that holds its job's directory: this is a new descendant
	 * (fork, vfork, posix_spawn, or an exec of one), and no name is looked
	 * up in any directory to know it. Its crumb waits until something could
	 * need it (job_crumb_ensure()).
	 */
	if (jobfd_from_parent(&job.fd, getppid(), job.dir, sizeof(job.dir)) == 0) {
		if (job_names_from_dir() == 0) {
			role_set(JOB_DESCENDANT);
			return;
		}
		jobfd_close(&job.fd);
	}
	if (proc_ancestry_read(0, &ppid, &start) < 0) {
		job_role_now = JOB_ROOT;
		job.problem = "/proc is not readable";
		return;
	}
	/*
	 * Else by the crumbs, in the runtime directory found by name: a root's
	 * exec, an orphan's, a parent that closed every descriptor or whose
	 * descriptors we may not read (not dumpable), or no room for them.
	 */
	base_fd = runtime_find(get_env, job.base, sizeof(job.base), &job.problem, &job.squatted);
	if (base_fd < 0) {
		if (!job.problem)
			job.problem = strerrorname_np(-base_fd) ?: "cannot create it";
		role_set(parent_in_job(ppid) ? JOB_DROPPED : JOB_ROOT);
		return;
	}
	crumb_name(pid, start, name, sizeof(name));
	if (crumb_read(base_fd, name, &role) == 0) {		/* an exec: the same place */
		memcpy(job.crumb, name, sizeof(name));
		job.crumb_pid = pid;
		role_set(role == CRUMB_DESCENDANT ? JOB_DESCENDANT : JOB_ROOT);
		if (role == CRUMB_ROOT_MUTE) {
			job.muted = true;
			warn_mute();
		}
		job_open(base_fd, false);
	} else if (proc_ancestry_read(ppid, &(int){ 0 }, &parent_start) == 0 &&
		   (crumb_name(ppid, parent_start, name, sizeof(name)),
		    crumb_read(base_fd, name, &role) == 0)) {
		role_set(JOB_DESCENDANT);
		job_open(base_fd, false);
		crumb_write(base_fd, pid, start, CRUMB_DESCENDANT);
	} else if (parent_in_job(ppid)) {
		job.problem = "the parent's crumb is gone";
		role_set(JOB_DROPPED);
	} else {
		int err;

		role_set(JOB_ROOT);
		job_name_set(pid, start_ns);
		/*
		 * The job directory is made now, to be held open for the children
		 * (a lone program's goes at its exit); the crumb, for the root's own
		 * next images, when it first starts one (job_crumb_ensure()).
		 * Without the directory the children would find no job: they drop
		 * their reports.
		 */
		err = job_open(base_fd, true);
		if (err < 0) {
			job.problem = strerrorname_np(-err) ?: "no directory";
			jobfd_close(&job.fd);	/* a job of dropped reports, as the root will say */
		}
	}
	close(base_fd);
}

void job_restart_in_child(void)
{
	if (job_role_now == JOB_NONE)
		return;
	if (job_role_now == JOB_ROOT)
		role_set(job.problem ? JOB_DROPPED : JOB_DESCENDANT);
	job.pid = getpid();
	job.crumb[0] = '\0';
	job.counted = job.over = false;		/* a new image of the job */
}

void job_crumb_ensure(void)
{
	int saved_errno = errno, ppid, base_fd;
	uint64_t start;

	/* under the program's seccomp filter symlink(2) may kill it */
	if ((job_role_now != JOB_ROOT && job_role_now != JOB_DESCENDANT) || job.crumb[0] ||
	    (job_role_now == JOB_ROOT && (job.problem || !job.name[0])) || sandbox_filtered())
		return;
	/* job.pid's, not getpid()'s: in a vfork child this is the parent's crumb, for its children */
	if (proc_ancestry_read(job.pid, &ppid, &start) == 0 && (base_fd = base_open()) >= 0) {
		crumb_write(base_fd, job.pid, start,
			    job_role_now == JOB_DESCENDANT ? CRUMB_DESCENDANT :
			    job.muted ? CRUMB_ROOT_MUTE : CRUMB_ROOT);
		close(base_fd);
	}
	errno = saved_errno;
}

enum job_role job_role(void)
{
	return job_role_now;
}

/* The mark of a lost report (LOST_MARK_NSEC), on the runtime directory. */
static void lost_mark(void)
{
	struct timespec times[2] = { { 0, 0 }, { 0, UTIME_OMIT } };
	int base_fd;

	if ((base_fd = base_open()) < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &times[0]);
	times[0].tv_nsec = LOST_MARK_NSEC;
	/*
	 * An O_PATH descriptor: utimensat() on "" with AT_EMPTY_PATH (Linux 5.8);
	 * before, by its path, judged just now and never followed if a link.
	 */
	if (utimensat(base_fd, "", times, AT_EMPTY_PATH) < 0 && errno == EINVAL)
		utimensat(AT_FDCWD, job.base, times, AT_SYMLINK_NOFOLLOW);
	close(base_fd);
}

/* A mark made on the runtime directory @base_fd since this root started. */
static bool lost_marked(int base_fd)
{
	struct stat st;

	return base_fd >= 0 && fd_stat(base_fd, &st) == 0 && st.st_atim.tv_nsec == LOST_MARK_NSEC &&
	       (uint64_t)st.st_atim.tv_sec >= job.start_s;
}

void job_root_has_spoken(void)
{
	int base_fd;

	if (job_role_now != JOB_ROOT)
		return;
	job.muted = true;	/* for a crumb made later */
	/* at start-up, in the constructor: no child can be looking for it yet */
	if (!job.crumb[0] || job.crumb_pid != getpid() || (base_fd = base_open()) < 0)
		return;
	crumb_link(base_fd, CRUMB_ROOT_MUTE);
	close(base_fd);
}

/*
 * Under the program's seccomp filter a descendant's report is lost, and no
 * mark is left: the job directory needs open(2) and linkat(2), the mark
 * utimensat(2), which the filter may kill it for, and its streams are the
 * program's data. pfshim run names the process as one whose program left
 * no report.
 */
void job_write(const struct output_names *names, const char *buf, size_t len)
{
	int err;

	if (sandbox_filtered())
		return;
	if (job_role_now == JOB_DROPPED) {
		lost_mark();
		return;
	}
	if (job_role_now != JOB_DESCENDANT)
		return;
	err = jobdir_write(jobfd_get(&job.fd), job.dir, names, !job.counted, job.cap, &job.over, buf,
			   len);
	job.counted = true;
	if (err < 0 && err != -EDQUOT)
		lost_mark();
}

void job_reserve(void)
{
	if (!sandbox_filtered() && job_role_now == JOB_DESCENDANT && !job.over)
		jobdir_reserve(jobfd_get(&job.fd), job.dir);
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
	return proc_ancestry_read((int)pid, &ppid, &now) == -ENOENT || now != start;
}

static void crumbs_sweep(int base_fd)
{
	char entries[4096];
	int fd = openat(base_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
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

static void put_count(char *text, size_t size, uint64_t n)
{
	struct buf b;

	buf_init(&b, text, size);
	buf_put_u64(&b, n);
	buf_finish(&b);
}

/* Why the runtime directory's file system took no more: NULL when it has room. */
static const char *storage_full(int base_fd)
{
	struct statfs fs;

	if (base_fd < 0 || fstatfs(base_fd, &fs) < 0)
		return NULL;
	if (fs.f_bavail == 0)
		return "it is full";
	if (fs.f_files && fs.f_ffree == 0)
		return "it has no inode left";
	return NULL;
}

/* Reports descendants set out to write and could not: past the cap, or lost. */
static void lost_note(const struct jobdir_tally *t, int base_fd)
{
	uint64_t lost = t->counted > t->reports ? t->counted - t->reports : 0;
	uint64_t capped = job.cap && t->counted > job.cap ? t->counted - job.cap : 0;
	char n_lost[24], n_capped[24], n_cap[24];
	const char *full = storage_full(base_fd);

	if (lost == 0) {
		/* images that could not even count themselves (no ledger, no crumb) */
		if (full || lost_marked(base_fd))
			warn_line("reports of descendant processes were lost (", job.base, ": ",
				  full ? full : "it was full or unusable for a while", ")", NULL);
		return;
	}
	if (capped > lost)
		capped = lost;
	put_count(n_lost, sizeof(n_lost), lost - capped);
	put_count(n_capped, sizeof(n_capped), capped);
	put_count(n_cap, sizeof(n_cap), job.cap);
	if (capped)
		warn_line(n_capped, capped == 1 ? " report" : " reports",
			  " of descendant processes not kept: the job holds at most ", n_cap,
			  " (PFSHIM_JOB_MAX)", NULL);
	if (lost > capped)
		warn_line(n_lost, lost - capped == 1 ? " report" : " reports",
			  " of descendant processes lost (", job.base, ": ",
			  full ? full : "could not be written", ")", NULL);
}

/* pfshim-UID.XXXXXX in use: pfshim-UID was taken first (runtime.c). */
static void squatted_note(void)
{
	char usual[sizeof(job.base)];
	size_t n = strlen(job.base);

	memcpy(usual, job.base, n + 1);
	if (strrchr(usual, '.'))
		*strrchr(usual, '.') = '\0';
	warn_line(usual, " is not usable (", job.squatted, "; another user may have made it): "
		  "this user's jobs are in ", job.base, "; set XDG_RUNTIME_DIR to a directory of "
		  "your own", NULL);
}

/* The root's word at exit; false when no descendant wrote a report. */
static bool root_note(int base_fd, bool base_gone)
{
	char count[24], cap[24];
	struct jobdir_tally t;
	const char *full;

	if (job.problem) {
		warn_line("no job directory (", job.base, ": ", job.problem,
			  "): the reports of descendant processes were dropped; "
			  "set PFSHIM_OUTPUT to keep them", NULL);
		return false;
	}
	if (base_gone) {
		warn_line("the runtime directory ", job.base,
			  " was removed or replaced during the job: the reports of descendant "
			  "processes written there are gone, and those written after were dropped",
			  NULL);
		return false;
	}
	if (jobdir_tally(jobfd_get(&job.fd), job.dir, &t) < 0) {
		/* no descendant wrote, or none could: say which when we can */
		full = storage_full(base_fd);
		if (lost_marked(base_fd))
			warn_line("reports of descendant processes were lost (", job.base, ": ",
				  full ? full : "it was full or unusable for a while", ")", NULL);
		return false;
	}
	put_count(count, sizeof(count), t.reports);
	put_count(cap, sizeof(cap), job.cap);
	/* reports, not processes: a fork+exec leaves one per image */
	warn_line(count, t.reports == 1 ? " report of a descendant process in " :
					  " reports of descendant processes in ",
		  job.dir, " (see: pfshim report ", job.dir,
		  job.cap ? "; a job keeps at most " : "; no cap: PFSHIM_JOB_MAX=0",
		  job.cap ? cap : "", ")", NULL);
	lost_note(&t, base_fd);
	if (job.squatted)
		squatted_note();
	return true;
}

void job_finish(enum report_reason reason)
{
	struct timespec now;
	bool base_gone = false;
	int base_fd;

	/*
	 * Under the program's seccomp filter the crumb stays (a later root's
	 * sweep takes it) and the descendants' reports are not counted:
	 * unlink(2), open(2) and getdents64(2) may kill the program.
	 */
	if (job_role_now == JOB_NONE || (reason != REPORT_EXIT && reason != REPORT_SIGNAL) ||
	    sandbox_filtered())
		return;
	/* a pid namespace's init outlives its signal's default action: its exit comes later */
	if (reason == REPORT_SIGNAL && getpid() == 1)
		return;
	/* the root's by name: it tells whether the runtime directory was removed or replaced */
	if (job_role_now != JOB_ROOT && (!job.crumb[0] || job.crumb_pid != getpid()))
		return;		/* a descendant that made no crumb: nothing to remove */
	base_fd = job_role_now == JOB_ROOT ? (job.base[0] ? runtime_open(job.base) : -ENOENT) :
					     base_open();
	if (job.crumb[0] && job.crumb_pid == getpid())
		base_gone = base_fd < 0 || (unlinkat(base_fd, job.crumb, 0) < 0 && errno == ENOENT);
	/* A job with descendants may have left crumbs and old jobs; a lone program has not. */
	if (job_role_now == JOB_ROOT && root_note(base_fd, base_gone) && base_fd >= 0) {
		crumbs_sweep(base_fd);
		clock_gettime(CLOCK_REALTIME, &now);
		jobdir_expire(base_fd, job.expire, (uint64_t)now.tv_sec);
	} else if (job_role_now == JOB_ROOT && base_fd >= 0 && job.name[0]) {
		/* made at start, and nobody wrote in it (not even a ledger byte) */
		unlinkat(base_fd, job.name, AT_REMOVEDIR);
	}
	if (base_fd >= 0)
		close(base_fd);
}
