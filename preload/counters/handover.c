/* SPDX-License-Identifier: MIT */
/*
 * handover.c: the counters a previous image opened for this one, written
 * into PFSHIM_ADOPT before the exec and checked, each, before the shim
 * trusts them after it; and whether the next image will adopt them at all.
 * Nothing here allocates: the constructor calls it.
 */
#include "preload/counters/handover.h"

#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "fastread/fastread.h"
#include "preload/exec_search.h"
#include "preload/fd.h"

#define HANDOVER_VERSION 1
#define FLAG_USER_ONLY		1
#define FLAG_KERNEL_EXCLUDED	2

/* Must be totals.c's: a group read in another format would not match. */
#define READ_FORMAT (PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | \
		     PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID)

/* FNV-1a: ties the descriptors to the event text both images parsed. */
static unsigned long long text_hash(const char *text)
{
	unsigned long long h = 0xcbf29ce484222325ull;

	for (; text && *text; text++)
		h = (h ^ (unsigned char)*text) * 0x100000001b3ull;
	return h;
}

int handover_format(const struct counter_set *s, const char *events_text, pid_t pid,
		    char *buf, size_t size)
{
	size_t len;
	int n;

	n = snprintf(buf, size, "%d;%d;%llx;%d;", HANDOVER_VERSION, (int)pid,
		     text_hash(events_text), s->nr);
	for (int i = 0; n >= 0 && (size_t)n < size && i < s->nr; i++) {
		const struct counter *c = &s->c[i];
		int flags = (c->user_only ? FLAG_USER_ONLY : 0) |
			    (c->kernel_excluded ? FLAG_KERNEL_EXCLUDED : 0);

		len = (size_t)n;
		n += snprintf(buf + len, size - len, "%s%d:%llu:%d:%d:%d", i ? "," : "", c->fd,
			      (unsigned long long)c->id, c->leader, flags, c->error);
	}
	return n >= 0 && (size_t)n < size ? n : -1;
}

