/* SPDX-License-Identifier: MIT */
/*
 * job.c: a job as the kernel counted it (the pfshim.job object `pfshim run`
 * writes beside the reports, jobcount.h), read into the summary. Its totals
 * are the job's: every task the command made, however it ended. Its
 * processes are matched with the reports read by (host, pid namespace, pid):
 * those whose last program left no report are named by program, and what
 * of the totals no row holds is said beside them. Input is trusted to be
 * nothing, as for reports.
 */
#include <stdlib.h>
#include <string.h>

#include "tools/pfshim/read/read.h"

/* The version of pfshim.job this reader knows. */
#define JOB_READS_VERSION 1

const char *summary_job_check(json_t *o)
{
	json_t *events = json_object_get(o, "events"), *procs = json_object_get(o, "processes");
	json_t *version = json_object_get(o, "version"), *e, *p;
	size_t i;

	if (!json_is_integer(version) || json_integer_value(version) < 1)
		return "a pfshim job count without a valid \"version\"";
	if (json_integer_value(version) > JOB_READS_VERSION)
		return "a job count of a newer schema version than this pfshim reads";
	if (!is_count(json_object_get(o, "pid")) || !json_is_array(events) ||
	    !(json_is_array(procs) || json_is_null(procs)))
		return "a pfshim job count without \"pid\", \"events\" or \"processes\"";
	json_array_foreach(events, i, e) {
		json_t *value = json_object_get(e, "value");

		if (!json_is_string(json_object_get(e, "name")) ||
		    !(json_is_null(value) || is_count(value)))
			return "a pfshim job count with a malformed event";
	}
	json_array_foreach(procs, i, p)
		if (!is_count(json_object_get(p, "pid")))
			return "a pfshim job count with a malformed process";
	return NULL;
}

/* The job's slot of summary event @k: a second job read (several directories) adds up. */
static int job_event(struct summary_job *job, int k)
{
	for (int i = 0; i < job->nr_events; i++)
		if (job->event[i] == k)
			return i;
	job->event = xrealloc(job->event, (size_t)(job->nr_events + 1) * sizeof(*job->event));
	job->total = xrealloc(job->total, (size_t)(job->nr_events + 1) * sizeof(*job->total));
	job->event[job->nr_events] = k;
	job->total[job->nr_events] = UINT64_MAX;
	return job->nr_events++;
}


/*
 * The kernel stopped counting it at an exec (jobcount.h): said only where no
 * record was lost, since a lost mapping record would look the same.
 */
static bool process_uncounted(json_t *p, bool records_lost)
{
	return json_is_true(json_object_get(p, "uncounted")) && !records_lost;
}

/*
 * Why a process would be in no row: the error its report met (pfshim run's
 * ledger), else from its last image's mappings (absent before they were said).
 */
static enum summary_kind process_kind(json_t *p, bool records_lost)
{
	json_t *dynamic = json_object_get(p, "dynamic"), *shim = json_object_get(p, "shim");

	if (json_is_string(json_object_get(p, "report_error")))
		return KIND_LOST;
	if (process_uncounted(p, records_lost))
		return KIND_UNCOUNTED;
	if (!json_is_boolean(dynamic) || !json_is_boolean(shim))
		return KIND_UNKNOWN;
	/*
	 * No exit record: it outlived the command, unless the kernel lost
	 * records. A dynamic image may not have mapped the shim yet: the
	 * command's end can come between a background child's exec and its
	 * loader's mapping of the preload.
	 */
	if (json_is_false(json_object_get(p, "exited")) && !records_lost && json_is_true(dynamic))
		return KIND_RUNNING;
	if (json_is_true(shim))
		return KIND_NO_REPORT;
	return json_is_true(dynamic) ? KIND_NO_SHIM : KIND_STATIC;
}

/* Several job counts read: their images add up; one that does not say makes the sum unknown. */
static void shim_images_take(struct summary_job *job, json_t *v)
{
	if (!is_count(v) || job->shim_images < 0)
		job->shim_images = -1;
	else
		job->shim_images += (int64_t)json_integer_value(v);
}

