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

#include "tools/pfshim/summary.h"

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

void summary_job_take(struct summary *s, json_t *o)
{
	json_t *events = json_object_get(o, "events"), *procs = json_object_get(o, "processes");
	json_t *end = json_object_get(o, "end"), *e, *p;
	struct summary_job *job = s->job;
	size_t i;

	if (!job) {
		job = s->job = xrealloc(NULL, sizeof(*job));
		*job = (struct summary_job){
			.host = xstrdup(string_or(json_object_get(o, "hostname"), "")),
			.pid_ns = count_or(json_object_get(o, "pid_ns"), 0),
			.pid = (int)json_integer_value(json_object_get(o, "pid")),
			.end_exit = (int)count_or(json_object_get(end, "exit"), (uint64_t)-1),
			.end_signal = (int)count_or(json_object_get(end, "signal"), (uint64_t)-1),
		};
	}
	job->lost_records += count_or(json_object_get(o, "lost_records"), 0);
	job->unnamed |= json_is_null(procs);
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
	json_array_foreach(procs, i, p) {
		job->process = xrealloc(job->process,
					(size_t)(job->nr_processes + 1) * sizeof(*job->process));
		job->process[job->nr_processes++] = (struct summary_job_process){
			.pid = (int)json_integer_value(json_object_get(p, "pid")),
			.program = xstrdup(string_or(json_object_get(p, "program"), "?")),
		};
	}
}

/* A program's tally among the processes without a report. */
static void unreported_name(struct summary_job *job, const char *program)
{
	int n = names_find(&job->unreported_programs, program);

	if (n < 0) {
		n = names_add(&job->unreported_programs, program);
		job->unreported_count = xrealloc(job->unreported_count,
			(size_t)job->unreported_programs.n * sizeof(uint64_t));
		job->unreported_count[n] = 0;
	}
	job->unreported_count[n]++;
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
		/* Never below 0: a report's clock can run a little past the kernel's last read. */
		job->rest_sums[k] = (struct summary_sum){
			.value = total > rows ? total - rows : 0, .counted = 1 };
	}
}

void summary_job_finish(struct summary *s)
{
	struct summary_job *job = s->job;

	job->unreported = 0;
	for (int p = 0; p < job->nr_processes; p++) {
		const struct summary_job_process *proc = &job->process[p];

		if (summary_process_ended(s, summary_process_key(job->host, job->pid_ns, proc->pid)))
			continue;
		job->unreported++;
		unreported_name(job, proc->program);
	}
	sums_by_event(s);
}

void summary_job_free(struct summary_job *job)
{
	for (int p = 0; p < job->nr_processes; p++)
		free(job->process[p].program);
	free(job->process);
	free(job->host);
	free(job->event);
	free(job->total);
	free(job->unreported_count);
	free(job->total_sums);
	free(job->rest_sums);
	names_free(&job->unreported_programs);
}