static int digit(char c, int base)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (base == 16 && c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/*
 * A decimal or hexadecimal field ended by @end; false when it is not one.
 * Not strtoull(): it lies in a page of libc that a program such as
 * /bin/true never reads, which one call would fault in (with fault-around:
 * several), and the count this file hands over is meant to be perf stat's.
 */
static bool field(const char **p, int base, char end, unsigned long long *out)
{
	const char *q = *p;
	unsigned long long v = 0;
	int d;

	if (digit(*q, base) < 0)
		return false;
	for (; (d = digit(*q, base)) >= 0; q++) {
		if (v > (~0ull - (unsigned)d) / (unsigned)base)
			return false;
		v = v * (unsigned)base + (unsigned)d;
	}
	if (*q != end)
		return false;
	*out = v;
	*p = q + (end != '\0');
	return true;
}

static bool signed_field(const char **p, char end, long long *out)
{
	unsigned long long v;
	bool negative = **p == '-';

	if (negative)
		(*p)++;
	if (!field(p, 10, end, &v) || v > 0x7fffffff)
		return false;
	*out = negative ? -(long long)v : (long long)v;
	return true;
}

/* The header's version, pid, event-text hash and count; the counters into @s. */
static bool parse(const char *text, unsigned long long *hash, struct counter_set *s)
{
	unsigned long long version, pid, count, id, flags;
	long long fd, leader, error;
	const char *p = text;

	if (!field(&p, 10, ';', &version) || version != HANDOVER_VERSION ||
	    !field(&p, 10, ';', &pid) || pid != (unsigned long long)getpid() ||
	    !field(&p, 16, ';', hash) || !field(&p, 10, ';', &count) ||
	    count == 0 || count > EVENTS_MAX)
		return false;
	memset(s, 0, sizeof(*s));
	s->nr = (int)count;
	for (int i = 0; i < s->nr; i++) {
		char end = i + 1 < s->nr ? ',' : '\0';

		if (!signed_field(&p, ':', &fd) || !field(&p, 10, ':', &id) ||
		    !signed_field(&p, ':', &leader) || !field(&p, 10, ':', &flags) ||
		    !signed_field(&p, end, &error))
			return false;
		if (fd < -1 || (fd >= 0 && fd <= 2) || leader < 0 || leader >= s->nr ||
		    flags > 3 || error < 0 || error > 4095)
			return false;
		s->c[i] = (struct counter){
			.fd = (int)fd, .id = id, .leader = (int)leader, .error = (int)error,
			.user_only = flags & FLAG_USER_ONLY,
			.kernel_excluded = flags & FLAG_KERNEL_EXCLUDED,
		};
	}
	return *p == '\0';
}

static bool fd_is_perf_event(int fd)
{
	static const char want[] = "anon_inode:[perf_event]";
	char path[32] = "/proc/self/fd/", digits[12], link[sizeof(want) + 1];
	size_t len = strlen(path), k = 0;
	ssize_t n;

	do
		digits[k++] = (char)('0' + fd % 10);
	while ((fd /= 10) > 0);
	while (k > 0)
		path[len++] = digits[--k];
	path[len] = '\0';
	n = readlink(path, link, sizeof(link));
	return n == (ssize_t)sizeof(want) - 1 && memcmp(link, want, (size_t)n) == 0;
}

/* Each descriptor a perf event with its ID, named once, leaders leading themselves. */
static bool counters_check(const struct counter_set *s)
{
	for (int i = 0; i < s->nr; i++) {
		const struct counter *c = &s->c[i];
		uint64_t id;

		if (c->fd < 0) {
			if (c->leader != i || c->error == 0)
				return false;
			continue;
		}
		if (s->c[c->leader].fd < 0 || s->c[c->leader].leader != c->leader)
			return false;
		for (int j = 0; j < i; j++)
			if (s->c[j].fd == c->fd)
				return false;
		if (!fd_is_perf_event(c->fd) || ioctl(c->fd, PERF_EVENT_IOC_ID, &id) < 0 ||
		    id != c->id)
			return false;
	}
	return true;
}

/* One read of the group: in our format, exactly its members' IDs. */
static bool group_check(const struct counter_set *s, int leader)
{
	uint64_t buf[3 + 2 * EVENTS_MAX];
	int members = 0;
	ssize_t len;

	do
		len = read(s->c[leader].fd, buf, sizeof(buf));
	while (len < 0 && errno == EINTR);
	for (int i = 0; i < s->nr; i++)
		members += s->c[i].fd >= 0 && s->c[i].leader == leader;
	if (len != (ssize_t)((3 + 2 * (size_t)members) * sizeof(uint64_t)) ||
	    buf[0] != (uint64_t)members)
		return false;
	for (int k = 0; k < members; k++) {
		bool found = false;

		for (int i = 0; i < s->nr; i++)
			found |= s->c[i].fd >= 0 && s->c[i].leader == leader &&
				 s->c[i].id == buf[4 + 2 * k];
		if (!found)
			return false;
	}
	return true;
}

/*
 * Is the calling thread its process's only one? Then no other thread can
 * fork (or posix_spawn, vfork, clone) a child that copies descriptors
 * opened now, and none can be made but by this one. /proc/self/task holds
 * one entry per thread; read with getdents64(), as opendir() allocates.
 */
static bool thread_alone(void)
{
	struct dirent64_head {
		uint64_t ino;
		int64_t off;
		unsigned short reclen;
		unsigned char type;
		char name[];
	};
	char buf[512] __attribute__((aligned(8)));
	int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC), threads = 0;
	long n = -1;

	if (fd < 0)
		return false;
	while (threads < 2 && (n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long at = 0; at < n; ) {
			const struct dirent64_head *d = (const void *)(buf + at);

			threads += d->name[0] != '.';
			at += d->reclen;
		}
	}
	close(fd);
	return n == 0 && threads == 1;
}

/*
 * A dummy event of ours, counting nothing: a member of @group_fd's group,
 * or alone (-1) to be mapped. An inherited group takes inherited members
 * only, and an inherited event cannot be mapped (EINVAL both, measured on
 * 6.18; kernel-notes.md "inherit and mmap do not mix").
 */
static int probe_open(int group_fd)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.disabled = 1,
		.inherit = group_fd >= 0,
		.inherit_thread = group_fd >= 0,
		.read_format = READ_FORMAT,
		/* Allowed at any perf_event_paranoid (kernel-notes.md "Permissions"). */
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};

	return fastread_perf_event_open(&attr, group_fd);
}

/*
 * Does each group of @s count the calling thread? A member opened for the
 * calling thread (pid 0) joins a group only in that thread's context
 * (perf_event_open(): the leader's ctx must be ours, EINVAL otherwise; a
 * software member joins a hardware group in its context), on every
 * kernel: a probe joins each leader and leaves at once. The members are
 * the leader's by the group read (group_check). But a group's inherited
 * copies in threads that live while its members change refuse to be read
 * from then on (ECHILD, Linux 6.6's group_generation): only for a
 * process's only thread.
 * Return: 0; -EINVAL when a group is another task's; -errno of the probe.
 */