/* pfshim run's calibration: the first one read holds (the same library, the same machine). */
static void calibration_take(struct summary *s, json_t *c)
{
	struct summary_job *job = s->job;
	json_t *events = json_object_get(c, "events"), *e;
	size_t i;

	if (!job->calibration_error && json_is_string(json_object_get(c, "error")))
		job->calibration_error = xstrdup(json_string_value(json_object_get(c, "error")));
	if (!job->calibration_program && json_is_string(json_object_get(c, "program")))
		job->calibration_program = xstrdup(json_string_value(json_object_get(c, "program")));
	job->calibration_cost_ns += count_or(json_object_get(c, "cost_ns"), 0);
	job->calibration_cached |= json_is_true(json_object_get(c, "cached"));
	json_array_foreach(events, i, e) {
		const char *name = json_string_value(json_object_get(e, "name"));
		const char *share = string_or(json_object_get(e, "share"), "");
		json_t *bare = json_object_get(e, "bare"), *pre = json_object_get(e, "preloaded");
		json_t *in = json_object_get(e, "in_process"), *off = json_object_get(e, "off");
		json_t *setup = json_object_get(e, "setup");

		for (int f = 0; f < SHARE_FIELDS; f++) {
			if (strcmp(share, summary_share_names[f]) || job->calibration[f].known ||
			    !name || !is_count(bare) || !is_count(pre) || !is_count(in))
				continue;
			if (s->opt.events.n && names_find(&s->opt.events, name) < 0)
				continue;
			job->calibration[f] = (struct summary_calibration){
				.known = true, .event = summary_event_index(s, name, "", 1.0),
				.bare = count_or(bare, 0), .preloaded = count_or(pre, 0),
				.in_process = count_or(in, 0), .split = is_count(off),
				.off = count_or(off, 0),
				/* an image that never reported did its set-up: without it, all it measured */
				.setup = count_or(setup, count_or(in, 0)),
				.per_1000_faults = count_or(json_object_get(e, "per_1000_faults"), 0),
				.per_fork = count_or(json_object_get(e, "per_fork"), 0),
				.per_exec = count_or(json_object_get(e, "per_exec"), 0),
			};
		}
	}
}

/* A job count's identity: its machine (by its boot), pid namespace, command and end. */
static uint64_t job_key(json_t *o)
{
	const char *machine = string_or(json_object_get(o, "boot_id"),
					string_or(json_object_get(o, "hostname"), ""));
	uint64_t k[4] = {
		count_or(json_object_get(o, "pid_ns"), 0), count_or(json_object_get(o, "pid"), 0),
		count_or(json_object_get(o, "end_realtime_ns"), 0),
		count_or(json_object_get(o, "elapsed_ns"), 0),
	};

	return hash_bytes(hash_bytes(HASH_SEED, machine, strlen(machine)), k, sizeof(k));
}

