/* SPDX-License-Identifier: MIT */
/*
 * test_scheduler.c: preload/scheduler.c, the batch job from each
 * scheduler's documented variables: Slurm's job and step, Flux before the
 * Slurm allocation it runs in, LSF's array element, PBS's id as it is;
 * empty and too long values passed over.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "preload/config.h"
#include "preload/scheduler.h"

static const char *const *environment;

static const char *env_lookup(const char *name)
{
	for (const char *const *e = environment; e && *e; e += 2)
		if (strcmp(e[0], name) == 0)
			return e[1];
	return NULL;
}

static struct scheduler_job job;

static void read_with(const char *const *env)
{
	environment = env;
	memset(&job, 0x55, sizeof(job));	/* every field written, whatever was there */
	scheduler_job_read(&job, env_lookup);
}

static void assert_job(const char *scheduler, const char *id, const char *step)
{
	if (!scheduler) {
		assert_null(job.scheduler);
		assert_string_equal(job.id, "");
		assert_string_equal(job.step, "");
		return;
	}
	assert_non_null(job.scheduler);
	assert_string_equal(job.scheduler, scheduler);
	assert_string_equal(job.id, id);
	assert_string_equal(job.step, step);
}

static void test_none(void **state)
{
	static const char *const none[] = { "SLURM_PROCID", "3", "SLURM_STEP_ID", "0", NULL };

	(void)state;
	read_with(none);
	assert_job(NULL, NULL, NULL);
}

/* srun's tasks have both; the batch script itself only the job (measured, Slurm 22.05). */
static void test_slurm(void **state)
{
	static const char *const step[] = { "SLURM_JOB_ID", "1234", "SLURM_STEP_ID", "0",
					    "SLURM_PROCID", "2", NULL };
	static const char *const batch[] = { "SLURM_JOB_ID", "1235", NULL };

	(void)state;
	read_with(step);
	assert_job("slurm", "1234", "0");
	read_with(batch);
	assert_job("slurm", "1235", "");
}

/* A Flux instance inside a Slurm job: its jobs carry both; Flux's is theirs. */
static void test_flux_inside_slurm(void **state)
{
	static const char *const both[] = { "SLURM_JOB_ID", "77", "SLURM_STEP_ID", "0",
					    "FLUX_JOB_ID", "\xc6\x92" "2KnEi3Kqs", NULL };

	(void)state;
	read_with(both);
	assert_job("flux", "\xc6\x92" "2KnEi3Kqs", "");
}

/* LSF: LSB_JOBINDEX is 0 outside an array; an element is "ID[INDEX]". */
static void test_lsf(void **state)
{
	static const char *const plain[] = { "LSB_JOBID", "4321", "LSB_JOBINDEX", "0", NULL };
	static const char *const element[] = { "LSB_JOBID", "4321", "LSB_JOBINDEX", "12", NULL };
	static const char *const odd[] = { "LSB_JOBID", "4321", "LSB_JOBINDEX", "1x", NULL };

	(void)state;
	read_with(plain);
	assert_job("lsf", "4321", "");
	read_with(element);
	assert_job("lsf", "4321[12]", "");
	read_with(odd);
	assert_job("lsf", "4321", "");
}

static void test_pbs(void **state)
{
	static const char *const pbs[] = { "PBS_JOBID", "1234[5].pbs-server", NULL };

	(void)state;
	read_with(pbs);
	assert_job("pbs", "1234[5].pbs-server", "");
}

/* Empty or too long: not an id; the next scheduler's is taken. */
static void test_bad_values(void **state)
{
	static char longest[SCHEDULER_ID_MAX], too_long[SCHEDULER_ID_MAX + 1];
	static const char *empty[] = { "FLUX_JOB_ID", "", "PBS_JOBID", "9.srv", NULL };
	static const char *sizes[] = { "SLURM_JOB_ID", too_long, "LSB_JOBID", longest,
				       "LSB_JOBINDEX", "3", NULL };

	(void)state;
	memset(longest, '7', sizeof(longest) - 1);
	memset(too_long, '8', sizeof(too_long) - 1);
	read_with(empty);
	assert_job("pbs", "9.srv", "");
	/* the longest id that fits is taken; its array index would not fit: left off */
	read_with(sizes);
	assert_job("lsf", longest, "");
}

/* config_read() carries it into struct config, and a secure process reads nothing. */
static void test_in_config(void **state)
{
	static const char *const env[] = { "SLURM_JOB_ID", "1234", "SLURM_STEP_ID", "5", NULL };
	struct config c;

	(void)state;
	environment = env;
	config_read_secure(&c, env_lookup, NULL, false);
	assert_string_equal(c.job.scheduler, "slurm");
	assert_string_equal(c.job.id, "1234");
	assert_string_equal(c.job.step, "5");
	config_read_secure(&c, env_lookup, NULL, true);
	assert_null(c.job.scheduler);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_slurm),
		cmocka_unit_test(test_flux_inside_slurm),
		cmocka_unit_test(test_lsf),
		cmocka_unit_test(test_pbs),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_in_config),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
