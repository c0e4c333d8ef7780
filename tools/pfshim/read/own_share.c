/* SPDX-License-Identifier: MIT */
/*
 * own_share.c: pfshim's own share of a job's counts, in a summary. Each
 * counted image's report says what the shim measured of itself there (its
 * set-up and its reports: preload/share.h); pfshim run's calibration says
 * what loading the library costs an image beyond that (calibrate.h). The
 * job's share is then, per event:
 *
 *   the reports' shares
 *   + the loader's part (preloaded off - bare) for each image that loaded the shim
 *   + the end's part (preloaded - off - in_process) for each image that reported
 *   + the set-up's part of in_process for each that loaded it and did not report
 *     (killed by SIGKILL at any moment: its set-up is the part it surely did)
 *   + the price of a page fault under the shim's counters, per 1000, for each
 *     page fault the reports counted (the kernel's extra work: no reading of
 *     the shim's sees it)
 *   + the price of a fork for each child the reports say their image forked
 *
 * where "reported" is before the command's end, which ends the totals (an
 * image that reported later, or past an exec the kernel stopped counting
 * at, is late_sums()'s), and "less pfshim's share" is the totals less it:
 * what perf stat would count of the job without the shim. Only page-faults, task-clock and
 * context-switches can be measured so: any other event's share is "not
 * measured". The method and its limits: docs/pfshim.md "pfshim's own share".
 */
#include <string.h>

#include "tools/pfshim/read/read.h"


void summary_share_count(struct summary *s, json_t *report)
{
	json_t *share = json_object_get(report, "pfshim_share");
	struct summary_end *end = &s->ends[s->nr_ends - 1];

	if (!json_is_object(share))
		return;
	for (int f = 0; f < SHARE_FIELDS; f++) {
		end->share[f] = count_or(json_object_get(share, summary_share_names[f]), 0);
		count_add(&s->share.value[f], end->share[f]);
	}
	end->has_share = true;
	end->loaded = json_is_true(json_object_get(share, "loaded"));
	end->forks = count_or(json_object_get(share, "forks"), 0);
	s->share.images++;
	s->share.loaded += end->loaded;
	count_add(&s->share.forks, end->forks);
	s->share.unmeasured += json_is_false(json_object_get(share, "setup_measured")) ||
			       json_is_false(json_object_get(share, "reports_measured"));
}

/* Also the share field an event of the summary is when no calibration said (a job count of version 1). */
int summary_share_field(const char *name)
{
	static const char *const names[][2] = {
		[SHARE_PAGE_FAULTS] = { "page-faults", "faults" },
		[SHARE_TASK_CLOCK] = { "task-clock", "task-clock" },
		[SHARE_CONTEXT_SWITCHES] = { "context-switches", "cs" },
	};
	size_t n = strcspn(name, ":");

	for (int f = 0; f < SHARE_FIELDS; f++)
		for (int a = 0; a < 2; a++)
			if (strlen(names[f][a]) == n && !strncmp(name, names[f][a], n))
				return f;
	return -1;
}

/*
 * The calibration's two parts no process sees of itself: the loader's
 * (preloaded off less bare) and the end's (preloaded less off less what
 * its report measured: the report after its last read, the exit from the
 * counters). Without the off runs (an older job count), all is the loader's.
 * A part the runs' noise makes negative is 0.
 */
static void calibration_parts(const struct summary_calibration *c, uint64_t *loader, uint64_t *end)
{
	uint64_t off = c->split ? c->off : c->preloaded - (c->preloaded > c->in_process ?
							      c->in_process : c->preloaded);
	uint64_t on = c->preloaded > c->in_process ? c->preloaded - c->in_process : 0;

	*loader = off > c->bare ? off - c->bare : 0;
	*end = c->split && on > c->off ? on - c->off : 0;
}

static int field_of(const struct summary *s, int k)
{
	for (int f = 0; f < SHARE_FIELDS; f++)
		if (s->job->calibration[f].known && s->job->calibration[f].event == k)
			return f;
	return summary_share_field(s->events[k].name);
}

/* @a x @b, saturated as count_add() saturates: a job count is input, its prices any size. */
static uint64_t count_times(uint64_t a, uint64_t b)
{
	uint64_t v;

	return __builtin_mul_overflow(a, b, &v) || v > SUMMARY_COUNT_MAX ? SUMMARY_COUNT_MAX : v;
}

