/* SPDX-License-Identifier: MIT */
/*
 * test_summary.c: tools/pfshim/read/summary.c, combine.c and tree.c on reports
 * written here as text: an image's last report counts once whatever the
 * order it is read in (exit first or last, seq against wall time, a report
 * read twice); regions' statistics over groups; the series' steps; the tree
 * of an exec chain with children placed under the image that forked them,
 * and a cycle of ppids that must end; a job count's kinds and pfshim's own
 * share (job.c, own_share.c); the job's processes known by their machine's
 * boot, whatever host name they took.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tools/pfshim/read/read.h"
#include "tools/pfshim/view/view.h"

/* One report line: pid, ppid, start, wall, reason, seq (-1: null), value, delta (-1: null), rank. */
static char *report(int pid, int ppid, long long start, long long wall, const char *reason,
		    int seq, int value, int delta, int rank, const char *regions)
{
	static char buf[8][2048];
	static int at;
	char *b = buf[at++ % 8];
	char seqs[16] = "null", deltas[16] = "null", ranks[16] = "null";

	if (seq >= 0)
		snprintf(seqs, sizeof(seqs), "%d", seq);
	if (delta >= 0)
		snprintf(deltas, sizeof(deltas), "%d", delta);
	if (rank >= 0)
		snprintf(ranks, sizeof(ranks), "%d", rank);
	snprintf(b, 2048, "{\"schema\":\"pfshim.report\",\"version\":3,\"program\":\"p%d\",\"pid\":%d,"
		 "\"ppid\":%d,\"hostname\":\"h\",\"rank\":%s,\"start_ns\":%lld,\"wall_ns\":%lld,"
		 "\"reason\":\"%s\",\"seq\":%s,\"interval_ns\":100,\"events\":[{\"name\":\"e\","
		 "\"status\":\"counted\",\"value\":%d,\"delta\":%s,\"unit\":\"\",\"scale\":1}]%s%s}\n",
		 pid, pid, ppid, ranks, start, wall, reason, seqs, value, deltas,
		 regions ? ",\"regions\":" : "", regions ? regions : "");
	return b;
}

static void add(struct summary *s, const char *text)
{
	summary_add_text(s, "test", text, strlen(text));
}

static uint64_t total(const struct summary *s)
{
	return s->nr_events ? s->totals[0].value : 0;
}

static void test_last_report_counts(void **state)
{
	const char *lines[] = {
		report(10, 1, 1000, 100, "interval", 1, 10, 10, -1, NULL),
		report(10, 1, 1000, 200, "interval", 2, 30, 20, -1, NULL),
		report(10, 1, 1000, 300, "exit", 3, 35, 5, -1, NULL),
		report(11, 1, 2000, 50, "signal", -1, 7, -1, -1, NULL),
		report(11, 1, 2000, 90, "exit", -1, 9, -1, -1, NULL),
		report(12, 1, 3000, 50, "signal", -1, 3, -1, -1, NULL),	/* killed after it */
		report(12, 1, 3000, 40, "explicit", -1, 2, -1, -1, NULL),	/* earlier: loses */
	};

	(void)state;
	/* every order: forwards, backwards, and each line twice */
	for (int order = 0; order < 3; order++) {
		struct summary s;

		summary_init(&s, NULL);
		for (int k = 0; k < 7; k++) {
			add(&s, lines[order == 1 ? 6 - k : k]);
			if (order == 2)
				add(&s, lines[k]);
		}
		summary_finish(&s);
		assert_int_equal(total(&s), 35 + 9 + 3);
		assert_int_equal(s.images, 3);
		assert_int_equal(s.processes, 3);
		assert_int_equal(s.reports, order == 2 ? 14 : 7);
		summary_free(&s);
	}
}

static void test_seq_before_wall(void **state)
{
	struct summary s;

	(void)state;
	summary_init(&s, NULL);
	/* the higher seq wins even with a smaller wall_ns (a clock that stepped) */
	add(&s, report(5, 1, 1000, 900, "interval", 1, 1, 1, -1, NULL));
	add(&s, report(5, 1, 1000, 800, "interval", 2, 4, 3, -1, NULL));
	summary_finish(&s);
	assert_int_equal(total(&s), 4);
	summary_free(&s);
}

static void test_exec_is_new_image(void **state)
{
	struct summary_options opt = { .by = BY_PROCESS };
	struct summary s;

	(void)state;
	summary_init(&s, &opt);
	add(&s, report(7, 1, 1000, 10, "exec", -1, 100, -1, -1, NULL));
	add(&s, report(7, 1, 1020, 10, "exit", -1, 50, -1, -1, NULL));
	summary_finish(&s);
	assert_int_equal(s.images, 2);
	assert_int_equal(s.nr_groups, 1);
	assert_int_equal(s.groups[0].images, 2);
	assert_int_equal(s.groups[0].sums[0].value, 150);
	summary_free(&s);
}