void summary_job_take(struct summary *s, json_t *o)
{
	json_t *events = json_object_get(o, "events"), *procs = json_object_get(o, "processes");
	json_t *end = json_object_get(o, "end"), *e, *p;
	struct summary_job *job = s->job;
	uint64_t key = job_key(o);
	bool records_lost = count_or(json_object_get(o, "lost_records"), 0) > 0;
	size_t i;

	for (int k = 0; job && k < job->nr_keys; k++)
		if (job->keys[k] == key)	/* the same job's count again (a directory named twice) */
			return;
	if (!job) {
		job = s->job = xrealloc(NULL, sizeof(*job));
		*job = (struct summary_job){
			.host = xstrdup(string_or(json_object_get(o, "hostname"), "")),
			.boot_id = json_is_string(json_object_get(o, "boot_id")) ?
				xstrdup(json_string_value(json_object_get(o, "boot_id"))) : NULL,
			.pid_ns = count_or(json_object_get(o, "pid_ns"), 0),
			.pid = (int)json_integer_value(json_object_get(o, "pid")),
			.end_exit = (int)count_or(json_object_get(end, "exit"), (uint64_t)-1),
			.end_signal = (int)count_or(json_object_get(end, "signal"), (uint64_t)-1),
			.elapsed_ns = count_or(json_object_get(o, "elapsed_ns"), 0),
		};
	}
	job->keys = xrealloc(job->keys, (size_t)(job->nr_keys + 1) * sizeof(*job->keys));
	job->keys[job->nr_keys++] = key;
	/* Several job counts: the latest end (a row past its own job's end but not past it is missed) */
	if (count_or(json_object_get(o, "end_realtime_ns"), 0) > job->end_realtime_ns)
		job->end_realtime_ns = count_or(json_object_get(o, "end_realtime_ns"), 0);
	job->lost_records += count_or(json_object_get(o, "lost_records"), 0);
	job->ledger_malformed += count_or(json_object_get(o, "ledger_malformed"), 0);
	shim_images_take(job, json_object_get(o, "shim_images"));
	job->execs += count_or(json_object_get(o, "execs"), 0);
	job->unnamed |= json_is_null(procs);
	job->running_maybe |= json_is_null(procs) || records_lost;
	json_array_foreach(events, i, e) {
		const char *name = json_string_value(json_object_get(e, "name"));
		json_t *scale = json_object_get(e, "scale"), *value = json_object_get(e, "value");
		int n;

		if (s->opt.events.n && names_find(&s->opt.events, name) < 0)
			continue;
		n = job_event(job, summary_event_index(s, name,
			string_or(json_object_get(e, "unit"), ""),
			json_is_number(scale) ? json_number_value(scale) : 1.0));
		if (!json_is_integer(value))
			continue;
		if (job->total[n] == UINT64_MAX)
			job->total[n] = 0;
		count_add(&job->total[n], (uint64_t)json_integer_value(value));
	}
	calibration_take(s, json_object_get(o, "calibration"));	/* after the events: their units */
	json_array_foreach(procs, i, p) {
		job->running_maybe |= json_is_false(json_object_get(p, "exited"));
		job->process = xrealloc(job->process,
					(size_t)(job->nr_processes + 1) * sizeof(*job->process));
		job->process[job->nr_processes++] = (struct summary_job_process){
			.pid = (int)json_integer_value(json_object_get(p, "pid")),
			.program = xstrdup(string_or(json_object_get(p, "program"), "?")),
			.kind = process_kind(p, records_lost),
			.uncounted = process_uncounted(p, records_lost),
			.report_error = json_is_string(json_object_get(p, "report_error")) ?
				xstrdup(json_string_value(json_object_get(p, "report_error"))) : NULL,
		};
	}
}

void summary_signal_end_count(struct summary *s, json_t *report)
{
	const char *name = json_string_value(json_object_get(report, "signal_name"));
	const char *program = string_or(json_object_get(report, "program"), "?");
	char key[300];
	int n;

	if (strcmp(string_or(json_object_get(report, "reason"), ""), "signal"))
		return;
	if (name)
		snprintf(key, sizeof(key), "%s\t%s", name, program);
	else	/* a real-time signal: no classic name */
		snprintf(key, sizeof(key), "signal %d\t%s",
			 (int)count_or(json_object_get(report, "signal"), 0), program);
	n = names_find(&s->signal_ends, key);
	if (n < 0) {
		n = names_add(&s->signal_ends, key);
		s->signal_end_count = xrealloc(s->signal_end_count,
					       (size_t)s->signal_ends.n * sizeof(uint64_t));
		s->signal_end_count[n] = 0;
	}
	s->signal_end_count[n]++;
}

/* A program's tally among the processes without a report, by why. */
static void unreported_name(struct summary_job *job, enum summary_kind kind, const char *program)
{
	struct names *names = &job->unreported_programs[kind];
	int n = names_find(names, program);

	if (n < 0) {
		n = names_add(names, program);
		job->unreported_count[kind] = xrealloc(job->unreported_count[kind],
						       (size_t)names->n * sizeof(uint64_t));
		job->unreported_count[kind][n] = 0;
	}
	job->unreported_count[kind][n]++;
	job->kind_count[kind]++;
}