/* The event whose count the reports' page faults are (each one paid the fault's price), or -1. */
static int faults_event(const struct summary *s)
{
	for (int k = 0; k < s->nr_events; k++)
		if (field_of(s, k) == SHARE_PAGE_FAULTS && s->totals[k].counted)
			return k;
	return -1;
}

/* @a less @b, never below 0 */
static uint64_t minus(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/*
 * What of the reports' sums lies past the totals, which end with the
 * command (pfshim-job.jsonl's end_realtime_ns): the images that reported
 * later. One that started after the end is wholly past it; one that started
 * before is priced like one killed before its report, by its loading and
 * the set-up's price (summary_share_finish()): its own share, page faults
 * and forks lie on both sides of the end, so all of them are left out
 * rather than all counted. The share then leans low by their part before
 * the end, and never holds what the totals do not.
 */
struct late {
	uint64_t value[SHARE_FIELDS];
	uint64_t images, loaded, loaded_after, forks, faults;
};

/*
 * The last image of a process the kernel stopped counting at its exec
 * (summary_job.uncounted_keys): wholly outside the totals, its loading too.
 */
static bool image_uncounted(const struct summary_job *job, const struct summary_end *e)
{
	for (uint64_t k = 0; !e->exec_end && k < 2 * job->uncounted_reported; k++)
		if (job->uncounted_keys[k] == e->process)
			return true;
	return false;
}

static void late_sums(const struct summary *s, int faults_k, struct late *late)
{
	uint64_t end = s->job->end_realtime_ns;

	memset(late, 0, sizeof(*late));
	for (int i = 0; i < s->nr_ends; i++) {
		const struct summary_end *e = &s->ends[i];
		bool outside = image_uncounted(s->job, e);

		if (!outside && (!end || e->end_ns <= end))
			continue;
		if (faults_k >= 0 && e->faults_event == faults_k)
			count_add(&late->faults, e->faults);
		if (!e->has_share)
			continue;
		for (int f = 0; f < SHARE_FIELDS; f++)
			count_add(&late->value[f], e->share[f]);
		late->images++;
		late->loaded += e->loaded;
		late->loaded_after += e->loaded && (outside || e->start_ns >= end);
		count_add(&late->forks, e->forks);
	}
}

void summary_share_finish(struct summary *s)
{
	struct summary_job *job = s->job;
	size_t size = (size_t)(s->nr_events + 1) * sizeof(struct summary_sum);
	int faults_k = faults_event(s);
	struct late late;
	uint64_t loaded, reported_loaded, unreported, images, forks, faults;

	late_sums(s, faults_k, &late);
	/* Images that loaded the shim before the end: the kernel's count, else the reports' */
	loaded = job->shim_images >= 0 ? (uint64_t)job->shim_images
				       : minus(s->share.loaded, late.loaded_after);
	reported_loaded = minus(s->share.loaded, late.loaded);
	unreported = minus(loaded, reported_loaded);
	images = minus(s->share.images, late.images);
	forks = minus(s->share.forks, late.forks);
	faults = faults_k >= 0 ? minus(s->totals[faults_k].value, late.faults) : 0;

	job->share_sums = xrealloc(job->share_sums, size);
	job->less_share_sums = xrealloc(job->less_share_sums, size);
	memset(job->share_sums, 0, size);
	memset(job->less_share_sums, 0, size);
	for (int k = 0; k < s->nr_events; k++) {
		int f = field_of(s, k);
		const struct summary_calibration *c = f >= 0 ? &job->calibration[f] : NULL;
		uint64_t share, total = job->total_sums[k].value;

		if (f < 0 || !job->total_sums[k].counted)
			continue;	/* not measured */
		share = minus(s->share.value[f], late.value[f]);
		if (c->known) {
			uint64_t loader, end;

			calibration_parts(c, &loader, &end);
			count_add(&share, count_times(loader, loaded));
			count_add(&share, count_times(end, images));
			count_add(&share, count_times(c->setup, unreported));
			count_add(&share, count_times(c->per_1000_faults, faults) / 1000);
			count_add(&share, count_times(c->per_fork, forks));
			count_add(&share, count_times(c->per_exec, job->execs));
		}
		job->share_sums[k] = (struct summary_sum){ .value = share, .counted = 1 };
		job->less_share_sums[k] = (struct summary_sum){
			.value = total > share ? total - share : 0, .counted = 1 };
	}
}