#define REGION(sum, min, max) \
	"{\"threads\":[{\"misuse\":{\"end_without_begin\":1,\"bad_handle\":0,\"table_full\":0}}]," \
	"\"totals\":[{\"name\":\"work\",\"threads\":2,\"calls\":4,\"reentries\":0,\"unclosed\":1," \
	"\"wall_ns\":{\"status\":\"counted\",\"threads\":2,\"sum\":" #sum ",\"min\":" #min ",\"max\":" #max "}," \
	"\"events\":[{\"name\":\"e\",\"status\":\"counted\",\"threads\":2,\"sum\":1,\"min\":0,\"max\":1}]}]}"

#define PROBE(sum, min, max) \
	"{\"probe\":[{\"name\":\"e\",\"status\":\"counted\",\"threads\":2,\"sum\":" #sum \
	",\"min\":" #min ",\"max\":" #max "}],\"threads\":[],\"totals\":[]}"

/* The probe (pfshim itself in each call) over reports: sums added, the least min, the most max. */
static void test_probe_over_reports(void **state)
{
	struct summary s;

	(void)state;
	summary_init(&s, NULL);
	add(&s, report(1, 0, 1000, 1, "exit", -1, 1, -1, -1, PROBE(40, 15, 25)));
	add(&s, report(2, 0, 1000, 1, "exit", -1, 1, -1, -1, PROBE(30, 12, 18)));
	add(&s, report(3, 0, 1000, 1, "exit", -1, 1, -1, -1, PROBE(50, 20, 30)));
	summary_finish(&s);
	assert_int_equal(s.nr_probes, 1);
	assert_int_equal(s.probes[0].sum, 120);
	assert_int_equal(s.probes[0].threads, 6);
	assert_int_equal(s.probes[0].min, 12);
	assert_int_equal(s.probes[0].max, 30);
	summary_free(&s);
}

static void test_regions_over_ranks(void **state)
{
	struct summary_options opt = { .by = BY_RANK };
	struct summary_stats st;
	struct summary s;

	(void)state;
	summary_init(&s, &opt);
	add(&s, report(1, 0, 1000, 1, "exit", -1, 1, -1, 0, REGION(100, 40, 60)));
	add(&s, report(2, 0, 1000, 1, "exit", -1, 1, -1, 1, REGION(300, 100, 200)));
	add(&s, report(3, 0, 1000, 1, "exit", -1, 1, -1, 1, REGION(200, 90, 110)));	/* rank 1 again */
	summary_finish(&s);
	assert_int_equal(s.region_names.n, 1);
	summary_region_stats(&s, 0, 0, &st);
	assert_true(st.counted);
	assert_int_equal(st.groups, 2);
	assert_int_equal(st.sum, 600);
	assert_int_equal(st.min, 100);		/* rank 0 */
	assert_int_equal(st.max, 500);		/* rank 1: 300 + 200 */
	assert_true(st.mean == 300.0);
	assert_true(st.imbalance > 1.6666 && st.imbalance < 1.6667);
	assert_int_equal(st.thread_min, 40);
	assert_int_equal(st.thread_max, 200);
	assert_int_equal(st.threads, 6);
	assert_int_equal(st.calls, 12);
	assert_int_equal(st.unclosed, 3);
	assert_int_equal(s.misuse.end_without_begin, 3);
	summary_free(&s);
}

static void test_series_steps(void **state)
{
	struct summary s;
	struct summary_point *p;

	(void)state;
	summary_init(&s, NULL);
	/* interval 100 ns from start 1000: reports at +100 (late by 4) and +200, +250 -> 1100, 1200, 1300 */
	add(&s, report(9, 1, 1000, 104, "interval", 1, 5, 5, -1, NULL));
	add(&s, report(9, 1, 1000, 200, "interval", 2, 12, 7, -1, NULL));
	add(&s, report(9, 1, 1000, 250, "exit", 3, 13, 1, -1, NULL));
	summary_finish(&s);
	assert_int_equal(s.bucket_ns, 100);
	assert_int_equal(s.nr_points, 3);
	p = summary_points_sorted(&s);
	assert_int_equal(summary_bucket_time(&s, p[0].bucket), 100);
	assert_int_equal(p[0].delta, 5);
	assert_int_equal(summary_bucket_time(&s, p[1].bucket), 200);
	assert_int_equal(p[1].delta, 7);
	assert_int_equal(summary_bucket_time(&s, p[2].bucket), 300);
	assert_int_equal(p[2].delta, 1);
	assert_int_equal(total(&s), 13);
	free(p);
	summary_free(&s);
}

