/* SPDX-License-Identifier: MIT */
/*
 * jobcount.c: the job counted by the kernel for `pfshim run` (jobcount.h).
 *
 * The totals: each event opened on the command's pid, for every CPU
 * (cpu -1), with inherit: every descendant task gets a copy, whose count the
 * kernel adds to ours when the task ends, however it ends. That is perf
 * stat's own method, with one descriptor per event.
 *
 * The names: a dummy event per CPU, inherited too, asking for FORK, COMM
 * and EXIT records. The kernel writes those only into the buffer of the
 * event of the CPU the task runs on, so each buffer has one writer. A buffer
 * written from several CPUs loses records: measured with one inherited
 * per-task buffer (SET_OUTPUT) and with per-CPU buffers taking
 * inherit_stat's PERF_RECORD_READ (written at a task's exit into every
 * CPU's buffer), 300 concurrent /bin/true lost records in 3 of 10 runs with
 * no PERF_RECORD_LOST (docs/kernel-notes.md). So a process's own counts are
 * not taken; the totals are, exactly.
 */
#include "tools/pfshim/run/jobcount.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>

#include "export/report.h"	/* REPORT_BOOT_ID_PATH */
#include "export/version.h"
#include "fastread/sysfile.h"
#include "tools/pfshim/model/table.h"

/* Buffers of all CPUs within the 516 KiB an unprivileged user may lock for perf by default. */
#define RINGS_BYTES (480 * 1024)
#define RING_PAGES_MAX 64
#define RING_PAGES_MIN 2