static int groups_prove_by_joining(const struct counter_set *s)
{
	for (int i = 0; i < s->nr; i++) {
		int probe;

		if (s->c[i].fd < 0 || s->c[i].leader != i)
			continue;
		probe = probe_open(s->c[i].fd);
		if (probe < 0)
			return probe;
		close(probe);
	}
	return 0;
}

/*
 * The same, beside other threads: the kernel lets an event write into
 * another's ring buffer (PERF_EVENT_IOC_SET_OUTPUT) only when both are for
 * the same task (perf_event_set_output(): their hw.target; before Linux 6.3
 * and the stable kernels that took that fix in April 2023, the same
 * context, which no hardware event shares with a software one: refused
 * then, never wrongly proven). The other one is a probe with its metadata
 * page mapped (without a buffer: EINVAL, whatever the task). Only once per
 * event: attaching one detached before waits for an RCU grace period
 * (ring_buffer_attach(), ~15 ms measured here).
 */
static int counters_prove_by_output(const struct counter_set *s)
{
	long page = sysconf(_SC_PAGESIZE);
	int probe = probe_open(-1), ret = 0;
	void *map;

	if (probe < 0)
		return probe;
	map = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, probe, 0);
	if (map == MAP_FAILED) {
		ret = -errno;
		close(probe);
		return ret;
	}
	for (int i = 0; ret == 0 && i < s->nr; i++) {
		if (s->c[i].fd < 0)
			continue;
		if (ioctl(s->c[i].fd, PERF_EVENT_IOC_SET_OUTPUT, probe) < 0)
			ret = -EINVAL;
		else
			ioctl(s->c[i].fd, PERF_EVENT_IOC_SET_OUTPUT, (long)-1);
	}
	munmap(map, (size_t)page);
	close(probe);
	return ret;
}

/*
 * Can the kernel tell @attr's type from the type of an event it opened?
 * Not for a breakpoint (the request below would change it), nor for the
 * software clocks: Linux 6.12 moved task-clock and cpu-clock to PMUs of
 * their own, whose type numbers are published nowhere (measured on 6.18:
 * EINVAL for PERF_TYPE_SOFTWARE).
 */
static bool type_checkable(const struct perf_event_attr *attr)
{
	return attr->type != PERF_TYPE_BREAKPOINT &&
	       !(attr->type == PERF_TYPE_SOFTWARE && (attr->config == PERF_COUNT_SW_TASK_CLOCK ||
						      attr->config == PERF_COUNT_SW_CPU_CLOCK));
}

/*
 * Is each counter of @s of the type of its event in @events? The kernel
 * shows no attribute of an open event, but PERF_EVENT_IOC_MODIFY_ATTRIBUTES
 * compares the types first (perf_event_modify_attr(): EINVAL when they
 * differ) and then changes breakpoints only: any other type is EOPNOTSUPP,
 * untouched. A kernel without the request (before 4.17: ENOTTY) cannot
 * say. Which event of its type a counter counts (page-faults or
 * context-switches, both software) is beyond any check.
 */
static bool counters_types_match(const struct counter_set *s, const struct event_list *events)
{
	for (int i = 0; i < s->nr; i++) {
		const struct perf_event_attr *want = &events->ev[i].attr;
		struct perf_event_attr claim = { .size = sizeof(claim), .type = want->type };

		if (s->c[i].fd < 0 || !type_checkable(want))
			continue;
		if (ioctl(s->c[i].fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &claim) < 0 && errno == EINVAL)
			return false;
	}
	return true;
}

int handover_open(struct counter_set *s, const struct event_list *events,
		  const char *events_text, char *buf, size_t size)
{
	int saved_errno = errno, ret;

	s->nr = 0;
	if (!thread_alone())
		ret = -EBUSY;
	else if (counters_open_for_exec(s, events) == 0)
		ret = -ENOENT;
	else if (!counters_types_match(s, events))
		ret = -EINVAL;	/* a type the kernel reports otherwise: the next image would close them */
	else
		ret = handover_format(s, events_text, getpid(), buf, size) < 0 ? -ENOSPC : 0;
	if (ret < 0)
		counters_close(s);
	errno = saved_errno;
	return ret;
}