static void test_tree(void **state)
{
	struct summary_options opt = { .images = true };
	struct summary s;
	int *order, *depth, n;
	char got[256] = "";

	(void)state;
	summary_init(&s, &opt);
	/* 20 (sh) forks 21 at t=1100; 21 execs at 1500; 22 forked by the first image at 1200,
	 * 23 by the second at 1600; 30 and 31, started together, are each other's parent: a
	 * cycle, cut where it closes */
	add(&s, report(23, 21, 1600, 1, "exit", -1, 1, -1, -1, NULL));
	add(&s, report(21, 20, 1500, 1, "exit", -1, 1, -1, -1, NULL));
	add(&s, report(22, 21, 1200, 1, "exit", -1, 1, -1, -1, NULL));
	add(&s, report(21, 20, 1100, 1, "exec", -1, 1, -1, -1, NULL));
	add(&s, report(20, 1, 1000, 1, "exit", -1, 1, -1, -1, NULL));
	add(&s, report(30, 31, 5000, 1, "exit", -1, 1, -1, -1, NULL));
	add(&s, report(31, 30, 5000, 1, "exit", -1, 1, -1, -1, NULL));
	summary_finish(&s);
	n = summary_tree(&s, &order, &depth);
	assert_int_equal(n, 7);
	for (int k = 0; k < n; k++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%d:%d ", depth[k],
			 s.image_list[order[k]].pid);
	assert_string_equal(got, "0:20 1:21 2:22 1:21 2:23 0:30 1:31 ");
	free(order);
	free(depth);
	summary_free(&s);
}

/*
 * A job whose process 10 (sh, of the runner's host h) exec'd after taking a
 * new host name in a UTS namespace, and whose child 11 reported under it:
 * their reports name the machine by its boot, as the job count does. One
 * process 10 of two images, the exec under its new name, 11 its child;
 * none of the job's without a report. Process 12 of another machine named
 * "n", with a pid of the job's and no boot_id, is no process of the job's.
 */
static void test_job_processes_by_boot_not_host(void **state)
{
	static const char job[] =
		"{\"schema\":\"pfshim.job\",\"version\":1,\"hostname\":\"h\",\"boot_id\":\"B\","
		"\"pid\":10,\"end\":{\"exit\":0},\"events\":[{\"name\":\"e\",\"unit\":\"\","
		"\"scale\":1,\"value\":100}],\"shim_images\":3,\"processes\":["
		"{\"pid\":10,\"program\":\"sh\",\"dynamic\":true,\"shim\":true},"
		"{\"pid\":11,\"program\":\"true\",\"dynamic\":true,\"shim\":true},"
		"{\"pid\":12,\"program\":\"true\",\"dynamic\":true,\"shim\":true}]}\n";
	static const char reports[] =
		"{\"schema\":\"pfshim.report\",\"version\":4,\"program\":\"unshare\",\"pid\":10,"
		"\"ppid\":9,\"hostname\":\"h\",\"boot_id\":\"B\",\"start_ns\":1,\"wall_ns\":5,"
		"\"reason\":\"exec\",\"events\":[{\"name\":\"e\",\"status\":\"counted\",\"value\":1,"
		"\"unit\":\"\",\"scale\":1}]}\n"
		"{\"schema\":\"pfshim.report\",\"version\":4,\"program\":\"sh\",\"pid\":10,"
		"\"ppid\":9,\"hostname\":\"other\",\"boot_id\":\"B\",\"start_ns\":2,\"wall_ns\":5,"
		"\"reason\":\"exit\",\"events\":[{\"name\":\"e\",\"status\":\"counted\",\"value\":1,"
		"\"unit\":\"\",\"scale\":1}]}\n"
		"{\"schema\":\"pfshim.report\",\"version\":4,\"program\":\"true\",\"pid\":11,"
		"\"ppid\":10,\"hostname\":\"other\",\"boot_id\":\"B\",\"start_ns\":3,\"wall_ns\":5,"
		"\"reason\":\"exit\",\"events\":[{\"name\":\"e\",\"status\":\"counted\",\"value\":1,"
		"\"unit\":\"\",\"scale\":1}]}\n"
		"{\"schema\":\"pfshim.report\",\"version\":4,\"program\":\"true\",\"pid\":12,"
		"\"ppid\":10,\"hostname\":\"n\",\"start_ns\":4,\"wall_ns\":5,"
		"\"reason\":\"exit\",\"events\":[{\"name\":\"e\",\"status\":\"counted\",\"value\":1,"
		"\"unit\":\"\",\"scale\":1}]}\n";
	struct summary_options opt = { .images = true };
	struct summary s;
	int *order, *depth, n;
	char got[128] = "";

	(void)state;
	summary_init(&s, &opt);
	add(&s, reports);
	add(&s, job);
	summary_finish(&s);
	assert_int_equal(s.processes, 3);	/* 10, 11, and the other machine's 12 */
	assert_int_equal(s.job->unreported, 1);	/* the job's own 12 */
	assert_int_equal(s.job->kind_count[KIND_NO_REPORT], 1);
	n = summary_tree(&s, &order, &depth);
	for (int k = 0; k < n; k++)
		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%d:%d:%s ", depth[k],
			 s.image_list[order[k]].pid, s.hosts.name[s.image_list[order[k]].host]);
	assert_string_equal(got, "0:10:h 0:10:other 1:11:other 0:12:n ");
	free(order);
	free(depth);
	summary_free(&s);
}

