/*
 * jobcount.c: the job counted by the kernel for `pfshim run` (jobcount.h).
 *
 * Each event is opened on the command's pid with inherit (perf stat's
 * method: every descendant task gets a copy, whose count the kernel adds to
 * ours when the task ends, however it ends) and inherit_stat, which makes
 * each task's copy write its own count as a PERF_RECORD_READ at its exit.
 * The kernel refuses to map an inherited per-task event (EINVAL,
 * docs/kernel-notes.md), so the records go to the buffer of one more event,
 * a dummy on the same pid that is not inherited, through
 * PERF_EVENT_IOC_SET_OUTPUT: the children's copies write where their parent
 * event writes. That dummy also asks for FORK, COMM and EXIT records, which
 * name the processes. One descriptor per event plus one: the same as perf
 * stat's per-task counting, and nothing in the job's processes.
 */
#include "tools/pfshim/jobcount.h"

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
#include <unistd.h>
#include <jansson.h>

#include "tools/pfshim/table.h"

/*
 * 64 pages of records: one ending task writes one READ per event (40 bytes)
 * and an EXIT; the runner drains at half full. 260 KiB stays within the
 * 516 KiB an unprivileged user may lock for perf buffers by default.
 */
#define RING_PAGES 64

#define READ_FORMAT (PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | \
		     PERF_FORMAT_ID)

static struct jobcount_process *proc_new(struct jobcount *j, int pid, int ppid);

static int perf_open(struct perf_event_attr *attr, pid_t pid)
{
	int fd = (int)syscall(SYS_perf_event_open, attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/*
 * One event of the job: as the shim would open it (its attr), but on @pid,
 * inherited by every task, started by the exec. At perf_event_paranoid 2 an
 * unprivileged runner may count only user space: retried so, as the shim
 * and perf stat do, unless the user chose the levels with a modifier.
 */
static void event_open(struct jobcount_event *e, pid_t pid, bool names)
{
	struct perf_event_attr attr = e->spec->attr;
	int fd;

	attr.size = sizeof(attr);
	/* FORK, COMM, EXIT of every task: only the inherited copies see the descendants'. */
	attr.task = names;
	attr.comm = names;
	attr.comm_exec = names;
	attr.disabled = 1;
	attr.enable_on_exec = 1;
	attr.inherit = 1;
	attr.inherit_stat = 1;
	attr.pinned = 0;
	attr.read_format = READ_FORMAT;
	fd = perf_open(&attr, pid);
	if ((fd == -EACCES || fd == -EPERM) && !e->spec->modifiers && !attr.exclude_kernel) {
		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
		fd = perf_open(&attr, pid);
	}
	e->fd = fd < 0 ? -1 : fd;
	e->error = fd < 0 ? -fd : 0;
	if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_ID, &e->id) < 0) {
		e->error = errno;
		close(fd);
		e->fd = -1;
	}
}