/* Every record of a dummy event ends with these (sample_id_all, PERF_SAMPLE_TID | TIME). */
struct sample_id {
	uint32_t pid, tid;
	uint64_t time;
};

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu)
{
	int fd = (int)syscall(SYS_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/*
 * One event of the job: as the shim would open it (its attr), but on @pid,
 * inherited by every task, started by the exec. At perf_event_paranoid 2 an
 * unprivileged runner may count only user space: retried so, as the shim
 * and perf stat do, unless the user chose the levels with a modifier.
 */
void jobcount_event_open(struct jobcount_event *e, pid_t pid)
{
	struct perf_event_attr attr = e->spec->attr;
	int fd;

	attr.size = sizeof(attr);
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	attr.inherit = 1;
	attr.pinned = 0;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = perf_open(&attr, pid, -1);
	if ((fd == -EACCES || fd == -EPERM) && !e->spec->modifiers && !attr.exclude_kernel) {
		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
		fd = perf_open(&attr, pid, -1);
	}
	e->fd = fd < 0 ? -1 : fd;
	e->error = fd < 0 ? -fd : 0;
}

/* Data pages per CPU: a power of two, as the kernel wants, and all CPUs within RINGS_BYTES. */
static size_t ring_pages(int cpus, long page)
{
	size_t pages = RING_PAGES_MAX;

	while (pages > RING_PAGES_MIN && (size_t)cpus * (pages + 1) * (size_t)page > RINGS_BYTES)
		pages /= 2;
	return pages;
}

static int ring_open(const struct jobcount *j, struct jobcount_ring *r, pid_t pid, int cpu)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.disabled = 1,
		.enable_on_exec = 1,
		.inherit = 1,
		.task = 1,
		.comm = 1,
		.comm_exec = 1,
		/* Executable mappings: the interpreter shows a dynamic image, the shim's that it loaded. */
		.mmap = 1,
		.sample_id_all = 1,
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME,
		/*
		 * It counts nothing; its records come whatever it excludes. A user at
		 * perf_event_paranoid 2 may open it only so (else EACCES: every process
		 * of the job unnamed, as perf record -e dummy:u opens it).
		 */
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.watermark = 1,
		.wakeup_watermark = (uint32_t)(j->ring_size / 2),
	};
	int fd = perf_open(&attr, pid, cpu);

	if (fd < 0)
		return fd;
	r->meta = mmap(NULL, j->ring_size + (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, 0);
	if (r->meta == MAP_FAILED) {
		int error = errno;

		close(fd);
		return -error;
	}
	r->fd = fd;
	r->cpu = cpu;
	return 0;
}

static void rings_close(struct jobcount *j)
{
	jobcount_recorder_close(j, j->ring, j->nr_rings);
	free(j->ring);
	j->ring = NULL;
	j->nr_rings = 0;
}

/*
 * A buffer for each CPU the job may run on. Any CPU that cannot have one
 * (offline, refused) leaves the processes unnamed rather than half named.
 */
static void rings_open(struct jobcount *j, pid_t pid)
{
	long page = sysconf(_SC_PAGESIZE);
	int cpus = (int)sysconf(_SC_NPROCESSORS_CONF);

	if (cpus < 1) {
		j->ring_error = EINVAL;
		return;
	}
	j->ring_size = ring_pages(cpus, page) * (size_t)page;
	j->ring = xrealloc(NULL, (size_t)cpus * sizeof(*j->ring));
	for (int c = 0; c < cpus; c++) {
		int ret = ring_open(j, &j->ring[c], pid, c);

		if (ret == -ENODEV || ret == -EINVAL)	/* an offline CPU: nothing runs there */
			continue;
		if (ret < 0) {
			j->ring_error = -ret;
			rings_close(j);
			return;
		}
		j->ring[j->nr_rings++] = j->ring[c];
	}
}

int jobcount_recorder_open(const struct jobcount *j, pid_t pid, struct jobcount_ring *r)
{
	int nr = 0;

	for (int c = 0; c < j->nr_rings; c++) {
		int ret = ring_open(j, &r[nr], pid, j->ring[c].cpu);

		if (ret < 0) {
			jobcount_recorder_close(j, r, nr);
			return ret;
		}
		nr++;
	}
	return nr;
}

void jobcount_recorder_close(const struct jobcount *j, struct jobcount_ring *r, int nr)
{
	for (int c = 0; c < nr; c++) {
		munmap(r[c].meta, j->ring_size + (size_t)sysconf(_SC_PAGESIZE));
		close(r[c].fd);
	}
}

static int pid_slot(const struct jobcount *j, int pid)
{
	unsigned h = (unsigned)pid * 2654435761u;

	for (int n = 0; n < j->by_pid_size; n++) {
		int slot = (int)((h + (unsigned)n) % (unsigned)j->by_pid_size);
		int p = j->by_pid[slot];

		if (p < 0 || j->proc[p].pid == pid)
			return slot;
	}
	return -1;
}

static struct jobcount_process *proc_find(const struct jobcount *j, int pid)
{
	int slot = j->by_pid_size ? pid_slot(j, pid) : -1;

	return slot >= 0 && j->by_pid[slot] >= 0 ? &j->proc[j->by_pid[slot]] : NULL;
}

static void by_pid_grow(struct jobcount *j)
{
	int *old = j->by_pid, old_size = j->by_pid_size;

	j->by_pid_size = old_size ? 2 * old_size : 256;
	j->by_pid = xrealloc(NULL, (size_t)j->by_pid_size * sizeof(int));
	for (int i = 0; i < j->by_pid_size; i++)
		j->by_pid[i] = -1;
	for (int i = 0; i < old_size; i++)
		if (old[i] >= 0)
			j->by_pid[pid_slot(j, j->proc[old[i]].pid)] = old[i];
	free(old);
}

/* A new process @pid: from now on the one its pid names. */
static struct jobcount_process *proc_new(struct jobcount *j, int pid, int ppid)
{
	struct jobcount_process *p;

	if (2 * (j->nr_proc + 1) > j->by_pid_size)
		by_pid_grow(j);
	j->proc = xrealloc(j->proc, (size_t)(j->nr_proc + 1) * sizeof(*j->proc));
	p = &j->proc[j->nr_proc];
	*p = (struct jobcount_process){ .pid = pid, .ppid = ppid };
	j->by_pid[pid_slot(j, pid)] = j->nr_proc++;
	return p;
}

int jobcount_open(struct jobcount *j, pid_t pid, const struct event_list *events)
{
	int counting = 0;

	memset(j, 0, sizeof(*j));
	j->root_pid = pid;
	j->nr = events->nr;
	for (int i = 0; i < events->nr; i++) {
		struct jobcount_event *e = &j->ev[i];

		e->spec = &events->ev[i];
		e->fd = -1;
		if (e->spec->nr_parts)	/* a hybrid sum: its parts' counts added up */
			continue;
		jobcount_event_open(e, pid);
		counting += e->fd >= 0;
	}
	rings_open(j, pid);
	proc_new(j, pid, (int)getpid());
	j->start_ns = now_ns();
	return counting;
}

int jobcount_poll_fds(const struct jobcount *j, struct pollfd *fds, int max)
{
	int n = 0;

	for (int c = 0; c < j->nr_rings && n < max; c++)
		fds[n++] = (struct pollfd){ .fd = j->ring[c].fd, .events = POLLIN };
	return n;
}

/* The record layouts of perf_event_open(2) "MMAP layout", as the rings' attrs make them. */
struct rec_task {		/* PERF_RECORD_FORK, PERF_RECORD_EXIT */
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct rec_comm {
	uint32_t pid, tid;
	char comm[];
};

struct rec_mmap {		/* PERF_RECORD_MMAP: then the file's name */
	uint32_t pid, tid;
	uint64_t addr, len, pgoff;
};

/* What a mapped file's name (its basename's start) tells of the image that maps it. */
#define MAP_NAME_MAX 16

/* A record copied out of its buffer, to be taken in time order with the other CPUs'. */
struct record {
	uint64_t time;
	uint32_t type, len;
	union {
		struct rec_task task;
		struct {
			uint32_t pid, tid;
			char comm[JOBCOUNT_COMM_MAX];
		} comm;
		struct {
			uint32_t pid;
			char name[MAP_NAME_MAX];	/* the basename's start */
		} map;
	} u;
	bool exec;			/* a COMM record of an exec */
};

/* The dynamic loader's names: glibc's ld-linux*.so / ld64.so, musl's ld-musl-*.so. */
static bool map_is_interpreter(const char *name)
{
	return !strncmp(name, "ld-linux", 8) || !strncmp(name, "ld64.so", 7) ||
	       !strncmp(name, "ld-musl", 7) || !strncmp(name, "ld.so", 5);
}

static bool map_is_shim(const char *name)
{
	return !strncmp(name, "libpfshim.so", 12);
}

static void record_take(struct jobcount *j, const struct record *r)
{
	struct jobcount_process *p;

	switch (r->type) {
	case PERF_RECORD_FORK:
		if (r->u.task.pid == r->u.task.ppid)	/* a thread of a known process */
			break;
		p = proc_find(j, (int)r->u.task.pid);
		if (!p || p->exited) {
			const struct jobcount_process *parent = proc_find(j, (int)r->u.task.ppid);
			/*
			 * Until its first exec, a forked child runs its parent's
			 * program: copied before proc_new(), whose realloc may move
			 * the parent.
			 */
			struct jobcount_process from = parent ? *parent :
				(struct jobcount_process){ .comm = "" };

			p = proc_new(j, (int)r->u.task.pid, (int)r->u.task.ppid);
			memcpy(p->comm, from.comm, sizeof(p->comm));
			p->dynamic = from.dynamic;
			p->shim = from.shim;
		}
		break;
	case PERF_RECORD_COMM:
		if (r->u.comm.pid != r->u.comm.tid)	/* a thread's own name, not the program */
			break;
		p = proc_find(j, (int)r->u.comm.pid);
		if (!p)
			p = proc_new(j, (int)r->u.comm.pid, 0);
		memcpy(p->comm, r->u.comm.comm, sizeof(p->comm));
		if (r->exec) {		/* a new image: its mappings follow */
			p->dynamic = p->shim = false;
			p->exec_maps = 0;
			p->images++;
			j->execs++;
		}
		break;
	case PERF_RECORD_MMAP:
		p = proc_find(j, (int)r->u.map.pid);
		if (!p)
			break;
		p->exec_maps++;
		if (map_is_interpreter(r->u.map.name))
			p->dynamic = true;
		if (map_is_shim(r->u.map.name) && !p->shim) {
			p->shim = true;
			j->shim_images++;
		}
		break;
	case PERF_RECORD_EXIT:
		if (r->u.task.pid == r->u.task.tid && (p = proc_find(j, (int)r->u.task.pid))) {
			/* An exec maps its program before it returns: none mapped, the kernel left it there */
			p->uncounted = p->images && !p->exec_maps;
			p->exited = true;
		}
		break;
	}
}

/* One record from its buffer into @out; false for one this reader does not take. */
static bool record_copy(struct jobcount *j, const struct perf_event_header *h, struct record *out)
{
	const char *body = (const char *)(h + 1);
	size_t len = h->size - sizeof(*h);
	struct sample_id id;

	if (h->type == PERF_RECORD_LOST) {
		if (len >= 2 * sizeof(uint64_t))
			j->lost += ((const uint64_t *)(const void *)body)[1];
		return false;
	}
	if (len < sizeof(id) ||
	    (h->type != PERF_RECORD_FORK && h->type != PERF_RECORD_EXIT &&
	     h->type != PERF_RECORD_COMM && h->type != PERF_RECORD_MMAP))
		return false;
	memcpy(&id, body + len - sizeof(id), sizeof(id));
	len -= sizeof(id);
	*out = (struct record){ .time = id.time, .type = h->type,
				.exec = (h->misc & PERF_RECORD_MISC_COMM_EXEC) != 0 };
	if (h->type == PERF_RECORD_MMAP) {
		const char *name = body + sizeof(struct rec_mmap), *base;
		size_t n = len > sizeof(struct rec_mmap) ? strnlen(name, len - sizeof(struct rec_mmap)) : 0;

		if (len < sizeof(struct rec_mmap))
			return false;
		memcpy(&out->u.map.pid, body, sizeof(uint32_t));
		base = memrchr(name, '/', n);
		base = base ? base + 1 : name;
		n -= (size_t)(base - name);
		if (n >= MAP_NAME_MAX)
			n = MAP_NAME_MAX - 1;
		memcpy(out->u.map.name, base, n);
		out->u.map.name[n] = '\0';
		return true;
	}
	if (h->type == PERF_RECORD_COMM) {
		size_t n = len > 8 ? strnlen(body + 8, len - 8) : 0;

		if (len < 8)
			return false;
		memcpy(&out->u.comm, body, 8);
		if (n >= JOBCOUNT_COMM_MAX)
			n = JOBCOUNT_COMM_MAX - 1;
		/* A program sets its own name (prctl PR_SET_NAME): any bytes but NUL. */
		for (size_t i = 0; i < n; i++) {
			unsigned char c = (unsigned char)body[8 + i];

			out->u.comm.comm[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
		}
		out->u.comm.comm[n] = '\0';
		return true;
	}
	if (len < sizeof(out->u.task))
		return false;
	memcpy(&out->u.task, body, sizeof(out->u.task));
	return true;
}

/* The records one buffer holds now, appended to @recs. */
static void ring_drain(struct jobcount *j, struct jobcount_ring *ring, struct record **recs,
		       size_t *nr, size_t *cap)
{
	struct perf_event_mmap_page *meta = ring->meta;
	const char *data = (const char *)meta + sysconf(_SC_PAGESIZE);
	/* The kernel's side of the buffer: data_head read before the records (perf_event_open(2)). */
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE), tail = meta->data_tail;

	while (tail + sizeof(struct perf_event_header) <= head) {
		size_t off = tail % j->ring_size;
		const struct perf_event_header *h = (const void *)(data + off);
		union {
			struct perf_event_header h;
			char bytes[1 << 16];
		} copy;

		if (h->size < sizeof(*h))
			break;
		if (off + h->size > j->ring_size) {	/* wraps around the end */
			size_t first = j->ring_size - off;

			memcpy(copy.bytes, h, first);
			memcpy(copy.bytes + first, data, h->size - first);
			h = &copy.h;
		}
		if (*nr == *cap) {
			*cap = *cap ? 2 * *cap : 256;
			*recs = xrealloc(*recs, *cap * sizeof(**recs));
		}
		if (record_copy(j, h, &(*recs)[*nr]))
			(*nr)++;
		tail += h->size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

static int record_cmp(const void *a, const void *b)
{
	const struct record *x = a, *y = b;

	return x->time < y->time ? -1 : x->time > y->time;
}

void jobcount_drain(struct jobcount *j)
{
	struct record *recs = NULL;
	size_t nr = 0, cap = 0;

	for (int c = 0; c < j->nr_rings; c++)
		ring_drain(j, &j->ring[c], &recs, &nr, &cap);
	/* A fork on one CPU, its exec on another: taken in the order they happened. */
	if (nr)
		qsort(recs, nr, sizeof(*recs), record_cmp);
	for (size_t i = 0; i < nr; i++)
		record_take(j, &recs[i]);
	free(recs);
}

/* Event @i read now, as perf stat scales a multiplexed event: value * enabled / running. */
static uint64_t event_read(struct jobcount_event *e)
{
	uint64_t v[3];

	if (e->fd < 0)
		return UINT64_MAX;
	if (read(e->fd, v, sizeof(v)) != (ssize_t)sizeof(v)) {
		e->error = errno ? errno : EIO;
		return UINT64_MAX;
	}
	e->value = v[0];
	e->enabled = v[1];
	e->running = v[2];
	if (!e->running)	/* never on a counter: not counted (or not started yet) */
		return e->enabled ? UINT64_MAX : 0;
	if (e->running == e->enabled)
		return e->value;
	return (uint64_t)((unsigned __int128)e->value * e->enabled / e->running);
}

const struct jobcount_sample *jobcount_sample(struct jobcount *j)
{
	struct jobcount_sample *s;

	j->sample = xrealloc(j->sample, (size_t)(j->nr_samples + 1) * sizeof(*j->sample));
	s = &j->sample[j->nr_samples++];
	s->t_ns = now_ns() - j->start_ns;
	s->value = xrealloc(NULL, (size_t)(j->nr ? j->nr : 1) * sizeof(uint64_t));
	for (int i = 0; i < j->nr; i++)
		s->value[i] = event_read(&j->ev[i]);
	return s;
}

void jobcount_finish(struct jobcount *j)
{
	struct timespec t;

	j->end_ns = now_ns();
	clock_gettime(CLOCK_REALTIME, &t);
	j->end_realtime_ns = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
	jobcount_drain(j);
	for (int i = 0; i < j->nr; i++)
		event_read(&j->ev[i]);
}

bool jobcount_value(const struct jobcount *j, const uint64_t *values, int i, uint64_t *out)
{
	const struct event_spec *spec = j->ev[i].spec;

	if (spec->nr_parts) {
		uint64_t sum = 0, part;
		bool any = false;

		for (int k = 0; k < spec->nr_parts; k++)
			if (jobcount_value(j, values, spec->parts[k], &part)) {
				sum += part;
				any = true;
			}
		*out = sum;
		return any;
	}
	*out = values[i];
	return values[i] != UINT64_MAX;
}

/* The job's total of event @i, read by jobcount_finish(). */
static bool event_value(const struct jobcount *j, int i, uint64_t *out)
{
	uint64_t values[EVENTS_MAX];

	for (int k = 0; k < j->nr; k++) {
		const struct jobcount_event *e = &j->ev[k];

		if (e->fd < 0 || e->error || (!e->running && e->enabled))
			values[k] = UINT64_MAX;
		else if (e->running == e->enabled || !e->running)
			values[k] = e->value;
		else
			values[k] = (uint64_t)((unsigned __int128)e->value * e->enabled / e->running);
	}
	return jobcount_value(j, values, i, out);
}

/* The pid namespace as the shim's reports name it: 0 for the initial one (PROC_PID_INIT_INO). */
static uint64_t pid_ns(void)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st) < 0 || st.st_ino == 0xEFFFFFFCU)
		return 0;
	return st.st_ino;
}

static json_t *status_json(int status)
{
	if (WIFSIGNALED(status))
		return json_pack("{s:i}", "signal", WTERMSIG(status));
	return json_pack("{s:i}", "exit", WEXITSTATUS(status));
}

/* @s with every byte a JSON string cannot take as it is (not UTF-8, control) as '?'. */
static char *printable(const char *s)
{
	char *copy = xstrdup(s);

	for (char *c = copy; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			*c = '?';
	return copy;
}

/* The decimal number at *@s (digits only, no sign, no space), below @limit, and *@s past it. */
static bool ledger_number(const char **s, const char *end, long limit, int *out)
{
	long n = 0;
	const char *c = *s;

	for (; c < end && *c >= '0' && *c <= '9'; c++) {
		n = n * 10 + (*c - '0');
		if (n >= limit)
			return false;
	}
	if (c == *s)
		return false;
	*s = c;
	*out = (int)n;
	return true;
}

bool jobcount_ledger_line(const char *line, size_t len, int *pid, int *err)
{
	const char *s = line, *end = line + len;

	/* pids are below PID_MAX_LIMIT (4194304), errnos below 4096 (MAX_ERRNO 4095) */
	if (!ledger_number(&s, end, 1L << 22, pid) || *pid == 0 || s == end || *s++ != ' ' ||
	    !ledger_number(&s, end, 4096, err))
		return false;
	return s + 1 == end && *s == '\n';
}

void jobcount_ledger_read(struct jobcount *j, FILE *f)
{
	char *line = NULL;
	size_t size = 0;
	ssize_t len;
	int pid, err;

	while ((len = getline(&line, &size, f)) > 0) {
		struct jobcount_process *p;

		if (!jobcount_ledger_line(line, (size_t)len, &pid, &err)) {
			j->ledger_malformed++;
			continue;
		}
		p = proc_find(j, pid);
		if (p)
			p->report_errno = err;
	}
	free(line);
}

int jobcount_write(const struct jobcount *j, const char *command, int status, json_t *calibration,
		   FILE *f)
{
	char *line = printable(command), boot_id[40];
	struct utsname uts;
	json_t *events = json_array(), *procs = json_array(), *intervals = json_array(), *job;
	int ret;

	if (uname(&uts) < 0)
		strcpy(uts.nodename, "");
	/* The job's processes' reports name it too: their identity whatever host name they take */
	if (sysfile_read(REPORT_BOOT_ID_PATH, boot_id, sizeof(boot_id)) <= 0)
		boot_id[0] = '\0';
	for (int i = 0; i < j->nr; i++) {
		const struct jobcount_event *e = &j->ev[i];
		uint64_t v;
		bool counted = event_value(j, i, &v);

		json_array_append_new(events, json_pack("{s:s, s:s, s:f, s:o, s:s*}",
			"name", e->spec->name, "unit", e->spec->unit,
			"scale", e->spec->scale ? e->spec->scale : 1.0,
			"value", counted ? json_integer((json_int_t)v) : json_null(),
			"error", e->error && !counted ? strerror(e->error) : NULL));
	}
	for (int n = 0; n < j->nr_samples; n++) {
		json_t *values = json_array();

		for (int i = 0; i < j->nr; i++) {
			uint64_t v;

			json_array_append_new(values, jobcount_value(j, j->sample[n].value, i, &v) ?
					      json_integer((json_int_t)v) : json_null());
		}
		json_array_append_new(intervals, json_pack("{s:I, s:o}", "t_ns",
			(json_int_t)j->sample[n].t_ns, "values", values));
	}
	for (int p = 0; p < j->nr_proc; p++) {
		int err = j->proc[p].report_errno;
		const char *error = err ? strerrorname_np(err) : NULL;

		json_array_append_new(procs, json_pack("{s:i, s:i, s:s, s:b, s:b, s:b, s:b, s:s*}",
			"pid", j->proc[p].pid, "ppid", j->proc[p].ppid, "program", j->proc[p].comm,
			"exited", j->proc[p].exited, "dynamic", j->proc[p].dynamic,
			"shim", j->proc[p].shim, "uncounted", j->proc[p].uncounted,
			"report_error", err && !error ? "unknown" : error));
	}
	job = json_pack("{s:s, s:i, s:s, s:s, s:s, s:s*, s:I, s:i, s:o, s:I, s:I, s:o, s:o, s:I, s:I, "
			"s:o, s:o, s:o, s:s*, s:o}",
		"schema", "pfshim.job", "version", 1, "pfshim_version", pfshim_version, "command", line,
		"hostname", uts.nodename, "boot_id", *boot_id ? boot_id : NULL,
		"pid_ns", (json_int_t)pid_ns(),
		"pid", j->root_pid, "end", status_json(status),
		"elapsed_ns", (json_int_t)(j->end_ns - j->start_ns),
		"end_realtime_ns", (json_int_t)j->end_realtime_ns, "events", events,
		"intervals", intervals, "lost_records", (json_int_t)j->lost,
		"ledger_malformed", (json_int_t)j->ledger_malformed,
		"shim_images", j->nr_rings ? json_integer((json_int_t)j->shim_images) : json_null(),
		"execs", j->nr_rings ? json_integer((json_int_t)j->execs) : json_null(),
		"calibration", calibration,
		"processes_error", j->nr_rings ? NULL : strerror(j->ring_error),
		"processes", j->nr_rings ? procs : (json_decref(procs), json_null()));
	free(line);
	if (!job)
		return errno = EINVAL, -1;
	ret = json_dumpf(job, f, JSON_COMPACT);
	json_decref(job);
	if (ret < 0 || fputc('\n', f) == EOF)
		return -1;
	return 0;
}

void jobcount_close(struct jobcount *j)
{
	for (int i = 0; i < j->nr; i++)
		if (j->ev[i].fd >= 0)
			close(j->ev[i].fd);
	rings_close(j);
	for (int n = 0; n < j->nr_samples; n++)
		free(j->sample[n].value);
	free(j->sample);
	free(j->proc);
	free(j->by_pid);
	memset(j, 0, sizeof(*j));
}