/*
 * A job of 5 processes: 10 (dynamic, the shim, reported), its fork child 14
 * (reported, no exec), 11 a static program, 12 a dynamic one without the
 * shim, 13 one with the shim and no report (SIGKILL). The share, by
 * own_share.c's sum: the reports' 9 + 4, the loader's (66 - 50) for each of
 * the 2 images that loaded the shim, the end's (78 - 66 - 10) for each of
 * the 2 that reported, the set-up's 6 for the 1 that loaded it and did not
 * report: 13 + 32 + 4 + 6 = 55.
 */
static void test_job_share_and_kinds(void **state)
{
	static const char job[] =
		"{\"schema\":\"pfshim.job\",\"version\":1,\"hostname\":\"h\",\"pid\":10,"
		"\"end\":{\"exit\":0},\"events\":[{\"name\":\"page-faults\",\"unit\":\"\","
		"\"scale\":1,\"value\":1000},{\"name\":\"cycles\",\"unit\":\"\",\"scale\":1,"
		"\"value\":5000}],\"lost_records\":0,\"shim_images\":2,\"calibration\":{"
		"\"program\":\"/bin/true\",\"runs\":5,\"cost_ns\":1000000,\"events\":[{\"name\":"
		"\"page-faults\",\"share\":\"page_faults\",\"bare\":50,\"off\":66,\"preloaded\":78,"
		"\"in_process\":10,\"setup\":6}]},\"processes\":["
		"{\"pid\":10,\"program\":\"sh\",\"dynamic\":true,\"shim\":true},"
		"{\"pid\":14,\"program\":\"sh\",\"dynamic\":true,\"shim\":true},"
		"{\"pid\":11,\"program\":\"st\",\"dynamic\":false,\"shim\":false},"
		"{\"pid\":12,\"program\":\"true\",\"dynamic\":true,\"shim\":false},"
		"{\"pid\":13,\"program\":\"sleep\",\"dynamic\":true,\"shim\":true}]}\n";
	static const char reports[] =
		"{\"schema\":\"pfshim.report\",\"version\":4,\"program\":\"sh\",\"pid\":10,"
		"\"hostname\":\"h\",\"start_ns\":1,\"wall_ns\":5,\"reason\":\"exit\","
		"\"pfshim_share\":{\"page_faults\":9,\"context_switches\":0,\"task_clock_ns\":7,"
		"\"setup\":{\"page_faults\":5,\"context_switches\":0,\"task_clock_ns\":3},"
		"\"loaded\":true,\"setup_measured\":true,\"reports_measured\":true},\"events\":["
		"{\"name\":\"page-faults\",\"status\":\"counted\",\"value\":400,\"unit\":\"\","
		"\"scale\":1}]}\n"
		"{\"schema\":\"pfshim.report\",\"version\":4,\"program\":\"sh\",\"pid\":14,"
		"\"hostname\":\"h\",\"start_ns\":2,\"wall_ns\":5,\"reason\":\"exit\","
		"\"pfshim_share\":{\"page_faults\":4,\"context_switches\":0,\"task_clock_ns\":7,"
		"\"setup\":{\"page_faults\":2,\"context_switches\":0,\"task_clock_ns\":3},"
		"\"loaded\":false,\"setup_measured\":true,\"reports_measured\":true},\"events\":["
		"{\"name\":\"page-faults\",\"status\":\"counted\",\"value\":100,\"unit\":\"\","
		"\"scale\":1}]}\n";
	struct summary s;
	const struct summary_job *j;
	int pf, cycles;
	(void)state;

	summary_init(&s, NULL);
	add(&s, job);
	add(&s, reports);
	summary_finish(&s);
	j = s.job;
	assert_non_null(j);
	pf = summary_event_index(&s, "page-faults", "", 1);
	cycles = summary_event_index(&s, "cycles", "", 1);
	assert_int_equal(s.share.images, 2);
	assert_int_equal(s.share.loaded, 1);
	assert_int_equal(s.share.value[SHARE_PAGE_FAULTS], 13);
	assert_int_equal(j->share_sums[pf].counted, 1);
	assert_int_equal(j->share_sums[pf].value, 55);
	assert_int_equal(j->less_share_sums[pf].value, 1000 - 55);
	assert_int_equal(j->share_sums[cycles].counted, 0);	/* not measured */
	assert_int_equal(j->unreported, 3);
	assert_int_equal(j->kind_count[KIND_STATIC], 1);
	assert_string_equal(j->unreported_programs[KIND_STATIC].name[0], "st");
	assert_int_equal(j->kind_count[KIND_NO_SHIM], 1);
	assert_string_equal(j->unreported_programs[KIND_NO_SHIM].name[0], "true");
	assert_int_equal(j->kind_count[KIND_NO_REPORT], 1);
	assert_string_equal(j->unreported_programs[KIND_NO_REPORT].name[0], "sleep");
	assert_int_equal(j->kind_count[KIND_UNKNOWN], 0);
	summary_free(&s);
}

