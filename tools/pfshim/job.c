/*
 * job.c: a job as the kernel counted it (the pfshim.job object `pfshim run`
 * writes beside the reports, jobcount.h), read into the summary. Its totals
 * are the job's: every task the command made, however it ended. Its
 * processes are matched with the reports read, by (host, pid namespace,
 * pid): those no report was read of are the part of the totals in no row,
 * named by program. Input is trusted to be nothing, as for reports.
 */
#include <stdlib.h>
#include <string.h>

#include "tools/pfshim/summary.h"

/* The version of pfshim.job this reader knows. */
#define JOB_READS_VERSION 1

static bool is_count_or_null(json_t *v)
{
	return json_is_null(v) || is_count(v);
}

const char *summary_job_check(json_t *o)
{
	json_t *events = json_object_get(o, "events"), *procs = json_object_get(o, "processes");
	json_t *version = json_object_get(o, "version"), *e, *p;
	size_t i, k;

	if (!json_is_integer(version) || json_integer_value(version) < 1)
		return "a pfshim job count without a valid \"version\"";
	if (json_integer_value(version) > JOB_READS_VERSION)
		return "a job count of a newer schema version than this pfshim reads";
	if (!is_count(json_object_get(o, "pid")) || !json_is_array(events) || !json_is_array(procs))
		return "a pfshim job count without \"pid\", \"events\" or \"processes\"";
	json_array_foreach(events, i, e)
		if (!json_is_string(json_object_get(e, "name")) ||
		    !is_count_or_null(json_object_get(e, "value")))
			return "a pfshim job count with a malformed event";
	json_array_foreach(procs, i, p) {
		json_t *values = json_object_get(p, "values"), *v;

		if (!is_count(json_object_get(p, "pid")) || !json_is_array(values) ||
		    json_array_size(values) != json_array_size(events))
			return "a pfshim job count with a malformed process";
		json_array_foreach(values, k, v)
			if (!is_count_or_null(v))
				return "a pfshim job count with a malformed process";
	}
	return NULL;
}

static uint64_t value_of(json_t *v)
{
	return json_is_integer(v) ? (uint64_t)json_integer_value(v) : UINT64_MAX;
}

/* @a += @b where both are counted; a value counted in one only stays what it is. */
static void add(uint64_t *a, uint64_t b)
{
	if (b == UINT64_MAX)
		return;
	*a = *a == UINT64_MAX ? b : *a + b;
}

/* A second job read (a report over several job directories): its totals add up. */
static int job_event(struct summary_job *job, int summary_index)
{
	for (int i = 0; i < job->nr_events; i++)
		if (job->event[i] == summary_index)
			return i;
	job->event = xrealloc(job->event, (size_t)(job->nr_events + 1) * sizeof(*job->event));
	job->total = xrealloc(job->total, (size_t)(job->nr_events + 1) * sizeof(*job->total));
	job->event[job->nr_events] = summary_index;
	job->total[job->nr_events] = UINT64_MAX;
	for (int p = 0; p < job->nr_processes; p++) {
		uint64_t **value = &job->process[p].value;

		*value = xrealloc(*value, (size_t)(job->nr_events + 1) * sizeof(**value));
		(*value)[job->nr_events] = UINT64_MAX;
	}
	return job->nr_events++;
}

/*
 * The command's own counts are in no record (the runner's events are its
 * own, not inherited copies): the total less its descendants'. Processes
 * still running when the command ended are in it too.
 */
static void root_own(struct summary_job *job, int first, int root, json_t *events, const int *slot)
{
	json_t *e;
	size_t i;

	json_array_foreach(events, i, e) {
		uint64_t total = value_of(json_object_get(e, "value")), rest = 0;
		int n = slot[i];

		if (n < 0 || total == UINT64_MAX)
			continue;
		for (int p = first; p < job->nr_processes; p++)
			if (p != root && job->process[p].value[n] != UINT64_MAX)
				rest += job->process[p].value[n];
		job->process[root].value[n] = total > rest ? total - rest : 0;
	}
}