/* The buffer the records go to: a dummy event on @pid, not inherited, so it can be mapped. */
static int ring_open(struct jobcount *j, pid_t pid)
{
	long page = sysconf(_SC_PAGESIZE);
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.disabled = 1,
		.enable_on_exec = 1,
		.watermark = 1,
		.wakeup_watermark = (uint32_t)(RING_PAGES * page / 2),
	};
	int fd = perf_open(&attr, pid);

	if (fd < 0)
		return fd;
	j->ring_size = (size_t)RING_PAGES * (size_t)page;
	j->ring = mmap(NULL, j->ring_size + (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (j->ring == MAP_FAILED) {
		j->ring = NULL;
		close(fd);
		return -errno;
	}
	j->ring_fd = fd;
	return 0;
}

int jobcount_open(struct jobcount *j, pid_t pid, const struct event_list *events)
{
	int counting = 0;
	bool named = false;

	memset(j, 0, sizeof(*j));
	j->ring_fd = -1;
	j->root_pid = pid;
	j->nr = events->nr;
	if (ring_open(j, pid) < 0)
		j->ring_fd = -1;
	for (int i = 0; i < events->nr; i++) {
		struct jobcount_event *e = &j->ev[i];

		e->spec = &events->ev[i];
		e->fd = -1;
		if (e->spec->nr_parts)	/* a hybrid sum: its parts' counts added up */
			continue;
		event_open(e, pid, !named && j->ring_fd >= 0);
		if (e->fd < 0)
			continue;
		counting++;
		/* Without it the total still counts; the processes' own counts are lost. */
		if (j->ring_fd >= 0 && ioctl(e->fd, PERF_EVENT_IOC_SET_OUTPUT, j->ring_fd) == 0)
			named = true;
	}
	if (j->ring_fd >= 0)
		proc_new(j, pid, (int)getpid());
	return counting;
}

int jobcount_poll_fd(const struct jobcount *j)
{
	return j->ring_fd;
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

/* A new process @pid (a FORK, or a record of one whose FORK we never saw): the latest of that pid. */
static struct jobcount_process *proc_new(struct jobcount *j, int pid, int ppid)
{
	struct jobcount_process *p;

	if (2 * (j->nr_proc + 1) > j->by_pid_size)
		by_pid_grow(j);
	j->proc = xrealloc(j->proc, (size_t)(j->nr_proc + 1) * sizeof(*j->proc));
	p = &j->proc[j->nr_proc];
	*p = (struct jobcount_process){ .pid = pid, .ppid = ppid };
	p->value = xrealloc(NULL, (size_t)(j->nr ? j->nr : 1) * sizeof(uint64_t));
	memset(p->value, 0, (size_t)(j->nr ? j->nr : 1) * sizeof(uint64_t));
	j->by_pid[pid_slot(j, pid)] = j->nr_proc++;
	return p;
}

static struct jobcount_process *proc_get(struct jobcount *j, int pid)
{
	struct jobcount_process *p = proc_find(j, pid);

	return p ? p : proc_new(j, pid, 0);
}

/* The record layouts of perf_event_open(2) "MMAP layout", as this buffer's attrs make them. */
struct rec_task {		/* PERF_RECORD_FORK, PERF_RECORD_EXIT */
	uint32_t pid, ppid, tid, ptid;
	uint64_t time;
};

struct rec_comm {
	uint32_t pid, tid;
	char comm[];
};

struct rec_read {		/* READ_FORMAT without PERF_FORMAT_GROUP */
	uint32_t pid, tid;
	uint64_t value, enabled, running, id;
};

static void record_take(struct jobcount *j, const struct perf_event_header *h)
{
	const void *body = h + 1;
	size_t len = h->size - sizeof(*h);

	switch (h->type) {
	case PERF_RECORD_FORK: {
		const struct rec_task *t = body;
		struct jobcount_process *p;

		if (len < sizeof(*t) || t->pid == t->ppid)	/* a thread of a known process */
			break;
		p = proc_find(j, (int)t->pid);
		if (!p || p->exited)
			p = proc_new(j, (int)t->pid, (int)t->ppid);
		else
			p->ppid = (int)t->ppid;
		/* Until its first exec, a forked child runs its parent's program. */
		if (!p->comm[0]) {
			const struct jobcount_process *parent = proc_find(j, (int)t->ppid);

			if (parent)
				memcpy(p->comm, parent->comm, sizeof(p->comm));
		}
		break;
	}
	case PERF_RECORD_COMM: {
		const struct rec_comm *c = body;
		struct jobcount_process *p;
		size_t n;

		if (len <= sizeof(*c) || c->pid != c->tid)	/* a thread's own name: not the program */
			break;
		p = proc_get(j, (int)c->pid);
		n = strnlen(c->comm, len - sizeof(*c));
		if (n >= sizeof(p->comm))
			n = sizeof(p->comm) - 1;
		memcpy(p->comm, c->comm, n);
		p->comm[n] = '\0';
		break;
	}
	case PERF_RECORD_EXIT: {
		const struct rec_task *t = body;
		struct jobcount_process *p;

		if (len >= sizeof(*t) && t->pid == t->tid && (p = proc_find(j, (int)t->pid)))
			p->exited = true;
		break;
	}
	case PERF_RECORD_READ: {
		const struct rec_read *r = body;
		struct jobcount_process *p;

		if (len < sizeof(*r))
			break;
		p = proc_get(j, (int)r->pid);
		for (int i = 0; i < j->nr; i++)
			if (j->ev[i].fd >= 0 && j->ev[i].id == r->id)
				p->value[i] += r->value;
		break;
	}
	case PERF_RECORD_LOST:
		if (len >= 2 * sizeof(uint64_t))
			j->lost += ((const uint64_t *)body)[1];
		break;
	}
}

void jobcount_drain(struct jobcount *j)
{
	struct perf_event_mmap_page *meta = j->ring;
	const char *data;
	uint64_t head, tail;

	if (!meta)
		return;
	data = (const char *)meta + sysconf(_SC_PAGESIZE);
	/* The kernel's side of the buffer: data_head read before the records (perf_event_open(2)). */
	head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	tail = meta->data_tail;
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
		record_take(j, h);
		tail += h->size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

void jobcount_finish(struct jobcount *j)
{
	jobcount_drain(j);
	for (int i = 0; i < j->nr; i++) {
		struct jobcount_event *e = &j->ev[i];
		uint64_t v[4];

		if (e->fd < 0)
			continue;
		if (read(e->fd, v, sizeof(v)) < (ssize_t)(3 * sizeof(uint64_t))) {
			e->error = errno ? errno : EIO;
			continue;
		}
		e->value = v[0];
		e->enabled = v[1];
		e->running = v[2];
	}
}

/* Counted, as perf stat scales a multiplexed event: value * enabled / running. */
static bool event_value(const struct jobcount *j, int i, uint64_t *out)
{
	const struct jobcount_event *e = &j->ev[i];

	if (e->spec->nr_parts) {
		uint64_t sum = 0, part;
		bool any = false;

		for (int k = 0; k < e->spec->nr_parts; k++)
			if (event_value(j, e->spec->parts[k], &part)) {
				sum += part;
				any = true;
			}
		*out = sum;
		return any;
	}
	if (e->fd < 0 || e->error || (!e->running && e->enabled))
		return false;
	if (e->running == e->enabled || !e->running)
		*out = e->value;
	else
		*out = (uint64_t)((unsigned __int128)e->value * e->enabled / e->running);
	return true;
}

/* The pid namespace as the shim's reports name it: 0 for the initial one. */
static uint64_t pid_ns(void)
{
	struct stat st;

	/* PROC_PID_INIT_INO, as preload/process.c */
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

int jobcount_write(const struct jobcount *j, const char *command, int status, FILE *f)
{
	struct utsname uts;
	json_t *events = json_array(), *procs = json_array(), *job;
	int ret;

	if (uname(&uts) < 0)
		strcpy(uts.nodename, "");
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
	for (int p = 0; p < j->nr_proc; p++) {
		const struct jobcount_process *proc = &j->proc[p];
		json_t *values = json_array();

		for (int i = 0; i < j->nr; i++) {
			uint64_t v = proc->value[i];

			if (j->ev[i].spec->nr_parts) {
				v = 0;
				for (int k = 0; k < j->ev[i].spec->nr_parts; k++)
					v += proc->value[j->ev[i].spec->parts[k]];
			}
			json_array_append_new(values, j->ev[i].fd >= 0 || j->ev[i].spec->nr_parts ?
					      json_integer((json_int_t)v) : json_null());
		}
		json_array_append_new(procs, json_pack("{s:i, s:i, s:s, s:b, s:o}",
			"pid", proc->pid, "ppid", proc->ppid, "program", proc->comm,
			"exited", proc->exited, "values", values));
	}
	job = json_pack("{s:s, s:i, s:s, s:s, s:I, s:i, s:o, s:I, s:o, s:o}",
		"schema", "pfshim.job", "version", 1, "command", command,
		"hostname", uts.nodename, "pid_ns", (json_int_t)pid_ns(),
		"pid", j->root_pid, "end", status_json(status),
		"lost_records", (json_int_t)j->lost, "events", events, "processes", procs);
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
	if (j->ring)
		munmap(j->ring, j->ring_size + (size_t)sysconf(_SC_PAGESIZE));
	if (j->ring_fd >= 0)
		close(j->ring_fd);
	for (int p = 0; p < j->nr_proc; p++)
		free(j->proc[p].value);
	free(j->proc);
	free(j->by_pid);
	memset(j, 0, sizeof(*j));
	j->ring_fd = -1;
}