/*
 * The per-unit prices: a job of one image that loaded the shim (10) and
 * forked 3 children, one of them (14) reported, 500 page faults in the
 * reports. By own_share.c's sum, task-clock: the reports' 7 + 7, the
 * loader's (1200 - 1000) for 1 image, the end's (1500 - 100 - 1200) for 2,
 * 60 ns per fault for 500 faults, 15 us per fork for 3 forks, the job's
 * records of its 2 execs at 70 us each: 14 + 200 + 400 + 30000 + 45000 +
 * 140000 = 215614. page-faults: 9 + 4, 16 x 1, 2 x 2, no price per fault, 2
 * per fork, 1 per exec: 13 + 16 + 4 + 6 + 2 = 41.
 */
static void test_job_share_per_unit(void **state)
{
	static const char job[] =
		"{\"schema\":\"pfshim.job\",\"version\":1,\"hostname\":\"h\",\"pid\":10,"
		"\"end\":{\"exit\":0},\"events\":[{\"name\":\"page-faults\",\"value\":1000},"
		"{\"name\":\"task-clock\",\"value\":9000000}],\"lost_records\":0,"
		"\"shim_images\":1,\"execs\":2,\"calibration\":{\"program\":\"/bin/true\",\"runs\":15,"
		"\"cost_ns\":1000000,\"units\":{\"pages\":8192,\"forks\":16},\"events\":["
		"{\"name\":\"page-faults\",\"share\":\"page_faults\",\"bare\":50,\"off\":66,"
		"\"preloaded\":78,\"in_process\":10,\"setup\":6,\"per_1000_faults\":0,"
		"\"per_fork\":2,\"per_exec\":1},"
		"{\"name\":\"task-clock\",\"share\":\"task_clock_ns\",\"bare\":1000,"
		"\"off\":1200,\"preloaded\":1500,\"in_process\":100,\"setup\":50,"
		"\"per_1000_faults\":60000,\"per_fork\":15000,\"per_exec\":70000}]},\"processes\":["
		"{\"pid\":10,\"program\":\"sh\",\"dynamic\":true,\"shim\":true},"
		"{\"pid\":14,\"program\":\"sh\",\"dynamic\":true,\"shim\":true}]}\n";
	static const char reports[] =
		"{\"schema\":\"pfshim.report\",\"version\":4,\"program\":\"sh\",\"pid\":10,"
		"\"hostname\":\"h\",\"start_ns\":1,\"wall_ns\":5,\"reason\":\"exit\","
		"\"pfshim_share\":{\"page_faults\":9,\"context_switches\":0,\"task_clock_ns\":7,"
		"\"setup\":{\"page_faults\":5,\"context_switches\":0,\"task_clock_ns\":3},"
		"\"forks\":3,\"loaded\":true,\"setup_measured\":true,\"reports_measured\":true},"
		"\"events\":[{\"name\":\"page-faults\",\"status\":\"counted\",\"value\":400,"
		"\"unit\":\"\",\"scale\":1},{\"name\":\"task-clock\",\"status\":\"counted\","
		"\"value\":5000000,\"unit\":\"msec\",\"scale\":1e-6}]}\n"
		"{\"schema\":\"pfshim.report\",\"version\":4,\"program\":\"sh\",\"pid\":14,"
		"\"hostname\":\"h\",\"start_ns\":2,\"wall_ns\":5,\"reason\":\"exit\","
		"\"pfshim_share\":{\"page_faults\":4,\"context_switches\":0,\"task_clock_ns\":7,"
		"\"setup\":{\"page_faults\":2,\"context_switches\":0,\"task_clock_ns\":3},"
		"\"forks\":0,\"loaded\":false,\"setup_measured\":true,\"reports_measured\":true},"
		"\"events\":[{\"name\":\"page-faults\",\"status\":\"counted\",\"value\":100,"
		"\"unit\":\"\",\"scale\":1},{\"name\":\"task-clock\",\"status\":\"counted\","
		"\"value\":1000000,\"unit\":\"msec\",\"scale\":1e-6}]}\n";
	struct summary s;
	const struct summary_job *j;
	int pf, tc;
	(void)state;

	summary_init(&s, NULL);
	add(&s, job);
	add(&s, reports);
	summary_finish(&s);
	j = s.job;
	assert_non_null(j);
	pf = summary_event_index(&s, "page-faults", "", 1);
	tc = summary_event_index(&s, "task-clock", "msec", 1e-6);
	assert_int_equal(s.share.forks, 3);
	assert_int_equal(s.totals[pf].value, 500);
	assert_int_equal(j->execs, 2);
	assert_int_equal(j->share_sums[tc].value, 215614);
	assert_int_equal(j->less_share_sums[tc].value, 9000000 - 215614);
	assert_int_equal(j->share_sums[pf].value, 41);
	assert_int_equal(j->less_share_sums[pf].value, 1000 - 41);
	summary_free(&s);
}