/* An image counted in a row past the command's end, of @program. */
static void outlived_add(struct summary_job *job, const char *program)
{
	job->outlived++;
	if (names_find(&job->outlived_programs, program) < 0)
		names_add(&job->outlived_programs, program);
}

/* A process the kernel stopped counting at an exec, which reported all the same. */
static void uncounted_reported_add(struct summary_job *job, const struct summary_job_process *proc)
{
	uint64_t n = job->uncounted_reported++;

	if (names_find(&job->uncounted_programs, proc->program) < 0)
		names_add(&job->uncounted_programs, proc->program);
	job->uncounted_keys = xrealloc(job->uncounted_keys, 2 * (n + 1) * sizeof(uint64_t));
	job->uncounted_keys[2 * n] = summary_process_key(job->boot_id ? job->boot_id : "",
							 job->pid_ns, proc->pid);
	job->uncounted_keys[2 * n + 1] = summary_process_key(job->host, job->pid_ns, proc->pid);
}

/* The job's totals and their part in no row, laid out as the summary's events. */
static void sums_by_event(struct summary *s)
{
	struct summary_job *job = s->job;
	size_t size = (size_t)(s->nr_events + 1) * sizeof(struct summary_sum);

	job->total_sums = xrealloc(job->total_sums, size);
	job->rest_sums = xrealloc(job->rest_sums, size);
	memset(job->total_sums, 0, size);
	memset(job->rest_sums, 0, size);
	for (int i = 0; i < job->nr_events; i++) {
		int k = job->event[i];
		uint64_t total = job->total[i], rows = s->totals[k].value;

		if (total == UINT64_MAX) {
			job->total_sums[k].not_supported = job->rest_sums[k].not_supported = 1;
			continue;
		}
		job->total_sums[k] = (struct summary_sum){ .value = total, .counted = 1 };
		if (job->rest_unknown)
			continue;
		/* Never below 0: a report's clock can run a little past the kernel's last read. */
		job->rest_sums[k] = (struct summary_sum){
			.value = total > rows ? total - rows : 0, .counted = 1 };
	}
}

void summary_job_finish(struct summary *s)
{
	struct summary_job *job = s->job;

	job->unreported = job->outlived = job->uncounted_reported = 0;
	/* Images that reported after the command's end: what their rows hold past the totals */
	for (int i = 0; job->end_realtime_ns && i < s->nr_ends; i++)
		if (s->ends[i].end_ns > job->end_realtime_ns)
			outlived_add(job, s->programs.name[s->ends[i].program]);
	for (int p = 0; p < job->nr_processes; p++) {
		const struct summary_job_process *proc = &job->process[p];

		/* Its reports name the job's machine by its boot, whatever host name they took */
		if ((job->boot_id && *job->boot_id &&
		     summary_process_ended(s, summary_process_key(job->boot_id, job->pid_ns, proc->pid))) ||
		    summary_process_ended(s, summary_process_key(job->host, job->pid_ns, proc->pid))) {
			if (proc->kind == KIND_RUNNING && !job->end_realtime_ns)	/* an older job count */
				outlived_add(job, proc->program);
			if (proc->uncounted)
				uncounted_reported_add(job, proc);
			continue;
		}
		job->unreported++;
		if (proc->kind == KIND_LOST) {
			char key[300];

			snprintf(key, sizeof(key), "%s\t%s", proc->report_error, proc->program);
			unreported_name(job, KIND_LOST, key);
			continue;
		}
		/* The kernel named processes it could not tell the images of: unknown too. */
		unreported_name(job, job->shim_images < 0 ? KIND_UNKNOWN : proc->kind, proc->program);
	}
	job->rest_unknown = job->outlived || job->uncounted_reported;
	sums_by_event(s);
	summary_share_finish(s);
}