int handover_adopt(struct counter_set *s, const struct event_list *events,
		   const char *events_text, bool usable, const char *text)
{
	/*
	 * On the stack (the constructor's, deep enough already): a static
	 * straddled two pages of .bss that nothing else touches, 2 page faults
	 * in each adopting process.
	 */
	struct counter_set handed;
	int saved_errno = errno;
	unsigned long long hash;
	bool ok = parse(text, &hash, &handed) && counters_check(&handed);

	for (int i = 0; ok && i < handed.nr; i++)
		if (handed.c[i].fd >= 0 && handed.c[i].leader == i)
			ok = group_check(&handed, i);
	/* Perf events with the IDs named may still count another process. */
	ok = ok && (thread_alone() ? groups_prove_by_joining(&handed) :
		    counters_prove_by_output(&handed)) == 0;
	errno = saved_errno;
	if (!ok)
		return -EINVAL;
	/* Provably the descriptors handed to this process: ours to close. */
	if (!usable || hash != text_hash(events_text) || handed.nr != events->nr ||
	    !counters_types_match(&handed, events)) {
		counters_close(&handed);
		errno = saved_errno;
		return -ESTALE;
	}
	for (int i = 0; i < handed.nr; i++)
		if (handed.c[i].fd >= 0)
			fcntl(handed.c[i].fd, F_SETFD, FD_CLOEXEC);
	*s = handed;
	counters_remember_inode(s);
	errno = saved_errno;
	return 0;
}

#if __SIZEOF_POINTER__ == 8
#define OUR_CLASS ELFCLASS64
typedef Elf64_Ehdr ehdr_t;
typedef Elf64_Phdr phdr_t;
#else
#define OUR_CLASS ELFCLASS32
typedef Elf32_Ehdr ehdr_t;
typedef Elf32_Phdr phdr_t;
#endif

#if defined(__x86_64__)
#define OUR_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define OUR_MACHINE EM_AARCH64
#elif defined(__i386__)
#define OUR_MACHINE EM_386
#elif defined(__arm__)
#define OUR_MACHINE EM_ARM
#elif defined(__riscv)
#define OUR_MACHINE EM_RISCV
#else
#define OUR_MACHINE EM_NONE	/* no hand-over: the check below never passes */
#endif

/*
 * An ELF file of our class and machine with a PT_INTERP: the loader, so the
 * preload. @head holds the file's first @len bytes: the header and program
 * headers are read from it where they lie in it (for /bin/true, two preads
 * less in each `pfshim run`), from @fd past it.
 */
static bool elf_dynamic(int fd, const char *head, size_t len)
{
	ehdr_t eh;
	phdr_t ph;

	if (len < sizeof(eh))
		return false;
	memcpy(&eh, head, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != OUR_CLASS ||
	    eh.e_machine != OUR_MACHINE || OUR_MACHINE == EM_NONE ||
	    eh.e_phentsize != sizeof(ph))
		return false;
	for (unsigned i = 0; i < eh.e_phnum && i < 256; i++) {
		unsigned long long at = eh.e_phoff + (unsigned long long)i * sizeof(ph);

		if (at <= len && len - at >= sizeof(ph))
			memcpy(&ph, head + at, sizeof(ph));
		else if (pread(fd, &ph, sizeof(ph), (off_t)at) != (ssize_t)sizeof(ph))
			return false;
		if (ph.p_type == PT_INTERP)
			return true;
	}
	return false;
}

static bool path_ok(const char *path, int depth)
{
	/* The kernel reads no more of a "#!" line (BINPRM_BUF_SIZE, since Linux 5.1),
	 * and an exec may come from a thread with a small stack. */
	char line[256 + 1], *interp, *end;
	struct stat st;
	bool ok = false;
	ssize_t n;
	int fd;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || (st.st_mode & (S_ISUID | S_ISGID)) ||
	    getxattr(path, "security.capability", NULL, 0) >= 0 || access(path, X_OK) < 0)
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = pread(fd, line, sizeof(line) - 1, 0);
	if (n > 2 && line[0] == '#' && line[1] == '!' && depth == 0) {
		/* The kernel runs the interpreter: the first word after "#!". */
		line[n] = '\0';
		interp = line + 2 + strspn(line + 2, " \t");
		end = interp + strcspn(interp, " \t\n");
		*end = '\0';
		ok = *interp == '/' && path_ok(interp, 1);
	} else {
		ok = n > 0 && elf_dynamic(fd, line, (size_t)n);
	}
	close(fd);
	return ok;
}

/* The first candidate execvp() can execute decides, as execvp() runs it. */
static bool target_take(const char *candidate, void *ok)
{
	if (access(candidate, X_OK) != 0)
		return false;
	*(bool *)ok = path_ok(candidate, 0);
	return true;
}

bool handover_target_ok(const char *file, const char *path)
{
	bool ok = false;

	/* Real and effective ids apart: the kernel makes the exec secure (AT_SECURE). */
	if (!*file || getuid() != geteuid() || getgid() != getegid())
		return false;
	if (strchr(file, '/'))
		return path_ok(file, 0);
	return exec_search(file, path, target_take, &ok) && ok;
}