/*
 * A report with a share: its pid, program, start_ns, wall_ns and reason;
 * its share's page faults and task-clock ns, its forks, whether its image
 * loaded the shim; its page-faults count (and 1 ms of task-clock).
 */
#define SHARE_REPORT(pid, program, start, wall, reason, pf, tc, forks, loaded, faults)		\
	"{\"schema\":\"pfshim.report\",\"version\":4,\"program\":\"" program "\",\"pid\":" #pid	\
	",\"hostname\":\"h\",\"start_ns\":" #start ",\"wall_ns\":" #wall ",\"reason\":\"" reason	\
	"\",\"pfshim_share\":{\"page_faults\":" #pf ",\"context_switches\":0,\"task_clock_ns\":"	\
	#tc ",\"forks\":" #forks ",\"loaded\":" loaded ",\"setup_measured\":true,"		\
	"\"reports_measured\":true},\"events\":[{\"name\":\"page-faults\",\"status\":\"counted\","	\
	"\"value\":" #faults ",\"unit\":\"\",\"scale\":1},{\"name\":\"task-clock\",\"status\":"	\
	"\"counted\",\"value\":1000,\"unit\":\"msec\",\"scale\":1e-6}]}\n"

/*
 * A job that ended at 100 ns (realtime) with three images: 10 reported at
 * 6, 15 started at 50 and reported at 150, 16 started at 120. The kernel saw
 * 2 images load the shim (10 and 15). By own_share.c's sum, page-faults:
 * 10's share 9, the loader's 16 x 2, the end's 2 x 1 (10 reported before
 * the end), the set-up's 6 x 1 (15: loaded, no report before the end),
 * 2 per fork x 1 (10's): 51. task-clock: 7 + 200 x 2 + 200 x 1 + 50 x 1 +
 * 60 ns x 400 faults (10's) + 15000 x 1 = 39657. Counting the late images
 * whole would give 73 and 174177.
 */
static void test_job_share_late_images(void **state)
{
	static const char job[] =
		"{\"schema\":\"pfshim.job\",\"version\":1,\"hostname\":\"h\",\"pid\":10,"
		"\"end\":{\"exit\":0},\"end_realtime_ns\":100,\"events\":["
		"{\"name\":\"page-faults\",\"value\":1000},{\"name\":\"task-clock\",\"value\":9000000}],"
		"\"lost_records\":0,\"shim_images\":2,\"calibration\":{\"program\":\"/bin/true\","
		"\"runs\":15,\"cost_ns\":1000000,\"events\":["
		"{\"name\":\"page-faults\",\"share\":\"page_faults\",\"bare\":50,\"off\":66,"
		"\"preloaded\":78,\"in_process\":10,\"setup\":6,\"per_1000_faults\":0,"
		"\"per_fork\":2,\"per_exec\":0},"
		"{\"name\":\"task-clock\",\"share\":\"task_clock_ns\",\"bare\":1000,"
		"\"off\":1200,\"preloaded\":1500,\"in_process\":100,\"setup\":50,"
		"\"per_1000_faults\":60000,\"per_fork\":15000,\"per_exec\":0}]},\"processes\":["
		"{\"pid\":10,\"program\":\"sh\",\"dynamic\":true,\"shim\":true,\"exited\":true},"
		"{\"pid\":15,\"program\":\"daemon\",\"dynamic\":true,\"shim\":true,\"exited\":false}]}\n";
	static const char reports[] =
		SHARE_REPORT(10, "sh", 1, 5, "exit", 9, 7, 1, "true", 400)
		SHARE_REPORT(15, "daemon", 50, 100, "exit", 7, 8, 2, "true", 300)
		SHARE_REPORT(16, "child", 120, 10, "exit", 5, 9, 4, "true", 200);
	struct summary s;
	const struct summary_job *j;
	int pf, tc;
	(void)state;

	summary_init(&s, NULL);
	add(&s, reports);	/* the job's file read last: nothing is decided before it */
	add(&s, job);
	summary_finish(&s);
	j = s.job;
	assert_non_null(j);
	pf = summary_event_index(&s, "page-faults", "", 1);
	tc = summary_event_index(&s, "task-clock", "msec", 1e-6);
	assert_int_equal(j->outlived, 2);
	assert_int_equal(j->rest_sums[pf].counted, 0);	/* in no row: not known */
	assert_int_equal(j->share_sums[pf].value, 51);
	assert_int_equal(j->less_share_sums[pf].value, 1000 - 51);
	assert_int_equal(j->share_sums[tc].value, 39657);
	assert_int_equal(j->less_share_sums[tc].value, 9000000 - 39657);
	summary_free(&s);
}