void summary_job_take(struct summary *s, json_t *o)
{
	json_t *events = json_object_get(o, "events"), *procs = json_object_get(o, "processes");
	json_t *end = json_object_get(o, "end"), *e, *p;
	struct summary_job *job = s->job;
	int *slot = xrealloc(NULL, (json_array_size(events) + 1) * sizeof(int));
	int first = job ? job->nr_processes : 0, root = -1;
	size_t i, k;

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
	json_array_foreach(events, i, e) {
		const char *name = json_string_value(json_object_get(e, "name"));
		json_t *scale = json_object_get(e, "scale");

		slot[i] = -1;
		if (s->opt.events.n && names_find(&s->opt.events, name) < 0)
			continue;
		slot[i] = job_event(job, summary_event_index(s, name,
			string_or(json_object_get(e, "unit"), ""),
			json_is_number(scale) ? json_number_value(scale) : 1.0));
		add(&job->total[slot[i]], value_of(json_object_get(e, "value")));
	}
	json_array_foreach(procs, i, p) {
		struct summary_job_process *proc;
		json_t *v;

		job->process = xrealloc(job->process,
					(size_t)(job->nr_processes + 1) * sizeof(*job->process));
		proc = &job->process[job->nr_processes++];
		*proc = (struct summary_job_process){
			.pid = (int)json_integer_value(json_object_get(p, "pid")),
			.program = xstrdup(string_or(json_object_get(p, "program"), "?")),
			};
		proc->value = xrealloc(NULL, (size_t)(job->nr_events + 1) * sizeof(uint64_t));
		for (int n = 0; n < job->nr_events; n++)
			proc->value[n] = UINT64_MAX;
		json_array_foreach(json_object_get(p, "values"), k, v)
			if (slot[k] >= 0)
				proc->value[slot[k]] = value_of(v);
		if (root < 0 && proc->pid == (int)json_integer_value(json_object_get(o, "pid")))
			root = job->nr_processes - 1;
	}
	if (root >= 0)
		root_own(job, first, root, events, slot);
	free(slot);
}

static struct summary_sum sum_of(uint64_t v)
{
	return v == UINT64_MAX ? (struct summary_sum){ .not_supported = 1 }
			       : (struct summary_sum){ .value = v, .counted = 1 };
}

/* The job's values laid out as the summary's events, for the views. */
static void sums_by_event(struct summary *s, const uint64_t *outside)
{
	struct summary_job *job = s->job;
	size_t size = (size_t)(s->nr_events + 1) * sizeof(struct summary_sum);

	job->total_sums = xrealloc(job->total_sums, size);
	job->unreported_sums = xrealloc(job->unreported_sums, size);
	job->outside_sums = xrealloc(job->outside_sums, size);
	for (int k = 0; k < s->nr_events; k++) {
		job->total_sums[k] = (struct summary_sum){ 0 };
		job->unreported_sums[k] = (struct summary_sum){ 0 };
		job->outside_sums[k] = (struct summary_sum){ 0 };
	}
	for (int i = 0; i < job->nr_events; i++) {
		int k = job->event[i];
		bool counted = job->total[i] != UINT64_MAX;

		job->total_sums[k] = sum_of(job->total[i]);
		job->unreported_sums[k] = sum_of(counted ? job->unreported_value[i] : UINT64_MAX);
		job->outside_sums[k] = sum_of(counted ? outside[i] : UINT64_MAX);
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

/*
 * Each process's count less what its reports hold: the gap is the part of
 * the totals in no row. A process whose last program reported has its gap
 * outside the reports (the loader before the shim started, the exit after
 * the report, an exec's short image before the shim starts); one whose last
 * program did not (killed, static...) is without a report, and its gap is
 * that program's whole count and whatever its earlier images did unreported.
 */
void summary_job_finish(struct summary *s)
{
	struct summary_job *job = s->job;
	uint64_t *outside = xrealloc(NULL, (size_t)(job->nr_events + 1) * sizeof(uint64_t));

	job->unreported = 0;
	job->unreported_value = xrealloc(job->unreported_value,
					 (size_t)(job->nr_events + 1) * sizeof(uint64_t));
	for (int i = 0; i < job->nr_events; i++)
		job->unreported_value[i] = outside[i] = 0;
	for (int p = 0; p < job->nr_processes; p++) {
		struct summary_job_process *proc = &job->process[p];
		uint64_t key = summary_process_key(job->host, job->pid_ns, proc->pid);
		uint64_t *gap_to;

		proc->reported = summary_process_ended(s, key);
		if (!proc->reported) {
			job->unreported++;
			unreported_name(job, proc->program);
		}
		gap_to = proc->reported ? outside : job->unreported_value;
		for (int i = 0; i < job->nr_events; i++) {
			uint64_t rows = summary_process_sum(s, key, job->event[i]);

			/* Never below 0: a report's clock can run a little past the kernel's last read. */
			if (proc->value[i] != UINT64_MAX && proc->value[i] > rows)
				gap_to[i] += proc->value[i] - rows;
		}
	}
	sums_by_event(s, outside);
	free(outside);
}

void summary_job_free(struct summary_job *job)
{
	for (int p = 0; p < job->nr_processes; p++) {
		free(job->process[p].program);
		free(job->process[p].value);
	}
	free(job->process);
	free(job->host);
	free(job->event);
	free(job->total);
	free(job->unreported_value);
	free(job->unreported_count);
	free(job->total_sums);
	free(job->unreported_sums);
	free(job->outside_sums);
	names_free(&job->unreported_programs);
}