/*
 * A job of sh (10) and a child (11) that reported at its exec, then exec'd
 * a program it may not read: the kernel stopped counting it there, and its
 * last image reported all the same. By own_share.c's sum, page-faults: the
 * shares of the images in the totals 9 + 4, the loader's 16 for the 1 image
 * the kernel saw load the shim, the end's 2 for each of the 2 reported in
 * the totals: 33 (the last image's share 7 and its end's part left out).
 */
static void test_job_uncounted_reported(void **state)
{
	static const char job[] =
		"{\"schema\":\"pfshim.job\",\"version\":1,\"hostname\":\"h\",\"pid\":10,"
		"\"end\":{\"exit\":0},\"end_realtime_ns\":1000,\"events\":["
		"{\"name\":\"page-faults\",\"value\":500}],\"lost_records\":0,\"shim_images\":1,"
		"\"calibration\":{\"program\":\"/bin/true\",\"runs\":15,\"cost_ns\":1,\"events\":["
		"{\"name\":\"page-faults\",\"share\":\"page_faults\",\"bare\":50,\"off\":66,"
		"\"preloaded\":78,\"in_process\":10,\"setup\":6,\"per_1000_faults\":0,"
		"\"per_fork\":0,\"per_exec\":0}]},\"processes\":["
		"{\"pid\":10,\"program\":\"sh\",\"dynamic\":true,\"shim\":true,\"exited\":true},"
		"{\"pid\":11,\"program\":\"secret\",\"dynamic\":false,\"shim\":false,\"exited\":true,"
		"\"uncounted\":true}]}\n";
	static const char reports[] =
		SHARE_REPORT(10, "sh", 1, 5, "exit", 9, 0, 0, "true", 100)
		SHARE_REPORT(11, "sh", 2, 5, "exec", 4, 0, 0, "false", 50)
		SHARE_REPORT(11, "secret", 8, 5, "exit", 7, 0, 0, "true", 3000);
	struct summary s;
	const struct summary_job *j;
	int pf;
	(void)state;

	summary_init(&s, NULL);
	add(&s, job);
	add(&s, reports);
	summary_finish(&s);
	j = s.job;
	pf = summary_event_index(&s, "page-faults", "", 1);
	assert_int_equal(j->uncounted_reported, 1);
	assert_string_equal(j->uncounted_programs.name[0], "secret");
	assert_int_equal(j->unreported, 0);
	assert_int_equal(j->rest_sums[pf].counted, 0);	/* in no row: not known */
	assert_int_equal(j->share_sums[pf].value, 33);
	summary_free(&s);
}

/* A job count is input: a price of 2^62 per fork for 3 forks saturates the share, never wraps. */
static void test_job_share_price_saturates(void **state)
{
	static const char job[] =
		"{\"schema\":\"pfshim.job\",\"version\":1,\"hostname\":\"h\",\"pid\":10,"
		"\"end\":{\"exit\":0},\"events\":[{\"name\":\"task-clock\",\"value\":9000}],"
		"\"lost_records\":0,\"shim_images\":1,\"calibration\":{\"events\":["
		"{\"name\":\"task-clock\",\"share\":\"task_clock_ns\",\"bare\":1,\"off\":1,"
		"\"preloaded\":1,\"in_process\":0,\"setup\":0,\"per_1000_faults\":0,"
		"\"per_fork\":4611686018427387904}]},\"processes\":[]}\n";
	static const char report[] =
		"{\"schema\":\"pfshim.report\",\"version\":4,\"program\":\"sh\",\"pid\":10,"
		"\"hostname\":\"h\",\"start_ns\":1,\"wall_ns\":5,\"reason\":\"exit\","
		"\"pfshim_share\":{\"page_faults\":0,\"context_switches\":0,\"task_clock_ns\":7,"
		"\"setup\":{\"page_faults\":0,\"context_switches\":0,\"task_clock_ns\":3},"
		"\"forks\":3,\"loaded\":true,\"setup_measured\":true,\"reports_measured\":true},"
		"\"events\":[{\"name\":\"task-clock\",\"status\":\"counted\",\"value\":5000,"
		"\"unit\":\"msec\",\"scale\":1e-6}]}\n";
	struct summary s;
	int tc;
	(void)state;

	summary_init(&s, NULL);
	add(&s, job);
	add(&s, report);
	summary_finish(&s);
	tc = summary_event_index(&s, "task-clock", "msec", 1e-6);
	assert_true(s.job->share_sums[tc].value == SUMMARY_COUNT_MAX);
	assert_int_equal(s.job->less_share_sums[tc].value, 0);
	summary_free(&s);
}

/* A job count of version 1 before the kinds: every unreported process of kind unknown. */
static void test_job_without_kinds(void **state)
{
	static const char job[] =
		"{\"schema\":\"pfshim.job\",\"version\":1,\"hostname\":\"h\",\"pid\":10,"
		"\"end\":{\"exit\":0},\"events\":[{\"name\":\"page-faults\",\"value\":100}],"
		"\"lost_records\":0,\"processes\":[{\"pid\":10,\"program\":\"sh\"}]}\n";
	struct summary s;
	(void)state;

	summary_init(&s, NULL);
	add(&s, job);
	summary_finish(&s);
	assert_int_equal(s.job->kind_count[KIND_UNKNOWN], 1);
	assert_int_equal(s.job->shim_images, -1);
	/* no report, no calibration: a share of 0, the totals whole */
	assert_int_equal(s.job->share_sums[0].value, 0);
	assert_int_equal(s.job->less_share_sums[0].value, 100);
	summary_free(&s);
}

/* The same job count read twice (a directory named twice, a copy of it) counts once; another job adds. */
static void test_job_read_twice(void **state)
{
	static const char job[] =
		"{\"schema\":\"pfshim.job\",\"version\":1,\"hostname\":\"h\",\"boot_id\":\"B\","
		"\"pid\":10,\"end_realtime_ns\":500,\"end\":{\"exit\":0},\"events\":["
		"{\"name\":\"page-faults\",\"value\":100}],\"lost_records\":0,\"execs\":1,"
		"\"processes\":[{\"pid\":10,\"program\":\"sh\"}]}\n";
	static const char other[] =
		"{\"schema\":\"pfshim.job\",\"version\":1,\"hostname\":\"h\",\"boot_id\":\"B\","
		"\"pid\":20,\"end_realtime_ns\":900,\"end\":{\"exit\":0},\"events\":["
		"{\"name\":\"page-faults\",\"value\":50}],\"lost_records\":0,\"execs\":1,"
		"\"processes\":[{\"pid\":20,\"program\":\"sh\"}]}\n";
	struct summary s;
	(void)state;

	summary_init(&s, NULL);
	add(&s, job);
	add(&s, job);
	summary_finish(&s);
	assert_int_equal(s.job->total_sums[0].value, 100);
	assert_int_equal(s.job->nr_processes, 1);
	assert_int_equal(s.job->execs, 1);
	summary_free(&s);

	summary_init(&s, NULL);
	add(&s, job);
	add(&s, other);
	add(&s, job);
	summary_finish(&s);
	assert_int_equal(s.job->total_sums[0].value, 150);
	assert_int_equal(s.job->nr_processes, 2);
	summary_free(&s);
}

static void test_filters(void **state)
{
	struct summary_options opt = { 0 };
	struct summary s;

	(void)state;
	names_add_list(&opt.events, "other");
	names_add_list(&opt.regions, "nowhere");
	summary_init(&s, &opt);
	add(&s, report(1, 0, 1000, 1, "exit", -1, 1, -1, 0, REGION(100, 40, 60)));
	summary_finish(&s);
	assert_int_equal(s.nr_events, 0);
	assert_int_equal(s.region_names.n, 0);
	assert_int_equal(s.images, 1);
	summary_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_last_report_counts),
		cmocka_unit_test(test_seq_before_wall),
		cmocka_unit_test(test_exec_is_new_image),
		cmocka_unit_test(test_regions_over_ranks),
		cmocka_unit_test(test_probe_over_reports),
		cmocka_unit_test(test_series_steps),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_filters),
		cmocka_unit_test(test_job_share_and_kinds),
		cmocka_unit_test(test_job_share_per_unit),
		cmocka_unit_test(test_job_share_price_saturates),
		cmocka_unit_test(test_job_share_late_images),
		cmocka_unit_test(test_job_uncounted_reported),
		cmocka_unit_test(test_job_without_kinds),
		cmocka_unit_test(test_job_read_twice),
		cmocka_unit_test(test_job_processes_by_boot_not_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
